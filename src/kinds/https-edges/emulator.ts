import { collectionRoutes } from '../../emulator/collection-routes.js';
import { checkObject, edgeRules } from '../../emulator/field-rules.js';
import type { HandlerEnv, RouteDefinition } from '../../emulator/handler.js';
import { moduleRoutes } from '../../emulator/module-routes.js';
import { findRecord, newBaseRecord, renderBase } from '../../emulator/record-base.js';
import type { HttpsEdgeRecord } from '../../emulator/records.js';
import { ServiceError } from '../../emulator/service-error.js';
import { checkHostportsFree } from '../edge-modules/emulator-hostports.js';
import {
  checkHttpsTlsTermination,
  checkMutualTls,
  renderMutualTls,
  renderTlsTermination,
} from '../edge-modules/emulator-modules.js';
import { renderHttpsEdgeRoute } from './emulator-edge-routes.js';

const EDGE_RULES = edgeRules(['mutual_tls', 'tls_termination']);

type EdgeModuleName = 'mutual_tls' | 'tls_termination';

export function renderHttpsEdge(record: HttpsEdgeRecord, env: HandlerEnv): Record<string, unknown> {
  const routes = env.store
    .routesOf(record.id)
    .oldestFirst()
    .map((route) => renderHttpsEdgeRoute(route, env));
  return {
    ...renderBase(record, `${env.baseUrl}/edges/https/${record.id}`),
    hostports: [...record.hostports],
    mutual_tls: record.mutual_tls === null ? null : renderMutualTls(env, record.mutual_tls),
    tls_termination: record.tls_termination === null ? null : renderTlsTermination(record.tls_termination),
    routes,
  };
}

/** Checks every field first, then returns the changes: nothing is applied when any field is bad. */
function checkEdgeBody(env: HandlerEnv, body: unknown): Partial<HttpsEdgeRecord> & Record<string, unknown> {
  const checked = checkObject(body, EDGE_RULES);
  const changes: Record<string, unknown> = {};
  if (checked.hostports !== undefined) changes.hostports = [...new Set(checked.hostports as string[])];
  if (checked.mutual_tls !== undefined) {
    changes.mutual_tls =
      checked.mutual_tls === null ? null : checkMutualTls(env, checked.mutual_tls, 'mutual_tls');
  }
  if (checked.tls_termination !== undefined) {
    changes.tls_termination =
      checked.tls_termination === null
        ? null
        : checkHttpsTlsTermination(checked.tls_termination, 'tls_termination');
  }
  return { ...checked, ...changes };
}

export function createHttpsEdge(env: HandlerEnv, body: unknown, fixedId?: string): HttpsEdgeRecord {
  const checked = checkEdgeBody(env, body);
  checkHostportsFree(env, (checked.hostports as string[] | undefined) ?? [], fixedId);
  const record: HttpsEdgeRecord = {
    ...newBaseRecord(env, 'https_edge', 'https_edges', fixedId, checked),
    hostports: (checked.hostports as string[] | undefined) ?? [],
    mutual_tls: (checked.mutual_tls as HttpsEdgeRecord['mutual_tls'] | undefined) ?? null,
    tls_termination: (checked.tls_termination as HttpsEdgeRecord['tls_termination'] | undefined) ?? null,
  };
  env.store.insert('https_edges', record);
  return record;
}

export function findHttpsEdge(env: HandlerEnv, id: string | undefined): HttpsEdgeRecord {
  return findRecord(env, 'https_edges', id, 'HTTPS edge');
}

function edgeModuleRoutes(module: EdgeModuleName): RouteDefinition[] {
  return moduleRoutes({
    template: `/edges/https/{id}/${module}`,
    find: (request, env) => findHttpsEdge(env, request.params.id),
    set: (record, body, env) => {
      if (module === 'mutual_tls') record.mutual_tls = checkMutualTls(env, body, '');
      else record.tls_termination = checkHttpsTlsTermination(body, '');
    },
    render: (record, env) => {
      if (module === 'mutual_tls' && record.mutual_tls) return renderMutualTls(env, record.mutual_tls);
      if (module === 'tls_termination' && record.tls_termination)
        return renderTlsTermination(record.tls_termination);
      throw new ServiceError(404, 'module_not_set', `${module} is not set on HTTPS edge ${record.id}`);
    },
    clear: (record) => {
      record[module] = null;
    },
  });
}

export const HTTPS_EDGE_ROUTES: readonly RouteDefinition[] = [
  ...collectionRoutes({
    collection: 'https_edges',
    path: '/edges/https',
    title: 'HTTPS edge',
    render: renderHttpsEdge,
    create: createHttpsEdge,
    update: (record, body, env) => {
      const checked = checkEdgeBody(env, body);
      if (checked.hostports !== undefined) checkHostportsFree(env, checked.hostports, record.id);
      if (checked.hostports !== undefined) record.hostports = checked.hostports;
      if (checked.mutual_tls !== undefined) record.mutual_tls = checked.mutual_tls;
      if (checked.tls_termination !== undefined) record.tls_termination = checked.tls_termination;
      return checked;
    },
    // An edge's routes go with it.
    remove: (env, record) => {
      for (const route of [...env.store.routesOf(record.id).oldestFirst()]) {
        env.store.delete('https_edge_routes', route.id);
      }
      env.store.delete('https_edges', record.id);
    },
  }),
  ...edgeModuleRoutes('mutual_tls'),
  ...edgeModuleRoutes('tls_termination'),
];
