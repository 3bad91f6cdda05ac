import { randomInt } from 'node:crypto';
import { checkObject, METADATA_RULE, type ObjectRules } from '../field-rules.js';
import type { HandlerEnv, RouteDefinition } from '../handler.js';
import { listPage } from '../pagination.js';
import { findRecord, newBaseRecord, patchDescriptionMetadata, renderBase } from '../record-base.js';
import type { ReservedAddrRecord } from '../records.js';
import { checkReference, refTo } from '../references.js';
import { invalidField } from '../service-error.js';

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

function find(env: HandlerEnv, id: string | undefined): ReservedAddrRecord {
  return findRecord(env, 'reserved_addrs', id, 'reserved address');
}

export const RESERVED_ADDR_ROUTES: readonly RouteDefinition[] = [
  {
    method: 'POST',
    template: '/reserved_addrs',
    handler: (request, env) => ({
      status: 201,
      body: renderReservedAddr(createReservedAddr(env, request.body), env),
    }),
  },
  {
    method: 'GET',
    template: '/reserved_addrs',
    handler: (request, env) =>
      listPage(
        env.store.pages('reserved_addrs'),
        'reserved_addrs',
        (r) => renderReservedAddr(r, env),
        request,
        env,
      ),
  },
  {
    method: 'GET',
    template: '/reserved_addrs/{id}',
    handler: (request, env) => ({ status: 200, body: renderReservedAddr(find(env, request.params.id), env) }),
  },
  {
    method: 'PATCH',
    template: '/reserved_addrs/{id}',
    handler: (request, env) => {
      const record = find(env, request.params.id);
      const checked = checkObject(request.body, UPDATE_RULES);
      const endpointConfigurationId = checked.endpoint_configuration_id;
      if (typeof endpointConfigurationId === 'string') {
        // An empty string detaches, like null: the service family treats "" as unset.
        if (endpointConfigurationId !== '') {
          checkReference(
            env,
            'endpoint_configurations',
            endpointConfigurationId,
            'endpoint_configuration_id',
          );
        }
      } else if (endpointConfigurationId !== undefined && endpointConfigurationId !== null) {
        throw invalidField('endpoint_configuration_id', 'must be a string or null');
      }
      if (endpointConfigurationId !== undefined) {
        record.endpoint_configuration_id =
          endpointConfigurationId === '' ? null : (endpointConfigurationId as string | null);
      }
      patchDescriptionMetadata(record, checked);
      env.store.changed();
      return { status: 200, body: renderReservedAddr(record, env) };
    },
  },
  {
    method: 'DELETE',
    template: '/reserved_addrs/{id}',
    handler: (request, env) => {
      env.store.delete('reserved_addrs', find(env, request.params.id).id);
      return { status: 204 };
    },
  },
];
