import { collectionRoutes } from '../../emulator/collection-routes.js';
import { checkObject, DESCRIPTION_RULE, edgeRules, METADATA_RULE } from '../../emulator/field-rules.js';
import type { HandlerEnv, RouteDefinition } from '../../emulator/handler.js';
import { moduleRoutes } from '../../emulator/module-routes.js';
import { findRecord, newBaseRecord, renderBase } from '../../emulator/record-base.js';
import type { TcpEdgeRecord, TlsEdgeRecord } from '../../emulator/records.js';
import { ServiceError } from '../../emulator/service-error.js';
import { checkHostportsFree } from '../edge-modules/emulator-hostports.js';
import {
  checkIpRestriction,
  checkMutualTls,
  checkTlsTermination,
  renderIpRestriction,
  renderMutualTls,
  renderTlsTermination,
} from '../edge-modules/emulator-modules.js';

/**
 * TCP and TLS edges: the spec manages only their modules. The emulator keeps
 * the edges minimal (description, metadata, hostports) and serves create,
 * list, get and delete so tests and demos can make them.
 */
const TCP_RULES = edgeRules(['ip_restriction']);

const TLS_RULES = edgeRules(['mutual_tls', 'tls_termination']);

export function renderTcpEdge(record: TcpEdgeRecord, env: HandlerEnv): Record<string, unknown> {
  return {
    ...renderBase(record, `${env.baseUrl}/edges/tcp/${record.id}`),
    hostports: [...record.hostports],
    ip_restriction: record.ip_restriction === null ? null : renderIpRestriction(env, record.ip_restriction),
  };
}

export function renderTlsEdge(record: TlsEdgeRecord, env: HandlerEnv): Record<string, unknown> {
  return {
    ...renderBase(record, `${env.baseUrl}/edges/tls/${record.id}`),
    hostports: [...record.hostports],
    mutual_tls: record.mutual_tls === null ? null : renderMutualTls(env, record.mutual_tls),
    tls_termination: record.tls_termination === null ? null : renderTlsTermination(record.tls_termination),
  };
}

/**
 * "When terminate_at is upstream, most other modules are disallowed": the
 * emulator refuses mutual TLS beside upstream termination, in either order.
 */
function checkUpstreamExclusive(
  edge: Pick<TlsEdgeRecord, 'mutual_tls' | 'tls_termination'>,
  field: string,
): void {
  if (edge.mutual_tls !== null && edge.tls_termination?.terminate_at === 'upstream') {
    throw new ServiceError(
      400,
      'conflict',
      `${field}: mutual_tls is not allowed on a TLS edge whose tls_termination.terminate_at is "upstream"`,
      field,
    );
  }
}

export function createTcpEdge(env: HandlerEnv, body: unknown, fixedId?: string): TcpEdgeRecord {
  const checked = checkObject(body, TCP_RULES);
  const ipRestriction =
    checked.ip_restriction === undefined || checked.ip_restriction === null
      ? null
      : checkIpRestriction(env, checked.ip_restriction, 'ip_restriction');
  checkHostportsFree(env, (checked.hostports as string[] | undefined) ?? [], fixedId);
  const record: TcpEdgeRecord = {
    ...newBaseRecord(env, 'tcp_edge', 'tcp_edges', fixedId, checked),
    hostports: [...new Set((checked.hostports as string[] | undefined) ?? [])],
    ip_restriction: ipRestriction,
  };
  env.store.insert('tcp_edges', record);
  return record;
}

export function createTlsEdge(env: HandlerEnv, body: unknown, fixedId?: string): TlsEdgeRecord {
  const checked = checkObject(body, TLS_RULES);
  const modules = {
    mutual_tls: checked.mutual_tls == null ? null : checkMutualTls(env, checked.mutual_tls, 'mutual_tls'),
    tls_termination:
      checked.tls_termination == null
        ? null
        : checkTlsTermination(checked.tls_termination, 'tls_termination'),
  };
  checkUpstreamExclusive(modules, 'mutual_tls');
  checkHostportsFree(env, (checked.hostports as string[] | undefined) ?? [], fixedId);
  const record: TlsEdgeRecord = {
    ...newBaseRecord(env, 'tls_edge', 'tls_edges', fixedId, checked),
    hostports: [...new Set((checked.hostports as string[] | undefined) ?? [])],
    ...modules,
  };
  env.store.insert('tls_edges', record);
  return record;
}

function findTcp(env: HandlerEnv, id: string | undefined): TcpEdgeRecord {
  return findRecord(env, 'tcp_edges', id, 'TCP edge');
}

function findTls(env: HandlerEnv, id: string | undefined): TlsEdgeRecord {
  return findRecord(env, 'tls_edges', id, 'TLS edge');
}

function moduleNotSet(module: string, id: string): ServiceError {
  return new ServiceError(404, 'module_not_set', `${module} is not set on edge ${id}`);
}

function ipRestrictionOf(record: TcpEdgeRecord, env: HandlerEnv): Record<string, unknown> {
  if (!record.ip_restriction) throw moduleNotSet('ip_restriction', record.id);
  return renderIpRestriction(env, record.ip_restriction);
}

function tlsModuleOf(
  record: TlsEdgeRecord,
  module: 'mutual_tls' | 'tls_termination',
  env: HandlerEnv,
): Record<string, unknown> {
  if (module === 'mutual_tls' && record.mutual_tls) return renderMutualTls(env, record.mutual_tls);
  if (module === 'tls_termination' && record.tls_termination)
    return renderTlsTermination(record.tls_termination);
  throw moduleNotSet(module, record.id);
}

function tlsModuleRoutes(module: 'mutual_tls' | 'tls_termination'): RouteDefinition[] {
  return moduleRoutes({
    template: `/edges/tls/{id}/${module}`,
    find: (request, env) => findTls(env, request.params.id),
    set: (record, body, env) => {
      if (module === 'mutual_tls') {
        const mutualTls = checkMutualTls(env, body, '');
        checkUpstreamExclusive(
          { mutual_tls: mutualTls, tls_termination: record.tls_termination },
          'mutual_tls',
        );
        record.mutual_tls = mutualTls;
      } else {
        const tlsTermination = checkTlsTermination(body, '');
        checkUpstreamExclusive(
          { mutual_tls: record.mutual_tls, tls_termination: tlsTermination },
          'terminate_at',
        );
        record.tls_termination = tlsTermination;
      }
    },
    render: (record, env) => tlsModuleOf(record, module, env),
    clear: (record) => {
      record[module] = null;
    },
  });
}

/** The edges themselves: PATCH changes only description and metadata. */
function edgeUpdate(_record: unknown, body: unknown): Readonly<Record<string, unknown>> {
  return checkObject(body, { description: DESCRIPTION_RULE, metadata: METADATA_RULE });
}

export const TCP_TLS_EDGE_ROUTES: readonly RouteDefinition[] = [
  ...collectionRoutes({
    collection: 'tcp_edges',
    path: '/edges/tcp',
    title: 'TCP edge',
    render: renderTcpEdge,
    create: createTcpEdge,
    update: edgeUpdate,
  }),
  ...moduleRoutes({
    template: '/edges/tcp/{id}/ip_restriction',
    find: (request, env) => findTcp(env, request.params.id),
    set: (record, body, env) => {
      record.ip_restriction = checkIpRestriction(env, body, '');
    },
    render: ipRestrictionOf,
    clear: (record) => {
      record.ip_restriction = null;
    },
  }),
  ...collectionRoutes({
    collection: 'tls_edges',
    path: '/edges/tls',
    title: 'TLS edge',
    render: renderTlsEdge,
    create: createTlsEdge,
    update: edgeUpdate,
  }),
  ...tlsModuleRoutes('mutual_tls'),
  ...tlsModuleRoutes('tls_termination'),
];
