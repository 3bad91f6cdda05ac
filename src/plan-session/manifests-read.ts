import type { DesiredState } from '../manifest/desired-state.js';
import { visibleText } from '../visible-text.js';

/**
 * What the manifest walk never enters (src/manifest/manifest-files.ts):
 * named here so every command says the same thing about it.
 */
export const SKIPPED_BY_THE_WALK = ['node_modules', 'hidden directories such as .git'] as const;

/** The most directories named in the text note before "and N more". */
const SHOWN_DIRECTORIES = 10;

/** Which manifests a command read: what `validate`, `plan`, `apply` and `watch` report. */
export interface ManifestsRead {
  /** The directories that held manifest files, as displayed, in walk order. */
  readonly directories: readonly string[];
  /** What the walk skipped and why (a second link to a directory, the same file twice). */
  readonly warnings: readonly string[];
  /** True when the command was given no path and walked `.`: the case where a stray YAML file surprises. */
  readonly noPathGiven: boolean;
  /** True when a directory was walked (not only files named): then what it held is worth saying. */
  readonly walkedDirectory: boolean;
}

/** `paths`: as given to the loader (`.` when none was given). */
export function manifestsRead(
  desired: Pick<DesiredState, 'directories' | 'warnings' | 'files'>,
  paths: readonly string[],
  noPathGiven: boolean,
): ManifestsRead {
  // A path that is not itself among the files read was a directory (or held nothing).
  const files = new Set(desired.files);
  return {
    directories: desired.directories ?? [],
    warnings: desired.warnings ?? [],
    noPathGiven,
    walkedDirectory: noPathGiven || paths.some((path) => !files.has(path)),
  };
}

/**
 * The lines a command writes on stderr about what it read: one
 * `warning: …` per walk warning, then `read a, b (…)`, so a YAML file in an
 * unexpected place (or one missing) is easy to spot. The `read` line is
 * written when no path was given, and with `always` whenever a directory
 * was walked (naming only files needs no note).
 */
export function manifestsReadLines(read: ManifestsRead, options: { readonly always: boolean }): string[] {
  const lines = read.warnings.map((warning) => `warning: ${visibleText(warning)}`);
  if (read.noPathGiven || (options.always && read.walkedDirectory)) lines.push(readDirectoriesNote(read));
  return lines;
}

function readDirectoriesNote(read: ManifestsRead): string {
  const { directories } = read;
  const shown = directories.slice(0, SHOWN_DIRECTORIES).map(visibleText).join(', ');
  const more =
    directories.length > SHOWN_DIRECTORIES ? ` and ${directories.length - SHOWN_DIRECTORIES} more` : '';
  const where = read.noPathGiven ? ' below .' : '';
  const said = directories.length === 0 ? `no manifest files found${where}` : `read ${shown}${more}`;
  const skipped = `${SKIPPED_BY_THE_WALK.join(' and ')} are skipped`;
  return read.noPathGiven ? `${said} (no path given: ${skipped})` : `${said} (${skipped})`;
}

/** The same facts for `--format json` (snake_case, as all of edgesync's JSON). */
export function manifestsReadToJson(read: ManifestsRead): Record<string, unknown> {
  return {
    directories: [...read.directories],
    warnings: [...read.warnings],
    no_path_given: read.noPathGiven,
    skipped: ['node_modules', '.*'],
  };
}
