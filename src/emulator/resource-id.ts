import { randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const OPAQUE_LENGTH = 27;
/** Milliseconds since the epoch in 8 base62 digits: good until the year 8900. */
const TIME_DIGITS = 8;
/** Order among IDs made in the same millisecond. */
const COUNTER_DIGITS = 4;
const COUNTER_LIMIT = 62 ** COUNTER_DIGITS;
const RANDOM_DIGITS = OPAQUE_LENGTH - TIME_DIGITS - COUNTER_DIGITS;

/** Prefix of the operation IDs of error bodies; records take their collection's (EmulatedCollection.idPrefix). */
export const OPERATION_ID_PREFIX = 'op_';

function base62(value: number, digits: number): string {
  let text = '';
  let rest = value;
  for (let i = 0; i < digits; i += 1) {
    text = BASE62[rest % 62] + text;
    rest = Math.floor(rest / 62);
  }
  return text;
}

/**
 * IDs as the service family makes them: after the kind's prefix, a
 * time-ordered part (milliseconds, then a counter within the millisecond),
 * then random characters. BASE62 is in ASCII order, so two IDs of one kind
 * sort as they were made. The clock never runs backwards here: a clock that
 * does (an injected one, a restart) continues from the last time used.
 */
export class ResourceIds {
  private lastMs = 0;
  private counter = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** A new ID with `prefix` (`ipr_`). */
  next(prefix: string): string {
    let ms = Math.max(this.lastMs, Math.floor(this.now()));
    this.counter = ms === this.lastMs ? this.counter + 1 : 0;
    if (this.counter >= COUNTER_LIMIT) {
      ms += 1;
      this.counter = 0;
    }
    this.lastMs = ms;
    let random = '';
    for (let i = 0; i < RANDOM_DIGITS; i += 1) random += BASE62[randomInt(BASE62.length)];
    return `${prefix}${base62(ms, TIME_DIGITS)}${base62(this.counter, COUNTER_DIGITS)}${random}`;
  }
}

const OPAQUE_PATTERN = new RegExp(`^[0-9A-Za-z]{${OPAQUE_LENGTH}}$`);

/** True when `id` is `prefix` followed by exactly 27 base62 characters. */
export function isWellFormedId(prefix: string, id: string): boolean {
  return id.startsWith(prefix) && OPAQUE_PATTERN.test(id.slice(prefix.length));
}

const ID_BODY = /^[0-9A-Za-z]+$/;

/**
 * True when `id` is `prefix` followed by base62 characters: what the
 * emulator takes as an ID of a kind before it looks it up. The family's own
 * IDs are 27 characters after the prefix; the length is not checked here,
 * so a test may name a missing object by any readable ID.
 */
export function isIdOfKind(prefix: string, id: string): boolean {
  return id.startsWith(prefix) && ID_BODY.test(id.slice(prefix.length));
}
