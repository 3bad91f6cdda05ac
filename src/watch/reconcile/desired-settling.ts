import { basename, dirname, sep } from 'node:path';
import type { DesiredState } from '../../manifest/desired-state.js';
import type { Action, Plan } from '../../plan/plan.js';
import { planWithout } from './plan-without.js';

/**
 * The default `--settle`: how long the manifests must read the same before
 * the daemon sends a DELETE they ask for. Editors save atomically or in
 * milliseconds, and cp, rsync and tar write a file without stopping; what
 * pauses mid-file is a copy over a slow link (scp, kubectl cp) or a checkout
 * of many files onto network storage, for seconds. Ten seconds covers those
 * with room, twenty times the default debounce, while a delete still lands
 * within seconds of its save (a create or an update at once). A writer that
 * can pause longer must write atomically (a rename, or a symlink swap as
 * git-sync and ConfigMaps do), as every writer should.
 */
export const DEFAULT_SETTLE_MS = 10_000;

/**
 * `--settle-max` against `--settle` when not given: a delete whose entry has
 * been absent from every read for six settle periods goes out, however
 * steadily other files of its kind keep changing (a minute by default).
 */
export const SETTLE_MAX_FACTOR = 6;

/** What the settle stage returned: since when the desired state reads as it does, and each delete's fate. */
export interface SettleFacts {
  /** The hash this run's load read; null when it did not read the manifests valid. */
  readonly hash: string | null;
  /** Clock milliseconds of the first load that read the desired state as it is; null while invalid. */
  readonly since: number | null;
  /** Null when the run made no plan. */
  readonly deletes: DeleteSettling | null;
}

/** What the last load said of the desired state: its hash (null when it did not load) and since when it read so. */
export interface LastDesired {
  readonly hash: string | null;
  /** Clock milliseconds of the first load that read it so; null while the manifests are invalid. */
  readonly since: number | null;
}

/** Since when the desired state has read as it does: reset by a change of what it reads or by an invalid read. */
export function desiredSince(last: LastDesired, hash: string | null, now: number): number | null {
  if (hash === null) return null;
  return hash === last.hash && last.since !== null ? last.since : now;
}

/** One change the watcher reported on the manifest tree, at the daemon's clock. */
export interface FileEvent {
  /** Real path of what changed: a manifest file, a `..data`-style link, or a directory. */
  readonly path: string;
  /** Clock milliseconds of the last event on it that the run takes in. */
  readonly at: number;
  /** The tree itself changed (a directory came or went, a watched path points elsewhere): any file may have. */
  readonly tree: boolean;
}

/** A delete the plan asks for, and what its settle clock has seen. */
export interface TrackedDelete {
  /** The address of the change whose DELETE it is (`ip_policy_rules.old`). */
  readonly address: string;
  /** The entry it is for. */
  readonly kind: string;
  readonly name: string;
  /**
   * Clock milliseconds of the first of the plans in a row that asked for it:
   * since then its entry has been absent from every read (an invalid read
   * keeps the last valid desired state, which lacks it).
   */
  readonly since: number;
  /** Real paths of the files that held the entry: where it is, or where it was when last read. */
  readonly files: readonly string[];
  /** Clock milliseconds of the last change event that counts for it; `since` when none came. */
  readonly changedAt: number;
}

/** Where the desired state's entries are, by the real paths of their files. */
export interface EntryPlaces {
  /** The files that hold the entry now; undefined when no entry of that kind and name is read. */
  filesOf(kind: string, name: string): readonly string[] | undefined;
  /** Whether the file holds a collection of the kind now. */
  holdsKind(file: string, kind: string): boolean;
  /** The files that held the entry in the last desired state before this load; undefined when it had none. */
  formerFilesOf(kind: string, name: string): readonly string[] | undefined;
}

export interface DeleteSettlingInput {
  readonly plan: Plan;
  /** What the last run tracked. */
  readonly previous: readonly TrackedDelete[];
  /** The change events since the last run. */
  readonly events: readonly FileEvent[];
  /** This run's load read the manifests valid: no delete goes from a read that did not. */
  readonly valid: boolean;
  /** Clock milliseconds of the first load that read the desired state as it is (`desiredSince`); null while invalid. */
  readonly desiredSince: number | null;
  readonly places: EntryPlaces;
  /** Clock milliseconds. */
  readonly now: number;
  /** --settle and --settle-max, milliseconds. */
  readonly periodMs: number;
  readonly maxMs: number;
}

/** What the settle stage decided for each delete of the plan. */
export interface DeleteSettling {
  /** Every delete of the plan with its clock, to be carried to the next run. */
  readonly tracked: readonly TrackedDelete[];
  /** Addresses of the deletes that may go now. */
  readonly due: ReadonlySet<string>;
  /** Of those, the ones that go only because their entry has been absent for --settle-max while files kept changing. */
  readonly dueAtMax: readonly TrackedDelete[];
  /** Deletes held longer than --settle-max for another reason than files changing: the manifests do not read valid. */
  readonly overdue: readonly TrackedDelete[];
  /** Clock milliseconds at which the next held delete may go; null when none waits or none can yet. */
  readonly nextAt: number | null;
}

/**
 * The settle stage: which DELETEs of the plan may go now. A delete waits
 * until its entry's absence has been quiet for `--settle`: its clock counts
 * from the last change event (whatever the files read afterwards, so a file
 * removed, restored and removed again within one debounce starts it again)
 * on the files that held the entry, on any file that changes while it waits
 * and holds a collection of the entry's kind (it may be receiving the entry,
 * half written), and, while the manifests do not read valid, on any file at
 * all (a file that does not parse could hold anything). A file of another
 * kind does not touch it. Once the entry has been absent from every read for
 * `--settle-max`, the delete goes however steadily such files keep changing.
 * No delete goes from a read that was not valid (what did not parse may hold
 * the entry); one held past `--settle-max` for that reason is `overdue`, for
 * the daemon to report, and goes at the first valid read that lacks it. With
 * a settle period of 0, every delete goes at once.
 */
export function settleDeletes(input: DeleteSettlingInput): DeleteSettling {
  const { now, periodMs, maxMs } = input;
  const before = new Map(input.previous.map((tracked) => [tracked.address, tracked]));
  const tracked: TrackedDelete[] = [];
  const due = new Set<string>();
  const dueAtMax: TrackedDelete[] = [];
  const overdue: TrackedDelete[] = [];
  let nextAt: number | null = null;
  for (const wanted of deletesOf(input.plan)) {
    const earlier = before.get(wanted.address);
    const files =
      input.places.filesOf(wanted.kind, wanted.name) ??
      earlier?.files ??
      input.places.formerFilesOf(wanted.kind, wanted.name) ??
      [];
    const since = earlier?.since ?? now;
    // A delete asked for the first time counts from the events that led to it (the run comes a debounce after
    // them); with none, and a desired state read as before, from the load that first read it so: a delete that
    // corrects drift has waited since then.
    const readBefore =
      input.desiredSince !== null && input.desiredSince < now ? input.desiredSince : Number.NEGATIVE_INFINITY;
    let lastEvent = earlier?.changedAt ?? readBefore;
    for (const event of input.events) {
      if (event.at > lastEvent && countsFor(event, wanted.kind, files, input)) lastEvent = event.at;
    }
    const changedAt = lastEvent === Number.NEGATIVE_INFINITY ? since : lastEvent;
    const tracking: TrackedDelete = { ...wanted, since, files, changedAt };
    tracked.push(tracking);
    if (periodMs === 0) {
      due.add(wanted.address);
      continue;
    }
    const quiet = now >= changedAt + periodMs;
    if (input.valid && (quiet || now >= since + maxMs)) {
      due.add(wanted.address);
      if (!quiet) dueAtMax.push(tracking);
      continue;
    }
    if (!input.valid) {
      if (now - since > maxMs) overdue.push(tracking);
      continue;
    }
    const at = Math.min(changedAt + periodMs, since + maxMs);
    nextAt = nextAt === null ? at : Math.min(nextAt, at);
  }
  return { tracked, due, dueAtMax, overdue, nextAt };
}

/** Whether a change event counts for a delete of an entry of `kind` held in `files`. */
function countsFor(
  event: FileEvent,
  kind: string,
  files: readonly string[],
  input: DeleteSettlingInput,
): boolean {
  if (event.tree || !input.valid) return true;
  const affected = (file: string): boolean => touches(event.path, file);
  if (files.some(affected)) return true;
  return input.places.holdsKind(event.path, kind);
}

/**
 * Whether an event on `path` may have changed `file` (both real paths): the
 * file itself, or a link beside it whose name starts with `..` (a
 * ConfigMap's or Secret's `..data`, swapped to a new directory of files).
 */
export function touches(path: string, file: string): boolean {
  if (path === file) return true;
  return basename(path).startsWith('..') && file.startsWith(`${dirname(path)}${sep}`);
}

interface WantedDelete {
  readonly address: string;
  readonly kind: string;
  readonly name: string;
}

/** Whether the settle period holds an action back: a DELETE (a prune, the old half of a replace, a module removal). */
function isDelete(action: Action): boolean {
  // A create is a POST: its request, made when read (EntryCreate), is not made to tell.
  return action.op !== 'create' && action.request.method === 'DELETE';
}

/** The changes of the plan with a DELETE, each once, in the plan's order. */
function deletesOf(plan: Plan): WantedDelete[] {
  const seen = new Set<string>();
  const out: WantedDelete[] = [];
  for (const action of plan.actions) {
    if (seen.has(action.change) || !isDelete(action)) continue;
    seen.add(action.change);
    out.push({ address: action.change, kind: action.kind, name: action.name });
  }
  return out;
}

/**
 * The files whose entries differ between two desired states, as events at
 * `now`: what a load read changed with no event to say where (a directory
 * the watcher could not watch, read by a resync; or an event the watcher
 * reports just after the load read the file). The loader's memo keeps the
 * entries of a file it did not read again, so an unchanged file's entries
 * are the same objects.
 */
export function changedFiles(
  before: DesiredState | null,
  after: DesiredState,
  realPaths: (file: string) => string,
  now: number,
): FileEvent[] {
  const byFile = (state: DesiredState | null): Map<string, unknown[]> => {
    const files = new Map<string, unknown[]>();
    for (const entry of state?.entries ?? []) {
      const file = realPaths(entry.location.file);
      const list = files.get(file);
      if (list === undefined) files.set(file, [entry]);
      else list.push(entry);
    }
    return files;
  };
  const was = byFile(before);
  const is = byFile(after);
  const changed: FileEvent[] = [];
  for (const file of new Set([...was.keys(), ...is.keys()])) {
    const a = was.get(file) ?? [];
    const b = is.get(file) ?? [];
    if (a.length !== b.length || a.some((entry, index) => entry !== b[index]))
      changed.push({ path: file, at: now, tree: false });
  }
  return changed;
}

/**
 * The real paths of the files of `desired`'s entries, for the settle stage:
 * `realPaths` maps each file as the loader names it to its real path.
 */
export function entryPlaces(
  desired: DesiredState | null,
  former: DesiredState | null,
  realPaths: (file: string) => string,
): EntryPlaces {
  const index = (state: DesiredState | null) => {
    const byEntry = new Map<string, string[]>();
    const kindsByFile = new Map<string, Set<string>>();
    for (const entry of state?.entries ?? []) {
      const file = realPaths(entry.location.file);
      const key = `${entry.kind}\u0000${entry.name}`;
      const files = byEntry.get(key);
      if (files === undefined) byEntry.set(key, [file]);
      else if (!files.includes(file)) files.push(file);
      let kinds = kindsByFile.get(file);
      if (kinds === undefined) {
        kinds = new Set();
        kindsByFile.set(file, kinds);
      }
      kinds.add(entry.kind);
    }
    return { byEntry, kindsByFile };
  };
  let now: ReturnType<typeof index> | undefined;
  let before: ReturnType<typeof index> | undefined;
  // Indexed on first use: a run whose plan deletes nothing never walks 100,000 entries for it.
  const current = () => {
    now ??= index(desired);
    return now;
  };
  return {
    filesOf: (kind, name) => current().byEntry.get(`${kind}\u0000${name}`),
    holdsKind: (file, kind) => current().kindsByFile.get(file)?.has(kind) === true,
    formerFilesOf: (kind, name) => {
      before ??= index(former);
      return before.byEntry.get(`${kind}\u0000${name}`);
    },
  };
}

export interface HeldDeletes {
  /** The plan without the DELETE requests that are not due, and what waits for them. */
  readonly plan: Plan;
  /** Addresses of the changes that lost an action, in the plan's order. */
  readonly held: readonly string[];
}

/**
 * The plan without the DELETE requests that may not go yet (prunes, the old
 * half of a replace, module removals) and the actions that wait for them.
 * Creates and updates that wait for nothing held still go; what remains is
 * ordered as in the whole plan (plan-without.ts).
 */
export function holdDeletes(plan: Plan, due: ReadonlySet<string> = new Set()): HeldDeletes {
  const { plan: rest, withheld } = planWithout(
    plan,
    (action) => isDelete(action) && !due.has(action.change),
    { wholeEntries: false },
  );
  return { plan: rest, held: [...new Set(withheld.map(({ action }) => action.change))] };
}
