import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { EdgesyncError } from '../errors.js';
import { isRecord } from '../json-value.js';
import type { EmulatedCollection } from './emulated-collection.js';
import type { HandlerEnv } from './handler.js';
import { ServiceError } from './service-error.js';

/** One seeded resource: the create body of its kind plus an optional fixed `id`. */
export type SeedEntry = Readonly<Record<string, unknown>> & { readonly id?: string };

/**
 * Resources the emulator starts with, by collection (`ip_policies`,
 * `ip_policy_rules`, …): what the spec only references (IP policies,
 * endpoint configurations, TCP/TLS edges, routes) and any spec resource.
 * Which keys there are, and what each entry holds, is up to the collections
 * the emulator serves (EmulatedCollection.seed).
 */
export type EmulatorSeed = Readonly<Record<string, readonly SeedEntry[] | null | undefined>>;

/** A seed that does not validate; `path` points into the seed (`https_edges[0].routes[1].oidc.issuer`). */
export class EmulatorSeedError extends EdgesyncError {
  readonly path: string;

  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super('emulator_seed_invalid', `seed ${path}: ${message}`, options);
    this.path = path;
  }
}

/** The error of a seed entry at `path` that its create refused. */
export function seedFailure(path: string, error: unknown): EmulatorSeedError {
  if (error instanceof ServiceError) {
    const field = error.field === undefined ? path : `${path}.${error.field}`;
    return new EmulatorSeedError(field, `${error.errorCode}: ${error.message}`, { cause: error });
  }
  return new EmulatorSeedError(path, error instanceof Error ? error.message : String(error), {
    cause: error,
  });
}

function entriesOf(seed: Readonly<Record<string, unknown>>, key: string): Record<string, unknown>[] {
  const value = seed[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new EmulatorSeedError(key, 'must be a list');
  return value.map((entry, index) => {
    if (!isRecord(entry)) throw new EmulatorSeedError(`${key}[${index}]`, 'must be a mapping');
    return entry;
  });
}

/** The entry's fixed `id` and its create body. */
export function splitId(
  entry: Readonly<Record<string, unknown>>,
  path: string,
): { id?: string; body: Record<string, unknown> } {
  const { id, ...body } = entry;
  if (id === undefined) return { body };
  if (typeof id !== 'string') throw new EmulatorSeedError(`${path}.id`, 'must be a string');
  return { id, body };
}

/**
 * Creates everything the seed holds, collection by collection in the order
 * of `collections` (what others reference first, so references resolve), validated like
 * API creates; throws EmulatorSeedError on the first problem.
 */
export function applySeed(env: HandlerEnv, collections: readonly EmulatedCollection[], seed: unknown): void {
  if (!isRecord(seed)) throw new EmulatorSeedError('(root)', 'must be a mapping');
  const seeded = collections.filter((collection) => collection.seed !== undefined);
  const keys = seeded.map((collection) => collection.name);
  for (const key of Object.keys(seed)) {
    if (!keys.includes(key)) {
      throw new EmulatorSeedError(key, `unknown key; expected one of ${keys.join(', ')}`);
    }
  }
  for (const collection of seeded) {
    entriesOf(seed, collection.name).forEach((entry, index) => {
      const path = `${collection.name}[${index}]`;
      const { id, body } = splitId(entry, path);
      try {
        collection.seed?.(env, body, id, path);
      } catch (error) {
        throw error instanceof EmulatorSeedError ? error : seedFailure(path, error);
      }
    });
  }
}

/** Reads a seed from YAML (or JSON, which is YAML). Validation happens when it is applied. */
export async function loadSeedFile(path: string): Promise<EmulatorSeed> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new EdgesyncError('emulator_seed_unreadable', `cannot read seed file ${path}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (error) {
    throw new EmulatorSeedError(path, 'is not valid YAML', { cause: error });
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isRecord(parsed)) throw new EmulatorSeedError(path, 'must hold a mapping');
  return parsed as EmulatorSeed;
}
