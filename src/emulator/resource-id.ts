import { randomInt } from 'node:crypto';
import { ID_PREFIXES } from '../kinds/kind-name.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const OPAQUE_LENGTH = 27;

/** Prefixes of everything the emulator stores: the spec's, plus `op_` for operation IDs in error bodies. */
export const EMULATOR_ID_PREFIXES = { ...ID_PREFIXES, operation: 'op_' } as const;

export type EmulatorIdKind = keyof typeof EMULATOR_ID_PREFIXES;

/** A new ID: the kind's prefix and 27 base62 characters from the crypto RNG. */
export function newId(kind: EmulatorIdKind): string {
  let opaque = '';
  for (let i = 0; i < OPAQUE_LENGTH; i += 1) opaque += BASE62[randomInt(BASE62.length)];
  return `${EMULATOR_ID_PREFIXES[kind]}${opaque}`;
}

const OPAQUE_PATTERN = new RegExp(`^[0-9A-Za-z]{${OPAQUE_LENGTH}}$`);

/** True when `id` is the kind's prefix followed by exactly 27 base62 characters. */
export function isWellFormedId(kind: EmulatorIdKind, id: string): boolean {
  const prefix = EMULATOR_ID_PREFIXES[kind];
  return id.startsWith(prefix) && OPAQUE_PATTERN.test(id.slice(prefix.length));
}
