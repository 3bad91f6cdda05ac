/**
 * The one base class of every error edgesync raises on purpose. `code` is
 * machine-readable and stable; subclasses (ManifestError, ApiError, …) add the
 * context a person needs to act on it. The CLI maps codes to exit codes in one
 * place (src/cli/exit-codes.ts).
 */
export class EdgesyncError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Validation results report every problem at once instead of throwing on the first. */
export type Result<T, E> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly errors: readonly E[] };
