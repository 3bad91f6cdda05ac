import { asRecord } from '../json-value.js';
import type { Kind, ModuleRule, ModuleTarget } from '../kinds/kind.js';
import type { LiveObject } from '../kinds/live-state.js';
import { diffFields, maskSensitive } from './compare-fields.js';
import { sourceOf } from './draft-action.js';
import type { EntryDraft } from './drafts.js';
import { NO_SECRETS, ROUTES_KEY } from './spec-fields.js';

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
  const address = `${kind.name}.${entry.name}`;
  const routeModules = kind.modules.filter((rule) => rule.scope === 'route');
  const routes = routeModules.length === 0 ? [] : selectRoutes(drafted, spec, object);
  // The object's modules, then those of each route the entry names.
  const places: ModulePlace[] = [];
  for (const module of kind.modules.filter((rule) => rule.scope === 'resource')) {
    places.push({
      module,
      address: `${address}.${module.name}`,
      target: { id: object.id },
      desired: spec[module.name] === undefined && absentMeansRemove ? null : spec[module.name],
      live: object.spec[module.name],
      pointer: `/${module.name}`,
      absentReason: absentMeansRemove && spec[module.name] === undefined,
    });
  }
  for (const { index, desired, live } of routes) {
    const routeId = String(live.id);
    for (const module of routeModules) {
      if (desired[module.name] === undefined) continue;
      places.push({
        module,
        address: `${address}.routes[${routeId}].${module.name}`,
        target: { id: object.id, routeId },
        desired: desired[module.name],
        live: live[module.name],
        pointer: `/${ROUTES_KEY}/${index}/${module.name}`,
        absentReason: false,
      });
    }
  }
  let count = 0;
  for (const place of places) if (planModule(drafted, kind, place, secrets)) count += 1;
  return count;
}

/** One module of an object or of one of its routes, as the entry wants it and as it is live. */
interface ModulePlace {
  readonly module: ModuleRule;
  readonly address: string;
  readonly target: ModuleTarget;
  readonly desired: unknown;
  readonly live: unknown;
  /** Where in the entry's spec (a JSON Pointer). */
  readonly pointer: string;
  /** Whether it is absent from an entry edgesync created (and so removed). */
  readonly absentReason: boolean;
}

/** A route of the entry with the live route it names. */
interface SelectedRoute {
  readonly index: number;
  readonly desired: Record<string, unknown>;
  readonly live: Record<string, unknown>;
}

/**
 * The live route each route of the entry names, in the entry's order;
 * a route that names none, or one already named, is reported and left out.
 */
function selectRoutes(
  drafted: EntryDraft,
  spec: Record<string, unknown>,
  object: LiveObject,
): SelectedRoute[] {
  const routes = spec[ROUTES_KEY];
  if (!Array.isArray(routes)) return [];
  const liveRoutes = Array.isArray(object.spec[ROUTES_KEY]) ? (object.spec[ROUTES_KEY] as unknown[]) : [];
  const selected = new Set<string>();
  const found: SelectedRoute[] = [];
  routes.forEach((route: unknown, index) => {
    const desired = asRecord(route) ?? {};
    const live = selectRoute(drafted, desired, liveRoutes, index, selected);
    if (live !== undefined) found.push({ index, desired, live });
  });
  return found;
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
function planModule(drafted: EntryDraft, kind: Kind, at: ModulePlace, secrets: ReadonlySet<string>): boolean {
  if (at.desired === undefined) return false;
  const { entry } = drafted;
  const { module } = at;
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
        secrets: removing ? NO_SECRETS : secrets,
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
