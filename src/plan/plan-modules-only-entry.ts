import type { DesiredEntry } from '../manifest/desired-state.js';
import { sourceOf } from './draft-action.js';
import type { DraftContext, EntryDraft } from './drafts.js';
import type { KindRules } from './plan-inputs.js';
import { planModules } from './plan-modules.js';
import { resolveSpec } from './resolve-references.js';
import { secretsOf } from './spec-fields.js';

/**
 * An entry of a kind edgesync manages only the modules of (tcp/tls edges):
 * the object must exist. Returns what it drafted, for draftPlan to write
 * into the book.
 */
export function planModulesOnlyEntry(
  context: DraftContext,
  rules: KindRules,
  entry: DesiredEntry,
  normalized: Readonly<Record<string, unknown>>,
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
  const address = `${kind.name}.${entry.name}`;
  const object = entry.id === undefined ? undefined : context.inputs.liveById.get(entry.id);
  if (entry.id === undefined || object === undefined || object.kind !== kind.name) {
    drafted.errors.push({
      code: 'edge_not_found',
      message: `${address}: ${entry.id === undefined ? 'needs an id' : `id ${entry.id} does not exist in the account`}`,
      source: sourceOf(entry, '/id'),
      entry: { kind: kind.name, name: entry.name },
    });
    return drafted;
  }
  drafted.claimed = object;
  drafted.resolvedId = object.id;
  const spec = resolveSpec(context, drafted, kind, normalized);
  const secrets = secretsOf(kind, spec, rules.hasSensitiveFields);
  drafted.unchanged = planModules(drafted, kind, spec, object, false, secrets) === 0;
  return drafted;
}
