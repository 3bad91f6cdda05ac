import { EdgesyncError } from '../errors.js';

export const EXPORT_ERROR_CODES = [
  /** An existing file in the output directory is not one an export wrote; `--force` overwrites it. */
  'export_would_overwrite',
  /** Rewriting a file of an earlier export would drop entries this export did not read; `--force` drops them. */
  'export_would_drop',
  /**
   * A directory on the way to a file the export would write, read or remove
   * is a symbolic link (or not a directory): following it could change files
   * outside `--out`.
   */
  'export_unsafe_path',
  /** Writing the output failed (permissions, disk). */
  'export_write_failed',
  /** A module-only edge named on the command line does not exist. */
  'export_edge_not_found',
  /** A command-line value is not usable (unknown kind, malformed ID). */
  'invalid_option',
] as const;

export type ExportErrorCode = (typeof EXPORT_ERROR_CODES)[number];

/** A failure of `edgesync export`; `path` names the file concerned when there is one. */
export class ExportError extends EdgesyncError<ExportErrorCode> {
  readonly path: string | undefined;

  constructor(
    code: ExportErrorCode,
    message: string,
    options: { readonly path?: string; readonly cause?: unknown } = {},
  ) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.path = options.path;
  }
}
