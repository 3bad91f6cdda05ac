import pino from 'pino';
import type { ApiRequest } from '../../src/api/edge-api.js';
import type { KindName } from '../../src/kinds/kind-name.js';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import type { Action, Plan, PlanSummary, ResourceChange } from '../../src/plan/plan.js';

export const OWNER = 'apply-test';
export const silentLogger = pino({ level: 'silent' });

export { seededRandom } from '../support/seeded-random.js';

export function ruleCidr(index: number): string {
  return `10.${Math.floor(index / 256) % 256}.${index % 256}.0/24`;
}

export function createRuleAction(
  name: string,
  policyId: string,
  cidr: string,
  extra: { readonly dependsOn?: readonly string[]; readonly action?: 'allow' | 'deny' } = {},
): Action {
  const marker = { owner: OWNER, name };
  return {
    key: `create:ip_policy_rules.${name}`,
    op: 'create',
    kind: 'ip_policy_rules',
    name,
    change: `ip_policy_rules.${name}`,
    request: {
      method: 'POST',
      path: '/ip_policy_rules',
      body: {
        cidr,
        ip_policy_id: policyId,
        action: extra.action ?? 'deny',
        metadata: encodeMetadata(undefined, marker),
      },
    },
    sensitivePaths: [],
    marker,
    dependsOn: extra.dependsOn ?? [],
    source: { file: 'manifests/rules.yaml', line: 3, column: 3 },
  };
}

export function plainAction(
  key: string,
  kind: KindName,
  name: string,
  op: Action['op'],
  request: ApiRequest,
  dependsOn: readonly string[] = [],
): Action {
  return { key, op, kind, name, change: `${kind}.${name}`, request, sensitivePaths: [], dependsOn };
}

const EMPTY_SUMMARY: PlanSummary = {
  create: 0,
  update: 0,
  replace: 0,
  delete: 0,
  adopt: 0,
  'put-module': 0,
  'delete-module': 0,
  unchanged: 0,
  unmanaged: 0,
};

/** A plan made by hand: actions as given, one change per action address. */
export function handPlan(
  actions: readonly Action[],
  extra: {
    readonly fingerprints?: Record<string, string>;
    readonly changes?: readonly ResourceChange[];
  } = {},
): Plan {
  const changes =
    extra.changes ??
    actions.map(
      (action): ResourceChange => ({
        address: action.change,
        op: action.op,
        kind: action.kind,
        name: action.name,
        changes: [],
        reason: 'hand-made test plan',
        actionKeys: [action.key],
      }),
    );
  return {
    formatVersion: 1,
    owner: OWNER,
    changes,
    actions,
    summary: EMPTY_SUMMARY,
    errors: [],
    desiredHash: 'hand-made',
    fingerprints: extra.fingerprints ?? {},
  };
}
