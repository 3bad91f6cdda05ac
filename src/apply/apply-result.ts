import type { KindName } from '../kinds/kind-name.js';
import type { SourceLocation } from '../manifest/source-location.js';
import type { Operation } from '../plan/plan.js';

/**
 * `interrupted`: the interruption kept it from being applied (never sent, or
 * sent, found not landed and not sent again). `unknown`: sent before the
 * interruption, and whether it landed could not be settled in the grace
 * period. Neither is `failed`: nothing the service said went wrong.
 */
export const ACTION_OUTCOMES = ['done', 'failed', 'skipped', 'interrupted', 'unknown'] as const;
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
  /** Set for `failed`, and for `unknown` (why it could not be settled). */
  readonly error?: ActionFailure;
  /** Set for `skipped`, `interrupted` and `unknown`: "depends on create:… which failed". */
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
  /**
   * Deletes (of an object or a module) that found nothing to delete: the
   * service answered 404, so something else removed it first. Not counted
   * as deleted: this apply deleted nothing.
   */
  readonly alreadyAbsent: number;
  readonly adopted: number;
  /** Module PUTs (the plan's "module(s) to write"). */
  readonly modulesWritten: number;
  /** Module removals (the plan's "module(s) to remove"). */
  readonly modulesRemoved: number;
}

export interface ApplyResult {
  /** One entry per plan action, in plan order. */
  readonly actions: readonly ActionResult[];
  readonly applied: AppliedCounts;
  /** Actions by outcome. */
  readonly done: number;
  readonly failed: number;
  readonly skipped: number;
  /** Actions the interruption kept from being applied (outcome `interrupted`). */
  readonly notStarted: number;
  /** Actions whose outcome the interruption left unknown. */
  readonly unknown: number;
  /** True when the signal left an action interrupted or unknown. */
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
  return (
    result.failed === 0 &&
    result.skipped === 0 &&
    result.notStarted === 0 &&
    result.unknown === 0 &&
    !result.interrupted
  );
}
