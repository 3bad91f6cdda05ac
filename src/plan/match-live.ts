import type { Kind } from '../kinds/kind.js';
import type { LiveObject } from '../kinds/live-state.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import { diffFields } from './compare-fields.js';
import { sourceOf } from './draft-action.js';
import { copiesOf, isObjectList } from './live-index.js';
import type { PlanError } from './plan.js';
import type { PlanInputs } from './plan-inputs.js';
import { METADATA_FIELD, referencedIds } from './spec-fields.js';

/** Entries that two adopt by one ID: the later ones, reported and left out of the plan. */
export interface Adoptions {
  readonly skipped: ReadonlySet<DesiredEntry>;
  readonly errors: readonly PlanError[];
}

/** Two entries adopting one ID: the later ones are reported and left out. */
export function checkAdoptions(inputs: PlanInputs): Adoptions {
  const skipped = new Set<DesiredEntry>();
  const errors: PlanError[] = [];
  const firstById = new Map<string, DesiredEntry>();
  for (const entry of inputs.desired.entries) {
    if (entry.id === undefined || inputs.kindsByName.get(entry.kind)?.ownership !== 'metadata') continue;
    const first = firstById.get(entry.id);
    if (first === undefined) {
      firstById.set(entry.id, entry);
      continue;
    }
    skipped.add(entry);
    errors.push({
      code: 'adopt_duplicate',
      message: `${entry.kind}.${entry.name}: adopts ${entry.id}, which ${first.kind}.${first.name} already adopts`,
      source: entry.location,
    });
  }
  return { skipped, errors };
}

/** The live object an entry stands for, and whether the entry adopts it (by `id`, or from another owner). */
export interface LiveMatch {
  readonly object: LiveObject;
  readonly adopting: boolean;
}

/**
 * How entries find their live objects: the objects entries take over by
 * their unique key (matchUniqueKeys), and the IDs no other entry may take by
 * name. Made once per plan, not once per entry: per entry, planning N creates
 * was quadratic.
 */
export class LiveMatcher {
  readonly #inputs: PlanInputs;
  /**
   * Managed objects that entries take over by their unique key (a rule
   * renamed, or moved between names): the object is kept and renamed, never
   * deleted and created again.
   */
  readonly #keyMatched: ReadonlyMap<DesiredEntry, LiveObject>;
  readonly #takenByOthers: ReadonlySet<string>;
  readonly #adopted: ReadonlySet<string>;

  constructor(inputs: PlanInputs, keyMatched: ReadonlyMap<DesiredEntry, LiveObject>) {
    this.#inputs = inputs;
    this.#keyMatched = keyMatched;
    this.#takenByOthers = new Set([...keyMatched.values()].map((object) => object.id));
    this.#adopted = new Set(
      inputs.desired.entries.flatMap((other) => (other.id === undefined ? [] : [other.id])),
    );
  }

  /**
   * The live object an entry stands for: adopted by `id`, or the managed
   * object of its name; undefined when there is none. A PlanError when the
   * `id` cannot be adopted.
   */
  match(
    kind: Kind,
    entry: DesiredEntry,
    spec: Readonly<Record<string, unknown>>,
  ): LiveMatch | undefined | PlanError {
    const inputs = this.#inputs;
    if (entry.id === undefined) {
      const keyed = this.#keyMatched.get(entry);
      if (keyed !== undefined) return { object: keyed, adopting: false };
      const marked = inputs.managed.get(kind.name)?.get(entry.name);
      // The usual case, one copy free to take, without a filtered list per entry.
      if (
        marked !== undefined &&
        !isObjectList(marked) &&
        !this.#takenByOthers.has(marked.id) &&
        !this.#adopted.has(marked.id)
      )
        return { object: marked, adopting: false };
      const candidates = copiesOf(marked).filter(
        (object) => !this.#takenByOthers.has(object.id) && !this.#adopted.has(object.id),
      );
      const object = pickCopy(inputs, kind, spec, candidates);
      return object ? { object, adopting: false } : undefined;
    }
    const object = inputs.liveById.get(entry.id);
    if (object === undefined || object.kind !== kind.name) {
      return {
        code: object ? 'adopt_wrong_kind' : 'adopt_not_found',
        message: object
          ? `${kind.name}.${entry.name}: id ${entry.id} is a ${object.kind} object, not one of ${kind.name}`
          : `${kind.name}.${entry.name}: id ${entry.id} does not exist in the account`,
        source: sourceOf(entry, '/id'),
        entry: { kind: kind.name, name: entry.name },
      };
    }
    if (object.marker?.owner === inputs.owner && object.marker.name !== entry.name) {
      return {
        code: 'adopt_owned_by_other_name',
        message: `${kind.name}.${entry.name}: id ${entry.id} is already managed as ${kind.name}.${object.marker.name}`,
        source: sourceOf(entry, '/id'),
        entry: { kind: kind.name, name: entry.name },
      };
    }
    const ours = object.marker?.owner === inputs.owner && object.marker.name === entry.name;
    return { object, adopting: !ours };
  }
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
  inputs: PlanInputs,
  kind: Kind,
  spec: Readonly<Record<string, unknown>>,
  candidates: readonly LiveObject[],
): LiveObject | undefined {
  if (candidates.length <= 1) return candidates[0];
  // Reference fields hold names in the entry and IDs live: they are compared once resolved, later.
  const compared = kind.fields.filter(
    (rule) => rule.name !== METADATA_FIELD && rule.references === undefined,
  );
  const named = new Set<string>();
  for (const object of inputs.liveById.values()) {
    const referrer = inputs.kindsByName.get(object.kind);
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
