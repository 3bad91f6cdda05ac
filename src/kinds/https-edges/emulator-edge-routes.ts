import type { EmulatedCollection } from '../../emulator/emulated-collection.js';
import {
  checkObject,
  DESCRIPTION_RULE,
  METADATA_RULE,
  type ObjectRules,
} from '../../emulator/field-rules.js';
import type { HandlerEnv, RouteDefinition } from '../../emulator/handler.js';
import { moduleRoutes } from '../../emulator/module-routes.js';
import { listPage } from '../../emulator/pagination.js';
import { newBaseRecord, patchDescriptionMetadata, renderBase } from '../../emulator/record-base.js';
import type { BaseRecord } from '../../emulator/records.js';
import { isIdOfKind } from '../../emulator/resource-id.js';
import { invalidId, notFound, ServiceError } from '../../emulator/service-error.js';
import { IP_POLICIES } from '../referenced-resources/emulator.js';
import {
  checkOneAuthModule,
  checkRouteModule,
  ROUTE_MODULE_NAMES,
  renderOidc,
  renderRouteModule,
} from './emulator-route-modules.js';

/** Route modules as validated: plain JSON objects, ID lists instead of Refs (see emulator-route-modules.ts). */
export type RouteModules = Record<string, Record<string, unknown> | null>;

export interface HttpsEdgeRouteRecord extends BaseRecord {
  readonly edge_id: string;
  match_type: 'exact_path' | 'path_prefix';
  match: string;
  modules: RouteModules;
}

/** The collection of HTTPS edges (emulator.ts), which routes belong to. */
const HTTPS_EDGES_NAME = 'https_edges';
const HTTPS_EDGE_ID_PREFIX = 'edghts_';

function ipRestrictionPolicies(record: HttpsEdgeRouteRecord): readonly string[] {
  const ids = record.modules.ip_restriction?.ip_policy_ids;
  return Array.isArray(ids) ? (ids as string[]) : [];
}

/**
 * A route lives under its edge, is listed with it and deleted with it; its IP
 * restriction keeps naming a deleted IP policy, as the family does.
 */
export const HTTPS_EDGE_ROUTES: EmulatedCollection<HttpsEdgeRouteRecord> = {
  name: 'https_edge_routes',
  idPrefix: 'edghtsrt_',
  title: 'route',
  parent: { collection: HTTPS_EDGES_NAME, id: (record) => record.edge_id },
  references: [{ target: IP_POLICIES.name, ids: ipRestrictionPolicies, onDelete: 'keep' }],
};

const MODULE_FIELDS: ObjectRules = Object.fromEntries(
  ROUTE_MODULE_NAMES.map((name) => [name, { type: 'any', nullable: true }]),
);

const CREATE_RULES: ObjectRules = {
  description: DESCRIPTION_RULE,
  metadata: METADATA_RULE,
  match_type: { type: 'string', required: true, oneOf: ['exact_path', 'path_prefix'] },
  match: { type: 'string', required: true, format: 'non-empty' },
  ...MODULE_FIELDS,
};

const UPDATE_RULES: ObjectRules = {
  ...CREATE_RULES,
  match_type: { type: 'string', oneOf: ['exact_path', 'path_prefix'] },
  match: { type: 'string', format: 'non-empty' },
};

function routeUri(env: HandlerEnv, record: HttpsEdgeRouteRecord): string {
  return `${env.baseUrl}/edges/https/${record.edge_id}/routes/${record.id}`;
}

export function renderHttpsEdgeRoute(record: HttpsEdgeRouteRecord, env: HandlerEnv): Record<string, unknown> {
  const uri = routeUri(env, record);
  const body: Record<string, unknown> = {
    edge_id: record.edge_id,
    ...renderBase(record, uri),
    match_type: record.match_type,
    match: record.match,
  };
  for (const name of ROUTE_MODULE_NAMES) {
    const stored = record.modules[name];
    body[name] = stored ? renderRouteModule(env, name, stored, uri) : null;
  }
  return body;
}

/** Module changes named in a body (null removes), all checked before any is applied. */
function checkModules(env: HandlerEnv, checked: Readonly<Record<string, unknown>>): RouteModules {
  const modules: RouteModules = {};
  for (const name of ROUTE_MODULE_NAMES) {
    const value = checked[name];
    if (value === undefined) continue;
    modules[name] = value === null ? null : checkRouteModule(env, name, value, name);
  }
  return modules;
}

function findEdgeId(env: HandlerEnv, edgeId: string | undefined): string {
  if (edgeId !== undefined && !isIdOfKind(HTTPS_EDGE_ID_PREFIX, edgeId))
    throw invalidId(edgeId, HTTPS_EDGE_ID_PREFIX);
  if (edgeId === undefined || !env.store.has(HTTPS_EDGES_NAME, edgeId))
    throw notFound(`HTTPS edge ${edgeId}`);
  return edgeId;
}

function findRoute(
  env: HandlerEnv,
  edgeId: string | undefined,
  id: string | undefined,
): HttpsEdgeRouteRecord {
  const edge = findEdgeId(env, edgeId);
  if (id !== undefined && !isIdOfKind(HTTPS_EDGE_ROUTES.idPrefix, id))
    throw invalidId(id, HTTPS_EDGE_ROUTES.idPrefix);
  const record = id === undefined ? undefined : env.store.get(HTTPS_EDGE_ROUTES, id);
  if (!record || record.edge_id !== edge) throw notFound(`route ${id} of HTTPS edge ${edge}`);
  return record;
}

export function createHttpsEdgeRoute(
  env: HandlerEnv,
  edgeId: string | undefined,
  body: unknown,
  fixedId?: string,
): HttpsEdgeRouteRecord {
  const edge = findEdgeId(env, edgeId);
  const checked = checkObject(body, CREATE_RULES);
  const modules = checkModules(env, checked);
  checkOneAuthModule(modules);
  const record: HttpsEdgeRouteRecord = {
    ...newBaseRecord(env, HTTPS_EDGE_ROUTES, fixedId, checked),
    edge_id: edge,
    match_type: checked.match_type as HttpsEdgeRouteRecord['match_type'],
    match: checked.match as string,
    modules,
  };
  env.store.insert(HTTPS_EDGE_ROUTES, record);
  return record;
}

function oidcOf(record: HttpsEdgeRouteRecord): Record<string, unknown> {
  const stored = record.modules.oidc;
  if (!stored) throw new ServiceError(404, 'module_not_set', `oidc is not set on route ${record.id}`);
  return renderOidc(stored);
}

const ROUTE_PATH = '/edges/https/{edge_id}/routes';

export const HTTPS_EDGE_ROUTE_ROUTES: readonly RouteDefinition[] = [
  {
    method: 'POST',
    template: ROUTE_PATH,
    handler: (request, env) => ({
      status: 201,
      body: renderHttpsEdgeRoute(createHttpsEdgeRoute(env, request.params.edge_id, request.body), env),
    }),
  },
  {
    method: 'GET',
    template: ROUTE_PATH,
    handler: (request, env) => {
      const edge = findEdgeId(env, request.params.edge_id);
      return listPage(
        env.store.childrenOf(HTTPS_EDGE_ROUTES, edge),
        'routes',
        (r) => renderHttpsEdgeRoute(r, env),
        request,
        env,
      );
    },
  },
  {
    method: 'GET',
    template: `${ROUTE_PATH}/{id}`,
    handler: (request, env) => ({
      status: 200,
      body: renderHttpsEdgeRoute(findRoute(env, request.params.edge_id, request.params.id), env),
    }),
  },
  {
    method: 'PATCH',
    template: `${ROUTE_PATH}/{id}`,
    handler: (request, env) => {
      const record = findRoute(env, request.params.edge_id, request.params.id);
      const checked = checkObject(request.body, UPDATE_RULES);
      const modules = checkModules(env, checked);
      checkOneAuthModule({ ...record.modules, ...modules });
      if (checked.match_type !== undefined)
        record.match_type = checked.match_type as HttpsEdgeRouteRecord['match_type'];
      if (checked.match !== undefined) record.match = checked.match as string;
      Object.assign(record.modules, modules);
      patchDescriptionMetadata(record, checked);
      env.store.changed();
      return { status: 200, body: renderHttpsEdgeRoute(record, env) };
    },
  },
  {
    method: 'DELETE',
    template: `${ROUTE_PATH}/{id}`,
    handler: (request, env) => {
      env.store.delete(HTTPS_EDGE_ROUTES, findRoute(env, request.params.edge_id, request.params.id).id);
      return { status: 204 };
    },
  },
  ...moduleRoutes({
    template: `${ROUTE_PATH}/{id}/oidc`,
    find: (request, env) => findRoute(env, request.params.edge_id, request.params.id),
    // PUT replaces the whole module: fields left out return to their defaults.
    set: (record, body, env) => {
      const oidc = checkRouteModule(env, 'oidc', body, '');
      checkOneAuthModule({ ...record.modules, oidc });
      record.modules.oidc = oidc;
    },
    render: oidcOf,
    clear: (record) => {
      record.modules.oidc = null;
    },
  }),
];
