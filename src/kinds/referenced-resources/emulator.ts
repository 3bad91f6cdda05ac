import { collectionRoutes } from '../../emulator/collection-routes.js';
import type { EmulatedCollection, EmulatorPart } from '../../emulator/emulated-collection.js';
import { checkObject, descriptionRule, metadataRule, type ObjectRules } from '../../emulator/field-rules.js';
import type { HandlerEnv } from '../../emulator/handler.js';
import { newBaseRecord, renderBase } from '../../emulator/record-base.js';
import type { BaseRecord } from '../../emulator/records.js';
import type { NamedIds } from '../kind.js';
import { ENDPOINT_CONFIGURATION_IDS, IP_POLICY_IDS } from './index.js';

/**
 * IP policies and endpoint configurations: the spec only references them, so
 * the emulator keeps them minimal (id, uri, created_at, description,
 * metadata) and serves create, list, get, patch and delete for tests and demos.
 */
const RULES: ObjectRules = { description: descriptionRule(), metadata: metadataRule() };

type MinimalCollection = EmulatedCollection & { readonly path: string };

function createMinimal(
  env: HandlerEnv,
  collection: MinimalCollection,
  body: unknown,
  fixedId?: string,
): BaseRecord {
  const checked = checkObject(body, RULES);
  const record = newBaseRecord(env, collection, fixedId, checked);
  env.store.insert(collection, record);
  return record;
}

function minimalCollection(name: string, ids: NamedIds, path: string): MinimalCollection {
  const collection: MinimalCollection = {
    name,
    idPrefix: ids.prefix,
    title: ids.title,
    path,
    seed: (env, body, id) => createMinimal(env, collection, body, id),
  };
  return collection;
}

function minimalPart(collection: MinimalCollection): EmulatorPart {
  return {
    collections: [collection],
    routes: collectionRoutes({
      collection,
      render: (record, env) => renderBase(record, `${env.baseUrl}${collection.path}/${record.id}`, env),
      create: (env, body) => createMinimal(env, collection, body),
      update: (_record, body) => checkObject(body, RULES),
    }),
  };
}

/**
 * May be deleted while referenced, as the family allows: its rules go with it
 * (`cascade`), and the modules naming it keep the reference and behave as if
 * it had no rules (`keep`).
 */
export const IP_POLICIES = minimalCollection('ip_policies', IP_POLICY_IDS, '/ip_policies');

/** Cannot be deleted while a reserved address names it (`refuse`). */
export const ENDPOINT_CONFIGURATIONS = minimalCollection(
  'endpoint_configurations',
  ENDPOINT_CONFIGURATION_IDS,
  '/endpoint_configurations',
);

export const IP_POLICIES_PART: EmulatorPart = minimalPart(IP_POLICIES);

export const ENDPOINT_CONFIGURATIONS_PART: EmulatorPart = minimalPart(ENDPOINT_CONFIGURATIONS);
