import { randomInt } from 'node:crypto';
import { collectionRoutes } from '../../emulator/collection-routes.js';
import { checkObject, METADATA_RULE, type ObjectRules } from '../../emulator/field-rules.js';
import type { HandlerEnv, RouteDefinition } from '../../emulator/handler.js';
import { newBaseRecord, renderBase } from '../../emulator/record-base.js';
import type { ReservedAddrRecord } from '../../emulator/records.js';
import { invalidField } from '../../emulator/service-error.js';
import { checkReference, refTo } from '../referenced-resources/emulator-references.js';

export const REGIONS = ['au', 'eu', 'ap', 'us', 'jp', 'in', 'sa'] as const;

// The spec's 255-byte description limit names rules, CAs, edges and routes,
// not reserved addresses; the emulator follows the spec to the letter.
const CREATE_RULES: ObjectRules = {
  description: { type: 'string' },
  metadata: METADATA_RULE,
  region: { type: 'string', oneOf: REGIONS },
};

/** Seeds may also fix the address. */
const SEED_RULES: ObjectRules = { ...CREATE_RULES, addr: { type: 'string', format: 'hostport' } };

const UPDATE_RULES: ObjectRules = {
  description: { type: 'string' },
  metadata: METADATA_RULE,
  endpoint_configuration_id: { type: 'string', nullable: true },
};

export function renderReservedAddr(record: ReservedAddrRecord, env: HandlerEnv): Record<string, unknown> {
  return {
    ...renderBase(record, `${env.baseUrl}/reserved_addrs/${record.id}`),
    addr: record.addr,
    region: record.region,
    endpoint_configuration:
      record.endpoint_configuration_id === null
        ? null
        : refTo(env, 'endpoint_configurations', record.endpoint_configuration_id),
  };
}

/** `seeding` also accepts a fixed `addr`. */
export function createReservedAddr(
  env: HandlerEnv,
  body: unknown,
  fixedId?: string,
  seeding = false,
): ReservedAddrRecord {
  const checked = checkObject(body, seeding ? SEED_RULES : CREATE_RULES);
  const region = (checked.region as string | undefined) ?? 'us';
  const addr =
    (checked.addr as string | undefined) ??
    `${randomInt(1, 10)}.tcp.${region}.edge.example:${randomInt(10_000, 30_000)}`;
  const record: ReservedAddrRecord = {
    ...newBaseRecord(env, 'reserved_addr', 'reserved_addrs', fixedId, checked),
    addr,
    region,
    endpoint_configuration_id: null,
  };
  env.store.insert('reserved_addrs', record);
  return record;
}

/** An empty string detaches, like null: the service family treats "" as unset. */
function checkEndpointConfigurationId(env: HandlerEnv, value: unknown): string | null | undefined {
  if (value === undefined || value === null || value === '') return value === '' ? null : value;
  if (typeof value !== 'string') throw invalidField('endpoint_configuration_id', 'must be a string or null');
  checkReference(env, 'endpoint_configurations', value, 'endpoint_configuration_id');
  return value;
}

export const RESERVED_ADDR_ROUTES: readonly RouteDefinition[] = collectionRoutes({
  collection: 'reserved_addrs',
  path: '/reserved_addrs',
  title: 'reserved address',
  render: renderReservedAddr,
  create: (env, body) => createReservedAddr(env, body),
  update: (record, body, env) => {
    const checked = checkObject(body, UPDATE_RULES);
    const endpointConfigurationId = checkEndpointConfigurationId(env, checked.endpoint_configuration_id);
    if (endpointConfigurationId !== undefined) record.endpoint_configuration_id = endpointConfigurationId;
    return checked;
  },
});
