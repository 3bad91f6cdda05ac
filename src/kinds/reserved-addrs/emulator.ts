import { randomInt } from 'node:crypto';
import { collectionRoutes } from '../../emulator/collection-routes.js';
import type { EmulatedCollection, EmulatorPart } from '../../emulator/emulated-collection.js';
import { checkObject, METADATA_RULE, type ObjectRules } from '../../emulator/field-rules.js';
import type { HandlerEnv } from '../../emulator/handler.js';
import { newBaseRecord, renderBase } from '../../emulator/record-base.js';
import type { BaseRecord } from '../../emulator/records.js';
import { checkReference, refTo } from '../../emulator/references.js';
import { invalidField, ServiceError } from '../../emulator/service-error.js';
import { ENDPOINT_CONFIGURATIONS, ENDPOINT_CONFIGURATIONS_PART } from '../referenced-resources/emulator.js';

export interface ReservedAddrRecord extends BaseRecord {
  readonly addr: string;
  readonly region: string;
  endpoint_configuration_id: string | null;
}

/** An endpoint configuration cannot be deleted while an address names it. */
export const RESERVED_ADDRS: EmulatedCollection<ReservedAddrRecord> & { readonly path: string } = {
  name: 'reserved_addrs',
  idPrefix: 'ra_',
  title: 'reserved address',
  path: '/reserved_addrs',
  references: [
    {
      target: ENDPOINT_CONFIGURATIONS.name,
      ids: (record) => (record.endpoint_configuration_id === null ? [] : [record.endpoint_configuration_id]),
      onDelete: 'refuse',
    },
  ],
  // A seed may also fix the address and attach an endpoint configuration, which a create cannot.
  seed: (env, body, id) => {
    const { endpoint_configuration_id: endpointConfigurationId, ...rest } = body;
    const record = createReservedAddr(env, rest, id, true);
    if (typeof endpointConfigurationId === 'string') {
      if (!env.store.has(ENDPOINT_CONFIGURATIONS, endpointConfigurationId)) {
        throw new ServiceError(
          400,
          'reference_not_found',
          `${endpointConfigurationId} does not exist`,
          'endpoint_configuration_id',
        );
      }
      record.endpoint_configuration_id = endpointConfigurationId;
    }
  },
};

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
        : refTo(env, ENDPOINT_CONFIGURATIONS, record.endpoint_configuration_id),
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
    ...newBaseRecord(env, RESERVED_ADDRS, fixedId, checked),
    addr,
    region,
    endpoint_configuration_id: null,
  };
  env.store.insert(RESERVED_ADDRS, record);
  return record;
}

/** An empty string detaches, like null: the service family treats "" as unset. */
function checkEndpointConfigurationId(env: HandlerEnv, value: unknown): string | null | undefined {
  if (value === undefined || value === null || value === '') return value === '' ? null : value;
  if (typeof value !== 'string') throw invalidField('endpoint_configuration_id', 'must be a string or null');
  checkReference(env, ENDPOINT_CONFIGURATIONS, value, 'endpoint_configuration_id');
  return value;
}

const RESERVED_ADDR_ROUTES = collectionRoutes({
  collection: RESERVED_ADDRS,
  render: renderReservedAddr,
  create: (env, body) => createReservedAddr(env, body),
  update: (record, body, env) => {
    const checked = checkObject(body, UPDATE_RULES);
    const endpointConfigurationId = checkEndpointConfigurationId(env, checked.endpoint_configuration_id);
    if (endpointConfigurationId !== undefined) record.endpoint_configuration_id = endpointConfigurationId;
    return checked;
  },
});

/** Reserved addresses in the emulator, with the endpoint configurations they attach. */
export const RESERVED_ADDRS_PART: EmulatorPart = {
  requires: [ENDPOINT_CONFIGURATIONS_PART],
  collections: [RESERVED_ADDRS],
  routes: RESERVED_ADDR_ROUTES,
};
