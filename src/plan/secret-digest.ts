import { createHmac, timingSafeEqual } from 'node:crypto';
import { EdgesyncError } from '../errors.js';

/**
 * The key a saved plan's secrets are digested with (`--plan-key-file`): a
 * secret of CI, given to the plan job and to the apply job. Only its `id`
 * is ever written; the key stays in memory.
 */
export interface PlanKey {
  /** 16 hex digits derived from the key (an HMAC of a fixed label, not a hash of the key itself). */
  readonly id: string;
  readonly bytes: Buffer;
}

/** The fewest bytes a plan key may have: 256 bits, HMAC-SHA-256's own strength. */
export const MIN_PLAN_KEY_BYTES = 32;

/** Where a secret stands in a plan: each digest is bound to it, so one cannot be moved to another field or entry. */
export interface SecretPlace {
  readonly owner: string;
  readonly kind: string;
  /** The entry's name. */
  readonly name: string;
  /** JSON Pointer of the secret in the action's request body (`/oidc/client_secret`). */
  readonly path: string;
}

/** What a saved plan holds where a secret was: a keyed digest, or nothing (`withheld`) when planned without a key. */
export const WITHHELD = 'withheld';
const DIGEST = /^hmac-sha256:([0-9a-f]{16}):([0-9a-f]{64})$/;

/** `bytes` as a plan key, or the error that says why not (`invalid_option` under `--plan-key-file`). */
export function planKeyFrom(bytes: Buffer, source: string): PlanKey {
  if (bytes.length < MIN_PLAN_KEY_BYTES) {
    throw new EdgesyncError(
      'invalid_option',
      `${source}: a plan key has at least ${MIN_PLAN_KEY_BYTES} bytes (found ${bytes.length}); make one with: head -c 32 /dev/urandom | base64 > plan.key`,
    );
  }
  const id = createHmac('sha256', bytes).update('edgesync plan key id').digest('hex').slice(0, 16);
  return { id, bytes };
}

/**
 * HMAC-SHA-256 of a secret at its place, under the plan key:
 * `hmac-sha256:<key id>:<64 hex digits>`. Without the key, a file of
 * digests cannot be used to test guesses at a weak secret offline, as a
 * plain sha256 could.
 */
export function secretDigest(key: PlanKey, place: SecretPlace, value: string): string {
  const mac = createHmac('sha256', key.bytes)
    .update(JSON.stringify([place.owner, place.kind, place.name, place.path, value]))
    .digest('hex');
  return `hmac-sha256:${key.id}:${mac}`;
}

/** How a saved secret compares with the value the plan made now holds at the same place. */
export type SecretComparison =
  | { readonly same: true }
  | {
      readonly same: false;
      /** Why: `differs`, or the digest cannot be checked (`withheld`, `no-key`, `other-key`, `malformed`). */
      readonly why: 'differs' | 'withheld' | 'no-key' | 'other-key' | 'malformed';
      /** The key id the file's digest was made with, when it names one. */
      readonly savedKeyId?: string;
    };

/** Compares a saved `$sensitive` value with `value` at `place`, in constant time over the digests. */
export function compareSecret(
  key: PlanKey | undefined,
  place: SecretPlace,
  saved: string,
  value: string,
): SecretComparison {
  if (saved === WITHHELD) return { same: false, why: 'withheld' };
  const parsed = DIGEST.exec(saved);
  if (parsed === null) return { same: false, why: 'malformed' };
  const savedKeyId = parsed[1] as string;
  if (key === undefined) return { same: false, why: 'no-key', savedKeyId };
  if (savedKeyId !== key.id) return { same: false, why: 'other-key', savedKeyId };
  const expected = Buffer.from(secretDigest(key, place, value), 'latin1');
  const given = Buffer.from(saved, 'latin1');
  return expected.length === given.length && timingSafeEqual(expected, given)
    ? { same: true }
    : { same: false, why: 'differs' };
}

/** What to do about a saved secret that could not be checked: give both jobs the same key. */
export function planKeyHint(comparison: SecretComparison & { readonly same: false }): string | undefined {
  switch (comparison.why) {
    case 'withheld':
      return 'the plan was made without --plan-key-file, so the file holds no digest of the secrets it sends; give `edgesync plan --out` and `edgesync apply --plan` the same key with --plan-key-file FILE (or EDGESYNC_PLAN_KEY_FILE), at least 32 bytes (docs/apply.md, "The plan key")';
    case 'no-key':
      return `the plan's secrets were digested with plan key ${comparison.savedKeyId}; give this apply the same key with --plan-key-file FILE (or EDGESYNC_PLAN_KEY_FILE)`;
    case 'other-key':
      return `the plan's secrets were digested with plan key ${comparison.savedKeyId}, and this apply has another key; give both jobs the same --plan-key-file`;
    default:
      return undefined;
  }
}
