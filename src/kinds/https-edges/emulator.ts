import { collectionRoutes } from '../../emulator/collection-routes.js';
import type { EmulatorPart } from '../../emulator/emulated-collection.js';
import { checkObject, type ObjectRules } from '../../emulator/field-rules.js';
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
import { EDGE_MODULE_ERRORS } from '../edge-modules/emulator-errors.js';
import {
  checkHostportsFree,
  EDGE_DESCRIPTION,
  EDGE_METADATA,
  EDGE_REFUSALS,
  type EdgeCollection,
  type EdgeRecord,
  edgeRules,
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
import { RESERVED_ADDRS } from '../reserved-addrs/emulator.js';
import {
  createHttpsEdgeRoute,
  HTTPS_EDGE_ROUTE_ROUTES,
  HTTPS_EDGE_ROUTES,
  renderHttpsEdgeRoute,
} from './emulator-edge-routes.js';
import {
  DOMAIN_NOT_RESERVED,
  EDGE_REQUEST_INVALID,
  EDGE_SEVERAL_PROBLEMS,
  HOSTPORT_NOT_443,
  HOSTPORT_NOT_NAME_PORT,
  HOSTPORT_PORT_RANGE,
  HTTPS_EDGE_ERRORS,
  TCP_ADDRESS_ON_HTTPS,
  TERMINATE_AT_ON_HTTPS,
} from './emulator-errors.js';
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
  refusals: EDGE_REFUSALS,
  references: [
    {
      target: CERTIFICATE_AUTHORITIES.name,
      ids: (record) => record.mutual_tls?.certificate_authority_ids ?? [],
      onDelete: 'refuse',
    },
  ],
  seed: seedHttpsEdge,
};

/**
 * The edge's keys and their JSON types, judged at once; then each value on
 * its own (description and metadata by their rules, each hostport by
 * checkHttpsHostport, each module by its check), with the family's numbers.
 */
const EDGE_SHAPE: ObjectRules = {
  ...edgeRules(['mutual_tls', 'tls_termination']),
  description: { type: 'string' },
  metadata: { type: 'string' },
  hostports: { type: 'string-list' },
};

/** The family's error for each fault of an HTTPS edge's hostport, in the order it judges them. */
const HOSTPORT_ERRORS = {
  malformed: {
    rule: HOSTPORT_NOT_NAME_PORT,
    message: (hostport: string) => `${hostport} is not a domain name and a port, like example.com:443`,
  },
  'port-range': {
    rule: HOSTPORT_PORT_RANGE,
    message: (hostport: string) => `${hostport} has a port outside 1 to 65535`,
  },
  'not-a-domain': {
    rule: DOMAIN_NOT_RESERVED,
    message: (hostport: string) => `${hostport} is an IP address; HTTPS edges serve reserved domains`,
  },
  port: {
    rule: HOSTPORT_NOT_443,
    message: (hostport: string) => `${hostport} is not on port 443, the one port HTTPS edges serve`,
  },
} as const satisfies Record<HostportFault, unknown>;

/** The family refuses one of the account's reserved TCP addresses on an HTTPS edge. */
function isReservedAddress(env: HandlerEnv, hostport: string): boolean {
  if (!env.store.holds(RESERVED_ADDRS)) return false;
  const wanted = hostport.toLowerCase();
  return env.store.list(RESERVED_ADDRS).some((addr) => addr.addr.toLowerCase() === wanted);
}

function checkHttpsHostport(env: HandlerEnv, hostport: string): void {
  if (isReservedAddress(env, hostport)) {
    throw TCP_ADDRESS_ON_HTTPS.refuseField(
      'hostports',
      `${hostport} is a reserved TCP address; HTTPS edges serve reserved domains`,
    );
  }
  const fault = hostportFault(hostport);
  if (fault === undefined) return;
  const { rule, message } = HOSTPORT_ERRORS[fault];
  throw rule.refuseField('hostports', message(hostport));
}

/**
 * The family refuses a module set to null in the edge's update: a module is
 * removed by its own DELETE. Here null is refused whatever the module.
 */
function refuseNullModule(module: string): ServiceError {
  return EDGE_REQUEST_INVALID.refuseField(
    module,
    `modules cannot be removed by updating the edge; use the delete module API (DELETE /edges/https/{id}/${module})`,
  );
}

type EdgeModuleName = 'mutual_tls' | 'tls_termination';

export function renderHttpsEdge(record: HttpsEdgeRecord, env: HandlerEnv): Record<string, unknown> {
  const routes = env.store
    .childrenOf(HTTPS_EDGE_ROUTES, record.id)
    .oldestFirst()
    .map((route) => renderHttpsEdgeRoute(route, env));
  return {
    ...renderBase(record, `${env.baseUrl}/edges/https/${record.id}`, env),
    hostports: [...record.hostports],
    mutual_tls: record.mutual_tls === null ? null : renderMutualTls(env, record.mutual_tls),
    tls_termination: record.tls_termination === null ? null : renderTlsTermination(record.tls_termination),
    routes,
  };
}

/** Runs one field's check, keeping its refusal instead of throwing it. */
function collect<T>(problems: ServiceError[], check: () => T): T | undefined {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    problems.push(error);
    return undefined;
  }
}

/**
 * Checks every field first, then returns the changes: nothing is applied
 * when any field is bad. Every bad field is found: one is answered as
 * itself, several together in one answer (the family's 7028). A key the
 * request does not take, or a field of the wrong type, is answered at once.
 * `updating`: a module may not be null.
 */
function checkEdgeBody(
  env: HandlerEnv,
  body: unknown,
  updating = false,
): Partial<HttpsEdgeRecord> & Record<string, unknown> {
  const checked = checkObject(body, EDGE_SHAPE);
  const problems: ServiceError[] = [];
  for (const [field, rule] of [
    ['description', EDGE_DESCRIPTION],
    ['metadata', EDGE_METADATA],
  ] as const) {
    if (checked[field] !== undefined)
      collect(problems, () => checkObject({ [field]: checked[field] }, { [field]: rule }));
  }
  const changes: Record<string, unknown> = {};
  if (checked.hostports !== undefined) {
    for (const hostport of checked.hostports as string[])
      collect(problems, () => checkHttpsHostport(env, hostport));
    changes.hostports = [...new Set(checked.hostports as string[])];
  }
  for (const module of ['mutual_tls', 'tls_termination'] as const) {
    const value = checked[module];
    if (value === undefined) continue;
    if (value === null) {
      if (updating) problems.push(refuseNullModule(module));
      else changes[module] = null;
      continue;
    }
    changes[module] = collect(problems, () =>
      module === 'mutual_tls'
        ? checkMutualTls(env, value, module)
        : checkHttpsTlsTermination(env, value, module, (field) =>
            TERMINATE_AT_ON_HTTPS.refuseField(
              field,
              'cannot be set on an HTTPS edge, which always terminates TLS at the edge',
            ),
          ),
    );
  }
  const [only, ...more] = problems;
  if (only !== undefined && more.length === 0) throw only;
  if (only !== undefined) {
    throw EDGE_SEVERAL_PROBLEMS.refuse(
      `${problems.length} problems: ${problems.map((problem) => problem.message).join('; ')}`,
    );
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
      else
        record.tls_termination = checkHttpsTlsTermination(env, body, '', (field) =>
          TERMINATE_AT_ON_HTTPS.refuseField(
            field,
            'cannot be set on an HTTPS edge, which always terminates TLS at the edge',
          ),
        );
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
  errors: [...EDGE_MODULE_ERRORS, ...HTTPS_EDGE_ERRORS],
};
