import { IP_POLICY_RULES_SECTION } from '../../../../src/kinds/ip-policy-rules/emulator-errors.js';
import { type FamilyTable, fixedId } from '../family-table.js';

const POLICY = fixedId('ipp_', 'RuleTablePolicy');
const RULE = { cidr: '10.30.0.0/16', ip_policy_id: POLICY, action: 'allow' };
const CREATE = { method: 'POST', path: '/ip_policy_rules' };

/** One rule as a manifest, with its fields as YAML lines under the entry. */
const manifest = (lines: readonly string[]): string =>
  `version: 1\nip_policy_rules:\n  office:\n${lines.map((line) => `    ${line}\n`).join('')}`;
const FIELDS = [`ip_policy_id: ${POLICY}`, 'cidr: 10.30.0.0/16', 'action: allow'];
const withField = (name: string, value: string): string =>
  manifest([...FIELDS.filter((line) => !line.startsWith(`${name}:`)), `${name}: ${value}`]);

export const IP_POLICY_RULES_TABLE: FamilyTable = {
  section: IP_POLICY_RULES_SECTION,
  seed: { ip_policies: [{ id: POLICY }] },
  prepare: async (call) => ({ rule: (await call('POST', '/ip_policy_rules', RULE)).body.id }),
  cases: [
    {
      code: 1405,
      name: 'a create without cidr',
      request: { ...CREATE, body: { ip_policy_id: POLICY, action: 'deny' } },
      field: 'cidr',
      validate: {
        yaml: manifest([`ip_policy_id: ${POLICY}`, 'action: allow']),
        expected: 'schema 3:3 ip_policy_rules.office',
      },
    },
    {
      code: 1406,
      name: 'a cidr that is no address',
      request: { ...CREATE, body: { ...RULE, cidr: 'office-vpn' } },
      field: 'cidr',
      validate: {
        yaml: withField('cidr', 'office-vpn'),
        expected: 'invalid_cidr 6:5 ip_policy_rules.office.cidr',
      },
    },
    {
      code: 1413,
      name: 'a bare address',
      request: { ...CREATE, body: { ...RULE, cidr: '203.0.113.7' } },
      field: 'cidr',
      validate: {
        yaml: withField('cidr', '203.0.113.7'),
        expected: 'invalid_cidr 6:5 ip_policy_rules.office.cidr',
      },
    },
    {
      code: 1409,
      name: 'a range with host bits set',
      request: { ...CREATE, body: { ...RULE, cidr: '10.0.0.5/24' } },
      field: 'cidr',
      validate: {
        yaml: withField('cidr', '10.0.0.5/24'),
        expected: 'cidr_host_bits 6:5 ip_policy_rules.office.cidr',
      },
    },
    {
      code: 1408,
      name: 'a second rule for a CIDR',
      request: {
        ...CREATE,
        body: { ...RULE, cidr: '10.31.0.0/16', action: 'deny' },
        before: [{ ...CREATE, body: { ...RULE, cidr: '10.31.0.0/16' } }],
      },
      field: 'cidr',
      validate: {
        yaml: `${manifest(FIELDS)}  branch:\n    ip_policy_id: ${POLICY}\n    cidr: 10.30.0.0/16\n    action: deny\n`,
        expected: 'unique_key_conflict 9:5 ip_policy_rules.branch.cidr',
      },
    },
    {
      code: 1422,
      name: 'an action that is not allow or deny',
      request: { ...CREATE, body: { ...RULE, action: 'maybe' } },
      field: 'action',
      validate: { yaml: withField('action', 'maybe'), expected: 'schema 6:5 ip_policy_rules.office.action' },
    },
    {
      code: 1414,
      name: 'a malformed ip_policy_id',
      request: { ...CREATE, body: { ...RULE, ip_policy_id: 'ipp_not-an-id' } },
      field: 'ip_policy_id',
      validate: {
        yaml: withField('ip_policy_id', 'ipp_not-an-id'),
        expected: 'schema 6:5 ip_policy_rules.office.ip_policy_id',
      },
    },
    {
      code: 229,
      name: 'a malformed ip_policy_id (policy-id-error=229)',
      variants: { 'policy-id-error': '229' },
      request: { ...CREATE, body: { ...RULE, ip_policy_id: 'ipp_not-an-id' } },
      field: 'ip_policy_id',
    },
    {
      code: 1402,
      name: 'an IP policy the account does not have',
      request: { ...CREATE, body: { ...RULE, ip_policy_id: fixedId('ipp_', 'Missing') } },
      field: 'ip_policy_id',
    },
    {
      code: 1421,
      name: 'a description of 256 bytes',
      request: { ...CREATE, body: { ...RULE, description: 'é'.repeat(128) } },
      field: 'description',
      validate: {
        yaml: withField('description', `"${'é'.repeat(128)}"`),
        expected: 'too_long 7:5 ip_policy_rules.office.description',
      },
    },
    {
      code: 1401,
      name: 'an update with nothing to change',
      request: { method: 'PATCH', path: '/ip_policy_rules/{rule}', body: {} },
    },
    {
      code: 1404,
      name: 'a rule the account does not have',
      request: { method: 'GET', path: `/ip_policy_rules/${fixedId('ipr_', 'Missing')}` },
    },
  ],
};
