import { EdgesyncError } from '../errors.js';
import { visibleText } from '../visible-text.js';
import type { FileLocation, SourceLocation } from './source-location.js';

/**
 * Stable codes of manifest problems. They appear in `--format json` and SARIF
 * output, so they are part of the interface: add, never rename.
 */
export const MANIFEST_ERROR_CODES = [
  'file_not_found',
  'file_too_large',
  'invalid_utf8',
  'yaml_syntax',
  'multiple_documents',
  'not_a_mapping',
  'duplicate_key',
  'custom_tag',
  'too_many_aliases',
  'too_deep',
  'schema',
  'duplicate_name',
  'name_looks_like_id',
  'reserved_metadata_key',
  'unknown_reference',
  'wrong_reference_kind',
  'invalid_pem',
  'invalid_cidr',
  'cidr_host_bits',
  'too_long',
  'min_version_with_upstream',
  'invalid_issuer',
  'route_selector',
  'ca_pem_source',
  'env_not_set',
  'reference_file',
  'path_outside_root',
  'not_regular_file',
  'too_many_directories',
  'invalid_hostport',
  'duplicate_hostport',
  'unique_key_conflict',
  'malformed_id',
  'one_auth_route',
  'mutual_tls_with_upstream',
] as const;

export type ManifestErrorCode = (typeof MANIFEST_ERROR_CODES)[number];

/** One problem in one manifest, at the place a person has to edit. */
export class ManifestError extends EdgesyncError<ManifestErrorCode> {
  readonly file: string;
  /** 1-based; undefined for a problem with the file as a whole (FileLocation). */
  readonly line: number | undefined;
  readonly column: number | undefined;
  /** Dotted field path (`https_edges.web.routes[0].oidc.issuer`); empty for the whole file. */
  readonly path: string;
  /** The message without location and path; `message` carries the formatted line. */
  readonly detail: string;
  /**
   * What a tool said beyond `detail` (the YAML parser's own messages, each
   * `line:col: message`): shown to a person only when asked (`--log-level debug`).
   */
  readonly notes: readonly string[];

  constructor(
    code: ManifestErrorCode,
    location: SourceLocation | FileLocation,
    path: string,
    detail: string,
    options?: { readonly cause?: unknown; readonly notes?: readonly string[] },
  ) {
    super(
      code,
      formatManifestProblem(location, path, detail),
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.file = location.file;
    this.line = location.line;
    this.column = location.column;
    this.path = path;
    this.detail = detail;
    this.notes = options?.notes ?? [];
  }

  /** `file:line:col: path: message`, the form editors and CI logs link. */
  format(): string {
    return this.message;
  }

  /** `line` and `column` are null for a problem with the file as a whole. */
  toJSON(): {
    file: string;
    line: number | null;
    column: number | null;
    path: string;
    code: string;
    message: string;
  } {
    return {
      file: this.file,
      line: this.line ?? null,
      column: this.column ?? null,
      path: this.path,
      code: this.code,
      message: this.detail,
    };
  }
}

function formatManifestProblem(
  location: SourceLocation | FileLocation,
  path: string,
  detail: string,
): string {
  // One line whatever the file name, path or message hold: editors and CI link these.
  const position = location.line === undefined ? '' : `:${location.line}:${location.column}`;
  const where = `${visibleText(location.file)}${position}`;
  return path === ''
    ? `${where}: ${visibleText(detail)}`
    : `${where}: ${visibleText(path)}: ${visibleText(detail)}`;
}

/** Sorts by file (a problem with the whole file first), then line, then column, then path: the order people read them in. */
export function compareManifestErrors(a: ManifestError, b: ManifestError): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  if (a.line !== b.line) return (a.line ?? 0) - (b.line ?? 0);
  if (a.column !== b.column) return (a.column ?? 0) - (b.column ?? 0);
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return a.detail < b.detail ? -1 : a.detail > b.detail ? 1 : 0;
}
