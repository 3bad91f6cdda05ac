import { asRecord } from '../json-value.js';
import type { FieldRule, Kind } from '../kinds/kind.js';
import type { LiveObject } from '../kinds/live-state.js';
import { encodeMetadata, normalizeUserMetadata } from '../kinds/ownership-marker.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import { diffFields, fieldChange, fieldEquals } from './compare-fields.js';
import { type DraftParts, sourceOf } from './draft-action.js';
import type { DraftContext, EntryDraft } from './drafts.js';
import { CREATE_PREFIX, createRequestOf, creationChanges, entryMarker, NOT_LIVE } from './entry-create.js';
import type { LiveMatch } from './match-live.js';
import { ownClears } from './own-clears.js';
import { pendingId, pendingPathSegment } from './pending-id.js';
import type { FieldChange, Operation } from './plan.js';
import type { KindRules } from './plan-inputs.js';
import type { KeyNumber } from './planner-options.js';
import { METADATA_FIELD, NO_SECRETS, ROUTES_KEY } from './spec-fields.js';

/** What an entry needs to become its object: resolved spec, marker-carrying metadata, secrets. */
interface EntryBody {
  readonly spec: Record<string, unknown>;
  /**
   * Encoded only when a request carries it: a no-op entry never needs it, and
   * encoding it for each of 100k unchanged entries was short-lived garbage that
   * raised the plan's peak RSS.
   */
  readonly metadata: () => string;
  readonly secrets: ReadonlySet<string>;
  /** The entry's unique key (PlanKeys), which its creates and updates take. */
  readonly uniqueKey: KeyNumber | undefined;
}

/** The live object an entry keeps (not created or replaced by the plan), whose modules are planned next. */
export interface KeptObject {
  readonly object: LiveObject;
  /** Whether the object itself changes (an update, an adoption, a new marker). */
  readonly changed: boolean;
  /** Whether a module absent from the entry is removed: only on objects edgesync created, not adopted ones. */
  readonly absentMeansRemove: boolean;
}

/**
 * An entry of a kind edgesync owns through the metadata marker, its names
 * resolved (`spec`): create it, or update, adopt or replace the live object
 * it matches (`match`). Returns the object it keeps, whose modules are
 * planned next; undefined when the plan creates the object. Its actions
 * carry the unique keys they take (the entry's, `uniqueKey`) and free (the
 * object's), as PlanKeys numbered them.
 */
export function planManagedEntry(
  context: DraftContext,
  drafted: EntryDraft,
  rules: KindRules,
  spec: Record<string, unknown>,
  secrets: ReadonlySet<string>,
  uniqueKey: KeyNumber | undefined,
  match: LiveMatch | undefined,
): KeptObject | undefined {
  const { inputs } = context;
  const { kind } = rules;
  const { entry } = drafted;
  const address = flat(kind.name, '.', entry.name);
  const marker = entryMarker(inputs.owner, entry);
  const userMetadata = normalizeUserMetadata(spec[METADATA_FIELD]) as Record<string, unknown> | undefined;
  const body: EntryBody = {
    spec,
    metadata: () => encodeMetadata(userMetadata, marker),
    secrets,
    uniqueKey,
  };
  if (match === undefined) {
    planCreate(context, drafted, rules, body);
    return undefined;
  }
  const { object, adopting } = match;
  drafted.claimed = object;
  const { comparedFields: fields, metadataRule } = rules;
  const fieldChanges = diffFields(fields, spec, object.spec, '');
  // A change of `protect` alone is a PATCH of the marker: the object keeps its protection as long as the live marker says so.
  const markerMatches =
    object.marker?.owner === marker.owner &&
    object.marker.name === marker.name &&
    object.marker.protect === marker.protect;
  const userChanged = !fieldEquals(metadataRule, userMetadata, object.spec[METADATA_FIELD]);
  if (fieldChanges.some((change) => change.forcesReplace)) {
    planReplace(context, drafted, kind, body, object, fieldChanges, adopting);
    return undefined;
  }
  drafted.resolvedId = object.id;
  let changed = false;
  if (fieldChanges.length > 0 || userChanged || !markerMatches) {
    changed = true;
    const op: Operation = adopting ? 'adopt' : 'update';
    const updateBody: Record<string, unknown> = {};
    for (const change of fieldChanges) updateBody[change.path] = spec[change.path];
    if (userChanged || !markerMatches) updateBody[METADATA_FIELD] = body.metadata();
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
    if (!markerMatches && object.marker?.owner === marker.owner && object.marker.name === marker.name) {
      changedNames.push('protect');
    }
    const renamedFrom =
      !adopting && object.marker !== null && object.marker.name !== marker.name
        ? object.marker.name
        : undefined;
    const reason = adopting
      ? `adopted by id${object.marker ? ` from owner "${object.marker.owner}"` : ''}${changedNames.length > 0 ? `; ${changedNames.join(', ')} changed` : ''}`
      : renamedFrom !== undefined
        ? `renamed from ${kind.name}.${renamedFrom}${changedNames.length > 0 ? `; ${changedNames.join(', ')} changed` : ''}`
        : `${changedNames.length > 0 ? changedNames.join(', ') : 'ownership marker'} changed`;
    const source = sourceOf(entry, `/${fieldChanges[0]?.path ?? ''}`);
    const common = {
      op,
      kind: kind.name,
      name: entry.name,
      change: address,
      secrets: body.secrets,
      objectId: object.id,
      before: object.spec,
      after: spec,
      takesKey: uniqueKey,
      freesKey: inputs.keys.live.get(object),
    } as const;
    // A field the kind clears by a request of its own is not in the PATCH, which is left out when nothing else changed.
    const clears = ownClears(kind, object.id, updateBody);
    const actions: DraftParts[] = [];
    if (Object.keys(updateBody).some((field) => !clears.some((clear) => clear.field === field))) {
      actions.push({
        ...common,
        key: `${op}:${address}`,
        request: kind.updateRequest(object.id, updateBody),
        source,
      });
    }
    for (const clear of clears) {
      actions.push({
        ...common,
        key: `${op}:${address}#${clear.field}`,
        request: clear.request,
        source: sourceOf(entry, `/${clear.field}`),
      });
    }
    drafted.changes.push({
      change: { address, op, kind: kind.name, name: entry.name, id: object.id, changes: displayed, reason },
      source,
      actions,
    });
  }
  return { object, changed, absentMeansRemove: entry.id === undefined };
}

/**
 * The pieces as one flat string. A template makes a rope of ~32-byte nodes
 * (and a flat copy besides once the string is a map key), and a plan of
 * 100,000 creates keeps an address and a key per change.
 */
function flat(...pieces: string[]): string {
  return pieces.join('');
}

function planCreate(context: DraftContext, drafted: EntryDraft, rules: KindRules, body: EntryBody): void {
  const { kind } = rules;
  const { entry } = drafted;
  const address = flat(kind.name, '.', entry.name);
  const key = flat(CREATE_PREFIX, address);
  drafted.resolvedId = pendingId(key);
  reportRoutesOnNewObject(drafted, kind, body.spec);
  const followUps = followUpActions(kind, entry, body, key, address);
  if (followUps.length === 0) {
    drafted.changes.push({ entryCreate: { rules, entry, spec: body.spec, key, uniqueKey: body.uniqueKey } });
    return;
  }
  drafted.changes.push({
    change: {
      address,
      op: 'create',
      kind: kind.name,
      name: entry.name,
      changes: creationChanges(kind, body.spec, context.sharedFieldChanges),
      reason: `${NOT_LIVE}${thenUpdated(kind, body.spec)}`,
    },
    source: entry.location,
    actions: [createAction(context, kind, entry, body, key, address), ...followUps],
  });
}

/** The fields of `spec` that a create request cannot carry: a follow-up update sets them. */
function fieldsSetAfterCreate(kind: Kind, spec: Readonly<Record<string, unknown>>): FieldRule[] {
  return kind.fields.filter((rule) => rule.setAfterCreate === true && spec[rule.name] !== undefined);
}

/**
 * The reason's note on a follow-up update, so the plan shows the request
 * the apply sends after the create (a plan that said "0 to update" was
 * followed by an apply that ran one): `; then updated: endpoint_configuration_id …`.
 */
function thenUpdated(kind: Kind, spec: Readonly<Record<string, unknown>>): string {
  const later = fieldsSetAfterCreate(kind, spec).map((rule) => rule.name);
  if (later.length === 0) return '';
  return `; then updated to set ${later.join(', ')} (a create request cannot carry ${later.length === 1 ? 'it' : 'them'})`;
}

/**
 * The update that sets, right after the create, the fields a create request
 * cannot carry. Its path names the create's ID: ordering rule 1 makes it
 * wait for the create.
 */
function followUpActions(
  kind: Kind,
  entry: DesiredEntry,
  body: EntryBody,
  createKey: string,
  address: string,
): DraftParts[] {
  const { spec } = body;
  const later = fieldsSetAfterCreate(kind, spec);
  if (later.length === 0) return [];
  const updateBody = Object.fromEntries(later.map((rule) => [rule.name, spec[rule.name]]));
  return [
    {
      key: `update:${address}`,
      op: 'update',
      kind: kind.name,
      name: entry.name,
      change: address,
      request: kind.updateRequest(pendingPathSegment(createKey), updateBody),
      secrets: body.secrets,
      source: sourceOf(entry, `/${later[0]?.name ?? ''}`),
    },
  ];
}

function createAction(
  context: DraftContext,
  kind: Kind,
  entry: DesiredEntry,
  body: EntryBody,
  key: string,
  address: string,
): DraftParts {
  return {
    key,
    op: 'create',
    kind: kind.name,
    name: entry.name,
    change: address,
    request: createRequestOf(kind, body.spec, body.metadata()),
    secrets: body.secrets,
    marker: { owner: context.inputs.owner, name: entry.name },
    source: entry.location,
    after: body.spec,
    takesKey: body.uniqueKey,
  };
}

/** A field that cannot be updated in place changed: create the new object, delete the old one. */
function planReplace(
  context: DraftContext,
  drafted: EntryDraft,
  kind: Kind,
  body: EntryBody,
  object: LiveObject,
  fieldChanges: readonly FieldChange[],
  adopting: boolean,
): void {
  const { spec } = body;
  const { entry } = drafted;
  const address = flat(kind.name, '.', entry.name);
  const createKey = flat(CREATE_PREFIX, address);
  drafted.resolvedId = pendingId(createKey);
  reportRoutesOnNewObject(drafted, kind, spec);
  const create = createAction(context, kind, entry, body, createKey, address);
  const followUps = followUpActions(kind, entry, body, createKey, address);
  const remove: DraftParts = {
    key: `delete:${address}`,
    op: 'delete',
    kind: kind.name,
    name: entry.name,
    change: address,
    request: kind.deleteRequest(object.id),
    secrets: NO_SECRETS,
    objectId: object.id,
    source: entry.location,
    before: object.spec,
    freesKey: context.inputs.keys.live.get(object),
  };
  drafted.replaces = [remove.key, create.key];
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
  drafted.changes.push({
    change: {
      address,
      op: 'replace',
      kind: kind.name,
      name: entry.name,
      id: object.id,
      changes: [...fieldChanges, ...moduleChanges],
      reason: `${forcing.join(', ')} cannot be updated in place${adopting ? ' (adopted by id)' : ''}${thenUpdated(kind, spec)}`,
    },
    source: sourceOf(entry, `/${forcing[0] ?? ''}`),
    actions: [create, ...followUps, remove],
  });
}

/** An object being created has no routes yet: routes are created elsewhere. */
function reportRoutesOnNewObject(drafted: EntryDraft, kind: Kind, spec: Record<string, unknown>): void {
  const { entry } = drafted;
  const routes = spec[ROUTES_KEY];
  if (!kind.modules.some((module) => module.scope === 'route') || !Array.isArray(routes)) return;
  routes.forEach((_route, index) => {
    drafted.errors.push({
      code: 'route_not_found',
      message: `${entry.kind}.${entry.name}.${ROUTES_KEY}[${index}]: the edge is created by this plan and has no routes yet; routes are created outside edgesync`,
      source: sourceOf(entry, `/${ROUTES_KEY}/${index}`),
      entry: { kind: entry.kind, name: entry.name },
    });
  });
}
