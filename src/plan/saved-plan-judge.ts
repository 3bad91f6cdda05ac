import { pointerToken } from '../json-pointer.js';
import type { Kind } from '../kinds/kind.js';
import type { LiveState } from '../kinds/live-state.js';
import { isPendingId } from './pending-id.js';
import type { Action, Plan } from './plan.js';
import { isSensitiveHash } from './saved-plan.js';
import { alreadyApplied } from './saved-plan-already-applied.js';
import { LiveLookup, type ReferenceNow, SavedCreates } from './saved-plan-references.js';
import { compareSecret, type PlanKey, planKeyHint, type SecretComparison } from './secret-digest.js';

/** The secrets of a body made now: their pointers, and the entry whose action it is. */
interface BodySecrets {
  readonly kind: string;
  readonly name: string;
  readonly paths: ReadonlySet<string>;
}

/** What `apply --plan` may do with a saved plan, given the plan made again now. */
export interface SavedPlanJudgement {
  /** Saved actions the plan made now holds unchanged, on objects as the saved plan read them. */
  readonly confirmed: number;
  /** Keys of saved actions whose effect the account already holds: nothing is sent for them. */
  readonly alreadyApplied: readonly string[];
  /**
   * What differs between the saved plan and the plan made now, one line each.
   * Not empty: nothing may be sent. Empty: the plan made now is exactly the
   * confirmed actions, and it is what is sent.
   */
  readonly differences: readonly string[];
  /**
   * What to do about secrets the file's digests could not vouch for (made
   * without a plan key, or with another one), once each; empty otherwise.
   */
  readonly keyHints: readonly string[];
}

export interface SavedPlanJudgeOptions {
  /** The registry of kinds the plan was made with. */
  readonly kinds: readonly Kind[];
  /** The plan key (`--plan-key-file`) the saved secrets' digests are checked with; none: no digest can be. */
  readonly key?: PlanKey | undefined;
}

/**
 * Judges a saved plan's actions, one at a time as the file is read, against
 * the plan made now from the manifests and the account as they are (`now`,
 * planned from `live`). The file is a claim, never a script: an action is
 *
 * - confirmed when the plan made now holds the same action (key, operation,
 *   kind, method, path and body; a secret compared by the keyed digest the
 *   file holds, under the same plan key and at the same place, a pending ID by the create it names, or by the object that create
 *   made when the plan made now no longer creates it) and the object it
 *   touches is still as the saved plan read it (its fingerprint);
 * - already applied when the account already holds what it would write
 *   (saved-plan-already-applied.ts);
 * - a difference otherwise, as is an action of the plan made now that no
 *   saved action confirms.
 *
 * Only the plan made now is ever sent, and only when there is no difference:
 * nothing the file says reaches the service unless the manifests and the
 * account say it too.
 */
export class SavedPlanJudge {
  readonly #now: Plan;
  readonly #kinds: ReadonlyMap<string, Kind>;
  readonly #live: LiveLookup;
  readonly #creates: SavedCreates;
  /** Position in the plan made now of the next saved action, which is usually the next action. */
  #cursor = 0;
  #indexByKey: Map<string, number> | undefined;
  #idByChange: Map<string, string> | undefined;
  /** 1 at the index of each action of the plan made now that a saved action confirmed. */
  readonly #confirmedAt: Uint8Array;
  /** Indexes of the plan made now that a saved action of the same key did not confirm. */
  readonly #contradicted = new Set<number>();
  /** Confirmed actions on live objects: the fingerprint the saved plan must have recorded for each. */
  readonly #objectChecks: { readonly key: string; readonly id: string }[] = [];
  readonly #unconfirmed: { readonly action: Action; readonly why: string }[] = [];
  readonly #key: PlanKey | undefined;
  /** Why some saved secrets could not be checked, and what to do, once each. */
  readonly #keyHints = new Set<string>();
  #confirmed = 0;

  constructor(now: Plan, live: LiveState, options: SavedPlanJudgeOptions) {
    this.#now = now;
    this.#kinds = new Map(options.kinds.map((kind) => [kind.name, kind]));
    this.#live = new LiveLookup(live);
    this.#key = options.key;
    this.#creates = new SavedCreates(this.#live);
    this.#confirmedAt = new Uint8Array(now.actions.length);
  }

  /** Judges the next saved action (in the file's order). */
  take(saved: Action): void {
    const at = this.#indexOf(saved.key);
    if (at === undefined) {
      this.#creates.remember(saved);
      this.#unconfirmed.push({ action: saved, why: 'the plan made now has no such action' });
      return;
    }
    const now = this.#now.actions[at] as Action;
    const difference = this.#difference(saved, now);
    if (difference !== undefined) {
      this.#creates.remember(saved);
      this.#contradicted.add(at);
      this.#unconfirmed.push({ action: saved, why: `the plan made now has another ${difference}` });
      return;
    }
    this.#confirmedAt[at] = 1;
    this.#confirmed += 1;
    const id = this.#objectOf(now);
    if (id !== undefined) this.#objectChecks.push({ key: saved.key, id });
  }

  /** The judgement, once every saved action was taken; `fingerprints` as the saved plan recorded them. */
  finish(fingerprints: Readonly<Record<string, string>>): SavedPlanJudgement {
    const differences: string[] = [];
    for (const { key, id } of this.#objectChecks) {
      const object = this.#live.byId(id);
      if (object === undefined) differences.push(`${key}: ${id} is gone since the plan was made`);
      else if (fingerprints[id] !== object.fingerprint)
        differences.push(`${key}: ${object.kind} ${id} changed since the plan was made`);
    }
    const applied = alreadyApplied(
      this.#unconfirmed.map((entry) => entry.action),
      {
        live: this.#live,
        creates: this.#creates,
        kinds: this.#kinds,
        secretHolds: (place, saved, value) => this.#compareSecret(place, saved, value),
      },
    );
    for (const { action, why } of this.#unconfirmed) {
      if (applied.has(action.key)) continue;
      const request = action.request;
      differences.push(
        `${action.key}: ${request.method} ${request.path}: ${why}, and the account does not already hold what it writes`,
      );
    }
    this.#now.actions.forEach((action, at) => {
      if (this.#confirmedAt[at] === 1) return;
      const request = action.request;
      const why = this.#contradicted.has(at)
        ? 'differs from the saved action of that key'
        : 'is not in the saved plan';
      differences.push(
        `${action.key}: ${request.method} ${request.path}: the plan made now has this action, which ${why}`,
      );
    });
    return {
      confirmed: this.#confirmed,
      alreadyApplied: this.#unconfirmed.flatMap(({ action }) =>
        applied.has(action.key) ? [action.key] : [],
      ),
      differences,
      keyHints: [...this.#keyHints],
    };
  }

  /** A saved secret against the value at the same place now; what could not be checked leaves its hint. */
  #compareSecret(
    place: { readonly kind: string; readonly name: string; readonly path: string },
    saved: string,
    value: string,
  ): boolean {
    const comparison: SecretComparison = compareSecret(
      this.#key,
      { owner: this.#now.owner, ...place },
      saved,
      value,
    );
    if (comparison.same) return true;
    const hint = planKeyHint(comparison);
    if (hint !== undefined) this.#keyHints.add(hint);
    return false;
  }

  /** Where the action of this key is in the plan made now. */
  #indexOf(key: string): number | undefined {
    const next = this.#now.actions[this.#cursor];
    if (next !== undefined && next.key === key && this.#confirmedAt[this.#cursor] === 0) {
      this.#cursor += 1;
      return this.#cursor - 1;
    }
    return this.#index().get(key);
  }

  #index(): Map<string, number> {
    this.#indexByKey ??= new Map(this.#now.actions.map((action, at) => [action.key, at]));
    return this.#indexByKey;
  }

  /** What differs between a saved action and the action of its key made now, or undefined. */
  #difference(saved: Action, now: Action): string | undefined {
    if (saved.op !== now.op || saved.kind !== now.kind) return 'operation or kind';
    // Read once: an EntryCreate makes its request again on each read.
    const savedRequest = saved.request;
    const request = now.request;
    if (savedRequest.method !== request.method) return 'method';
    if (this.#pathNow(savedRequest.path) !== request.path) return 'path';
    const secrets =
      now.sensitivePaths.length === 0
        ? undefined
        : { kind: now.kind, name: now.name, paths: new Set(now.sensitivePaths) };
    if (!this.#sameBody(savedRequest.body, request.body, secrets, '')) return 'body';
    return undefined;
  }

  /**
   * Whether a saved body says what a body made now says. `secrets`: the
   * pointers of the body made now whose values are secrets, and the entry
   * they belong to; only there does the saved body hold a digest, and it
   * must be that value's at that place, under this apply's key.
   */
  #sameBody(saved: unknown, now: unknown, secrets: BodySecrets | undefined, at: string): boolean {
    if (secrets?.paths.has(at) === true) {
      return (
        typeof now === 'string' &&
        isSensitiveHash(saved) &&
        this.#compareSecret({ kind: secrets.kind, name: secrets.name, path: at }, saved.$sensitive, now)
      );
    }
    if (isPendingId(saved) || isPendingId(now)) {
      if (!isPendingId(saved)) return false;
      const reference = this.#referenceNow(saved.$createdBy);
      if ('pending' in reference) return isPendingId(now) && now.$createdBy === reference.pending;
      return 'id' in reference && now === reference.id;
    }
    if (typeof saved !== 'object' || saved === null || typeof now !== 'object' || now === null)
      return saved === now;
    if (Array.isArray(saved) !== Array.isArray(now)) return false;
    const child = (key: string | number): string =>
      secrets === undefined ? at : `${at}/${pointerToken(key)}`;
    if (Array.isArray(saved)) {
      const list = now as unknown[];
      return (
        saved.length === list.length &&
        saved.every((item, index) => this.#sameBody(item, list[index], secrets, child(index)))
      );
    }
    const savedRecord = saved as Record<string, unknown>;
    const record = now as Record<string, unknown>;
    const keys = Object.keys(record);
    if (Object.keys(savedRecord).length !== keys.length) return false;
    return keys.every(
      (key) =>
        Object.hasOwn(savedRecord, key) && this.#sameBody(savedRecord[key], record[key], secrets, child(key)),
    );
  }

  /** A saved path with each pending segment as the plan made now writes it. */
  #pathNow(path: string): string {
    if (!path.includes('{')) return path;
    return path.replace(/\{([^{}]+)\}/g, (segment, key: string) => {
      const reference = this.#referenceNow(key);
      if ('pending' in reference) return segment;
      // An unresolved reference matches no path the plan made now can hold.
      return 'id' in reference ? reference.id : `{unresolved ${reference.unresolved}}`;
    });
  }

  /** A saved pending ID: still pending when the plan made now creates it too, else the object it made. */
  #referenceNow(key: string): ReferenceNow {
    const at = this.#index().get(key);
    if (at !== undefined && this.#now.actions[at]?.request.method === 'POST') return { pending: key };
    return this.#creates.resolve(key);
  }

  /** The live object an action of the plan made now touches (none for a create or what follows it). */
  #objectOf(now: Action): string | undefined {
    const request = now.request;
    if (request.method === 'POST' || request.path.includes('{')) return undefined;
    if (this.#idByChange === undefined) {
      this.#idByChange = new Map();
      for (const change of this.#now.changes)
        if (change.id !== undefined) this.#idByChange.set(change.address, change.id);
    }
    return this.#idByChange.get(now.change);
  }
}
