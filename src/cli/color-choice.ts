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
