import type { ApiRequest } from '../api/edge-api.js';
import { canonicalJson } from '../kinds/canonical-json.js';
import type { FieldRule, Kind, ModuleRule, ModuleTarget } from '../kinds/kind.js';
import { KIND_NAMES, type KindName } from '../kinds/kind-name.js';
import type { LiveObject, LiveState, OwnershipMarker } from '../kinds/live-state.js';
import { encodeMetadata, normalizeUserMetadata } from '../kinds/ownership-marker.js';
import { KINDS } from '../kinds/registry.js';
import { normalizeSetLike } from '../kinds/set-like.js';
import type { DesiredEntry, DesiredState } from '../manifest/desired-state.js';
import { formatLocation, type SourceLocation } from '../manifest/source-location.js';
import { diffFields, fieldChange, fieldEquals, maskSensitive } from './compare-fields.js';
import { pointersToValues } from './json-pointer.js';
import { pendingKeysIn, pendingKeysInPath, pendingPathSegment } from './pending-id.js';
import {
  type Action,
  type FieldChange,
  OPERATIONS,
  type Operation,
  type PendingId,
  type Plan,
  type PlanError,
  type PlanRefusal,
  type PlanSummary,
  type ResourceChange,
} from './plan.js';
import { topologicalOrder } from './topological-order.js';

export interface PlanOptions {
  /** The ownership marker's owner: only objects marked with it are changed or pruned. */
  readonly owner: string;
  /**
   * Deletes plus replaces allowed before the plan is refused.
   * @default 10% of the objects this owner owns, at least 1
   */
  readonly maxDestroy?: { readonly count: number } | { readonly percent: number };
  /** Accept a plan over `maxDestroy`. @default false */
  readonly force?: boolean;
  /** Accept an empty desired state that prunes everything the owner owns. @default false */
  readonly allowEmpty?: boolean;
  /** `KIND` or `KIND.NAME`: plan only these (and what they depend on). @default all */
  readonly targets?: readonly string[];
  /** `KIND` or `KIND.NAME`: leave these out. @default none */
  readonly excludes?: readonly string[];
}

/** Route modules live in `spec.routes[i]` (ModuleRule scope `route`). */
const ROUTES_KEY = 'routes';
const METADATA_FIELD = 'metadata';

interface DraftAction {
  readonly key: string;
  readonly op: Operation;
  readonly kind: KindName;
  readonly name: string;
  readonly change: string;
  readonly request: ApiRequest;
  readonly sensitivePaths: readonly string[];
  readonly marker?: OwnershipMarker;
  readonly source?: SourceLocation;
  readonly dependsOn: Set<string>;
  /** The live object this action changes; absent for creates. */
  readonly objectId?: string;
  /** Uniqueness-key value this action takes (creates, updates) or frees (deletes), prefixed by kind. */
  readonly takes?: string;
  readonly frees?: string;
  /** allow or deny, for kinds with an access decision. */
  readonly access?: 'allow' | 'deny';
}

interface DraftChange {
  readonly change: Omit<ResourceChange, 'actionKeys'>;
  readonly actionKeys: string[];
  readonly protect: boolean;
}

/**
 * The pure planner: what must happen for the live account to match the
 * desired state, as data. No I/O, clock or randomness: the same inputs give
 * byte-identical JSON.
 */
export function planChanges(desired: DesiredState, live: LiveState, options: PlanOptions): Plan {
  return new PlanBuilder(desired, live, options, KINDS).build();
}

class PlanBuilder {
  private readonly kindsByName: ReadonlyMap<KindName, Kind>;
  private readonly liveById = new Map<string, LiveObject>();
  /** Objects marked with our owner, by kind and name; the one a name matches comes first. */
  private readonly managed = new Map<KindName, Map<string, LiveObject[]>>();
  private readonly desiredByName = new Map<string, DesiredEntry>();
  /** `kind.name` → the ID the entry has (or will have) once applied. */
  private readonly resolvedIds = new Map<string, string | PendingId>();
  private readonly claimed = new Set<string>();
  private readonly entryByObjectId = new Map<string, DesiredEntry>();
  private readonly touched = new Set<string>();
  private readonly changes: DraftChange[] = [];
  private readonly actions: DraftAction[] = [];
  private readonly errors: PlanError[] = [];
  private readonly warnings: PlanError[] = [];
  private unchanged = 0;
  /** Delete key → create key of each replace; their order is decided once every action is known. */
  private readonly replacements = new Map<string, string>();

  constructor(
    private readonly desired: DesiredState,
    private readonly live: LiveState,
    private readonly options: PlanOptions,
    kinds: readonly Kind[],
  ) {
    this.kindsByName = new Map(kinds.map((kind) => [kind.name, kind]));
  }

  build(): Plan {
    this.indexLive();
    const skipped = this.checkAdoptions();
    this.checkUniqueKeys();
    for (const kind of kindsInReferenceOrder([...this.kindsByName.values()])) {
      for (const entry of this.desired.entries) {
        if (entry.kind !== kind.name || skipped.has(entry)) continue;
        if (kind.ownership === 'metadata') this.planManagedEntry(kind, entry);
        else this.planModulesOnlyEntry(kind, entry);
      }
    }
    this.planPrunes();
    this.addOrderingDependencies();
    const { changes, actions } = this.narrow();
    return this.assemble(changes, actions);
  }

  private indexLive(): void {
    for (const kindName of KIND_NAMES) {
      for (const object of this.live.objects[kindName] ?? []) {
        this.liveById.set(object.id, object);
        if (object.marker?.owner !== this.options.owner) continue;
        if (this.kindsByName.get(kindName)?.ownership !== 'metadata') continue;
        const byName = this.managed.get(kindName) ?? new Map<string, LiveObject[]>();
        this.managed.set(kindName, byName);
        byName.set(object.marker.name, [...(byName.get(object.marker.name) ?? []), object]);
      }
    }
    // Several objects with one marker happen when an apply stopped between a
    // replacement's create and its delete: the newest is the one to keep.
    for (const byName of this.managed.values()) {
      for (const objects of byName.values()) objects.sort(newestFirst);
    }
    for (const entry of this.desired.entries) this.desiredByName.set(`${entry.kind}.${entry.name}`, entry);
  }

  /** Two entries adopting one ID: the later ones are reported and left out. */
  private checkAdoptions(): Set<DesiredEntry> {
    const skipped = new Set<DesiredEntry>();
    const firstById = new Map<string, DesiredEntry>();
    for (const entry of this.desired.entries) {
      if (entry.id === undefined || this.kindsByName.get(entry.kind)?.ownership !== 'metadata') continue;
      const first = firstById.get(entry.id);
      if (first === undefined) {
        firstById.set(entry.id, entry);
        continue;
      }
      skipped.add(entry);
      this.errors.push({
        code: 'adopt_duplicate',
        message: `${entry.kind}.${entry.name}: adopts ${entry.id}, which ${first.kind}.${first.name} already adopts`,
        source: entry.location,
      });
    }
    return skipped;
  }

  /** Two entries that the service would refuse to hold at once (one rule per CIDR and IP policy). */
  private checkUniqueKeys(): void {
    const firstByKey = new Map<string, DesiredEntry>();
    for (const entry of this.desired.entries) {
      const kind = this.kindsByName.get(entry.kind);
      if (kind?.uniqueKey === undefined || kind.uniqueKey.length === 0) continue;
      const spec = kind.normalizeDesired(entry.spec);
      const key = `${kind.name}:${canonicalJson(kind.uniqueKey.map((field) => spec[field] ?? null))}`;
      const first = firstByKey.get(key);
      if (first === undefined) {
        firstByKey.set(key, entry);
        continue;
      }
      this.errors.push({
        code: 'unique_key_conflict',
        message: `${entry.kind}.${entry.name}: has the same ${kind.uniqueKey.join(' and ')} as ${first.kind}.${first.name} (${formatLocation(first.location)}); the service holds only one`,
        source: entry.location,
      });
    }
  }

  private planManagedEntry(kind: Kind, entry: DesiredEntry): void {
    const address = `${kind.name}.${entry.name}`;
    const match = this.matchLive(kind, entry);
    if (match === 'error') return;
    const spec = this.resolveSpec(kind, entry, kind.normalizeDesired(entry.spec));
    const marker: OwnershipMarker = { owner: this.options.owner, name: entry.name };
    const userMetadata = normalizeUserMetadata(spec[METADATA_FIELD]) as Record<string, unknown> | undefined;
    const metadata = encodeMetadata(userMetadata, marker);
    const secrets = secretsOf(kind, spec);
    if (match === undefined) {
      this.planCreate(kind, entry, spec, metadata, secrets);
      return;
    }
    const { object, adopting } = match;
    this.claimed.add(object.id);
    this.entryByObjectId.set(object.id, entry);
    this.touched.add(object.id);
    const fields = kind.fields.filter((rule) => rule.name !== METADATA_FIELD);
    const fieldChanges = diffFields(fields, spec, object.spec, '');
    const markerMatches = object.marker?.owner === marker.owner && object.marker.name === marker.name;
    const metadataRule = kind.fields.find((rule) => rule.name === METADATA_FIELD) ?? {
      name: METADATA_FIELD,
      onChange: 'update',
    };
    const userChanged = !fieldEquals(metadataRule, userMetadata, object.spec[METADATA_FIELD]);
    if (fieldChanges.some((change) => change.forcesReplace)) {
      this.planReplace(kind, entry, spec, metadata, secrets, object, fieldChanges, adopting);
      return;
    }
    this.resolvedIds.set(address, object.id);
    let changed = false;
    if (fieldChanges.length > 0 || userChanged || !markerMatches) {
      changed = true;
      const op: Operation = adopting ? 'adopt' : 'update';
      const body: Record<string, unknown> = {};
      for (const change of fieldChanges) body[change.path] = spec[change.path];
      if (userChanged || !markerMatches) body[METADATA_FIELD] = metadata;
      const displayed: FieldChange[] = [...fieldChanges];
      if (userChanged)
        displayed.push(fieldChange(METADATA_FIELD, metadataRule, object.spec[METADATA_FIELD], userMetadata));
      if (!markerMatches) {
        displayed.push({
          path: 'metadata.edgesync',
          ...(object.marker ? { before: object.marker } : {}),
          after: marker,
          sensitive: false,
          forcesReplace: false,
        });
      }
      const changedNames = fieldChanges.map((change) => change.path);
      if (userChanged) changedNames.push(METADATA_FIELD);
      const reason = adopting
        ? `adopted by id${object.marker ? ` from owner "${object.marker.owner}"` : ''}${changedNames.length > 0 ? `; ${changedNames.join(', ')} changed` : ''}`
        : `${changedNames.length > 0 ? changedNames.join(', ') : 'ownership marker'} changed`;
      const request = kind.updateRequest(object.id, body);
      this.addChange(
        { address, op, kind: kind.name, name: entry.name, id: object.id, changes: displayed, reason },
        entry,
        this.sourceOf(entry, `/${fieldChanges[0]?.path ?? ''}`),
        [
          this.draftAction({
            key: `${op}:${address}`,
            op,
            kind: kind.name,
            name: entry.name,
            change: address,
            request,
            secrets,
            source: this.sourceOf(entry, `/${fieldChanges[0]?.path ?? ''}`),
            objectId: object.id,
            ...this.keyMove(kind, object.spec, spec),
          }),
        ],
      );
    }
    const moduleChanges = this.planModules(kind, entry, spec, object, entry.id === undefined, secrets);
    if (!changed && moduleChanges === 0) this.unchanged += 1;
  }

  /** The live object an entry stands for: adopted by `id`, or the managed object of its name. */
  private matchLive(
    kind: Kind,
    entry: DesiredEntry,
  ): { object: LiveObject; adopting: boolean } | undefined | 'error' {
    if (entry.id === undefined) {
      const object = this.managed.get(kind.name)?.get(entry.name)?.[0];
      return object ? { object, adopting: false } : undefined;
    }
    const object = this.liveById.get(entry.id);
    if (object === undefined || object.kind !== kind.name) {
      this.errors.push({
        code: object ? 'adopt_wrong_kind' : 'adopt_not_found',
        message: object
          ? `${kind.name}.${entry.name}: id ${entry.id} is a ${object.kind} object, not one of ${kind.name}`
          : `${kind.name}.${entry.name}: id ${entry.id} does not exist in the account`,
        source: this.sourceOf(entry, '/id'),
      });
      return 'error';
    }
    if (object.marker?.owner === this.options.owner && object.marker.name !== entry.name) {
      this.errors.push({
        code: 'adopt_owned_by_other_name',
        message: `${kind.name}.${entry.name}: id ${entry.id} is already managed as ${kind.name}.${object.marker.name}`,
        source: this.sourceOf(entry, '/id'),
      });
      return 'error';
    }
    const ours = object.marker?.owner === this.options.owner && object.marker.name === entry.name;
    return { object, adopting: !ours };
  }

  private planCreate(
    kind: Kind,
    entry: DesiredEntry,
    spec: Record<string, unknown>,
    metadata: string,
    secrets: ReadonlySet<string>,
  ): void {
    const address = `${kind.name}.${entry.name}`;
    const key = `create:${address}`;
    this.resolvedIds.set(address, { $createdBy: key });
    this.reportRoutesOnNewObject(kind, entry, spec);
    this.addChange(
      {
        address,
        op: 'create',
        kind: kind.name,
        name: entry.name,
        changes: creationChanges(kind, spec),
        reason: 'not in the live account',
      },
      entry,
      entry.location,
      [
        this.createAction(kind, entry, spec, metadata, secrets, key, address),
        ...this.followUpActions(kind, entry, spec, secrets, key, address),
      ],
    );
  }

  /** The update that sets, right after the create, the fields a create request cannot carry. */
  private followUpActions(
    kind: Kind,
    entry: DesiredEntry,
    spec: Record<string, unknown>,
    secrets: ReadonlySet<string>,
    createKey: string,
    address: string,
  ): DraftAction[] {
    const later = kind.fields.filter((rule) => rule.setAfterCreate === true && spec[rule.name] !== undefined);
    if (later.length === 0) return [];
    const body = Object.fromEntries(later.map((rule) => [rule.name, spec[rule.name]]));
    const action = this.draftAction({
      key: `update:${address}`,
      op: 'update',
      kind: kind.name,
      name: entry.name,
      change: address,
      request: kind.updateRequest(pendingPathSegment(createKey), body),
      secrets,
      source: this.sourceOf(entry, `/${later[0]?.name ?? ''}`),
    });
    action.dependsOn.add(createKey);
    return [action];
  }

  private createAction(
    kind: Kind,
    entry: DesiredEntry,
    spec: Record<string, unknown>,
    metadata: string,
    secrets: ReadonlySet<string>,
    key: string,
    address: string,
  ): DraftAction {
    const { [METADATA_FIELD]: _metadata, [ROUTES_KEY]: _routes, ...createSpec } = spec;
    const bodySpec = kind.modules.some((module) => module.scope === 'route')
      ? createSpec
      : { ...createSpec, ...(_routes === undefined ? {} : { [ROUTES_KEY]: _routes }) };
    return this.draftAction({
      key,
      op: 'create',
      kind: kind.name,
      name: entry.name,
      change: address,
      request: kind.createRequest(bodySpec, metadata),
      secrets,
      marker: { owner: this.options.owner, name: entry.name },
      source: entry.location,
      ...this.orderingFacts(kind, spec, 'takes'),
    });
  }

  private planReplace(
    kind: Kind,
    entry: DesiredEntry,
    spec: Record<string, unknown>,
    metadata: string,
    secrets: ReadonlySet<string>,
    object: LiveObject,
    fieldChanges: readonly FieldChange[],
    adopting: boolean,
  ): void {
    const address = `${kind.name}.${entry.name}`;
    const createKey = `create:${address}`;
    this.resolvedIds.set(address, { $createdBy: createKey });
    this.reportRoutesOnNewObject(kind, entry, spec);
    const create = this.createAction(kind, entry, spec, metadata, secrets, createKey, address);
    const facts = this.orderingFacts(kind, object.spec, 'frees');
    const remove = this.draftAction({
      key: `delete:${address}`,
      op: 'delete',
      kind: kind.name,
      name: entry.name,
      change: address,
      request: kind.deleteRequest(object.id),
      secrets: new Set(),
      objectId: object.id,
      ...(entry.location ? { source: entry.location } : {}),
      ...facts,
    });
    this.replacements.set(remove.key, create.key);
    const forcing = fieldChanges.filter((change) => change.forcesReplace).map((change) => change.path);
    const moduleChanges = kind.modules
      .filter((module) => module.scope === 'resource')
      .flatMap((module) =>
        diffFields(
          module.fields,
          asRecord(spec[module.name]),
          asRecord(object.spec[module.name]),
          `${module.name}.`,
        ),
      );
    this.addChange(
      {
        address,
        op: 'replace',
        kind: kind.name,
        name: entry.name,
        id: object.id,
        changes: [...fieldChanges, ...moduleChanges],
        reason: `${forcing.join(', ')} cannot be updated in place${adopting ? ' (adopted by id)' : ''}`,
      },
      entry,
      this.sourceOf(entry, `/${forcing[0] ?? ''}`),
      [create, ...this.followUpActions(kind, entry, spec, secrets, createKey, address), remove],
    );
  }

  private planModulesOnlyEntry(kind: Kind, entry: DesiredEntry): void {
    const address = `${kind.name}.${entry.name}`;
    const object = entry.id === undefined ? undefined : this.liveById.get(entry.id);
    if (entry.id === undefined || object === undefined || object.kind !== kind.name) {
      this.errors.push({
        code: 'edge_not_found',
        message: `${address}: ${entry.id === undefined ? 'needs an id' : `id ${entry.id} does not exist in the account`}`,
        source: this.sourceOf(entry, '/id'),
      });
      return;
    }
    this.claimed.add(object.id);
    this.entryByObjectId.set(object.id, entry);
    this.touched.add(object.id);
    this.resolvedIds.set(address, object.id);
    const spec = this.resolveSpec(kind, entry, kind.normalizeDesired(entry.spec));
    if (this.planModules(kind, entry, spec, object, false, secretsOf(kind, spec)) === 0) this.unchanged += 1;
  }

  /**
   * Module changes of an existing object. A module absent from the entry is
   * removed only when edgesync created the object (`absentMeansRemove`); on
   * adopted and module-only objects it is left alone. Route modules are
   * managed only where the entry names them.
   */
  private planModules(
    kind: Kind,
    entry: DesiredEntry,
    spec: Record<string, unknown>,
    object: LiveObject,
    absentMeansRemove: boolean,
    secrets: ReadonlySet<string>,
  ): number {
    let count = 0;
    const address = `${kind.name}.${entry.name}`;
    for (const module of kind.modules.filter((rule) => rule.scope === 'resource')) {
      const planned = this.planModule(kind, entry, module, {
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
      const liveRoute = this.selectRoute(entry, desiredRoute, liveRoutes, index, selected);
      if (liveRoute === undefined) return;
      const routeId = String(liveRoute.id);
      for (const module of routeModules) {
        if (desiredRoute[module.name] === undefined) continue;
        const planned = this.planModule(kind, entry, module, {
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

  private selectRoute(
    entry: DesiredEntry,
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
    const source = this.sourceOf(entry, `/${ROUTES_KEY}/${index}`);
    const where = `${entry.kind}.${entry.name}.${ROUTES_KEY}[${index}]`;
    const only = candidates[0];
    if (candidates.length !== 1 || only === undefined) {
      this.errors.push({
        code: candidates.length === 0 ? 'route_not_found' : 'route_ambiguous',
        message: `${where}: ${selector} matches ${candidates.length} routes of the edge (expected exactly 1)`,
        source,
      });
      return undefined;
    }
    const id = String(only.id);
    if (selected.has(id)) {
      this.errors.push({
        code: 'route_selected_twice',
        message: `${where}: route ${id} is already selected`,
        source,
      });
      return undefined;
    }
    selected.add(id);
    return only;
  }

  private planModule(
    kind: Kind,
    entry: DesiredEntry,
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
    const source = this.sourceOf(entry, at.pointer);
    if (desired === undefined) {
      if (live === undefined) return false;
      const key = `delete-module:${at.address}`;
      this.addChange(
        {
          ...base,
          op: 'delete-module',
          changes: [
            {
              path: module.name,
              before: maskSensitive(module.fields, live),
              sensitive: false,
              forcesReplace: false,
            },
          ],
          reason: at.absentReason ? 'absent from an entry edgesync created' : 'set to null in the manifest',
        },
        entry,
        source,
        [
          this.draftAction({
            key,
            op: 'delete-module',
            kind: kind.name,
            name: entry.name,
            change: at.address,
            request: kind.moduleRequest(at.target, module.name, null),
            secrets: new Set(),
            source,
            objectId: at.target.id,
          }),
        ],
      );
      return true;
    }
    const changes = diffFields(module.fields, desired, live, `${module.name}.`);
    if (live !== undefined && changes.length === 0) return false;
    const key = `put-module:${at.address}`;
    this.addChange(
      {
        ...base,
        op: 'put-module',
        changes,
        reason:
          live === undefined
            ? 'module not set on the service'
            : `${changes.map((change) => change.path).join(', ')} changed`,
      },
      entry,
      source,
      [
        this.draftAction({
          key,
          op: 'put-module',
          kind: kind.name,
          name: entry.name,
          change: at.address,
          request: kind.moduleRequest(at.target, module.name, desired),
          secrets: at.secrets,
          source,
          objectId: at.target.id,
        }),
      ],
    );
    return true;
  }

  /** An object being created has no routes yet: routes are created elsewhere. */
  private reportRoutesOnNewObject(kind: Kind, entry: DesiredEntry, spec: Record<string, unknown>): void {
    const routes = spec[ROUTES_KEY];
    if (!kind.modules.some((module) => module.scope === 'route') || !Array.isArray(routes)) return;
    routes.forEach((_route, index) => {
      this.errors.push({
        code: 'route_not_found',
        message: `${entry.kind}.${entry.name}.${ROUTES_KEY}[${index}]: the edge is created by this plan and has no routes yet; routes are created outside edgesync`,
        source: this.sourceOf(entry, `/${ROUTES_KEY}/${index}`),
      });
    });
  }

  private planPrunes(): void {
    let skipped = 0;
    for (const kind of this.kindsByName.values()) {
      if (kind.ownership !== 'metadata') continue;
      for (const [name, objects] of this.managed.get(kind.name) ?? []) {
        const inManifests = this.desiredByName.has(`${kind.name}.${name}`);
        for (const object of objects) {
          if (this.claimed.has(object.id)) continue;
          if (!this.live.complete) {
            skipped += 1;
            continue;
          }
          this.touched.add(object.id);
          const address =
            objects.length > 1 || inManifests ? `${kind.name}.${name}[${object.id}]` : `${kind.name}.${name}`;
          const reason = inManifests
            ? `a second object marked as ${kind.name}.${name} (owner "${this.options.owner}")`
            : `owned by edgesync (owner "${this.options.owner}") but no longer in the manifests`;
          this.addChange(
            {
              address,
              op: 'delete',
              kind: kind.name,
              name,
              id: object.id,
              changes: diffFields(
                kind.fields.filter((rule) => rule.name !== METADATA_FIELD),
                undefined,
                object.spec,
                '',
              ),
              reason,
            },
            undefined,
            undefined,
            [
              this.draftAction({
                key: `delete:${address}`,
                op: 'delete',
                kind: kind.name,
                name,
                change: address,
                request: kind.deleteRequest(object.id),
                secrets: new Set(),
                objectId: object.id,
                ...this.orderingFacts(kind, object.spec, 'frees'),
              }),
            ],
          );
        }
      }
    }
    if (skipped > 0) {
      this.warnings.push({
        code: 'live_state_incomplete',
        message: `the live account was not read completely: ${skipped} owned object(s) no longer in the manifests are not pruned`,
      });
    }
  }

  /** An update that changes the uniqueness key frees the old value and takes the new one. */
  private keyMove(
    kind: Kind,
    before: Readonly<Record<string, unknown>>,
    after: Readonly<Record<string, unknown>>,
  ): { takes?: string; frees?: string } {
    const { frees } = this.orderingFacts(kind, before, 'frees');
    const { takes, access } = this.orderingFacts(kind, after, 'takes');
    if (takes === undefined || frees === undefined || takes === frees) return {};
    return { takes, frees, ...(access === undefined ? {} : { access }) };
  }

  /** Uniqueness-key value and access decision of a spec, for the ordering rules. */
  private orderingFacts(
    kind: Kind,
    spec: Readonly<Record<string, unknown>>,
    role: 'takes' | 'frees',
  ): { takes?: string; frees?: string; access?: 'allow' | 'deny' } {
    const facts: { takes?: string; frees?: string; access?: 'allow' | 'deny' } = {};
    if (kind.uniqueKey !== undefined && kind.uniqueKey.length > 0) {
      facts[role] = `${kind.name}:${canonicalJson(kind.uniqueKey.map((field) => spec[field] ?? null))}`;
    }
    const decision = kind.accessDecision;
    if (decision !== undefined) {
      const value = spec[decision.field];
      if (value === decision.allow) facts.access = 'allow';
      if (value === decision.deny) facts.access = 'deny';
    }
    return facts;
  }

  private addOrderingDependencies(): void {
    const keys = new Set(this.actions.map((action) => action.key));
    // A request naming an ID that another action creates waits for that create.
    for (const action of this.actions) {
      for (const key of [...pendingKeysIn(action.request.body), ...pendingKeysInPath(action.request.path)]) {
        if (keys.has(key)) action.dependsOn.add(key);
      }
    }
    // References move off an object before it is deleted: the delete waits
    // for every action on an object whose live state names it.
    const referrers = new Map<string, string[]>();
    for (const object of this.liveById.values()) {
      const kind = this.kindsByName.get(object.kind);
      if (kind === undefined) continue;
      for (const id of referencedIds(kind, object.spec))
        referrers.set(id, [...(referrers.get(id) ?? []), object.id]);
    }
    const actionsByObject = new Map<string, DraftAction[]>();
    for (const action of this.actions) {
      if (action.objectId === undefined) continue;
      actionsByObject.set(action.objectId, [...(actionsByObject.get(action.objectId) ?? []), action]);
    }
    for (const action of this.actions) {
      if (action.op !== 'delete' || action.objectId === undefined) continue;
      for (const referrer of referrers.get(action.objectId) ?? []) {
        if (referrer === action.objectId) continue;
        const moves = actionsByObject.get(referrer) ?? [];
        // Nothing in the plan changes the object that names this one, so the
        // service would refuse the delete: say so now, with both names.
        if (moves.length === 0) this.reportStillReferenced(action, referrer);
        for (const other of moves) action.dependsOn.add(other.key);
      }
    }
    // The service holds one object per uniqueness key (one rule per CIDR and
    // IP policy): whatever takes a key waits for the delete that frees it.
    const freedBy = new Map<string, string[]>();
    for (const action of this.actions) {
      if (action.frees !== undefined)
        freedBy.set(action.frees, [...(freedBy.get(action.frees) ?? []), action.key]);
    }
    const takers = new Map<string, string[]>();
    for (const action of this.actions) {
      if (action.takes === undefined) continue;
      takers.set(action.takes, [...(takers.get(action.takes) ?? []), action.key]);
      for (const key of freedBy.get(action.takes) ?? []) if (key !== action.key) action.dependsOn.add(key);
    }
    // A replace creates first so the name never points at nothing, unless the
    // key its old object holds is wanted (by the replacement itself or by
    // another action): then the old object goes first and the uniqueness
    // ordering above makes the takers wait for it. A replaced allow rule also
    // goes first: removing an allow only narrows access, and waiting for its
    // successor would tie it into the deny-before-allow chain below.
    const byKey = new Map(this.actions.map((action) => [action.key, action]));
    for (const [deleteKey, createKey] of this.replacements) {
      const remove = byKey.get(deleteKey);
      if (remove === undefined) continue;
      const keyWanted = remove.frees !== undefined && (takers.get(remove.frees) ?? []).length > 0;
      if (!keyWanted && remove.access !== 'allow') remove.dependsOn.add(createKey);
      else byKey.get(createKey)?.dependsOn.add(deleteKey);
    }
    // Access never widens mid-apply. Creating a deny rule or deleting an allow
    // rule only narrows access, so those go first: every allow create waits
    // for every deny create, and every deny delete waits for every allow
    // delete. A rule whose action flips on the same CIDR must be deleted
    // before it is re-created (uniqueness above); with these two rules the
    // old allow of an allow→deny flip is deleted early and its deny created
    // before any allow, while the old deny of a deny→allow flip is deleted
    // only after every allow is gone and its allow is created last, so no
    // moment between the two states grants more than either of them does.
    for (const kind of this.kindsByName.values()) {
      if (kind.accessDecision === undefined) continue;
      const ofKind = this.actions.filter(
        (action) => action.kind === kind.name && action.access !== undefined,
      );
      const denyCreates = ofKind.filter(
        (action) => action.takes !== undefined && isCreate(action) && action.access === 'deny',
      );
      const allowDeletes = ofKind.filter((action) => action.op === 'delete' && action.access === 'allow');
      for (const action of ofKind) {
        if (isCreate(action) && action.access === 'allow')
          for (const deny of denyCreates) action.dependsOn.add(deny.key);
        if (action.op === 'delete' && action.access === 'deny') {
          for (const allow of allowDeletes) action.dependsOn.add(allow.key);
        }
      }
    }
  }

  private reportStillReferenced(remove: DraftAction, referrerId: string): void {
    const referrer = this.liveById.get(referrerId);
    const owner =
      referrer?.marker?.owner === this.options.owner ? ` (${referrer.kind}.${referrer.marker.name})` : '';
    // The entry that keeps naming it is where a person fixes this.
    const source = this.entryByObjectId.get(referrerId)?.location ?? remove.source;
    this.errors.push({
      code: 'still_referenced',
      message: `${remove.change} (${remove.objectId}) cannot be deleted: ${referrer?.kind ?? 'object'} ${referrerId}${owner} still names it and this plan does not change that`,
      ...(source ? { source } : {}),
    });
  }

  /** Applies targets and excludes; dependencies of a kept action are kept too, or reported when excluded. */
  private narrow(): { changes: DraftChange[]; actions: DraftAction[] } {
    const targets = this.options.targets ?? [];
    const excludes = this.options.excludes ?? [];
    if (targets.length === 0 && excludes.length === 0)
      return { changes: this.changes, actions: this.actions };
    const isExcluded = (change: DraftChange): boolean =>
      excludes.some((pattern) => addressMatches(pattern, change));
    const actionByKey = new Map(this.actions.map((action) => [action.key, action]));
    const changeByAddress = new Map(this.changes.map((change) => [change.change.address, change]));
    const keep = new Set<string>();
    const pending: string[] = [];
    for (const change of this.changes) {
      const targeted = targets.length === 0 || targets.some((pattern) => addressMatches(pattern, change));
      if (targeted && !isExcluded(change)) pending.push(...change.actionKeys);
    }
    while (pending.length > 0) {
      const key = pending.pop() as string;
      if (keep.has(key)) continue;
      keep.add(key);
      const action = actionByKey.get(key);
      if (action === undefined) continue;
      const change = changeByAddress.get(action.change);
      for (const sibling of change?.actionKeys ?? []) pending.push(sibling);
      for (const dependency of action.dependsOn) {
        const owner = changeByAddress.get(actionByKey.get(dependency)?.change ?? '');
        if (owner !== undefined && isExcluded(owner)) {
          this.errors.push({
            code: 'excluded_dependency',
            message: `${action.change} depends on ${owner.change.address}, which --exclude leaves out`,
            ...(action.source ? { source: action.source } : {}),
          });
          continue;
        }
        pending.push(dependency);
      }
    }
    const changes = this.changes.filter((change) => change.actionKeys.some((key) => keep.has(key)));
    return { changes, actions: this.actions.filter((action) => keep.has(action.key)) };
  }

  private assemble(drafts: readonly DraftChange[], drafted: readonly DraftAction[]): Plan {
    const kindIndex = (kind: KindName): number => KIND_NAMES.indexOf(kind);
    const sortedDrafts = drafts
      .map((draft, position) => ({ draft, position }))
      .sort(
        (a, b) => kindIndex(a.draft.change.kind) - kindIndex(b.draft.change.kind) || a.position - b.position,
      )
      .map(({ draft }) => draft);
    const keys = new Set(drafted.map((action) => action.key));
    const nodes: Action[] = drafted
      .map((action, position) => ({ action, position }))
      .sort((a, b) => kindIndex(a.action.kind) - kindIndex(b.action.kind) || a.position - b.position)
      .map(({ action }) => toAction(action, keys));
    const ordered = topologicalOrder(nodes);
    if (!ordered.ok) {
      this.errors.push({
        code: 'dependency_cycle',
        message: `the actions depend on each other in a cycle: ${ordered.cycle.join(', ')}`,
      });
    }
    const changes: ResourceChange[] = sortedDrafts.map((draft) => ({
      ...draft.change,
      actionKeys: draft.actionKeys.filter((key) => keys.has(key)),
    }));
    const summary = this.summarize(changes);
    const refusal = this.refusal(sortedDrafts);
    const fingerprints: Record<string, string> = {};
    const fingerprinted = new Set([
      ...this.touched,
      ...[...this.managed.values()].flatMap((byName) =>
        [...byName.values()].flat().map((object) => object.id),
      ),
    ]);
    for (const id of [...fingerprinted].sort()) {
      const object = this.liveById.get(id);
      if (object !== undefined) fingerprints[id] = object.fingerprint;
    }
    return {
      formatVersion: 1,
      owner: this.options.owner,
      changes,
      actions: ordered.ok ? ordered.order : nodes,
      summary,
      errors: [...this.errors],
      ...(this.warnings.length > 0 ? { warnings: [...this.warnings] } : {}),
      ...(refusal ? { refusal } : {}),
      desiredHash: this.desired.hash,
      fingerprints,
    };
  }

  private summarize(changes: readonly ResourceChange[]): PlanSummary {
    const counts = Object.fromEntries(OPERATIONS.map((op) => [op, 0])) as Record<Operation, number>;
    for (const change of changes) counts[change.op] += 1;
    let unmanaged = 0;
    for (const object of this.liveById.values()) {
      if (this.kindsByName.get(object.kind)?.ownership !== 'metadata') continue;
      if (object.marker?.owner === this.options.owner || this.claimed.has(object.id)) continue;
      unmanaged += 1;
    }
    return { ...counts, unchanged: this.unchanged, unmanaged };
  }

  private refusal(drafts: readonly DraftChange[]): PlanRefusal | undefined {
    const protectedReplaces = drafts.filter((draft) => draft.protect && draft.change.op === 'replace');
    if (protectedReplaces.length > 0) {
      return {
        code: 'protected',
        message: `protect: true forbids replacing ${protectedReplaces.map((draft) => draft.change.address).join(', ')} (${protectedReplaces.map((draft) => draft.change.reason).join('; ')}); remove protect or the change`,
      };
    }
    const owned = [...this.managed.values()].reduce(
      (total, byName) => total + [...byName.values()].reduce((sum, objects) => sum + objects.length, 0),
      0,
    );
    if (this.desired.entries.length === 0 && owned > 0 && this.options.allowEmpty !== true) {
      return {
        code: 'empty-desired',
        message: `the manifests declare nothing, which would delete all ${owned} object(s) owned by "${this.options.owner}"; pass --allow-empty if that is intended`,
      };
    }
    const destroys = drafts.filter(
      (draft) => draft.change.op === 'delete' || draft.change.op === 'replace',
    ).length;
    const limit = destroyLimit(this.options.maxDestroy, owned);
    if (destroys > limit && this.options.force !== true) {
      return {
        code: 'max-destroy',
        message: `the plan deletes or replaces ${destroys} object(s), more than the limit of ${limit} (owner "${this.options.owner}" owns ${owned}); pass --force or raise --max-destroy`,
      };
    }
    return undefined;
  }

  /** Resolves names in reference fields (top level, modules, route modules) to IDs or PendingIds. */
  private resolveSpec(
    kind: Kind,
    entry: DesiredEntry,
    spec: Record<string, unknown>,
  ): Record<string, unknown> {
    const resolved = this.resolveRecord(entry, kind.fields, spec, '');
    for (const module of kind.modules) {
      if (module.scope === 'resource') {
        const value = asRecord(resolved[module.name]);
        if (value) resolved[module.name] = this.resolveRecord(entry, module.fields, value, `/${module.name}`);
        continue;
      }
      const routes = resolved[ROUTES_KEY];
      if (!Array.isArray(routes)) continue;
      resolved[ROUTES_KEY] = routes.map((route: unknown, index) => {
        const record = asRecord(route);
        const value = asRecord(record?.[module.name]);
        if (record === undefined || value === undefined) return route;
        const pointer = `/${ROUTES_KEY}/${index}/${module.name}`;
        return { ...record, [module.name]: this.resolveRecord(entry, module.fields, value, pointer) };
      });
    }
    return resolved;
  }

  private resolveRecord(
    entry: DesiredEntry,
    rules: readonly FieldRule[],
    record: Readonly<Record<string, unknown>>,
    pointer: string,
  ): Record<string, unknown> {
    const resolved: Record<string, unknown> = { ...record };
    for (const rule of rules) {
      const target = rule.references;
      const value = record[rule.name];
      if (target === undefined || value === undefined || value === null) continue;
      const at = `${pointer}/${rule.name}`;
      if (Array.isArray(value)) {
        const items = value.map((item: unknown, index) =>
          this.resolveReference(entry, target, item, `${at}/${index}`, at),
        );
        resolved[rule.name] = rule.setLike ? normalizeSetLike(items) : items;
      } else {
        resolved[rule.name] = this.resolveReference(entry, target, value, at, at);
      }
    }
    return resolved;
  }

  private resolveReference(
    entry: DesiredEntry,
    target: KindName,
    value: unknown,
    pointer: string,
    fieldPointer: string,
  ): unknown {
    if (typeof value !== 'string') return value;
    const kind = this.kindsByName.get(target);
    const source = entry.fieldLocations[pointer] ?? this.sourceOf(entry, fieldPointer);
    if (kind !== undefined && value.startsWith(kind.idPrefix)) {
      const object = this.liveById.get(value);
      if (object !== undefined) this.touched.add(value);
      if (object === undefined && kind.ownership === 'metadata' && !this.live.missingIds.includes(value)) {
        this.errors.push({
          code: 'reference_not_found',
          message: `${entry.kind}.${entry.name}${fieldPointer.replace(/\//g, '.')}: ${value} does not exist in the account`,
          source,
        });
      }
      return value;
    }
    const resolved = this.resolvedIds.get(`${target}.${value}`);
    if (resolved !== undefined) return resolved;
    if (!this.desiredByName.has(`${target}.${value}`)) {
      this.errors.push({
        code: 'reference_not_found',
        message: `${entry.kind}.${entry.name}${fieldPointer.replace(/\//g, '.')}: no ${target} entry named "${value}"`,
        source,
      });
    }
    return value;
  }

  private sourceOf(entry: DesiredEntry, pointer: string): SourceLocation {
    return entry.fieldLocations[pointer] ?? entry.location;
  }

  private draftAction(
    parts: Omit<DraftAction, 'dependsOn' | 'sensitivePaths' | 'source'> & {
      readonly secrets: ReadonlySet<string>;
      readonly source?: SourceLocation | undefined;
    },
  ): DraftAction {
    const { secrets, source, ...rest } = parts;
    return {
      ...rest,
      ...(source ? { source } : {}),
      sensitivePaths: pointersToValues(parts.request.body, secrets),
      dependsOn: new Set(),
    };
  }

  private addChange(
    change: Omit<ResourceChange, 'actionKeys' | 'source'>,
    entry: DesiredEntry | undefined,
    source: SourceLocation | undefined,
    actions: readonly DraftAction[],
  ): void {
    this.actions.push(...actions);
    this.changes.push({
      change: { ...change, ...(source ? { source } : {}) },
      actionKeys: actions.map((action) => action.key),
      protect: entry?.protect === true,
    });
  }
}

function toAction(draft: DraftAction, keys: ReadonlySet<string>): Action {
  return {
    key: draft.key,
    op: draft.op,
    kind: draft.kind,
    name: draft.name,
    change: draft.change,
    request: draft.request,
    sensitivePaths: draft.sensitivePaths,
    ...(draft.marker ? { marker: draft.marker } : {}),
    dependsOn: [...draft.dependsOn].filter((key) => keys.has(key)).sort(),
    ...(draft.source ? { source: draft.source } : {}),
  };
}

function isCreate(action: DraftAction): boolean {
  return action.op === 'create';
}

function destroyLimit(maxDestroy: PlanOptions['maxDestroy'], owned: number): number {
  if (maxDestroy === undefined) return Math.max(1, Math.floor(owned / 10));
  if ('count' in maxDestroy) return maxDestroy.count;
  return Math.floor((owned * maxDestroy.percent) / 100);
}

function addressMatches(pattern: string, draft: DraftChange): boolean {
  const { kind, name, address } = draft.change;
  return (
    pattern === kind ||
    pattern === `${kind}.${name}` ||
    address === pattern ||
    address.startsWith(`${pattern}.`) ||
    address.startsWith(`${pattern}[`)
  );
}

function newestFirst(a: LiveObject, b: LiveObject): number {
  const byTime = (b.createdAt ?? '').localeCompare(a.createdAt ?? '');
  return byTime !== 0 ? byTime : a.id.localeCompare(b.id);
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Every ID a live object names through reference fields, its modules and route modules. */
function referencedIds(kind: Kind, spec: Readonly<Record<string, unknown>>): string[] {
  const ids: string[] = [];
  const collect = (rules: readonly FieldRule[], record: Record<string, unknown> | undefined): void => {
    if (record === undefined) return;
    for (const rule of rules) {
      if (rule.references === undefined) continue;
      const value = record[rule.name];
      for (const item of Array.isArray(value) ? value : [value]) if (typeof item === 'string') ids.push(item);
    }
  };
  collect(kind.fields, spec as Record<string, unknown>);
  for (const module of kind.modules) {
    if (module.scope === 'resource') collect(module.fields, asRecord(spec[module.name]));
    else {
      const routes = spec[ROUTES_KEY];
      for (const route of Array.isArray(routes) ? routes : [])
        collect(module.fields, asRecord(asRecord(route)?.[module.name]));
    }
  }
  return ids;
}

/** Secret strings of a resolved spec: values of sensitive fields, in modules and route modules too. */
function secretsOf(kind: Kind, spec: Readonly<Record<string, unknown>>): Set<string> {
  const secrets = new Set<string>();
  const collect = (rules: readonly FieldRule[], record: Record<string, unknown> | undefined): void => {
    for (const rule of rules) {
      const value = record?.[rule.name];
      if (rule.sensitive === true && typeof value === 'string' && value !== '') secrets.add(value);
    }
  };
  collect(kind.fields, spec as Record<string, unknown>);
  for (const module of kind.modules) {
    if (module.scope === 'resource') collect(module.fields, asRecord(spec[module.name]));
    else {
      const routes = spec[ROUTES_KEY];
      for (const route of Array.isArray(routes) ? routes : [])
        collect(module.fields, asRecord(asRecord(route)?.[module.name]));
    }
  }
  return secrets;
}

/** What a create sets, for people: every field, and every field of every module it sets. */
function creationChanges(kind: Kind, spec: Readonly<Record<string, unknown>>): FieldChange[] {
  const changes = diffFields(kind.fields, spec, undefined, '');
  for (const module of kind.modules) {
    if (module.scope !== 'resource') continue;
    const value = asRecord(spec[module.name]);
    if (value !== undefined) changes.push(...diffFields(module.fields, value, undefined, `${module.name}.`));
  }
  return changes;
}

/** Kinds ordered so that a kind comes after the kinds its fields reference; KIND_NAMES order otherwise. */
function kindsInReferenceOrder(kinds: readonly Kind[]): Kind[] {
  const sorted = [...kinds].sort((a, b) => KIND_NAMES.indexOf(a.name) - KIND_NAMES.indexOf(b.name));
  const references = (kind: Kind): string[] =>
    [...kind.fields, ...kind.modules.flatMap((module) => module.fields)].flatMap((rule) =>
      rule.references !== undefined && rule.references !== kind.name ? [rule.references] : [],
    );
  const ordered = topologicalOrder(
    sorted.map((kind) => ({ key: kind.name, dependsOn: references(kind), kind })),
  );
  return ordered.ok ? ordered.order.map((node) => node.kind) : sorted;
}
