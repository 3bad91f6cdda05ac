import { collectionRoutes } from '../../../src/emulator/collection-routes.js';
import type { EmulatedCollection, EmulatorPart } from '../../../src/emulator/emulated-collection.js';
import {
  checkObject,
  descriptionRule,
  metadataRule,
  type ObjectRules,
} from '../../../src/emulator/field-rules.js';
import type { HandlerEnv } from '../../../src/emulator/handler.js';
import { newBaseRecord, renderBase } from '../../../src/emulator/record-base.js';
import type { BaseRecord } from '../../../src/emulator/records.js';
import { ServiceError } from '../../../src/emulator/service-error.js';

interface ReservedDomainRecord extends BaseRecord {
  readonly domain: string;
}

const CREATE_RULES: ObjectRules = {
  description: descriptionRule(),
  metadata: metadataRule(),
  domain: {
    type: 'string',
    required: true,
    pattern: { regex: /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/, expected: 'a lowercase hostname' },
  },
};

const UPDATE_RULES: ObjectRules = { description: descriptionRule(), metadata: metadataRule() };

/** One reserved domain per hostname: the store indexes them by domain. */
const RESERVED_DOMAINS: EmulatedCollection<ReservedDomainRecord> & { readonly path: string } = {
  name: 'reserved_domains',
  idPrefix: 'rd_',
  title: 'reserved domain',
  path: '/reserved_domains',
  uniqueKey: (record) => record.domain,
  seed: (env, body, id) => {
    create(env, body, id);
  },
};

function create(env: HandlerEnv, body: unknown, fixedId?: string): ReservedDomainRecord {
  const checked = checkObject(body, CREATE_RULES);
  const domain = checked.domain as string;
  const holder = env.store.holderOf(RESERVED_DOMAINS, domain);
  if (holder !== undefined) {
    throw new ServiceError(
      400,
      'conflict',
      `domain: ${domain} is already reserved by ${holder.id}`,
      'domain',
    );
  }
  const record: ReservedDomainRecord = { ...newBaseRecord(env, RESERVED_DOMAINS, fixedId, checked), domain };
  env.store.insert(RESERVED_DOMAINS, record);
  return record;
}

/** The sample kind's part of the emulator: its collection, its endpoints and its seed format. */
export const SAMPLE_KIND_EMULATOR: EmulatorPart = {
  collections: [RESERVED_DOMAINS],
  routes: collectionRoutes({
    collection: RESERVED_DOMAINS,
    render: (record, env) => ({
      ...renderBase(record, `${env.baseUrl}${RESERVED_DOMAINS.path}/${record.id}`, env),
      domain: record.domain,
    }),
    create: (env, body) => create(env, body),
    update: (_record, body) => checkObject(body, UPDATE_RULES),
  }),
};
