import { collectionRoutes } from '../../emulator/collection-routes.js';
import { checkObject, edgeRules } from '../../emulator/field-rules.js';
import type { HandlerEnv, RouteDefinition } from '../../emulator/handler.js';
import { moduleRoutes } from '../../emulator/module-routes.js';
import { findRecord, newBaseRecord, renderBase } from '../../emulator/record-base.js';
import type { TcpEdgeRecord } from '../../emulator/records.js';
import { checkHostportsFree } from '../edge-modules/emulator-hostports.js';
import { moduleEdgeUpdate, moduleNotSet } from '../edge-modules/emulator-module-edges.js';
import { checkIpRestriction, renderIpRestriction } from '../edge-modules/emulator-modules.js';

const TCP_RULES = edgeRules(['ip_restriction']);

export function renderTcpEdge(record: TcpEdgeRecord, env: HandlerEnv): Record<string, unknown> {
  return {
    ...renderBase(record, `${env.baseUrl}/edges/tcp/${record.id}`),
    hostports: [...record.hostports],
    ip_restriction: record.ip_restriction === null ? null : renderIpRestriction(env, record.ip_restriction),
  };
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

function findTcp(env: HandlerEnv, id: string | undefined): TcpEdgeRecord {
  return findRecord(env, 'tcp_edges', id, 'TCP edge');
}

function ipRestrictionOf(record: TcpEdgeRecord, env: HandlerEnv): Record<string, unknown> {
  if (!record.ip_restriction) throw moduleNotSet('ip_restriction', record.id);
  return renderIpRestriction(env, record.ip_restriction);
}

export const TCP_EDGE_ROUTES: readonly RouteDefinition[] = [
  ...collectionRoutes({
    collection: 'tcp_edges',
    path: '/edges/tcp',
    title: 'TCP edge',
    render: renderTcpEdge,
    create: createTcpEdge,
    update: moduleEdgeUpdate,
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
];
