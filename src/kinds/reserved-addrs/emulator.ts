import { randomInt } from 'node:crypto';
import { collectionRoutes } from '../../emulator/collection-routes.js';
import type { EmulatedCollection, EmulatorPart } from '../../emulator/emulated-collection.js';
import {
  checkObject,
  descriptionRule,
  invalidField,
  metadataRule,
  type ObjectRules,
} from '../../emulator/field-rules.js';
import type { HandlerEnv, RouteDefinition } from '../../emulator/handler.js';
import { findRecord, newBaseRecord, renderBase } from '../../emulator/record-base.js';
import type { BaseRecord } from '../../emulator/records.js';
import { checkReference, refTo } from '../../emulator/references.js';
import { ServiceError } from '../../emulator/service-error.js';
import { isRecord } from '../../json-value.js';
import { ENDPOINT_CONFIGURATIONS, ENDPOINT_CONFIGURATIONS_PART } from '../referenced-resources/emulator.js';
import {
  ADDR_DESCRIPTION_TOO_LONG,
  ADDR_METADATA_TOO_LONG,
  ADDR_UPDATE_EMPTY,
  BAD_REGION,
  ENDPOINT_CONFIGURATION_ID_MALFORMED,
  ENDPOINT_CONFIGURATION_NOT_FOUND,
  RESERVED_ADDR_ERRORS,
} from './emulator-errors.js';

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
  refusals: { emptyUpdate: ADDR_UPDATE_EMPTY },
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
      checkReference(env, ENDPOINT_CONFIGURATIONS, endpointConfigurationId, 'endpoint_configuration_id', {
        malformed: ENDPOINT_CONFIGURATION_ID_MALFORMED,
        missing: ENDPOINT_CONFIGURATION_NOT_FOUND,
      });
      record.endpoint_configuration_id = endpointConfigurationId;
    }
  },
};

export const REGIONS = ['au', 'eu', 'ap', 'us', 'jp', 'in', 'sa'] as const;

// The spec's 255-byte description limit names rules, CAs, edges and routes and
// leaves reserved addresses open; the family refuses a longer one (its error 504).
const DESCRIPTION = descriptionRule(ADDR_DESCRIPTION_TOO_LONG);
const METADATA = metadataRule(ADDR_METADATA_TOO_LONG);

const CREATE_RULES: ObjectRules = {
  description: DESCRIPTION,
  metadata: METADATA,
  region: { type: 'string', oneOf: REGIONS, refusals: { invalid: BAD_REGION } },
};

/** Seeds may also fix the address. */
const SEED_RULES: ObjectRules = { ...CREATE_RULES, addr: { type: 'string', format: 'hostport' } };

const UPDATE_RULES: ObjectRules = {
  description: DESCRIPTION,
  metadata: METADATA,
  endpoint_configuration_id: { type: 'string', nullable: true },
};

export function renderReservedAddr(record: ReservedAddrRecord, env: HandlerEnv): Record<string, unknown> {
  return {
    ...renderBase(record, `${env.baseUrl}/reserved_addrs/${record.id}`, env),
    addr: record.addr,
    region: record.region,
    endpoint_configuration:
      record.endpoint_configuration_id === null
        ? null
        : refTo(env, ENDPOINT_CONFIGURATIONS, record.endpoint_configuration_id),
  };
}

const DEFAULT_REGION = 'us';

/**
 * `region: ""`, which the family does not document: an invalid region
 * (variant `empty-region=refused`), or the default (`default`).
 */
function withRegionDefaulted(body: unknown, env: HandlerEnv): unknown {
  if (env.variants['empty-region'] !== 'default' || !isRecord(body) || body.region !== '') return body;
  const { region: _empty, ...rest } = body;
  return rest;
}

/** `seeding` also accepts a fixed `addr`. */
export function createReservedAddr(
  env: HandlerEnv,
  body: unknown,
  fixedId?: string,
  seeding = false,
): ReservedAddrRecord {
  const checked = checkObject(withRegionDefaulted(body, env), seeding ? SEED_RULES : CREATE_RULES);
  const region = (checked.region as string | undefined) ?? DEFAULT_REGION;
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

/**
 * The family's update field is left out when empty: null and "" read as not
 * sent, so a PATCH never detaches (DELETE …/endpoint_configuration does).
 */
function checkEndpointConfigurationId(env: HandlerEnv, value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalidField('endpoint_configuration_id', 'must be a string or null');
  checkReference(env, ENDPOINT_CONFIGURATIONS, value, 'endpoint_configuration_id', {
    malformed: ENDPOINT_CONFIGURATION_ID_MALFORMED,
    missing: ENDPOINT_CONFIGURATION_NOT_FOUND,
  });
  return value;
}

const RESERVED_ADDR_ROUTES = collectionRoutes({
  collection: RESERVED_ADDRS,
  render: renderReservedAddr,
  create: (env, body) => createReservedAddr(env, body),
  update: (record, body, env) => {
    const checked = checkObject(body, UPDATE_RULES);
    const endpointConfigurationId = checkEndpointConfigurationId(env, checked.endpoint_configuration_id);
    const { endpoint_configuration_id: _notSent, ...rest } = checked;
    // Nothing left once the "not sent" null is dropped: the family's answer to an empty update.
    if (endpointConfigurationId === undefined && Object.keys(rest).length === 0) {
      throw ADDR_UPDATE_EMPTY.refuse(
        'an update needs at least one field to change (endpoint_configuration_id null is not sent; detach with DELETE /reserved_addrs/{id}/endpoint_configuration)',
      );
    }
    if (endpointConfigurationId !== undefined) record.endpoint_configuration_id = endpointConfigurationId;
    return checked;
  },
});

/**
 * The family's detach (its Go client's `DeleteEndpointConfig`): 204 whether
 * or not one was attached, as the family's other module deletes answer
 * when the `unset-module` variant is `null-ok`; 404 otherwise, like a module.
 */
const DETACH_ROUTE: RouteDefinition = {
  method: 'DELETE',
  template: '/reserved_addrs/{id}/endpoint_configuration',
  handler: (request, env) => {
    const record = findRecord(env, RESERVED_ADDRS, request.params.id);
    if (record.endpoint_configuration_id === null && env.variants['unset-module'] === 'not-found') {
      throw new ServiceError(
        404,
        'module_not_set',
        `no endpoint configuration is attached to reserved address ${record.id}`,
      );
    }
    record.endpoint_configuration_id = null;
    env.store.changed();
    return { status: 204 };
  },
};

/** Reserved addresses in the emulator, with the endpoint configurations they attach. */
export const RESERVED_ADDRS_PART: EmulatorPart = {
  requires: [ENDPOINT_CONFIGURATIONS_PART],
  collections: [RESERVED_ADDRS],
  routes: [...RESERVED_ADDR_ROUTES, DETACH_ROUTE],
  errors: RESERVED_ADDR_ERRORS,
};
