import { randomInt } from 'node:crypto';
import { EdgesyncError } from '../errors.js';
import { type EmulatorVariants, resolveVariants } from './emulator-variants.js';
import { MAX_PAGE_SIZE } from './pagination.js';
import type { EmulatorSeed } from './seed.js';
import { ERROR_CODE_STYLES, type ErrorCodeStyle } from './service-error.js';

/** A rolling-window budget: at most `requests` in any `windowMs` milliseconds. */
export interface RateLimitSpec {
  readonly requests: number;
  /** Milliseconds. */
  readonly windowMs: number;
}

/** The service family's budget: 120 requests per rolling 60 seconds per account. */
export const FAMILY_RATE_LIMIT: RateLimitSpec = { requests: 120, windowMs: 60_000 };

export interface EmulatorOptions {
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** 0 picks a free port. @default 0 */
  readonly port?: number;
  /** The accepted Bearer key. @default a random key, returned in RunningEmulator.apiKey */
  readonly apiKey?: string;
  /** Resources to start with; ignored when `dataFile` already exists. */
  readonly seed?: EmulatorSeed;
  /** JSON file the store is loaded from and persisted to. */
  readonly dataFile?: string;
  /**
   * Rolling-window rate limit, `windowMs` in milliseconds. Off when absent:
   * in code the caller chooses; `edgesync emulator` and `--emulator` pass the
   * family's budget (FAMILY_RATE_LIMIT) unless told `--rate-limit off`.
   */
  readonly rateLimit?: RateLimitSpec;
  /** Delay before every request is handled, in milliseconds. @default 0 */
  readonly latencyMs?: number;
  /** Share (0–1) of requests answered 500 or 503 without being applied. @default 0 */
  readonly faultRate?: number;
  /** Share (0–1) of writes applied and then left without a response (socket destroyed). @default 0 */
  readonly dropRate?: number;
  /** Largest page a list answers with, 1–100. @default 100 */
  readonly pageSizeMax?: number;
  /**
   * Answer every 404 with this `error_code` instead of the emulator's own
   * (`not_found`, `module_not_set`): a service whose 404 bodies say less.
   * Clients must then decide by status alone.
   */
  readonly notFoundCode?: string;
  /**
   * How the emulator answers what the family does not document (GET or
   * DELETE of an unset module, an empty list in a PATCH): one answer of
   * each, src/emulator/emulator-variants.ts. Names left out keep their default.
   * @default DEFAULT_VARIANTS
   */
  readonly variants?: Partial<EmulatorVariants>;
  /**
   * `family`: every error body's `error_code` is in the family's form
   * (`ERR_NGROK_7117`), so tests show that no behaviour of a client depends
   * on the emulator's words. @default 'words'
   */
  readonly errorCodes?: ErrorCodeStyle;
  /** Source of randomness for faults and drops. @default Math.random */
  readonly random?: () => number;
  /** Milliseconds since the epoch, for timestamps, IDs and the rate limit window. @default Date.now */
  readonly now?: () => number;
  /** Largest accepted request body, in bytes. @default 1 MiB */
  readonly maxBodyBytes?: number;
  /**
   * Called, in the order the store applied them, with every write that
   * changed the account (2xx, dropped answers included): tests replay the
   * account's states from it.
   */
  readonly onWriteApplied?: (write: AppliedWrite) => void;
}

/** A write the emulator applied: what was asked, and what it answered (or would have, when dropped). */
export interface AppliedWrite {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body?: unknown;
  readonly dropped: boolean;
}

const KEY_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function generateApiKey(): string {
  let key = 'edgesync_emulator_';
  for (let i = 0; i < 32; i += 1) key += KEY_ALPHABET[randomInt(KEY_ALPHABET.length)];
  return key;
}

function invalidOption(message: string): EdgesyncError {
  return new EdgesyncError('invalid_emulator_option', message);
}

function checkShare(name: string, value: number | undefined): void {
  if (value !== undefined && !(value >= 0 && value <= 1)) {
    throw invalidOption(`${name} must be between 0 and 1, found ${value}`);
  }
}

/** Validates the options once, at the boundary, with a message that shows the bad value. */
export function checkEmulatorOptions(options: EmulatorOptions): void {
  checkShare('faultRate', options.faultRate);
  checkShare('dropRate', options.dropRate);
  const { pageSizeMax, latencyMs, rateLimit, notFoundCode } = options;
  if (
    pageSizeMax !== undefined &&
    !(Number.isInteger(pageSizeMax) && pageSizeMax >= 1 && pageSizeMax <= MAX_PAGE_SIZE)
  ) {
    throw invalidOption(`pageSizeMax must be an integer from 1 to 100, found ${pageSizeMax}`);
  }
  if (latencyMs !== undefined && !(latencyMs >= 0)) {
    throw invalidOption(`latencyMs must be 0 or more, found ${latencyMs}`);
  }
  if (rateLimit !== undefined && !(rateLimit.requests >= 1 && rateLimit.windowMs >= 1)) {
    throw invalidOption(
      `rateLimit must allow at least 1 request in a window of at least 1 ms, found ${rateLimit.requests}/${rateLimit.windowMs}ms`,
    );
  }
  if (options.variants !== undefined) resolveVariants(options.variants);
  if (options.errorCodes !== undefined && !ERROR_CODE_STYLES.includes(options.errorCodes)) {
    throw invalidOption(
      `errorCodes must be ${ERROR_CODE_STYLES.join(' or ')}, found "${options.errorCodes}"`,
    );
  }
  if (options.apiKey !== undefined && options.apiKey.length === 0) {
    throw invalidOption('apiKey must not be empty');
  }
  if (notFoundCode !== undefined && !/^[A-Za-z0-9_]+$/.test(notFoundCode)) {
    throw invalidOption(`notFoundCode must be letters, digits and underscores, found "${notFoundCode}"`);
  }
}
