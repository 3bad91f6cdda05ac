import { visibleText } from '../visible-text.js';

/** A place in a manifest file; line and column are 1-based, as editors show them. */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** `file:line:col`, on one line whatever the file name holds. */
export function formatLocation(location: SourceLocation): string {
  return `${visibleText(location.file)}:${location.line}:${location.column}`;
}
