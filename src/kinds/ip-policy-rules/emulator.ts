import { collectionRoutes } from '../../emulator/collection-routes.js';
import type { EmulatedCollection, EmulatorPart } from '../../emulator/emulated-collection.js';
import { checkObject, descriptionRule, metadataRule, type ObjectRules } from '../../emulator/field-rules.js';
import type { HandlerEnv } from '../../emulator/handler.js';
import { newBaseRecord, renderBase } from '../../emulator/record-base.js';
import type { BaseRecord } from '../../emulator/records.js';
import { checkReference, refTo } from '../../emulator/references.js';
import { IP_POLICIES, IP_POLICIES_PART } from '../referenced-resources/emulator.js';
import { canonicalCidr } from './emulator-cidr.js';
import {
  BAD_ACTION,
  BARE_ADDRESS,
  CIDR_TAKEN,
  HOST_BITS_SET,
  IP_POLICY_RULE_ERRORS,
  NOT_A_CIDR,
  POLICY_ID_MALFORMED,
  POLICY_NOT_FOUND,
  RULE_DESCRIPTION_TOO_LONG,
  RULE_FIELD_MISSING,
  RULE_NOT_FOUND,
  RULE_UPDATE_EMPTY,
} from './emulator-errors.js';

export interface IpPolicyRuleRecord extends BaseRecord {
  cidr: string;
  readonly ip_policy_id: string;
  readonly action: 'allow' | 'deny';
}

/** The key of the store's index of rules by IP policy and CIDR (IP_POLICY_RULES.uniqueKey). */
export function ruleKey(ipPolicyId: string, cidr: string): string {
  return `${ipPolicyId}\u0000${cidr}`;
}

/** The service allows one rule per CIDR and IP policy: the store indexes that pair. */
export const IP_POLICY_RULES: EmulatedCollection<IpPolicyRuleRecord> & { readonly path: string } = {
  name: 'ip_policy_rules',
  idPrefix: 'ipr_',
  title: 'IP policy rule',
  path: '/ip_policy_rules',
  uniqueKey: (record) => ruleKey(record.ip_policy_id, record.cidr),
  refusals: { notFound: RULE_NOT_FOUND, emptyUpdate: RULE_UPDATE_EMPTY },
  references: [{ target: IP_POLICIES.name, ids: (record) => [record.ip_policy_id], onDelete: 'cascade' }],
  seed: (env, body, id) => {
    createIpPolicyRule(env, body, id);
  },
};

const CREATE_RULES: ObjectRules = {
  description: descriptionRule(RULE_DESCRIPTION_TOO_LONG),
  metadata: metadataRule(),
  cidr: { type: 'string', required: true, refusals: { missing: RULE_FIELD_MISSING } },
  ip_policy_id: { type: 'string', required: true, refusals: { missing: RULE_FIELD_MISSING } },
  action: {
    type: 'string',
    required: true,
    oneOf: ['allow', 'deny'],
    refusals: { missing: BAD_ACTION, invalid: BAD_ACTION },
  },
};

const UPDATE_RULES: ObjectRules = {
  description: descriptionRule(RULE_DESCRIPTION_TOO_LONG),
  metadata: metadataRule(),
  cidr: { type: 'string' },
};

function checkCidr(value: string): string {
  const result = canonicalCidr(value);
  if (result === null)
    throw NOT_A_CIDR.refuseField('cidr', `must be an IPv4 or IPv6 address or CIDR (found "${value}")`);
  if ('error' in result) {
    const rule = result.fault === 'bare-address' ? BARE_ADDRESS : HOST_BITS_SET;
    throw rule.refuseField('cidr', `${result.error} (found "${value}")`);
  }
  return result.cidr;
}

/** The service allows one rule per CIDR and IP policy. */
function checkUnique(env: HandlerEnv, ipPolicyId: string, cidr: string, exceptId?: string): void {
  const clash = env.store.holderOf(IP_POLICY_RULES, ruleKey(ipPolicyId, cidr));
  if (clash && clash.id !== exceptId) {
    throw CIDR_TAKEN.refuseField('cidr', `${ipPolicyId} already has rule ${clash.id} for ${cidr}`);
  }
}

export function renderIpPolicyRule(record: IpPolicyRuleRecord, env: HandlerEnv): Record<string, unknown> {
  return {
    ...renderBase(record, `${env.baseUrl}/ip_policy_rules/${record.id}`, env),
    cidr: record.cidr,
    ip_policy: refTo(env, IP_POLICIES, record.ip_policy_id),
    action: record.action,
  };
}

export function createIpPolicyRule(env: HandlerEnv, body: unknown, fixedId?: string): IpPolicyRuleRecord {
  const checked = checkObject(body, CREATE_RULES);
  const cidr = checkCidr(checked.cidr as string);
  const ipPolicyId = checked.ip_policy_id as string;
  checkReference(env, IP_POLICIES, ipPolicyId, 'ip_policy_id', {
    malformed: POLICY_ID_MALFORMED,
    missing: POLICY_NOT_FOUND,
  });
  checkUnique(env, ipPolicyId, cidr);
  const record: IpPolicyRuleRecord = {
    ...newBaseRecord(env, IP_POLICY_RULES, fixedId, checked),
    cidr,
    ip_policy_id: ipPolicyId,
    action: checked.action as 'allow' | 'deny',
  };
  env.store.insert(IP_POLICY_RULES, record);
  return record;
}

const IP_POLICY_RULE_ROUTES = collectionRoutes({
  collection: IP_POLICY_RULES,
  render: renderIpPolicyRule,
  create: createIpPolicyRule,
  update: (record, body, env) => {
    const checked = checkObject(body, UPDATE_RULES);
    if (typeof checked.cidr === 'string') {
      const cidr = checkCidr(checked.cidr);
      checkUnique(env, record.ip_policy_id, cidr, record.id);
      env.store.rekey(IP_POLICY_RULES, record, (rule) => {
        rule.cidr = cidr;
      });
    }
    return checked;
  },
});

/** IP policy rules in the emulator, with the IP policies they belong to. */
export const IP_POLICY_RULES_PART: EmulatorPart = {
  requires: [IP_POLICIES_PART],
  collections: [IP_POLICY_RULES],
  routes: IP_POLICY_RULE_ROUTES,
  errors: IP_POLICY_RULE_ERRORS,
};
