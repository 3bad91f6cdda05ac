import type { EmulatedCollection } from '../../emulator/emulated-collection.js';
import { checkObject, descriptionRule, metadataRule, type ObjectRules } from '../../emulator/field-rules.js';
import type { HandlerEnv, RouteDefinition } from '../../emulator/handler.js';
import { moduleRoutes } from '../../emulator/module-routes.js';
import { newBaseRecord, patchDescriptionMetadata, renderBase } from '../../emulator/record-base.js';
import type { BaseRecord } from '../../emulator/records.js';
import { checkIdShape } from '../../emulator/references.js';
import { ServiceError } from '../../emulator/service-error.js';
import { EDGE_ID_MALFORMED, EDGE_NOT_FOUND } from '../edge-modules/emulator-errors.js';
import { IP_POLICIES } from '../referenced-resources/emulator.js';
import {
  AUTH_ON_ANOTHER_ROUTE,
  ROUTE_MATCH_MISSING,
  ROUTE_MATCH_NOT_PATH,
  ROUTE_MATCH_TAKEN,
  ROUTE_MATCH_TYPE,
  ROUTE_NOT_FOUND,
  ROUTE_OF_ANOTHER_EDGE,
} from './emulator-errors.js';
import {
  authModulesOf,
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

const MATCH_TYPES = ['exact_path', 'path_prefix'];
const MATCH_TYPE_REFUSALS = { missing: ROUTE_MATCH_TYPE, invalid: ROUTE_MATCH_TYPE };
const MATCH_REFUSALS = { missing: ROUTE_MATCH_MISSING, invalid: ROUTE_MATCH_MISSING };

const CREATE_RULES: ObjectRules = {
  description: descriptionRule(),
  metadata: metadataRule(),
  match_type: { type: 'string', required: true, oneOf: MATCH_TYPES, refusals: MATCH_TYPE_REFUSALS },
  match: { type: 'string', required: true, format: 'non-empty', refusals: MATCH_REFUSALS },
  ...MODULE_FIELDS,
};

const UPDATE_RULES: ObjectRules = {
  ...CREATE_RULES,
  match_type: { type: 'string', oneOf: MATCH_TYPES, refusals: MATCH_TYPE_REFUSALS },
  match: { type: 'string', format: 'non-empty', refusals: MATCH_REFUSALS },
};

function routeUri(env: HandlerEnv, record: HttpsEdgeRouteRecord): string {
  return `${env.baseUrl}/edges/https/${record.edge_id}/routes/${record.id}`;
}

export function renderHttpsEdgeRoute(record: HttpsEdgeRouteRecord, env: HandlerEnv): Record<string, unknown> {
  const uri = routeUri(env, record);
  const body: Record<string, unknown> = {
    edge_id: record.edge_id,
    ...renderBase(record, uri, env),
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
  if (edgeId !== undefined) checkIdShape(edgeId, HTTPS_EDGE_ID_PREFIX, undefined, EDGE_ID_MALFORMED);
  if (edgeId === undefined || !env.store.has(HTTPS_EDGES_NAME, edgeId))
    throw EDGE_NOT_FOUND.refuse(`HTTPS edge ${edgeId} not found`);
  return edgeId;
}

/** The route: 7124 when the account has no such route, 7110 when it is another edge's. */
function findRoute(
  env: HandlerEnv,
  edgeId: string | undefined,
  id: string | undefined,
): HttpsEdgeRouteRecord {
  const edge = findEdgeId(env, edgeId);
  if (id !== undefined) checkIdShape(id, HTTPS_EDGE_ROUTES.idPrefix);
  const record = id === undefined ? undefined : env.store.get(HTTPS_EDGE_ROUTES, id);
  if (!record) throw ROUTE_NOT_FOUND.refuse(`route ${id} not found`);
  if (record.edge_id !== edge)
    throw ROUTE_OF_ANOTHER_EDGE.refuse(`route ${id} belongs to HTTPS edge ${record.edge_id}, not ${edge}`);
  return record;
}

/**
 * A route's match as the family takes it: a path (a leading slash) under
 * `route-match=path`; also a hostname or hostname plus path under `any`.
 * One route per match on an edge.
 */
function checkMatch(env: HandlerEnv, edgeId: string, match: string, exceptId?: string): void {
  if (env.variants['route-match'] === 'path' && !match.startsWith('/')) {
    throw ROUTE_MATCH_NOT_PATH.refuseField(
      'match',
      `must be a path starting with / (found ${JSON.stringify(match)})`,
    );
  }
  const taken = env.store
    .childrenOf(HTTPS_EDGE_ROUTES, edgeId)
    .oldestFirst()
    .find((route) => route.id !== exceptId && route.match === match);
  if (taken !== undefined) {
    throw ROUTE_MATCH_TAKEN.refuseField(
      'match',
      `route ${taken.id} of this edge already has match ${JSON.stringify(match)}`,
    );
  }
}

/**
 * One route of an edge may authenticate (oauth, oidc or saml): a change that
 * would give `routeId` one while another route has one is the family's 7155.
 */
export function checkAuthOnOneRoute(
  env: HandlerEnv,
  edgeId: string,
  modules: Readonly<Record<string, unknown>>,
  routeId?: string,
): void {
  const [own] = authModulesOf(modules);
  if (own === undefined) return;
  const other = env.store
    .childrenOf(HTTPS_EDGE_ROUTES, edgeId)
    .oldestFirst()
    .find((route) => route.id !== routeId && authModulesOf(route.modules).length > 0);
  if (other !== undefined) {
    throw AUTH_ON_ANOTHER_ROUTE.refuseField(
      own,
      `route ${other.id} of this edge already has ${authModulesOf(other.modules).join(', ')}; one route per edge may authenticate with oauth, oidc or saml`,
    );
  }
}

export function createHttpsEdgeRoute(
  env: HandlerEnv,
  edgeId: string | undefined,
  body: unknown,
  fixedId?: string,
): HttpsEdgeRouteRecord {
  const edge = findEdgeId(env, edgeId);
  const checked = checkObject(body, CREATE_RULES);
  checkMatch(env, edge, checked.match as string);
  const modules = checkModules(env, checked);
  checkOneAuthModule(modules);
  checkAuthOnOneRoute(env, edge, modules);
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
      if (checked.match !== undefined) checkMatch(env, record.edge_id, checked.match as string, record.id);
      const modules = checkModules(env, checked);
      checkOneAuthModule({ ...record.modules, ...modules });
      checkAuthOnOneRoute(env, record.edge_id, modules, record.id);
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
      checkOneAuthModule({ ...record.modules, oidc }, 'oidc');
      checkAuthOnOneRoute(env, record.edge_id, { oidc }, record.id);
      record.modules.oidc = oidc;
    },
    render: oidcOf,
    clear: (record) => {
      record.modules.oidc = null;
    },
  }),
];
