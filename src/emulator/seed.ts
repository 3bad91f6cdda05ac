import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { EdgesyncError } from '../errors.js';
import { isRecord } from '../json-value.js';
import { createCertificateAuthority } from '../kinds/certificate-authorities/emulator.js';
import { createHttpsEdge } from '../kinds/https-edges/emulator.js';
import { createHttpsEdgeRoute } from '../kinds/https-edges/emulator-edge-routes.js';
import { createIpPolicyRule } from '../kinds/ip-policy-rules/emulator.js';
import { createMinimal } from '../kinds/referenced-resources/emulator.js';
import { createReservedAddr } from '../kinds/reserved-addrs/emulator.js';
import { createTcpEdge } from '../kinds/tcp-edges/emulator.js';
import { createTlsEdge } from '../kinds/tls-edges/emulator.js';
import type { HandlerEnv } from './handler.js';
import { ServiceError } from './service-error.js';

/** One seeded resource: the create body of its kind plus an optional fixed `id`. */
export type SeedEntry = Readonly<Record<string, unknown>> & { readonly id?: string };

/**
 * Resources the emulator starts with, created in this order so references
 * resolve: what the spec only references (IP policies, endpoint
 * configurations, TCP/TLS edges, routes) and any spec resource.
 */
export interface EmulatorSeed {
  readonly ip_policies?: readonly SeedEntry[];
  readonly endpoint_configurations?: readonly SeedEntry[];
  readonly certificate_authorities?: readonly SeedEntry[];
  readonly ip_policy_rules?: readonly SeedEntry[];
  readonly reserved_addrs?: readonly (SeedEntry & { readonly endpoint_configuration_id?: string })[];
  readonly https_edges?: readonly (SeedEntry & { readonly routes?: readonly SeedEntry[] })[];
  readonly tcp_edges?: readonly SeedEntry[];
  readonly tls_edges?: readonly SeedEntry[];
}

const SEED_KEYS = [
  'ip_policies',
  'endpoint_configurations',
  'certificate_authorities',
  'ip_policy_rules',
  'reserved_addrs',
  'https_edges',
  'tcp_edges',
  'tls_edges',
] as const;

/** A seed that does not validate; `path` points into the seed (`https_edges[0].routes[1].oidc.issuer`). */
export class EmulatorSeedError extends EdgesyncError {
  readonly path: string;

  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super('emulator_seed_invalid', `seed ${path}: ${message}`, options);
    this.path = path;
  }
}

function seedFailure(path: string, error: unknown): EmulatorSeedError {
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

function splitId(
  entry: Readonly<Record<string, unknown>>,
  path: string,
): { id?: string; body: Record<string, unknown> } {
  const { id, ...body } = entry;
  if (id === undefined) return { body };
  if (typeof id !== 'string') throw new EmulatorSeedError(`${path}.id`, 'must be a string');
  return { id, body };
}

/** Creates everything the seed holds, validated like API creates; throws EmulatorSeedError on the first problem. */
export function applySeed(env: HandlerEnv, seed: unknown): void {
  if (!isRecord(seed)) throw new EmulatorSeedError('(root)', 'must be a mapping');
  for (const key of Object.keys(seed)) {
    if (!(SEED_KEYS as readonly string[]).includes(key)) {
      throw new EmulatorSeedError(key, `unknown key; expected one of ${SEED_KEYS.join(', ')}`);
    }
  }
  const each = (
    key: string,
    create: (body: Record<string, unknown>, id: string | undefined, path: string) => void,
  ) => {
    entriesOf(seed, key).forEach((entry, index) => {
      const path = `${key}[${index}]`;
      const { id, body } = splitId(entry, path);
      try {
        create(body, id, path);
      } catch (error) {
        throw error instanceof EmulatorSeedError ? error : seedFailure(path, error);
      }
    });
  };
  each('ip_policies', (body, id) => createMinimal(env, 'ip_policies', body, id));
  each('endpoint_configurations', (body, id) => createMinimal(env, 'endpoint_configurations', body, id));
  each('certificate_authorities', (body, id) => createCertificateAuthority(env, body, id));
  each('ip_policy_rules', (body, id) => createIpPolicyRule(env, body, id));
  each('reserved_addrs', (body, id) => {
    const { endpoint_configuration_id: endpointConfigurationId, ...rest } = body;
    const record = createReservedAddr(env, rest, id, true);
    if (typeof endpointConfigurationId === 'string') {
      if (!env.store.has('endpoint_configurations', endpointConfigurationId)) {
        throw new ServiceError(
          400,
          'reference_not_found',
          `${endpointConfigurationId} does not exist`,
          'endpoint_configuration_id',
        );
      }
      record.endpoint_configuration_id = endpointConfigurationId;
    }
  });
  each('https_edges', (body, id, path) => {
    const { routes, ...edgeBody } = body;
    const edge = createHttpsEdge(env, edgeBody, id);
    if (routes === undefined) return;
    if (!Array.isArray(routes)) throw new EmulatorSeedError(`${path}.routes`, 'must be a list');
    routes.forEach((route, index) => {
      const routePath = `${path}.routes[${index}]`;
      if (!isRecord(route)) throw new EmulatorSeedError(routePath, 'must be a mapping');
      const split = splitId(route, routePath);
      try {
        createHttpsEdgeRoute(env, edge.id, split.body, split.id);
      } catch (error) {
        throw seedFailure(routePath, error);
      }
    });
  });
  each('tcp_edges', (body, id) => createTcpEdge(env, body, id));
  each('tls_edges', (body, id) => createTlsEdge(env, body, id));
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
