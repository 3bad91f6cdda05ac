import type { Kind } from '../kinds/kind.js';
import type { LiveObject } from '../kinds/live-state.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import { diffFields } from './compare-fields.js';
import { sourceOf } from './draft-action.js';
import { copiesOf, isObjectList } from './live-index.js';
import { normalizedSpecOf, type PlanState } from './plan-state.js';
import { METADATA_FIELD, referencedIds } from './spec-fields.js';

/** Two entries adopting one ID: the later ones are reported and left out. */
export function checkAdoptions(state: PlanState): Set<DesiredEntry> {
  const skipped = new Set<DesiredEntry>();
  const firstById = new Map<string, DesiredEntry>();
  for (const entry of state.desired.entries) {
    if (entry.id === undefined || state.kindsByName.get(entry.kind)?.ownership !== 'metadata') continue;
    const first = firstById.get(entry.id);
    if (first === undefined) {
      firstById.set(entry.id, entry);
      continue;
    }
    skipped.add(entry);
    state.errors.push({
      code: 'adopt_duplicate',
      message: `${entry.kind}.${entry.name}: adopts ${entry.id}, which ${first.kind}.${first.name} already adopts`,
      source: entry.location,
    });
  }
  return skipped;
}

/** The IDs unique keys matched and the IDs entries adopt, by plan state. */
const claimedIdsCache = new WeakMap<
  PlanState,
  { readonly keyMatched: number; readonly takenByOthers: Set<string>; readonly adopted: Set<string> }
>();

/**
 * Built once per plan, not once per entry (issue 18: that made planning N
 * creates quadratic); rebuilt if a unique key was matched since, as
 * keyMatched only grows.
 */
function claimedIds(state: PlanState): { takenByOthers: Set<string>; adopted: Set<string> } {
  const cached = claimedIdsCache.get(state);
  if (cached !== undefined && cached.keyMatched === state.keyMatched.size) return cached;
  const built = {
    keyMatched: state.keyMatched.size,
    takenByOthers: new Set([...state.keyMatched.values()].map((object) => object.id)),
    adopted: new Set(state.desired.entries.flatMap((other) => (other.id === undefined ? [] : [other.id]))),
  };
  claimedIdsCache.set(state, built);
  return built;
}

/**
 * The live object an entry stands for: adopted by `id`, or the managed object
 * of its name. `'error'` (already reported) when the `id` cannot be adopted.
 */
export function matchLive(
  state: PlanState,
  kind: Kind,
  entry: DesiredEntry,
): { object: LiveObject; adopting: boolean } | undefined | 'error' {
  if (entry.id === undefined) {
    const keyed = state.keyMatched.get(entry);
    if (keyed !== undefined) return { object: keyed, adopting: false };
    const { takenByOthers, adopted } = claimedIds(state);
    const marked = state.managed.get(kind.name)?.get(entry.name);
    // The usual case, one copy free to take, without a filtered list per entry.
    if (
      marked !== undefined &&
      !isObjectList(marked) &&
      !takenByOthers.has(marked.id) &&
      !adopted.has(marked.id)
    )
      return { object: marked, adopting: false };
    const candidates = copiesOf(marked).filter(
      (object) => !takenByOthers.has(object.id) && !adopted.has(object.id),
    );
    const object = pickCopy(state, kind, entry, candidates);
    return object ? { object, adopting: false } : undefined;
  }
  const object = state.liveById.get(entry.id);
  if (object === undefined || object.kind !== kind.name) {
    state.errors.push({
      code: object ? 'adopt_wrong_kind' : 'adopt_not_found',
      message: object
        ? `${kind.name}.${entry.name}: id ${entry.id} is a ${object.kind} object, not one of ${kind.name}`
        : `${kind.name}.${entry.name}: id ${entry.id} does not exist in the account`,
      source: sourceOf(entry, '/id'),
      entry: { kind: kind.name, name: entry.name },
    });
    return 'error';
  }
  if (object.marker?.owner === state.options.owner && object.marker.name !== entry.name) {
    state.errors.push({
      code: 'adopt_owned_by_other_name',
      message: `${kind.name}.${entry.name}: id ${entry.id} is already managed as ${kind.name}.${object.marker.name}`,
      source: sourceOf(entry, '/id'),
      entry: { kind: kind.name, name: entry.name },
    });
    return 'error';
  }
  const ours = object.marker?.owner === state.options.owner && object.marker.name === entry.name;
  return { object, adopting: !ours };
}

/**
 * Which of several objects carrying one entry's marker the entry keeps (the
 * rest are pruned once it is in place). A killed replace leaves the old and
 * the new copy, a lost create answer two alike: keep the copy that needs no
 * replace, then one that another object names (a CA in use), then the one
 * with the fewest differences, then the oldest, which has held its stable
 * values (a reserved address's `addr`) longest. So reverting a killed
 * replace keeps the original, and finishing it keeps the new copy.
 */
function pickCopy(
  state: PlanState,
  kind: Kind,
  entry: DesiredEntry,
  candidates: readonly LiveObject[],
): LiveObject | undefined {
  if (candidates.length <= 1) return candidates[0];
  const spec = normalizedSpecOf(state, kind, entry);
  // Reference fields hold names in the entry and IDs live: they are compared once resolved, later.
  const compared = kind.fields.filter(
    (rule) => rule.name !== METADATA_FIELD && rule.references === undefined,
  );
  const named = new Set<string>();
  for (const object of state.liveById.values()) {
    const referrer = state.kindsByName.get(object.kind);
    if (referrer !== undefined) for (const id of referencedIds(referrer, object.spec)) named.add(id);
  }
  const rank = (object: LiveObject): [number, number, number] => {
    const changes = diffFields(compared, spec, object.spec, '');
    return [
      changes.some((change) => change.forcesReplace) ? 1 : 0,
      named.has(object.id) ? 0 : 1,
      changes.length,
    ];
  };
  const ranked = candidates.map((object) => ({ object, rank: rank(object) }));
  ranked.sort(
    (a, b) =>
      a.rank[0] - b.rank[0] ||
      a.rank[1] - b.rank[1] ||
      a.rank[2] - b.rank[2] ||
      (a.object.createdAt ?? '').localeCompare(b.object.createdAt ?? '') ||
      a.object.id.localeCompare(b.object.id),
  );
  return ranked[0]?.object;
}

/** Marks a live object as the one `entry` stands for. */
export function claim(state: PlanState, object: LiveObject, entry: DesiredEntry): void {
  state.entryByObject.set(object, entry);
}
