import type { YAMLError } from 'yaml';
import { ManifestError } from './manifest-error.js';
import type { SourceLocation } from './source-location.js';

/**
 * The one error a person reads for a file the YAML parser refused: at the
 * line to edit, saying what was expected there. The parser reports one
 * indentation mistake as up to three errors, the later ones consequences of
 * the first and often placed on the line before the mistake ("Implicit keys
 * need to be on a single line" for a line indented too deep); its own
 * messages are kept as `notes`, each `line:col: message`, for `--log-level
 * debug`.
 *
 * `locate` turns an offset into a line and column (the parser's LineCounter).
 */
export function yamlSyntaxError(
  file: string,
  text: string,
  errors: readonly YAMLError[],
  locate: (offset: number) => { readonly line: number; readonly column: number },
): ManifestError {
  const sorted = [...errors].sort((a, b) => a.pos[0] - b.pos[0]);
  const notes = sorted.map((error) => {
    const { line, column } = locate(error.pos[0]);
    return `${line}:${column}: ${firstLine(error.message)}`;
  });
  const first = sorted[0] as YAMLError;
  const lines = text.split('\n');
  const at = (line: number, column: number): SourceLocation => ({ file, line, column });
  const start = locate(first.pos[0]);
  const explained = explain(first, sorted, lines, start.line);
  const location =
    explained === undefined ? at(start.line, start.column) : at(explained.line, explained.column);
  const detail = explained?.detail ?? firstLine(first.message);
  return new ManifestError('yaml_syntax', location, '', detail, { notes });
}

interface Explained {
  readonly line: number;
  readonly column: number;
  readonly detail: string;
}

/** What was expected where the first error is, for the indentation mistakes people make; undefined for the rest. */
function explain(
  first: YAMLError,
  all: readonly YAMLError[],
  lines: readonly string[],
  line: number,
): Explained | undefined {
  if (first.code === 'TAB_AS_INDENT') {
    const column = (lines[line - 1] ?? '').indexOf('\t') + 1;
    return {
      line,
      column: Math.max(column, 1),
      detail: 'indentation: expected spaces, found a tab (YAML does not allow tabs for indentation)',
    };
  }
  if (first.code === 'BAD_INDENT' && /mapping items must start at the same column/i.test(first.message)) {
    return misalignedKey(lines, line);
  }
  // A line indented deeper than the key above it, which already has its value on its own line: the
  // parser reads the two lines as one multi-line key and places the error on the first of them.
  if (
    all.some((error) => error.code === 'MULTILINE_IMPLICIT_KEY' || error.code === 'BLOCK_AS_IMPLICIT_KEY')
  ) {
    return indentedUnderValue(lines, line);
  }
  return undefined;
}

/** A key at a column where no mapping above it starts. */
function misalignedKey(lines: readonly string[], line: number): Explained {
  const text = lines[line - 1] ?? '';
  const found = indentOf(text);
  const open = openColumns(lines, line).map((column) => column + 1);
  return {
    line,
    column: found + 1,
    detail: `indentation: expected ${keyName(text) ?? 'this line'} at column ${either(open)}, where the mappings above it start (found column ${found + 1})`,
  };
}

/** The first line after `line` that is indented deeper than it, while `line` already holds a key and its value. */
function indentedUnderValue(lines: readonly string[], line: number): Explained | undefined {
  const owner = lines[line - 1] ?? '';
  const ownerIndent = contentIndentOf(owner);
  for (let index = line; index < lines.length; index += 1) {
    const text = lines[index] ?? '';
    if (isBlankOrComment(text)) continue;
    const indent = indentOf(text);
    if (indent <= indentOf(owner)) return undefined;
    const key = keyName(owner);
    const name = key === undefined ? `line ${line}` : `${key} (line ${line})`;
    return {
      line: index + 1,
      column: indent + 1,
      detail: `indentation: expected ${keyName(text) ?? 'this line'} at column ${ownerIndent === 0 ? '1' : `${ownerIndent + 1} or less`}: it is indented under ${name}, which already has a value`,
    };
  }
  return undefined;
}

/**
 * The columns (0-based) where the block mappings and sequences still open
 * at `line` start: every column a line there may begin at.
 */
function openColumns(lines: readonly string[], line: number): number[] {
  const open: number[] = [];
  for (const text of lines.slice(0, line - 1)) {
    if (isBlankOrComment(text)) continue;
    const indent = indentOf(text);
    while (open.length > 0 && (open.at(-1) as number) > indent) open.pop();
    if (open.at(-1) !== indent) open.push(indent);
    const content = contentIndentOf(text);
    if (content !== indent) open.push(content);
  }
  return open;
}

function indentOf(text: string): number {
  return text.length - text.trimStart().length;
}

/** Where a line's content starts, after its indentation and any `- ` of sequence items. */
function contentIndentOf(text: string): number {
  const match = /^(\s*(?:-\s+)*)/.exec(text);
  return match?.[1]?.length ?? 0;
}

function isBlankOrComment(text: string): boolean {
  const trimmed = text.trim();
  return trimmed === '' || trimmed.startsWith('#');
}

/** The plain key a line starts with (`cidr` of `    cidr: 10.0.0.0/8`), quoted for a message. */
function keyName(text: string): string | undefined {
  const match = /^\s*(?:-\s+)*([A-Za-z0-9_.-]+)\s*:(?:\s|$)/.exec(text);
  return match?.[1] === undefined ? undefined : `"${match[1]}"`;
}

/** `1`, `1 or 3`, `1, 3 or 5`. */
function either(values: readonly number[]): string {
  if (values.length <= 1) return String(values[0] ?? 1);
  return `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}

/** The parser's message without its excerpt of the source and its own position. */
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}
