/**
 * Whether text output gets ANSI colours: `--no-color` wins; then NO_COLOR
 * when it is set and non-empty (no-color.org); then FORCE_COLOR when set
 * and not `0`/`false`, so CI logs can have colour; else only on a terminal.
 */
export function useColor(
  flagColor: boolean,
  stream: { readonly isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (!flagColor) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  return stream.isTTY === true;
}

/**
 * `--no-color` on a command that prints no colour: accepted (and ignored) so
 * that a script can pass it to every edgesync command alike.
 */
export const NO_COLOR_ACCEPTED: readonly [flags: string, description: string] = [
  '--no-color',
  'accepted for scripts that pass it to every command; this command prints no colour',
];
