import { EdgesyncError } from '../errors.js';

/**
 * The caller's AbortSignal fired while a request was waiting (budget, backoff)
 * or in flight. `mayHaveApplied` is true when a write had already been sent:
 * the service may have applied it.
 */
export class RequestAbortedError extends EdgesyncError {
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly mayHaveApplied: boolean;

  constructor(
    context: { readonly method?: string; readonly path?: string; readonly mayHaveApplied?: boolean },
    options?: { cause?: unknown },
  ) {
    const where = context.method && context.path ? `${context.method} ${context.path}: ` : '';
    super('aborted', `${where}interrupted`, options);
    this.method = context.method;
    this.path = context.path;
    this.mayHaveApplied = context.mayHaveApplied ?? false;
  }
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new RequestAbortedError({}, { cause: signal.reason });
}
