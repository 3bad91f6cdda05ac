import type { ManifestError } from '../manifest/manifest-error.js';
import { visibleText } from '../visible-text.js';

/**
 * The lines a command writes on stderr for manifest problems: one located
 * line each, and, with `detail` (`--log-level debug`), what the YAML parser
 * itself said below it, indented.
 */
export function manifestErrorLines(errors: readonly ManifestError[], detail: boolean): string[] {
  return errors.flatMap((error) => [
    error.format(),
    ...(detail ? error.notes.map((note) => `  yaml parser: ${visibleText(note)}`) : []),
  ]);
}
