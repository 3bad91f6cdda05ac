import type { KindName } from '../kinds/kind-name.js';
import type { SourceLocation } from '../manifest/source-location.js';
import type { Operation } from '../plan/plan.js';

export const ACTION_OUTCOMES = ['done', 'failed', 'skipped', 'not-started'] as const;
export type ActionOutcome = (typeof ACTION_OUTCOMES)[number];

/** Why an action failed, with the service's own words when it answered. */
export interface ActionFailure {
  /** edgesync's error code (`api_error`, `outcome_unknown`, …). */
  readonly code: string;
  readonly message: string;
  /** HTTP status of the service's answer, when there was one. */
  readonly status?: number;
  /** The service's `error_code` (`invalid_field`, `conflict`, …). */
  readonly serviceCode?: string;
  /** The service's `details.field`. */
  readonly field?: string;
}

export interface ActionResult {
  readonly key: string;
  readonly op: Operation;
  readonly kind: KindName;
  readonly name: string;
  /** Address of the ResourceChange the action belongs to. */
  readonly change: string;
  readonly outcome: ActionOutcome;
  /** The ID the action created (creates) or acted on, when known. */
  readonly id?: string;
  /** Set for `failed`. */
  readonly error?: ActionFailure;
  /** Set for `skipped` and `not-started`: "depends on create:… which failed". */
  readonly reason?: string;
  /**
   * How a `done` action got there when it was not the plain answer of one
   * request: "found by marker after an unknown outcome", "already absent".
   */
  readonly note?: string;
  readonly source?: SourceLocation;
  /** Milliseconds from start to finish; absent when it never started. */
  readonly durationMs?: number;
}

/** Resource changes fully carried out, by what happened to them. */
export interface AppliedCounts {
  readonly created: number;
  readonly updated: number;
  readonly replaced: number;
  readonly deleted: number;
  readonly adopted: number;
  /** Module PUTs and module removals. */
  readonly modules: number;
}

export interface ApplyResult {
  /** One entry per plan action, in plan order. */
  readonly actions: readonly ActionResult[];
  readonly applied: AppliedCounts;
  /** Actions by outcome. */
  readonly done: number;
  readonly failed: number;
  readonly skipped: number;
  readonly notStarted: number;
  /** True when the signal stopped the run before every action was tried. */
  readonly interrupted: boolean;
  /** Wall time of the run, milliseconds. */
  readonly durationMs: number;
  /** Milliseconds the client spent waiting for the request budget or a Retry-After during the run. */
  readonly rateLimitWaitMs: number;
  /** IDs of created objects, by the key of the action that created them. */
  readonly createdIds: Readonly<Record<string, string>>;
}

/** Exit status of an apply: anything not done means the account is not yet as the manifests say. */
export function applySucceeded(result: ApplyResult): boolean {
  return result.failed === 0 && result.skipped === 0 && result.notStarted === 0 && !result.interrupted;
}
