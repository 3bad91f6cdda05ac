import type { DraftChange } from './draft-action.js';
import type { PlanRefusal } from './plan.js';
import type { PlanOptions } from './plan-changes.js';

export interface SafetyFacts {
  readonly options: PlanOptions;
  /** How many entries the manifests declare. */
  readonly desiredEntries: number;
  /** How many live objects carry our owner's marker. */
  readonly owned: number;
}

/**
 * The first safety rule the plan breaks, checked in this order: `protect`
 * forbids a replace, an empty desired state would prune everything we own
 * (unless `allowEmpty`), more deletes plus replaces than `maxDestroy`
 * (unless `force`).
 */
export function safetyRefusal(drafts: readonly DraftChange[], facts: SafetyFacts): PlanRefusal | undefined {
  const { options, owned } = facts;
  const protectedReplaces = drafts.filter((draft) => draft.protect && draft.change.op === 'replace');
  if (protectedReplaces.length > 0) {
    return {
      code: 'protected',
      message: `protect: true forbids replacing ${protectedReplaces.map((draft) => draft.change.address).join(', ')} (${protectedReplaces.map((draft) => draft.change.reason).join('; ')}); remove protect or the change`,
    };
  }
  if (facts.desiredEntries === 0 && owned > 0 && options.allowEmpty !== true) {
    return {
      code: 'empty-desired',
      message: `the manifests declare nothing, which would delete all ${owned} object(s) owned by "${options.owner}"; pass --allow-empty if that is intended`,
    };
  }
  const destroys = drafts.filter(
    (draft) => draft.change.op === 'delete' || draft.change.op === 'replace',
  ).length;
  const limit = destroyLimit(options.maxDestroy, owned);
  if (destroys > limit && options.force !== true) {
    return {
      code: 'max-destroy',
      message: `the plan deletes or replaces ${destroys} object(s), more than the limit of ${limit} (owner "${options.owner}" owns ${owned}); pass --force or raise --max-destroy`,
    };
  }
  return undefined;
}

function destroyLimit(maxDestroy: PlanOptions['maxDestroy'], owned: number): number {
  if (maxDestroy === undefined) return Math.max(1, Math.floor(owned / 10));
  if ('count' in maxDestroy) return maxDestroy.count;
  return Math.floor((owned * maxDestroy.percent) / 100);
}
