import type { Kind } from '../kinds/kind.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import { sourceOf } from './draft-action.js';
import type { DraftContext, EntryDraft } from './drafts.js';
import type { LiveMatch, LiveMatcher } from './match-live.js';
import type { PlanError } from './plan.js';
import type { KindRules } from './plan-inputs.js';
import { planModules } from './plan-modules.js';
import { type KeptObject, planManagedEntry } from './plan-resources.js';
import type { KeyNumber } from './planner-options.js';
import { resolveSpec } from './resolve-references.js';
import { secretsOf } from './spec-fields.js';

/**
 * One entry, drafted: the live object it stands for (matched, for kinds
 * owned by marker; by its `id`, for kinds edgesync manages only the modules
 * of), its names resolved to IDs, its unique key (`uniqueKey`, PlanKeys)
 * carried to the actions that take or free it, the object created, changed or kept
 * (plan-resources.ts), then the modules of a kept object (plan-modules.ts).
 * Returns what it drafted, for draftPlan to write into the book.
 */
export function planEntry(
  context: DraftContext,
  matcher: LiveMatcher,
  rules: KindRules,
  entry: DesiredEntry,
  normalized: Readonly<Record<string, unknown>>,
  uniqueKey: KeyNumber | undefined,
): EntryDraft {
  const { kind } = rules;
  const drafted: EntryDraft = {
    entry,
    changes: [],
    errors: [],
    warnings: [],
    touched: [],
    claimed: undefined,
    resolvedId: undefined,
    replaces: undefined,
    unchanged: false,
  };
  const managed = kind.ownership === 'metadata';
  const match = managed ? matcher.match(kind, entry, normalized) : existingObject(context, kind, entry);
  if (match !== undefined && 'code' in match) {
    drafted.errors.push(match);
    return drafted;
  }
  const spec = resolveSpec(context, drafted, kind, normalized);
  const secrets = secretsOf(kind, spec, rules.hasSensitiveFields);
  let kept: KeptObject | undefined;
  if (managed) kept = planManagedEntry(context, drafted, rules, spec, secrets, uniqueKey, match);
  else if (match !== undefined) {
    drafted.claimed = match.object;
    drafted.resolvedId = match.object.id;
    kept = { object: match.object, changed: false, absentMeansRemove: false };
  }
  if (kept === undefined) return drafted;
  for (const problem of kind.checkWithLive?.(spec, kept.object) ?? []) {
    drafted.errors.push({
      code: problem.code,
      message: `${kind.name}.${entry.name}: ${problem.message}`,
      source: sourceOf(entry, problem.pointer),
      entry: { kind: kind.name, name: entry.name },
    });
  }
  if (drafted.errors.length > 0) return drafted;
  const moduleChanges = planModules(drafted, kind, spec, kept.object, kept.absentMeansRemove, secrets);
  drafted.unchanged = !kept.changed && moduleChanges === 0;
  return drafted;
}

/** The object a modules-only entry names by `id`, which must exist: edgesync never creates it. */
function existingObject(context: DraftContext, kind: Kind, entry: DesiredEntry): LiveMatch | PlanError {
  const object = entry.id === undefined ? undefined : context.inputs.liveById.get(entry.id);
  if (entry.id !== undefined && object !== undefined && object.kind === kind.name)
    return { object, adopting: true };
  return {
    code: 'edge_not_found',
    message: `${kind.name}.${entry.name}: ${entry.id === undefined ? 'needs an id' : `id ${entry.id} does not exist in the account`}`,
    source: sourceOf(entry, '/id'),
    entry: { kind: kind.name, name: entry.name },
  };
}
