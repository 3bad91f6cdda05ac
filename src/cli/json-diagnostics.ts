import { EdgesyncError } from '../errors.js';
import { ManifestError } from '../manifest/manifest-error.js';

/**
 * What `--format json` prints on stdout instead of a plan when there is
 * none, the way `terraform -json` does, so a tool reads stdout alone and
 * never parses the text on stderr. snake_case keys, like all edgesync JSON.
 */
export interface JsonDiagnostic {
  readonly severity: 'error' | 'warning';
  readonly code: string;
  readonly message: string;
  /** Where in a manifest, when the problem is in one; line and column are null for the file as a whole. */
  readonly source: {
    readonly file: string;
    readonly line: number | null;
    readonly column: number | null;
  } | null;
  /** The entry field (`ip_policy_rules.office.cidr`), for a manifest problem. */
  readonly path: string | null;
  /** For an error the service answered: its HTTP status and error code. */
  readonly status?: number;
  readonly error_code?: string;
}

/** Version of the diagnostics document; keys are only added within it. */
export const DIAGNOSTICS_FORMAT_VERSION = 1;

export function diagnosticOf(error: unknown): JsonDiagnostic {
  if (error instanceof ManifestError) {
    const { file, line, column, path, code, message } = error.toJSON();
    return { severity: 'error', code, message, source: { file, line, column }, path };
  }
  const code = error instanceof EdgesyncError ? String(error.code) : 'internal_error';
  const message = error instanceof Error ? error.message : String(error);
  const service = error as { status?: unknown; errorCode?: unknown; error_code?: unknown };
  const errorCode = service.errorCode ?? service.error_code;
  return {
    severity: 'error',
    code,
    message,
    source: null,
    path: null,
    ...(typeof service.status === 'number' ? { status: service.status } : {}),
    ...(typeof errorCode === 'string' ? { error_code: errorCode } : {}),
  };
}

/** `{"format_version": 1, "diagnostics": [...]}` and a newline. */
export function renderDiagnostics(errors: readonly unknown[]): string {
  return `${JSON.stringify(
    { format_version: DIAGNOSTICS_FORMAT_VERSION, diagnostics: errors.map(diagnosticOf) },
    null,
    2,
  )}\n`;
}
