/**
 * Who will apply the plan, which decides how a refusal can be lifted:
 * `cli` (plan/apply from manifests: a person can pass --force or
 * --allow-empty), `daemon` (`watch`: never forced, never prunes from an empty
 * set, never deletes from an incomplete read) and `saved-plan` (`apply
 * --plan FILE`: the facts recorded when the plan was made, with the
 * --force of the apply).
 */
export const SAFETY_CONTEXTS = ['cli', 'daemon', 'saved-plan'] as const;
export type SafetyContextName = (typeof SAFETY_CONTEXTS)[number];

/** `--max-destroy`: a count or a percentage of the owned objects. */
export type MaxDestroy = { readonly count: number } | { readonly percent: number };

/**
 * Without `--max-destroy`, a plan may delete or replace 10% of the owned
 * objects but never fewer than this many. octoDNS applies its thresholds only
 * from 10 records for the same reason: in a small account one ordinary pull
 * request (removing two rules, renaming a file of three) is already over 10%.
 */
export const DEFAULT_MAX_DESTROY_FLOOR = 5;
/** The default share of owned objects a plan may delete or replace, in percent. */
export const DEFAULT_MAX_DESTROY_PERCENT = 10;

export const REFUSAL_CODES = ['protected', 'empty-desired', 'incomplete-read', 'max-destroy'] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

/** Why a plan may not be applied; set on `Plan.refusal` by `decideRefusal`, read by every applier. */
export interface PlanRefusal {
  readonly code: RefusalCode;
  readonly message: string;
}

export interface SafetyContext {
  readonly context: SafetyContextName;
  /** Lifts `max-destroy` outside the daemon. Never lifts `protected`. */
  readonly force: boolean;
  /** Lifts `empty-desired` outside the daemon. */
  readonly allowEmpty: boolean;
  /** @default 10% of owned objects, at least DEFAULT_MAX_DESTROY_FLOOR */
  readonly maxDestroy?: MaxDestroy;
}

/** One delete or replace of a live object that the plan makes. */
export interface DestroyFact {
  readonly address: string;
  readonly op: 'delete' | 'replace';
  readonly reason: string;
  /**
   * `manifest`: the entry says `protect: true`; `account`: the live object's
   * ownership marker does (the entry may be gone or say `protect: false`
   * in the very plan that would delete it).
   */
  readonly protectedBy?: 'manifest' | 'account';
}

/** What the policy needs to know about a plan, recorded on it (and in a saved plan, for a reader of the file). */
export interface SafetyFacts {
  readonly owner: string;
  /** Entries the manifests declare. */
  readonly desiredEntries: number;
  /** Live objects carrying the owner's marker. */
  readonly owned: number;
  /** Every page of every list was read (LiveState.complete). */
  readonly readComplete: boolean;
  readonly destroys: readonly DestroyFact[];
  /** DELETE requests in the plan: prunes, the delete half of replaces, module removals. */
  readonly deleteRequests: number;
}

export interface PlanSafety {
  readonly context: SafetyContext;
  readonly facts: SafetyFacts;
}

/**
 * The one place that decides whether a plan may be applied. The first rule
 * the plan breaks, in this order:
 *
 * 1. `empty-desired`: the manifests declare nothing and the owner owns
 *    something (lifted by --allow-empty, never in the daemon): the most
 *    likely mistake (a wrong path, a failed checkout) is named first.
 * 2. `protected`: a delete or replace of an object that is protected by its
 *    entry or by its live marker. Nothing lifts it: set `protect: false`
 *    and apply that alone first.
 * 3. `incomplete-read` (daemon only): the live listing was incomplete and
 *    the plan sends a DELETE. The planner already prunes nothing from such a
 *    read; the daemon does not even delete the old half of a replace.
 * 4. `max-destroy`: more deletes plus replaces than the limit (lifted by
 *    --force, never in the daemon).
 */
export function decideRefusal({ context, facts }: PlanSafety): PlanRefusal | undefined {
  const daemon = context.context === 'daemon';
  if (facts.desiredEntries === 0 && facts.owned > 0 && (daemon || !context.allowEmpty)) {
    const remedy = daemon
      ? 'the daemon never prunes from an empty manifest set: restore the manifests, or, if emptying the account is intended, run `edgesync apply --allow-empty` once by hand'
      : 'pass --allow-empty if that is intended';
    return {
      code: 'empty-desired',
      message: `the manifests declare nothing, which would delete all ${facts.owned} object(s) owned by "${facts.owner}"; ${remedy}`,
    };
  }
  const protectedDestroys = facts.destroys.filter((destroy) => destroy.protectedBy !== undefined);
  if (protectedDestroys.length > 0) {
    const what = protectedDestroys
      .map(
        (destroy) =>
          `${destroy.op === 'replace' ? 'replacing' : 'deleting'} ${destroy.address} (${destroy.reason})`,
      )
      .join('; ');
    return {
      code: 'protected',
      message: `protect: true forbids ${what}; to release it, set protect: false on its entry (restoring the entry if it was removed) and apply that on its own first (--force does not lift protect)`,
    };
  }
  if (daemon && !facts.readComplete && facts.deleteRequests > 0) {
    return {
      code: 'incomplete-read',
      message: `the live listing was incomplete; the daemon sends no DELETE (${facts.deleteRequests} in this plan) planned from it and reads again`,
    };
  }
  const limit = destroyLimit(context.maxDestroy, facts.owned);
  if (facts.destroys.length > limit && (daemon || !context.force)) {
    const remedy = daemon
      ? "the daemon never forces: review the plan with `edgesync plan` and run `edgesync apply --force` once by hand, or raise the daemon's --max-destroy"
      : 'pass --force or raise --max-destroy';
    return {
      code: 'max-destroy',
      message: `the plan deletes or replaces ${facts.destroys.length} object(s), more than the limit of ${limit} (owner "${facts.owner}" owns ${facts.owned}); ${remedy}`,
    };
  }
  return undefined;
}

/**
 * Deletes plus replaces allowed: `--max-destroy` exactly when given,
 * otherwise 10% of the owned objects but at least DEFAULT_MAX_DESTROY_FLOOR.
 */
export function destroyLimit(maxDestroy: MaxDestroy | undefined, owned: number): number {
  if (maxDestroy === undefined) {
    return Math.max(DEFAULT_MAX_DESTROY_FLOOR, Math.floor((owned * DEFAULT_MAX_DESTROY_PERCENT) / 100));
  }
  if ('count' in maxDestroy) return maxDestroy.count;
  return Math.floor((owned * maxDestroy.percent) / 100);
}
