import { EdgesyncError } from '../errors.js';

/**
 * An action the interruption kept from being applied: its request was never
 * sent, or was sent and did not land and was not sent again. Reported as
 * `interrupted`, never `failed`: nothing went wrong but the stop.
 */
export class ActionInterruptedError extends EdgesyncError {
  constructor(reason: string) {
    super('interrupted', reason);
  }
}

/**
 * An action sent before the interruption whose outcome could not be settled
 * (the lookup or read-back failed or ran out of grace period): it may or may
 * not have landed. Reported as `unknown`; the next plan reads what is there.
 */
export class OutcomeUnsettledError extends EdgesyncError {
  constructor(options: { cause: unknown }) {
    const reason = options.cause instanceof Error ? `: ${options.cause.message}` : '';
    super(
      'outcome_unknown',
      `sent before the interruption; could not look it up in the grace period${reason}`,
      options,
    );
  }
}
