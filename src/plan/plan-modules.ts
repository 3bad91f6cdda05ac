import { asRecord } from '../json-value.js';
import type { Kind, ModuleRule, ModuleTarget } from '../kinds/kind.js';
import type { LiveObject } from '../kinds/live-state.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import { diffFields, maskSensitive } from './compare-fields.js';
import { sourceOf } from './draft-action.js';
import type { DraftContext, EntryDraft } from './drafts.js';
import type { KindRules } from './plan-inputs.js';
import { resolveSpec } from './resolve-references.js';
import { NO_SECRETS, ROUTES_KEY, secretsOf } from './spec-fields.js';

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

/**
 * Module changes of an existing object. A module absent from the entry is
 * removed only when edgesync created the object (`absentMeansRemove`); on
 * adopted and module-only objects it is left alone. Route modules are
 * managed only where the entry names them. Adds them to the entry's draft
 * and returns how many it added.
 */
export function planModules(
  drafted: EntryDraft,
  kind: Kind,
  spec: Record<string, unknown>,
  object: LiveObject,
  absentMeansRemove: boolean,
  secrets: ReadonlySet<string>,
): number {
  if (kind.modules.length === 0) return 0;
  const { entry } = drafted;
  let count = 0;
  const address = `${kind.name}.${entry.name}`;
  for (const module of kind.modules.filter((rule) => rule.scope === 'resource')) {
    const planned = planModule(drafted, kind, module, {
      address: `${address}.${module.name}`,
      target: { id: object.id },
      desired: spec[module.name] === undefined && absentMeansRemove ? null : spec[module.name],
      live: object.spec[module.name],
      pointer: `/${module.name}`,
      secrets,
      absentReason: absentMeansRemove && spec[module.name] === undefined,
    });
    if (planned) count += 1;
  }
  const routeModules = kind.modules.filter((rule) => rule.scope === 'route');
  const routes = spec[ROUTES_KEY];
  if (routeModules.length === 0 || !Array.isArray(routes)) return count;
  const liveRoutes = Array.isArray(object.spec[ROUTES_KEY]) ? (object.spec[ROUTES_KEY] as unknown[]) : [];
  const selected = new Set<string>();
  routes.forEach((route: unknown, index) => {
    const desiredRoute = asRecord(route) ?? {};
    const liveRoute = selectRoute(drafted, desiredRoute, liveRoutes, index, selected);
    if (liveRoute === undefined) return;
    const routeId = String(liveRoute.id);
    for (const module of routeModules) {
      if (desiredRoute[module.name] === undefined) continue;
      const planned = planModule(drafted, kind, module, {
        address: `${address}.routes[${routeId}].${module.name}`,
        target: { id: object.id, routeId },
        desired: desiredRoute[module.name],
        live: liveRoute[module.name],
        pointer: `/${ROUTES_KEY}/${index}/${module.name}`,
        secrets,
        absentReason: false,
      });
      if (planned) count += 1;
    }
  });
  return count;
}

/** The one live route a desired route names, by `id` or by `match_type` and `match`; each at most once. */
function selectRoute(
  drafted: EntryDraft,
  route: Record<string, unknown>,
  liveRoutes: readonly unknown[],
  index: number,
  selected: Set<string>,
): Record<string, unknown> | undefined {
  const candidates = liveRoutes.map(asRecord).filter((live): live is Record<string, unknown> => {
    if (live === undefined) return false;
    if (route.id !== undefined) return live.id === route.id;
    if (route.match_type !== undefined && live.match_type !== route.match_type) return false;
    return route.match === undefined || live.match === route.match;
  });
  const selector =
    route.id !== undefined
      ? `id ${String(route.id)}`
      : `${String(route.match_type ?? 'any match_type')} ${JSON.stringify(route.match ?? null)}`;
  const { entry } = drafted;
  const source = sourceOf(entry, `/${ROUTES_KEY}/${index}`);
  const where = `${entry.kind}.${entry.name}.${ROUTES_KEY}[${index}]`;
  const only = candidates[0];
  if (candidates.length !== 1 || only === undefined) {
    drafted.errors.push({
      code: candidates.length === 0 ? 'route_not_found' : 'route_ambiguous',
      message: `${where}: ${selector} matches ${candidates.length} routes of the edge (expected exactly 1)`,
      source,
      entry: { kind: entry.kind, name: entry.name },
    });
    return undefined;
  }
  const id = String(only.id);
  if (selected.has(id)) {
    drafted.errors.push({
      code: 'route_selected_twice',
      message: `${where}: route ${id} is already selected`,
      source,
    });
    return undefined;
  }
  selected.add(id);
  return only;
}

/** Puts or deletes one module (of the object or of one route); false when it needs no change. */
function planModule(
  drafted: EntryDraft,
  kind: Kind,
  module: ModuleRule,
  at: {
    readonly address: string;
    readonly target: ModuleTarget;
    readonly desired: unknown;
    readonly live: unknown;
    readonly pointer: string;
    readonly secrets: ReadonlySet<string>;
    readonly absentReason: boolean;
  },
): boolean {
  if (at.desired === undefined) return false;
  const { entry } = drafted;
  const live = asRecord(at.live);
  const desired = asRecord(at.desired);
  const base = {
    address: at.address,
    kind: kind.name,
    name: entry.name,
    id: at.target.id,
    module: module.name,
    ...(at.target.routeId === undefined ? {} : { routeId: at.target.routeId }),
  };
  const source = sourceOf(entry, at.pointer);
  // A module set to null (or absent, where that removes it) is deleted; any other value is put.
  const removing = desired === undefined;
  if (removing && live === undefined) return false;
  const changes = removing
    ? [
        {
          path: module.name,
          before: maskSensitive(module.fields, live),
          sensitive: false,
          forcesReplace: false,
        },
      ]
    : diffFields(module.fields, desired, live, `${module.name}.`);
  if (!removing && live !== undefined && changes.length === 0) return false;
  const op = removing ? 'delete-module' : 'put-module';
  const reason = removing
    ? at.absentReason
      ? 'absent from an entry edgesync created'
      : 'set to null in the manifest'
    : live === undefined
      ? 'module not set on the service'
      : `${changes.map((change) => change.path).join(', ')} changed`;
  drafted.changes.push({
    change: { ...base, op, changes, reason },
    source,
    actions: [
      {
        key: `${op}:${at.address}`,
        op,
        kind: kind.name,
        name: entry.name,
        change: at.address,
        request: kind.moduleRequest(at.target, module.name, removing ? null : desired),
        secrets: removing ? NO_SECRETS : at.secrets,
        source,
        objectId: at.target.id,
        before: live,
        after: desired,
        module: module.name,
      },
    ],
  });
  return true;
}
