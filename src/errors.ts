/**
 * The codes of errors raised across layers (a flag, the network, a plan
 * file). Families with many codes of their own (ManifestError, KindError,
 * ExportError, the emulator's ServiceError) keep their lists beside their
 * class. src/cli/run-edgesync.ts maps every code of every family to an exit code in
 * one exhaustive table, so a new code without an exit code does not compile.
 */
export const CORE_ERROR_CODES = [
  // a flag, an option or the configuration
  'invalid_option',
  'invalid_rate_limit',
  'invalid_emulator_option',
  'config_missing',
  // the HTTP client and the service
  'invalid_request',
  'api_error',
  'network_error',
  'pagination_failed',
  'outcome_unknown',
  'unexpected_response',
  'response_too_large',
  'aborted',
  // planning and applying
  'manifests_invalid',
  'plan_errors',
  'plan_invalid',
  'plan_refused',
  'plan_stale',
  'plan_file_invalid',
  'plan_file_unwritable',
  'pending_id_unresolved',
  'apply_not_confirmed',
  'apply_incomplete',
  // a write the daemon did not send: it was suspended while it applied
  'daemon_suspended',
  'interrupted',
  // a running daemon, asked by the command line (`edgesync reconcile`)
  'daemon_request_failed',
  'reconcile_failed',
  'wait_timeout',
  // a daemon's status (`status --wait-commit`, `apply --daemon-url`)
  'commit_not_live',
  'commit_failed',
  // a Git host's commit statuses (`status --wait-commit --commit-status`)
  'git_host_refused',
  'daemon_enforces',
  // the emulator's files
  'emulator_seed_invalid',
  'emulator_seed_unreadable',
  'emulator_data_invalid',
  'emulator_data_unreadable',
] as const;
export type CoreErrorCode = (typeof CORE_ERROR_CODES)[number];

/**
 * The one base class of every error edgesync raises on purpose. `code` is
 * machine-readable and stable; subclasses (ManifestError, ApiError, …) add the
 * context a person needs to act on it, and narrow `Code` to their family.
 */
export class EdgesyncError<Code extends string = CoreErrorCode> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * A flag's value that cannot be used (the codes of the first group above): `--concurrency: expected a whole number
 * of at least 1 (found "abc")`. It keeps the flag apart from the problem so
 * that the command line can name where the value came from instead: a value
 * set by `EDGESYNC_CONCURRENCY=abc` is reported as that variable's
 * (`namedBy`), since that is what the person has to change.
 */
export class OptionError extends EdgesyncError<'invalid_option' | 'invalid_rate_limit'> {
  /** The long flag (`--concurrency`), or the variable the value came from. */
  readonly flag: string;
  /** What is wrong with the value, with the value itself. */
  readonly problem: string;

  constructor(
    flag: string,
    problem: string,
    options?: { readonly code?: 'invalid_option' | 'invalid_rate_limit'; readonly cause?: unknown },
  ) {
    super(
      options?.code ?? 'invalid_option',
      `${flag}: ${problem}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.flag = flag;
    this.problem = problem;
  }

  /** The same problem, named after `source` (an environment variable), with this error as the cause. */
  namedBy(source: string): OptionError {
    return new OptionError(source, this.problem, { code: this.code, cause: this });
  }
}

/** Validation results report every problem at once instead of throwing on the first. */
export type Result<T, E> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly errors: readonly E[] };
