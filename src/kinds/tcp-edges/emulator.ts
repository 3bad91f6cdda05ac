import { collectionRoutes } from '../../emulator/collection-routes.js';
import type { EmulatorPart } from '../../emulator/emulated-collection.js';
import { checkObject } from '../../emulator/field-rules.js';
import type { HandlerEnv } from '../../emulator/handler.js';
import { moduleRoutes } from '../../emulator/module-routes.js';
import { findRecord, newBaseRecord, renderBase } from '../../emulator/record-base.js';
import { EDGE_MODULE_ERRORS } from '../edge-modules/emulator-errors.js';
import {
  checkHostportsFree,
  EDGE_REFUSALS,
  type EdgeCollection,
  type EdgeRecord,
  edgeRules,
} from '../edge-modules/emulator-hostports.js';
import { moduleEdgeUpdate, moduleNotSet } from '../edge-modules/emulator-module-edges.js';
import {
  checkIpRestriction,
  type IpRestrictionModule,
  renderIpRestriction,
} from '../edge-modules/emulator-modules.js';
import { IP_POLICIES, IP_POLICIES_PART } from '../referenced-resources/emulator.js';

export interface TcpEdgeRecord extends EdgeRecord {
  ip_restriction: IpRestrictionModule | null;
}

/** Its IP restriction keeps naming a deleted IP policy, as the family does. */
export const TCP_EDGES: EdgeCollection<TcpEdgeRecord> = {
  name: 'tcp_edges',
  idPrefix: 'edgtcp_',
  title: 'TCP edge',
  path: '/edges/tcp',
  servesHostports: true,
  refusals: EDGE_REFUSALS,
  references: [
    {
      target: IP_POLICIES.name,
      ids: (record) => record.ip_restriction?.ip_policy_ids ?? [],
      onDelete: 'keep',
    },
  ],
  seed: (env, body, id) => {
    createTcpEdge(env, body, id);
  },
};

const TCP_RULES = edgeRules(['ip_restriction']);

export function renderTcpEdge(record: TcpEdgeRecord, env: HandlerEnv): Record<string, unknown> {
  return {
    ...renderBase(record, `${env.baseUrl}/edges/tcp/${record.id}`, env),
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
    ...newBaseRecord(env, TCP_EDGES, fixedId, checked),
    hostports: [...new Set((checked.hostports as string[] | undefined) ?? [])],
    ip_restriction: ipRestriction,
  };
  env.store.insert(TCP_EDGES, record);
  return record;
}

function findTcp(env: HandlerEnv, id: string | undefined): TcpEdgeRecord {
  return findRecord(env, TCP_EDGES, id);
}

function ipRestrictionOf(record: TcpEdgeRecord, env: HandlerEnv): Record<string, unknown> {
  if (!record.ip_restriction) throw moduleNotSet('ip_restriction', record.id);
  return renderIpRestriction(env, record.ip_restriction);
}

/** TCP edges in the emulator, with the IP policies their IP restriction names. */
export const TCP_EDGES_PART: EmulatorPart = {
  requires: [IP_POLICIES_PART],
  collections: [TCP_EDGES],
  routes: [
    ...collectionRoutes({
      collection: TCP_EDGES,
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
  ],
  errors: EDGE_MODULE_ERRORS,
};
