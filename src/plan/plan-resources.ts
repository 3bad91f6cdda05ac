import { asRecord } from '../json-value.js';
import type { FieldRule, Kind } from '../kinds/kind.js';
import type { LiveObject } from '../kinds/live-state.js';
import { encodeMetadata, normalizeUserMetadata } from '../kinds/ownership-marker.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import { diffFields, fieldChange, fieldEquals } from './compare-fields.js';
import { addDependency, type DraftAction, draftAction, sourceOf } from './draft-action.js';
import {
  CREATE_PREFIX,
  createRequestOf,
  creationChanges,
  EntryCreate,
  entryMarker,
  NOT_LIVE,
} from './entry-create.js';
import { claim, matchLive } from './match-live.js';
import { accessFacts, keyMove, orderingFacts } from './order-actions.js';
import { pendingId, pendingPathSegment } from './pending-id.js';
import type { FieldChange, Operation } from './plan.js';
import { planModules, reportRoutesOnNewObject } from './plan-modules.js';
import {
  addChange,
  addEntryCreate,
  createsOf,
  normalizedSpecOf,
  type PlanState,
  recordResolvedId,
} from './plan-state.js';
import { resolveSpec } from './resolve-references.js';
import { METADATA_FIELD, secretsOf } from './spec-fields.js';

/** What an entry needs to become its object: resolved spec, marker-carrying metadata, secrets. */
interface EntryBody {
  readonly spec: Record<string, unknown>;
  /**
   * Encoded only when a request carries it: a no-op entry never needs it, and
   * encoding it for each of 100k unchanged entries was short-lived garbage that
   * raised the plan's peak RSS (issue 18).
   */
  readonly metadata: () => string;
  readonly secrets: ReadonlySet<string>;
}

/**
 * An entry of a kind edgesync owns through the metadata marker: create it,
 * or update, adopt or replace the live object it matches, then its modules.
 */
export function planManagedEntry(state: PlanState, kind: Kind, entry: DesiredEntry): void {
  const address = flat(kind.name, '.', entry.name);
  const match = matchLive(state, kind, entry);
  if (match === 'error') return;
  const spec = resolveSpec(state, kind, entry, normalizedSpecOf(state, kind, entry));
  const marker = entryMarker(state.options.owner, entry);
  const userMetadata = normalizeUserMetadata(spec[METADATA_FIELD]) as Record<string, unknown> | undefined;
  const body: EntryBody = {
    spec,
    metadata: () => encodeMetadata(userMetadata, marker),
    secrets: secretsOf(kind, spec),
  };
  if (match === undefined) {
    planCreate(state, kind, entry, body);
    return;
  }
  const { object, adopting } = match;
  claim(state, object, entry);
  const { fields, metadataRule } = comparedRulesOf(kind);
  const fieldChanges = diffFields(fields, spec, object.spec, '');
  // A change of `protect` alone is a PATCH of the marker: the object keeps its protection as long as the live marker says so.
  const markerMatches =
    object.marker?.owner === marker.owner &&
    object.marker.name === marker.name &&
    object.marker.protect === marker.protect;
  const userChanged = !fieldEquals(metadataRule, userMetadata, object.spec[METADATA_FIELD]);
  if (fieldChanges.some((change) => change.forcesReplace)) {
    planReplace(state, kind, entry, body, object, fieldChanges, adopting);
    return;
  }
  recordResolvedId(state, kind, address, object.id);
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
    const request = kind.updateRequest(object.id, updateBody);
    addChange(
      state,
      { address, op, kind: kind.name, name: entry.name, id: object.id, changes: displayed, reason },
      entry,
      sourceOf(entry, `/${fieldChanges[0]?.path ?? ''}`),
      [
        draftAction({
          key: `${op}:${address}`,
          op,
          kind: kind.name,
          name: entry.name,
          change: address,
          request,
          secrets: body.secrets,
          source: sourceOf(entry, `/${fieldChanges[0]?.path ?? ''}`),
          objectId: object.id,
          ...keyMove(kind, object.spec, spec),
        }),
      ],
    );
  }
  // Modules absent from the entry are removed only from objects edgesync created, not adopted ones.
  const moduleChanges = planModules(state, kind, entry, spec, object, entry.id === undefined, body.secrets);
  if (!changed && moduleChanges === 0) state.unchanged += 1;
}

/**
 * The pieces as one flat string. A template makes a rope of ~32-byte nodes
 * (and a flat copy besides once the string is a map key), and a plan of
 * 100,000 creates keeps an address and a key per change (issue 18).
 */
function flat(...pieces: string[]): string {
  return pieces.join('');
}

/** A kind's rules but metadata's, and metadata's: looked up once per kind, not once per entry. */
const comparedRules = new WeakMap<Kind, { fields: readonly FieldRule[]; metadataRule: FieldRule }>();

function comparedRulesOf(kind: Kind): { fields: readonly FieldRule[]; metadataRule: FieldRule } {
  let rules = comparedRules.get(kind);
  if (rules === undefined) {
    rules = {
      fields: kind.fields.filter((rule) => rule.name !== METADATA_FIELD),
      metadataRule: kind.fields.find((rule) => rule.name === METADATA_FIELD) ?? {
        name: METADATA_FIELD,
        onChange: 'update',
      },
    };
    comparedRules.set(kind, rules);
  }
  return rules;
}

function planCreate(state: PlanState, kind: Kind, entry: DesiredEntry, body: EntryBody): void {
  const address = flat(kind.name, '.', entry.name);
  const key = flat(CREATE_PREFIX, address);
  recordResolvedId(state, kind, address, pendingId(key));
  reportRoutesOnNewObject(state, kind, entry, body.spec);
  const followUps = followUpActions(kind, entry, body, key, address);
  if (followUps.length === 0) {
    addEntryCreate(
      state,
      new EntryCreate(createsOf(state, kind), entry, body.spec, key, accessFacts(kind, body.spec)),
    );
    return;
  }
  addChange(
    state,
    {
      address,
      op: 'create',
      kind: kind.name,
      name: entry.name,
      changes: creationChanges(kind, body.spec, state.sharedFieldChanges),
      reason: `${NOT_LIVE}${thenUpdated(kind, body.spec)}`,
    },
    entry,
    entry.location,
    [createAction(state, kind, entry, body, key, address), ...followUps],
  );
}

/** The fields of `spec` that a create request cannot carry: a follow-up update sets them. */
function fieldsSetAfterCreate(kind: Kind, spec: Readonly<Record<string, unknown>>): FieldRule[] {
  return kind.fields.filter((rule) => rule.setAfterCreate === true && spec[rule.name] !== undefined);
}

/**
 * The reason's note on a follow-up update, so the plan shows the request
 * the apply sends after the create (issue 19: the plan said "0 to update"
 * and the apply ran an update): `; then updated: endpoint_configuration_id …`.
 */
function thenUpdated(kind: Kind, spec: Readonly<Record<string, unknown>>): string {
  const later = fieldsSetAfterCreate(kind, spec).map((rule) => rule.name);
  if (later.length === 0) return '';
  return `; then updated to set ${later.join(', ')} (a create request cannot carry ${later.length === 1 ? 'it' : 'them'})`;
}

/** The update that sets, right after the create, the fields a create request cannot carry. */
function followUpActions(
  kind: Kind,
  entry: DesiredEntry,
  body: EntryBody,
  createKey: string,
  address: string,
): DraftAction[] {
  const { spec } = body;
  const later = fieldsSetAfterCreate(kind, spec);
  if (later.length === 0) return [];
  const updateBody = Object.fromEntries(later.map((rule) => [rule.name, spec[rule.name]]));
  const action = draftAction({
    key: `update:${address}`,
    op: 'update',
    kind: kind.name,
    name: entry.name,
    change: address,
    request: kind.updateRequest(pendingPathSegment(createKey), updateBody),
    secrets: body.secrets,
    source: sourceOf(entry, `/${later[0]?.name ?? ''}`),
  });
  addDependency(action, createKey);
  return [action];
}

function createAction(
  state: PlanState,
  kind: Kind,
  entry: DesiredEntry,
  body: EntryBody,
  key: string,
  address: string,
): DraftAction {
  return draftAction({
    key,
    op: 'create',
    kind: kind.name,
    name: entry.name,
    change: address,
    request: createRequestOf(kind, body.spec, body.metadata()),
    secrets: body.secrets,
    marker: { owner: state.options.owner, name: entry.name },
    source: entry.location,
    ...accessFacts(kind, body.spec),
    ...(kind.uniqueKey === undefined || kind.uniqueKey.length === 0 ? {} : { takenFrom: body.spec }),
  });
}

/** A field that cannot be updated in place changed: create the new object, delete the old one. */
function planReplace(
  state: PlanState,
  kind: Kind,
  entry: DesiredEntry,
  body: EntryBody,
  object: LiveObject,
  fieldChanges: readonly FieldChange[],
  adopting: boolean,
): void {
  const { spec } = body;
  const address = flat(kind.name, '.', entry.name);
  const createKey = flat(CREATE_PREFIX, address);
  recordResolvedId(state, kind, address, pendingId(createKey));
  reportRoutesOnNewObject(state, kind, entry, spec);
  const create = createAction(state, kind, entry, body, createKey, address);
  const facts = orderingFacts(kind, object.spec, 'frees');
  const remove = draftAction({
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
  state.replacements.set(remove.key, create.key);
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
  addChange(
    state,
    {
      address,
      op: 'replace',
      kind: kind.name,
      name: entry.name,
      id: object.id,
      changes: [...fieldChanges, ...moduleChanges],
      reason: `${forcing.join(', ')} cannot be updated in place${adopting ? ' (adopted by id)' : ''}${thenUpdated(kind, spec)}`,
    },
    entry,
    sourceOf(entry, `/${forcing[0] ?? ''}`),
    [create, ...followUpActions(kind, entry, body, createKey, address), remove],
  );
}
