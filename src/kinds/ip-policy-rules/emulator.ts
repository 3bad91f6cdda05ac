import { collectionRoutes } from '../../emulator/collection-routes.js';
import {
  checkObject,
  DESCRIPTION_RULE,
  METADATA_RULE,
  type ObjectRules,
} from '../../emulator/field-rules.js';
import type { HandlerEnv, RouteDefinition } from '../../emulator/handler.js';
import { newBaseRecord, renderBase } from '../../emulator/record-base.js';
import type { IpPolicyRuleRecord } from '../../emulator/records.js';
import { invalidField, ServiceError } from '../../emulator/service-error.js';
import { checkReference, refTo } from '../referenced-resources/emulator-references.js';
import { canonicalCidr } from './emulator-cidr.js';

const CREATE_RULES: ObjectRules = {
  description: DESCRIPTION_RULE,
  metadata: METADATA_RULE,
  cidr: { type: 'string', required: true },
  ip_policy_id: { type: 'string', required: true },
  action: { type: 'string', required: true, oneOf: ['allow', 'deny'] },
};

const UPDATE_RULES: ObjectRules = {
  description: DESCRIPTION_RULE,
  metadata: METADATA_RULE,
  cidr: { type: 'string' },
};

function checkCidr(value: string): string {
  const result = canonicalCidr(value);
  if (result === null)
    throw invalidField('cidr', `must be an IPv4 or IPv6 address or CIDR (found "${value}")`);
  if ('error' in result) throw invalidField('cidr', `${result.error} (found "${value}")`);
  return result.cidr;
}

/** The service allows one rule per CIDR and IP policy. */
function checkUnique(env: HandlerEnv, ipPolicyId: string, cidr: string, exceptId?: string): void {
  const clash = env.store.ruleFor(ipPolicyId, cidr);
  if (clash && clash.id !== exceptId) {
    throw new ServiceError(
      400,
      'conflict',
      `cidr: ${ipPolicyId} already has rule ${clash.id} for ${cidr}`,
      'cidr',
    );
  }
}

export function renderIpPolicyRule(record: IpPolicyRuleRecord, env: HandlerEnv): Record<string, unknown> {
  return {
    ...renderBase(record, `${env.baseUrl}/ip_policy_rules/${record.id}`),
    cidr: record.cidr,
    ip_policy: refTo(env, 'ip_policies', record.ip_policy_id),
    action: record.action,
  };
}

export function createIpPolicyRule(env: HandlerEnv, body: unknown, fixedId?: string): IpPolicyRuleRecord {
  const checked = checkObject(body, CREATE_RULES);
  const cidr = checkCidr(checked.cidr as string);
  const ipPolicyId = checked.ip_policy_id as string;
  checkReference(env, 'ip_policies', ipPolicyId, 'ip_policy_id');
  checkUnique(env, ipPolicyId, cidr);
  const record: IpPolicyRuleRecord = {
    ...newBaseRecord(env, 'ip_policy_rule', 'ip_policy_rules', fixedId, checked),
    cidr,
    ip_policy_id: ipPolicyId,
    action: checked.action as 'allow' | 'deny',
  };
  env.store.insert('ip_policy_rules', record);
  return record;
}

export const IP_POLICY_RULE_ROUTES: readonly RouteDefinition[] = collectionRoutes({
  collection: 'ip_policy_rules',
  path: '/ip_policy_rules',
  title: 'IP policy rule',
  render: renderIpPolicyRule,
  create: createIpPolicyRule,
  update: (record, body, env) => {
    const checked = checkObject(body, UPDATE_RULES);
    if (typeof checked.cidr === 'string') {
      const cidr = checkCidr(checked.cidr);
      checkUnique(env, record.ip_policy_id, cidr, record.id);
      env.store.setRuleCidr(record, cidr);
    }
    return checked;
  },
});
