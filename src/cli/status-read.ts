import { EdgesyncError } from '../errors.js';
import { type PeerAnswer, readPeer } from '../peer/read-peer.js';
import type { Difference } from '../sync-state.js';
import {
  type ManifestProblem,
  type SkippedEntryRecord,
  WATCH_MODES,
  type WatchMode,
} from '../watch/daemon-status.js';

/**
 * What `edgesync status` reads of a daemon's `/status`: the keys it shows or
 * judges a commit by, checked one by one. The body comes from a URL the user
 * gave (a daemon, or anything answering there), so it is data to verify:
 * bounded in size and time, every key used checked for its type.
 */
export interface StatusView {
  readonly mode: WatchMode;
  /** Whether the daemon says it is suspended (`edgesync suspend`); null from a daemon that does not say. */
  readonly suspended: boolean | null;
  /** Since when and at whose word; null while not suspended or not said. */
  readonly suspension: { readonly since: string; readonly by: string } | null;
  readonly owner: string;
  readonly paths: readonly string[];
  readonly ready: boolean;
  readonly notReadyReason: string | null;
  readonly manifestsValid: boolean | null;
  readonly manifestErrors: readonly StatusManifestProblem[];
  readonly lastReconcile: {
    readonly trigger: string;
    readonly result: string;
    readonly startedAt: string;
    readonly finishedAt: string;
    readonly durationMs: number;
  } | null;
  readonly lastSuccessAt: string | null;
  readonly lastError: { readonly code: string; readonly message: string; readonly at: string } | null;
  readonly lastPlan: {
    readonly changes: readonly string[];
    readonly applied: boolean;
    readonly refusal: string | null;
    readonly errors: readonly { readonly code: string; readonly message: string }[];
  } | null;
  readonly lastApplyFailures: readonly { readonly action: string; readonly message: string }[];
  readonly skippedEntries: readonly StatusSkippedEntry[];
  readonly heldDeletes: readonly string[];
  /**
   * What still differs after the daemon's last reconcile, in the one
   * vocabulary (docs/glossary.md); null from a daemon too old to say (it
   * reported `last_plan.changes` alone, pending and drift together).
   */
  readonly differences: Readonly<Record<Difference, readonly string[]>> | null;
  /** The daemon's edgesync version; null from a daemon that does not say it. */
  readonly version: string | null;
  /** null when the daemon's manifests are in no git checkout, or it reports no `git`. */
  readonly git: {
    readonly lastAppliedCommit: string | null;
    readonly lastAppliedAt: string | null;
    /** The commit the last reconcile read (set after each reconcile, whatever its result). */
    readonly checkoutCommit: string | null;
  } | null;
  readonly cache: {
    readonly ageMs: number | null;
    readonly complete: boolean;
    readonly objects: number;
    readonly readShare: number;
    readonly readShareRequestsPerMinute: number;
    readonly requestsByPurpose: Readonly<Record<string, number>>;
  } | null;
}

/** A manifest problem as `/status` lists it. */
export type StatusManifestProblem = ManifestProblem;

/** What `status` reads of a skipped entry: where it is and why, not since when. */
export type StatusSkippedEntry = Omit<SkippedEntryRecord, 'waitsFor' | 'since' | 'reconciles'>;

/**
 * The most `/status` may weigh. A daemon's status with 10,000 skipped
 * entries, each with a message of a few hundred characters, is about 5 MiB.
 */
export const MAX_STATUS_BYTES = 8 * 1024 * 1024;
/** How long one read of a daemon may take unless told otherwise, milliseconds: connecting, the headers and the whole body. */
export const STATUS_READ_TIMEOUT_MS = 10_000;

/** `http://host:9090` (or with a path prefix) → its `/status`; refuses anything but http(s). */
export function statusUrl(daemonUrl: string): URL {
  const base = parseDaemonUrl(daemonUrl);
  const url = new URL(base.href);
  // The daemon's address, or its /status itself (as curl was given it).
  const path = base.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/status') ? path : `${path}/status`;
  url.search = '';
  url.hash = '';
  return url;
}

/** `--daemon-url` as typed → a URL, or the error that says why it is none; refuses anything but http(s). */
export function parseDaemonUrl(daemonUrl: string): URL {
  let base: URL;
  try {
    base = new URL(daemonUrl);
  } catch (error) {
    throw new EdgesyncError(
      'invalid_option',
      `--daemon-url: expected a URL like http://127.0.0.1:9090 (found "${daemonUrl}")`,
      {
        cause: error,
      },
    );
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new EdgesyncError(
      'invalid_option',
      `--daemon-url: expected http:// or https:// (found "${base.protocol}")`,
    );
  }
  return base;
}

/** The URL as it may be printed: without a user or password it may carry. */
export function shownUrl(url: URL): string {
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  return shown.href;
}

/**
 * GETs `/status` and checks it. Throws `network_error` (not reachable, no
 * complete answer within `deadlineMs`), `unexpected_response` (not 200, not
 * JSON, not the shape of a status), `response_too_large`, or `aborted` when
 * `signal` ends the read, each naming the URL.
 */
export async function readDaemonStatus(
  url: URL,
  signal: AbortSignal,
  deadlineMs: number,
  /** The status token's `Authorization` (statusTokenHeader), when the daemon asks for one. */
  auth: Readonly<Record<string, string>> = {},
): Promise<StatusView> {
  const where = shownUrl(url);
  // A user and password in the URL go as Basic credentials (a daemon behind an auth proxy).
  const answer = await readPeer(
    {
      method: 'GET',
      url,
      headers: { accept: 'application/json', ...auth },
      deadlineMs,
      maxBodyBytes: MAX_STATUS_BYTES,
    },
    signal,
  );
  const { status, text } = daemonAnswer(answer, where, "could not read the daemon's status");
  if (status !== 200) {
    throw new EdgesyncError(
      'unexpected_response',
      `${where}: HTTP ${status} (expected 200 with the daemon's status)`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new EdgesyncError(
      'unexpected_response',
      `${where}: not JSON, so not an edgesync daemon's /status`,
      {
        cause: error,
      },
    );
  }
  return parseStatus(body, where);
}

/**
 * A daemon's whole answer (status and text, at most MAX_STATUS_BYTES), or
 * the error that says why there is none: `aborted` (SIGINT, SIGTERM),
 * `response_too_large`, or `network_error` with `failed` before the peer's
 * words (`could not read the daemon's status: ECONNREFUSED`).
 */
export function daemonAnswer(
  answer: PeerAnswer,
  where: string,
  failed: string,
): { readonly status: number; readonly text: string } {
  switch (answer.type) {
    case 'response':
      return answer;
    case 'too_large':
      throw new EdgesyncError(
        'response_too_large',
        `${where}: the answer is over ${MAX_STATUS_BYTES / 1024 / 1024} MiB, more than a daemon's status ever is; not read`,
      );
    case 'failed':
      throw new EdgesyncError('network_error', `${where}: ${failed}: ${answer.detail}`);
    case 'aborted':
      throw new EdgesyncError('aborted', `${where}: interrupted`);
  }
}

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** A checked reader of one JSON value: each miss names the key path and what was found. */
class Shape {
  constructor(
    private readonly where: string,
    private readonly value: unknown,
    private readonly path: string,
  ) {}

  private fail(expected: string, found: unknown = this.value): never {
    const shown = found === undefined ? 'nothing' : (JSON.stringify(found)?.slice(0, 60) ?? String(found));
    throw new EdgesyncError(
      'unexpected_response',
      `${this.where}: not an edgesync daemon's status: ${this.path || '(the body)'}: expected ${expected} (found ${shown})`,
    );
  }

  key(name: string): Shape {
    if (typeof this.value !== 'object' || this.value === null || Array.isArray(this.value))
      this.fail('an object');
    return new Shape(
      this.where,
      (this.value as Record<string, unknown>)[name],
      this.path === '' ? name : `${this.path}.${name}`,
    );
  }

  has(name: string): boolean {
    return typeof this.value === 'object' && this.value !== null && Object.hasOwn(this.value, name);
  }

  isNull(): boolean {
    return this.value === null;
  }

  string(): string {
    return typeof this.value === 'string' ? this.value : this.fail('a string');
  }

  stringOrNull(): string | null {
    return this.value === null ? null : this.string();
  }

  number(): number {
    return typeof this.value === 'number' && Number.isFinite(this.value) ? this.value : this.fail('a number');
  }

  numberOrNull(): number | null {
    return this.value === null ? null : this.number();
  }

  boolean(): boolean {
    return typeof this.value === 'boolean' ? this.value : this.fail('true or false');
  }

  booleanOrNull(): boolean | null {
    return this.value === null ? null : this.boolean();
  }

  oneOf<T extends string>(choices: readonly T[]): T {
    const text = this.string();
    return (choices as readonly string[]).includes(text)
      ? (text as T)
      : this.fail(choices.map((c) => `"${c}"`).join(' or '));
  }

  list<T>(item: (shape: Shape) => T): T[] {
    if (!Array.isArray(this.value)) this.fail('a list');
    return (this.value as unknown[]).map((value, index) =>
      item(new Shape(this.where, value, `${this.path}[${index}]`)),
    );
  }

  /** A commit is handed to `git merge-base` and printed: only a full object ID is taken. */
  commitOrNull(): string | null {
    const value = this.stringOrNull();
    return value === null || OBJECT_ID.test(value) ? value : this.fail('a commit ID (40 or 64 hex digits)');
  }

  counts(): Record<string, number> {
    if (typeof this.value !== 'object' || this.value === null || Array.isArray(this.value))
      this.fail('an object');
    return Object.fromEntries(
      Object.keys(this.value as object).map((name) => [name, this.key(name).number()]),
    );
  }
}

/** Checks the keys `edgesync status` uses; a key the daemon added later is ignored. */
/** `/status.suspension`: since when and by whom, checked; null when absent or null. */
function suspensionOf(root: Shape): StatusView['suspension'] {
  if (!root.has('suspension')) return null;
  const suspension = root.key('suspension');
  if (suspension.isNull()) return null;
  return { since: suspension.key('since').string(), by: suspension.key('by').string() };
}

/** `/status.differences`: each state's list of addresses, every one checked. */
function differencesOf(shape: Shape): Readonly<Record<Difference, readonly string[]>> {
  const list = (state: Difference): string[] => shape.key(state).list((address) => address.string());
  return { pending: list('pending'), drift: list('drift'), held: list('held'), skipped: list('skipped') };
}

export function parseStatus(body: unknown, where: string): StatusView {
  const root = new Shape(where, body, '');
  const reconcile = root.key('last_reconcile');
  const lastError = root.key('last_error');
  const plan = root.key('last_plan');
  const apply = root.key('last_apply');
  const git = root.has('git') ? root.key('git') : undefined;
  const cache = root.has('live_cache') ? root.key('live_cache') : undefined;
  const settle = root.has('settle') ? root.key('settle') : undefined;
  return {
    mode: root.key('mode').oneOf(WATCH_MODES),
    owner: root.key('owner').string(),
    paths: root.key('paths').list((path) => path.string()),
    ready: root.key('ready').boolean(),
    suspended: root.has('suspended') ? root.key('suspended').boolean() : null,
    suspension: suspensionOf(root),
    notReadyReason: root.key('not_ready_reason').stringOrNull(),
    manifestsValid: root.key('manifests_valid').booleanOrNull(),
    manifestErrors: root.key('manifest_errors').list((problem) => ({
      file: problem.key('file').string(),
      line: problem.key('line').numberOrNull(),
      column: problem.key('column').numberOrNull(),
      path: problem.key('path').string(),
      message: problem.key('message').string(),
    })),
    lastReconcile: reconcile.isNull()
      ? null
      : {
          trigger: reconcile.key('trigger').string(),
          result: reconcile.key('result').string(),
          startedAt: reconcile.key('started_at').string(),
          finishedAt: reconcile.key('finished_at').string(),
          durationMs: reconcile.key('duration_ms').number(),
        },
    lastSuccessAt: root.key('last_success_at').stringOrNull(),
    lastError: lastError.isNull()
      ? null
      : {
          code: lastError.key('code').string(),
          message: lastError.key('message').string(),
          at: lastError.key('at').string(),
        },
    lastPlan: plan.isNull()
      ? null
      : {
          changes: plan.key('changes').list((change) => change.string()),
          applied: plan.key('applied').boolean(),
          refusal: plan.has('refusal') ? plan.key('refusal').key('message').string() : null,
          errors: plan.key('errors').list((error) => ({
            code: error.key('code').string(),
            message: error.key('message').string(),
          })),
        },
    lastApplyFailures: apply.isNull()
      ? []
      : apply.key('failures').list((failure) => ({
          action: failure.key('action').string(),
          message: failure.key('message').string(),
        })),
    skippedEntries: root.has('skipped_entries')
      ? root.key('skipped_entries').list((entry) => ({
          kind: entry.key('kind').string(),
          name: entry.key('name').string(),
          reason: entry.key('reason').string(),
          message: entry.key('message').string(),
          file: entry.key('file').stringOrNull(),
          line: entry.key('line').numberOrNull(),
          column: entry.key('column').numberOrNull(),
        }))
      : [],
    heldDeletes: settle === undefined ? [] : settle.key('held_deletes').list((address) => address.string()),
    differences: root.has('differences') ? differencesOf(root.key('differences')) : null,
    version: root.has('version') ? root.key('version').string() : null,
    git:
      git === undefined
        ? null
        : {
            lastAppliedCommit: git.key('last_applied_commit').commitOrNull(),
            lastAppliedAt: git.key('last_applied_at').stringOrNull(),
            checkoutCommit: git.key('checkout_commit').commitOrNull(),
          },
    cache:
      cache === undefined
        ? null
        : {
            ageMs: cache.key('age_ms').numberOrNull(),
            complete: cache.key('complete').boolean(),
            objects: cache.key('objects').number(),
            readShare: cache.key('read_share').number(),
            readShareRequestsPerMinute: cache.key('read_share_requests_per_minute').number(),
            requestsByPurpose: cache.key('requests_by_purpose').counts(),
          },
  };
}
