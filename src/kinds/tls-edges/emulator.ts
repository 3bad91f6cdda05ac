import { collectionRoutes } from '../../emulator/collection-routes.js';
import type { EmulatorPart } from '../../emulator/emulated-collection.js';
import { checkObject } from '../../emulator/field-rules.js';
import type { HandlerEnv, RouteDefinition } from '../../emulator/handler.js';
import { moduleRoutes } from '../../emulator/module-routes.js';
import { findRecord, newBaseRecord, renderBase } from '../../emulator/record-base.js';
import {
  CERTIFICATE_AUTHORITIES,
  CERTIFICATE_AUTHORITIES_PART,
} from '../certificate-authorities/emulator.js';
import { EDGE_MODULE_ERRORS, MODULES_NEED_EDGE_TERMINATION } from '../edge-modules/emulator-errors.js';
import {
  checkHostportsFree,
  EDGE_REFUSALS,
  type EdgeCollection,
  type EdgeRecord,
  edgeRules,
} from '../edge-modules/emulator-hostports.js';
import { moduleEdgeUpdate, moduleNotSet } from '../edge-modules/emulator-module-edges.js';
import {
  checkMutualTls,
  checkTlsTermination,
  type MutualTlsModule,
  renderMutualTls,
  renderTlsTermination,
  type TlsTerminationModule,
} from '../edge-modules/emulator-modules.js';

export interface TlsEdgeRecord extends EdgeRecord {
  mutual_tls: MutualTlsModule | null;
  tls_termination: TlsTerminationModule | null;
}

/** A CA cannot be deleted while an edge's mutual TLS names it. */
export const TLS_EDGES: EdgeCollection<TlsEdgeRecord> = {
  name: 'tls_edges',
  idPrefix: 'edgtls_',
  title: 'TLS edge',
  path: '/edges/tls',
  servesHostports: true,
  refusals: EDGE_REFUSALS,
  references: [
    {
      target: CERTIFICATE_AUTHORITIES.name,
      ids: (record) => record.mutual_tls?.certificate_authority_ids ?? [],
      onDelete: 'refuse',
    },
  ],
  seed: (env, body, id) => {
    createTlsEdge(env, body, id);
  },
};

const TLS_RULES = edgeRules(['mutual_tls', 'tls_termination']);

export function renderTlsEdge(record: TlsEdgeRecord, env: HandlerEnv): Record<string, unknown> {
  return {
    ...renderBase(record, `${env.baseUrl}/edges/tls/${record.id}`, env),
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
    throw MODULES_NEED_EDGE_TERMINATION.refuseField(
      field,
      'mutual_tls needs the edge to terminate TLS; it is not allowed while tls_termination.terminate_at is "upstream"',
    );
  }
}

export function createTlsEdge(env: HandlerEnv, body: unknown, fixedId?: string): TlsEdgeRecord {
  const checked = checkObject(body, TLS_RULES);
  const modules = {
    mutual_tls: checked.mutual_tls == null ? null : checkMutualTls(env, checked.mutual_tls, 'mutual_tls'),
    tls_termination:
      checked.tls_termination == null
        ? null
        : checkTlsTermination(env, checked.tls_termination, 'tls_termination'),
  };
  checkUpstreamExclusive(modules, 'mutual_tls');
  checkHostportsFree(env, (checked.hostports as string[] | undefined) ?? [], fixedId);
  const record: TlsEdgeRecord = {
    ...newBaseRecord(env, TLS_EDGES, fixedId, checked),
    hostports: [...new Set((checked.hostports as string[] | undefined) ?? [])],
    ...modules,
  };
  env.store.insert(TLS_EDGES, record);
  return record;
}

function findTls(env: HandlerEnv, id: string | undefined): TlsEdgeRecord {
  return findRecord(env, TLS_EDGES, id);
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
        const tlsTermination = checkTlsTermination(env, body, '');
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

/** TLS edges in the emulator, with the CAs their mutual TLS names. */
export const TLS_EDGES_PART: EmulatorPart = {
  requires: [CERTIFICATE_AUTHORITIES_PART],
  collections: [TLS_EDGES],
  routes: [
    ...collectionRoutes({
      collection: TLS_EDGES,
      render: renderTlsEdge,
      create: createTlsEdge,
      update: moduleEdgeUpdate,
    }),
    ...tlsModuleRoutes('mutual_tls'),
    ...tlsModuleRoutes('tls_termination'),
  ],
  errors: EDGE_MODULE_ERRORS,
};
