import { EdgesyncError } from '../errors.js';

/**
 * A flag's value that cannot be used: `--concurrency: expected a whole number
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
