import { collectionRoutes } from '../../emulator/collection-routes.js';
import {
  checkObject,
  DESCRIPTION_RULE,
  METADATA_RULE,
  type ObjectRules,
} from '../../emulator/field-rules.js';
import type { HandlerEnv, RouteDefinition } from '../../emulator/handler.js';
import { newBaseRecord, renderBase } from '../../emulator/record-base.js';
import type { BaseRecord } from '../../emulator/records.js';
import { deleteReferenceTarget } from './emulator-reference-users.js';
import { REFERENCE_TARGETS } from './emulator-references.js';

/**
 * IP policies and endpoint configurations: the spec only references them, so
 * the emulator keeps them minimal (id, uri, created_at, description,
 * metadata) and serves create, list, get, patch and delete for tests and demos.
 */
const RULES: ObjectRules = { description: DESCRIPTION_RULE, metadata: METADATA_RULE };

type MinimalCollection = 'ip_policies' | 'endpoint_configurations';

function renderMinimal(
  collection: MinimalCollection,
  record: BaseRecord,
  env: HandlerEnv,
): Record<string, unknown> {
  return renderBase(record, `${env.baseUrl}${REFERENCE_TARGETS[collection].path}/${record.id}`);
}

export function createMinimal(
  env: HandlerEnv,
  collection: MinimalCollection,
  body: unknown,
  fixedId?: string,
): BaseRecord {
  const checked = checkObject(body, RULES);
  const record = newBaseRecord(env, REFERENCE_TARGETS[collection].idKind, collection, fixedId, checked);
  env.store.insert(collection, record);
  return record;
}

function minimalRoutes(collection: MinimalCollection, title: string): RouteDefinition[] {
  return collectionRoutes({
    collection,
    path: REFERENCE_TARGETS[collection].path,
    title,
    render: (record, env) => renderMinimal(collection, record, env),
    create: (env, body) => createMinimal(env, collection, body),
    update: (_record, body) => checkObject(body, RULES),
    remove: (env, record) => deleteReferenceTarget(env, collection, record.id),
  });
}

export const REFERENCED_RESOURCE_ROUTES: readonly RouteDefinition[] = [
  ...minimalRoutes('ip_policies', 'IP policy'),
  ...minimalRoutes('endpoint_configurations', 'endpoint configuration'),
];
