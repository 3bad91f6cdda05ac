import { asRecord } from '../json-value.js';
import type { FieldRule, Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import { normalizeSetLike } from '../kinds/set-like.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import { sourceOf } from './draft-action.js';
import type { DraftContext, EntryDraft } from './drafts.js';
import { ROUTES_KEY } from './spec-fields.js';
import { topologicalOrder } from './topological-order.js';

/**
 * Kinds ordered so that a kind comes after the kinds its fields reference;
 * in the given (registry) order otherwise. Entries are planned in this order
 * so that a name always resolves to an entry already planned.
 */
export function kindsInReferenceOrder(kinds: readonly Kind[]): Kind[] {
  const sorted = [...kinds];
  const references = (kind: Kind): string[] =>
    [...kind.fields, ...kind.modules.flatMap((module) => module.fields)].flatMap((rule) =>
      rule.references !== undefined && rule.references !== kind.name ? [rule.references] : [],
    );
  const ordered = topologicalOrder(
    sorted.map((kind) => ({ key: kind.name, dependsOn: references(kind), kind })),
    (node) => node.dependsOn,
  );
  return ordered.ok ? ordered.order.map((node) => node.kind) : sorted;
}

/**
 * Resolves names in reference fields (top level, modules, route modules) to
 * IDs or PendingIds. What it finds (IDs named, names not found) goes into
 * the entry's draft.
 */
export function resolveSpec(
  context: DraftContext,
  drafted: EntryDraft,
  kind: Kind,
  spec: Record<string, unknown>,
): Record<string, unknown> {
  const { entry } = drafted;
  let resolved = resolveRecord(context, drafted, entry, kind.fields, spec, '');
  if (kind.modules.length === 0) return resolved;
  // Modules are set on a copy: resolveRecord returns the spec itself when no name needed resolving.
  if (resolved === spec) resolved = { ...spec };
  for (const module of kind.modules) {
    if (module.scope === 'resource') {
      const value = asRecord(resolved[module.name]);
      if (value)
        resolved[module.name] = resolveRecord(
          context,
          drafted,
          entry,
          module.fields,
          value,
          `/${module.name}`,
        );
      continue;
    }
    const routes = resolved[ROUTES_KEY];
    if (!Array.isArray(routes)) continue;
    resolved[ROUTES_KEY] = routes.map((route: unknown, index) => {
      const record = asRecord(route);
      const value = asRecord(record?.[module.name]);
      if (record === undefined || value === undefined) return route;
      const pointer = `/${ROUTES_KEY}/${index}/${module.name}`;
      return {
        ...record,
        [module.name]: resolveRecord(context, drafted, entry, module.fields, value, pointer),
      };
    });
  }
  return resolved;
}

function resolveRecord(
  context: DraftContext,
  drafted: EntryDraft,
  entry: DesiredEntry,
  rules: readonly FieldRule[],
  record: Readonly<Record<string, unknown>>,
  pointer: string,
): Record<string, unknown> {
  // Copied on the first field whose value changes: an entry naming objects by ID (every rule of
  // 100,000 names its policy so) needs no copy of its spec.
  let resolved: Record<string, unknown> | undefined;
  for (const rule of rules) {
    const target = rule.references;
    const value = record[rule.name];
    if (target === undefined || value === undefined || value === null) continue;
    const at = `${pointer}/${rule.name}`;
    let replaced: unknown;
    if (Array.isArray(value)) {
      const items = value.map((item: unknown, index) =>
        resolveReference(context, drafted, entry, target, item, `${at}/${index}`, at),
      );
      replaced = rule.setLike ? normalizeSetLike(items) : items;
    } else {
      replaced = resolveReference(context, drafted, entry, target, value, at, at);
      if (replaced === value) continue;
    }
    resolved ??= { ...record };
    resolved[rule.name] = replaced;
  }
  return resolved ?? (record as Record<string, unknown>);
}

/**
 * An ID stays as it is (reported when no object of a managed kind has it); a
 * name becomes the ID of the entry it names, or the PendingId of that
 * entry's create.
 */
function resolveReference(
  context: DraftContext,
  drafted: EntryDraft,
  entry: DesiredEntry,
  target: KindName,
  value: unknown,
  pointer: string,
  fieldPointer: string,
): unknown {
  if (typeof value !== 'string') return value;
  const { inputs } = context;
  const kind = inputs.kindsByName.get(target);
  const source = entry.fieldLocations[pointer] ?? sourceOf(entry, fieldPointer);
  if (kind !== undefined && value.startsWith(kind.idPrefix)) {
    const object = inputs.liveById.get(value);
    if (object !== undefined) drafted.touched.push(value);
    if (object === undefined && kind.ownership === 'metadata' && !inputs.live.missingIds.includes(value)) {
      drafted.errors.push({
        code: 'reference_not_found',
        message: `${entry.kind}.${entry.name}${fieldPointer.replace(/\//g, '.')}: ${value} does not exist in the account`,
        source,
        entry: { kind: entry.kind, name: entry.name },
      });
    }
    return value;
  }
  const resolved = context.resolvedIds.get(`${target}.${value}`);
  if (resolved !== undefined) return resolved;
  if (!inputs.desiredByName.has(target, value)) {
    drafted.errors.push({
      code: 'reference_not_found',
      message: `${entry.kind}.${entry.name}${fieldPointer.replace(/\//g, '.')}: no ${target} entry named "${value}"`,
      source,
      entry: { kind: entry.kind, name: entry.name },
    });
  }
  return value;
}
