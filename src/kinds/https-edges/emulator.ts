import { collectionRoutes } from '../../emulator/collection-routes.js';
import type { EmulatorPart } from '../../emulator/emulated-collection.js';
import { checkObject, edgeRules } from '../../emulator/field-rules.js';
import type { HandlerEnv, RouteDefinition } from '../../emulator/handler.js';
import { moduleRoutes } from '../../emulator/module-routes.js';
import { findRecord, newBaseRecord, renderBase } from '../../emulator/record-base.js';
import { EmulatorSeedError, seedFailure, splitId } from '../../emulator/seed.js';
import { ServiceError } from '../../emulator/service-error.js';
import { isRecord } from '../../json-value.js';
import {
  CERTIFICATE_AUTHORITIES,
  CERTIFICATE_AUTHORITIES_PART,
} from '../certificate-authorities/emulator.js';
import {
  checkHostportsFree,
  type EdgeCollection,
  type EdgeRecord,
} from '../edge-modules/emulator-hostports.js';
import {
  checkHttpsTlsTermination,
  checkMutualTls,
  type MutualTlsModule,
  renderMutualTls,
  renderTlsTermination,
  type TlsTerminationModule,
} from '../edge-modules/emulator-modules.js';
import { IP_POLICIES_PART } from '../referenced-resources/emulator.js';
import {
  createHttpsEdgeRoute,
  HTTPS_EDGE_ROUTE_ROUTES,
  HTTPS_EDGE_ROUTES,
  renderHttpsEdgeRoute,
} from './emulator-edge-routes.js';
import { type HostportFault, hostportFault } from './hostport.js';

export interface HttpsEdgeRecord extends EdgeRecord {
  mutual_tls: MutualTlsModule | null;
  tls_termination: TlsTerminationModule | null;
}

/** A seed's HTTPS edge may hold its routes, each a route's create body with an optional fixed `id`. */
function seedHttpsEdge(
  env: HandlerEnv,
  body: Record<string, unknown>,
  id: string | undefined,
  path: string,
): void {
  const { routes, ...edgeBody } = body;
  const edge = createHttpsEdge(env, edgeBody, id);
  if (routes === undefined) return;
  if (!Array.isArray(routes)) throw new EmulatorSeedError(`${path}.routes`, 'must be a list');
  routes.forEach((route, index) => {
    const routePath = `${path}.routes[${index}]`;
    if (!isRecord(route)) throw new EmulatorSeedError(routePath, 'must be a mapping');
    const split = splitId(route, routePath);
    try {
      createHttpsEdgeRoute(env, edge.id, split.body, split.id);
    } catch (error) {
      throw seedFailure(routePath, error);
    }
  });
}

/** A CA cannot be deleted while an edge's mutual TLS names it. */
export const HTTPS_EDGES: EdgeCollection<HttpsEdgeRecord> = {
  name: 'https_edges',
  idPrefix: 'edghts_',
  title: 'HTTPS edge',
  path: '/edges/https',
  servesHostports: true,
  references: [
    {
      target: CERTIFICATE_AUTHORITIES.name,
      ids: (record) => record.mutual_tls?.certificate_authority_ids ?? [],
      onDelete: 'refuse',
    },
  ],
  seed: seedHttpsEdge,
};

/** Each hostport is judged by checkHttpsHostports, in the family's words. */
const EDGE_RULES = {
  ...edgeRules(['mutual_tls', 'tls_termination']),
  hostports: { type: 'string-list' },
} as const;

/**
 * The family's errors for an HTTPS edge's hostports, in the order it judges:
 * 7116 not `name:port` with a DNS name, 7117 an IP address (its operator
 * reads 7117 as "domain not found": an address is never a reserved domain),
 * 7118 a port other than 443. The split between the three numbers is the
 * emulator's reading of the family's sources (docs/emulator.md).
 */
const HOSTPORT_ERRORS: Readonly<
  Record<HostportFault, { code: number; message: (hostport: string) => string }>
> = {
  malformed: {
    code: 7116,
    message: (hostport) =>
      `The hostport '${hostport}' is invalid. A hostport is a domain name and a port, like example.com:443.`,
  },
  'not-a-domain': {
    code: 7117,
    message: (hostport) =>
      `The domain '${hostport}' is not reserved. HTTPS edges serve reserved domains, not IP addresses.`,
  },
  port: {
    code: 7118,
    message: (hostport) => `The hostport '${hostport}' is invalid. HTTPS edges serve port 443 only.`,
  },
};

function checkHttpsHostports(hostports: readonly string[]): void {
  for (const hostport of hostports) {
    const fault = hostportFault(hostport);
    if (fault === undefined) continue;
    const { code, message } = HOSTPORT_ERRORS[fault];
    throw new ServiceError(400, 'invalid_field', message(hostport), 'hostports', code);
  }
}

/**
 * The family refuses a module set to null in the edge's update: a module is
 * removed by its own DELETE. Here null is refused whatever the module.
 */
function refuseNullModule(module: string): ServiceError {
  return new ServiceError(
    400,
    'invalid_field',
    `${module}: modules cannot be removed by updating the edge; use the delete module API (DELETE /edges/https/{id}/${module})`,
    module,
  );
}

type EdgeModuleName = 'mutual_tls' | 'tls_termination';

export function renderHttpsEdge(record: HttpsEdgeRecord, env: HandlerEnv): Record<string, unknown> {
  const routes = env.store
    .childrenOf(HTTPS_EDGE_ROUTES, record.id)
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

/**
 * Checks every field first, then returns the changes: nothing is applied
 * when any field is bad. `updating`: a module may not be null.
 */
function checkEdgeBody(
  env: HandlerEnv,
  body: unknown,
  updating = false,
): Partial<HttpsEdgeRecord> & Record<string, unknown> {
  const checked = checkObject(body, EDGE_RULES);
  if (updating) {
    for (const module of ['mutual_tls', 'tls_termination'] as const)
      if (checked[module] === null) throw refuseNullModule(module);
  }
  const changes: Record<string, unknown> = {};
  if (checked.hostports !== undefined) {
    checkHttpsHostports(checked.hostports as string[]);
    changes.hostports = [...new Set(checked.hostports as string[])];
  }
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
    ...newBaseRecord(env, HTTPS_EDGES, fixedId, checked),
    hostports: (checked.hostports as string[] | undefined) ?? [],
    mutual_tls: (checked.mutual_tls as HttpsEdgeRecord['mutual_tls'] | undefined) ?? null,
    tls_termination: (checked.tls_termination as HttpsEdgeRecord['tls_termination'] | undefined) ?? null,
  };
  env.store.insert(HTTPS_EDGES, record);
  return record;
}

export function findHttpsEdge(env: HandlerEnv, id: string | undefined): HttpsEdgeRecord {
  return findRecord(env, HTTPS_EDGES, id);
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

const EDGE_ROUTES: readonly RouteDefinition[] = [
  ...collectionRoutes({
    collection: HTTPS_EDGES,
    render: renderHttpsEdge,
    create: createHttpsEdge,
    update: (record, body, env) => {
      const checked = checkEdgeBody(env, body, true);
      if (checked.hostports !== undefined) checkHostportsFree(env, checked.hostports, record.id);
      if (checked.hostports !== undefined) record.hostports = checked.hostports;
      if (checked.mutual_tls !== undefined) record.mutual_tls = checked.mutual_tls;
      if (checked.tls_termination !== undefined) record.tls_termination = checked.tls_termination;
      return checked;
    },
  }),
  ...edgeModuleRoutes('mutual_tls'),
  ...edgeModuleRoutes('tls_termination'),
];

/** HTTPS edges and their routes in the emulator, with the CAs and IP policies their modules name. */
export const HTTPS_EDGES_PART: EmulatorPart = {
  requires: [CERTIFICATE_AUTHORITIES_PART, IP_POLICIES_PART],
  collections: [HTTPS_EDGES, HTTPS_EDGE_ROUTES],
  routes: [...EDGE_ROUTES, ...HTTPS_EDGE_ROUTE_ROUTES],
};
