import { checkObject, DESCRIPTION_RULE, METADATA_RULE, type ObjectRules } from '../field-rules.js';
import type { HandlerEnv, RouteDefinition } from '../handler.js';
import { listPage } from '../pagination.js';
import { findRecord, newBaseRecord, patchDescriptionMetadata, renderBase } from '../record-base.js';
import type { BaseRecord } from '../records.js';
import { deleteReferenceTarget } from '../reference-users.js';
import { REFERENCE_TARGETS } from '../references.js';

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
  const path = REFERENCE_TARGETS[collection].path;
  const find = (env: HandlerEnv, id: string | undefined): BaseRecord =>
    findRecord(env, collection, id, title);
  return [
    {
      method: 'POST',
      template: path,
      handler: (request, env) => ({
        status: 201,
        body: renderMinimal(collection, createMinimal(env, collection, request.body), env),
      }),
    },
    {
      method: 'GET',
      template: path,
      handler: (request, env) =>
        listPage(
          env.store.pages(collection),
          collection,
          (r) => renderMinimal(collection, r, env),
          request,
          env,
        ),
    },
    {
      method: 'GET',
      template: `${path}/{id}`,
      handler: (request, env) => ({
        status: 200,
        body: renderMinimal(collection, find(env, request.params.id), env),
      }),
    },
    {
      method: 'PATCH',
      template: `${path}/{id}`,
      handler: (request, env) => {
        const record = find(env, request.params.id);
        patchDescriptionMetadata(record, checkObject(request.body, RULES));
        env.store.changed();
        return { status: 200, body: renderMinimal(collection, record, env) };
      },
    },
    {
      method: 'DELETE',
      template: `${path}/{id}`,
      handler: (request, env) => {
        const record = find(env, request.params.id);
        deleteReferenceTarget(env, collection, record.id);
        return { status: 204 };
      },
    },
  ];
}

export const REFERENCED_RESOURCE_ROUTES: readonly RouteDefinition[] = [
  ...minimalRoutes('ip_policies', 'IP policy'),
  ...minimalRoutes('endpoint_configurations', 'endpoint configuration'),
];
