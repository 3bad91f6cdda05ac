/** A place in a manifest file; line and column are 1-based, as editors show them. */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

export function formatLocation(location: SourceLocation): string {
  return `${location.file}:${location.line}:${location.column}`;
}
