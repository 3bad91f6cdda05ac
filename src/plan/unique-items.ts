import type { Kind } from '../kinds/kind.js';
import type { LiveObject } from '../kinds/live-state.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import { formatLocation } from '../manifest/source-location.js';
import { type DraftAction, sourceOf } from './draft-action.js';
import type { PlanError } from './plan.js';
import type { PlanInputs } from './plan-inputs.js';

/** One entry's claim on an item of a unique list field (a hostport). */
interface ItemClaim {
  readonly entry: DesiredEntry;
  readonly kind: Kind;
  readonly field: string;
  readonly pointer: string;
}

/**
 * Items of unique list fields (`Kind.uniqueItems`: an edge's hostports),
 * once every entry has its live object:
 * - two entries claiming one item: `unique_key_conflict`, naming both;
 * - an item a live object holds that no entry stands for and edgesync does
 *   not own: `unique_key_taken`, naming the holder and how to adopt it.
 * An item another object of ours holds (pruned, or updated by its entry to
 * let it go) is ordering rule 3's (ordering/free-keys-before-taking.ts).
 * An entry that leaves a field out (an adopted edge) claims nothing.
 * Found once, when every entry is drafted: ordering rules 3 and 7 read the
 * takeovers (UniqueItems.takeovers).
 */
export function checkUniqueItems(
  inputs: PlanInputs,
  claims: ReadonlyMap<LiveObject, DesiredEntry>,
  actions: readonly DraftAction[],
): UniqueItems {
  const errors: PlanError[] = [];
  const takeovers: ItemTakeover[] = [];
  const report = (error: PlanError): void => {
    errors.push(error);
  };
  forEachItemHeld(inputs, claims, actions, report, (claim, object, item, releases) => {
    if (releases.length === 0) {
      report(itemHeld(claim, object, item));
      return;
    }
    const address = `${claim.kind.name}.${claim.entry.name}`;
    const takers = actions.filter((action) => takesItemFor(action, address));
    takeovers.push({ takers, releases });
  });
  return { errors, takeovers };
}

/** Whether `action` takes the items its change (`address`) claims: any of the change's writes but a delete. */
export function takesItemFor(action: DraftAction, address: string): boolean {
  return action.change === address && action.op !== 'delete';
}

/** Whether `action` writes the live object `objectId`, and so may let an item of it go. */
export function actsOn(action: DraftAction, objectId: string | undefined): boolean {
  return action.objectId === objectId;
}

/** What the items of unique list fields tell: the errors, and the items that change hands. */
export interface UniqueItems {
  readonly errors: readonly PlanError[];
  readonly takeovers: readonly ItemTakeover[];
}

/**
 * An item (a hostport) another object holds that an entry takes: the
 * actions that take it, and those that let it go there (the holder's
 * prune, or the writes of the entry that stands for the holder and no
 * longer lists the item).
 */
export interface ItemTakeover {
  readonly takers: readonly DraftAction[];
  readonly releases: readonly DraftAction[];
}

/**
 * Calls `held` for every item an entry claims that a live object other than
 * the entry's own holds, with the actions that let it go there (none when
 * the holder keeps it), and `claimedTwice` with the error of every item two
 * entries claim.
 */
function forEachItemHeld(
  inputs: PlanInputs,
  claims: ReadonlyMap<LiveObject, DesiredEntry>,
  actions: readonly DraftAction[],
  claimedTwice: (error: PlanError) => void,
  held: (claim: ItemClaim, holder: LiveObject, item: string, releases: readonly DraftAction[]) => void,
): void {
  const fields = new Set<string>();
  for (const kind of inputs.kindsByName.values())
    for (const field of kind.uniqueItems ?? []) fields.add(field);
  if (fields.size === 0) return;
  const claimed = new Map<string, ItemClaim>();
  for (const entry of inputs.desired.entries) {
    const kind = inputs.kindsByName.get(entry.kind);
    for (const field of kind?.uniqueItems ?? []) {
      const items = entry.spec[field];
      if (kind === undefined || !Array.isArray(items)) continue;
      items.forEach((item, index) => {
        // Host names compare without case, as the service and `validate` compare them.
        const value = `${field} ${String(item).toLowerCase()}`;
        const claim = { entry, kind, field, pointer: `/${field}/${index}` };
        const first = claimed.get(value);
        if (first === undefined) claimed.set(value, claim);
        else if (first.entry !== entry) claimedTwice(itemClaimedTwice(claim, first, String(item)));
      });
    }
  }
  // No entry claims an item: no live object can hold one of ours (and 100,000 rules claim none).
  if (claimed.size === 0) return;
  const ownObjectOf = new Map<DesiredEntry, string>();
  for (const [object, entry] of claims) ownObjectOf.set(entry, object.id);
  for (const object of inputs.liveById.values()) {
    for (const field of fields) {
      const items = object.spec[field];
      if (!Array.isArray(items)) continue;
      for (const item of items) {
        const claim = claimed.get(`${field} ${String(item).toLowerCase()}`);
        if (claim === undefined || ownObjectOf.get(claim.entry) === object.id) continue;
        const releases = releasesOf(claims, actions, object, field, String(item));
        if (releases !== 'claimed') held(claim, object, String(item), releases);
      }
    }
  }
}

/**
 * The actions that take `item` off a live object: its prune, or the writes
 * of the entry that stands for it when that entry no longer lists the item.
 * `claimed` when that entry lists it too (reported as two claims); none
 * when the object keeps it.
 */
function releasesOf(
  claims: ReadonlyMap<LiveObject, DesiredEntry>,
  actions: readonly DraftAction[],
  object: LiveObject,
  field: string,
  item: string,
): readonly DraftAction[] | 'claimed' {
  const entry = claims.get(object);
  const onObject = actions.filter((action) => actsOn(action, object.id));
  if (entry === undefined) return onObject.filter((action) => action.op === 'delete');
  const listed = entry.spec[field];
  if (!Array.isArray(listed)) return [];
  return listed.some((value) => String(value).toLowerCase() === item.toLowerCase()) ? 'claimed' : onObject;
}

function itemClaimedTwice(claim: ItemClaim, first: ItemClaim, item: string): PlanError {
  return {
    code: 'unique_key_conflict',
    message: `${claim.entry.kind}.${claim.entry.name}: ${singular(claim.field)} ${item} is also claimed by ${first.entry.kind}.${first.entry.name} (${formatLocation(sourceOf(first.entry, first.pointer))}); the service gives it to one object only`,
    source: sourceOf(claim.entry, claim.pointer),
  };
}

function itemHeld(claim: ItemClaim, holder: LiveObject, item: string): PlanError {
  const owner = holder.marker
    ? `owned by "${holder.marker.owner}" as ${holder.kind}.${holder.marker.name}`
    : 'not owned by edgesync';
  const adoptable = holder.kind === claim.kind.name;
  const remedy = adoptable
    ? `To manage that object here, add \`id: ${holder.id}\` to this entry; otherwise change the entry or remove ${holder.id}`
    : `Change the entry, or take ${item} off ${holder.id} first`;
  return {
    code: 'unique_key_taken',
    message: `${claim.entry.kind}.${claim.entry.name}: ${singular(claim.field)} ${item} is already held by ${holder.kind} ${holder.id} (${owner}); the service gives it to one object only. ${remedy}`,
    source: sourceOf(claim.entry, claim.pointer),
    entry: { kind: claim.entry.kind, name: claim.entry.name },
  };
}

/** `hostports` → `hostport`, for messages. */
function singular(field: string): string {
  return field.endsWith('s') ? field.slice(0, -1) : field;
}
