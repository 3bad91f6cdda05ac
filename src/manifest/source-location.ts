import { visibleText } from '../visible-text.js';

/** A place in a manifest file; line and column are 1-based, as editors show them. */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/**
 * A problem with a file as a whole (a path that does not exist, a directory
 * where a file was expected): it has no line or column, and none is made up.
 */
export interface FileLocation {
  readonly file: string;
  readonly line?: undefined;
  readonly column?: undefined;
}

/** `file:line:col`, on one line whatever the file name holds. */
export function formatLocation(location: SourceLocation): string {
  return `${visibleText(location.file)}:${location.line}:${location.column}`;
}
