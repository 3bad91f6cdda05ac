import { API_WIDE } from '../../../../src/emulator/api-errors.js';
import { type FamilyTable, fixedId } from '../family-table.js';

const POLICY = fixedId('ipp_', 'ApiWidePolicy');
const RULE = { cidr: '10.20.0.0/16', ip_policy_id: POLICY, action: 'allow' };
const LIST = { method: 'GET', path: '/ip_policy_rules' };

/** The rows any request can meet, each sent as a request to the IP policy rules. */
export const API_WIDE_TABLE: FamilyTable = {
  section: API_WIDE,
  seed: { ip_policies: [{ id: POLICY }] },
  cases: [
    { code: 200, name: 'no Authorization header', request: { ...LIST, headers: { authorization: null } } },
    {
      code: 201,
      name: 'an Authorization header of another scheme',
      request: { ...LIST, headers: { authorization: 'Token abc' } },
    },
    {
      code: 202,
      name: 'a credential no API key looks like',
      request: { ...LIST, headers: { authorization: 'Bearer not "a" key' } },
    },
    {
      code: 203,
      name: 'a well-formed credential that is not the key',
      request: { ...LIST, headers: { authorization: 'Bearer sk_NotTheKey000000' } },
    },
    {
      code: 208,
      name: "an API key's ID instead of its secret",
      request: { ...LIST, headers: { authorization: 'Bearer ak_2bZt4Jq9cXw1' } },
    },
    { code: 218, name: 'no Service-Version', request: { ...LIST, headers: { 'service-version': null } } },
    { code: 217, name: 'Service-Version 1', request: { ...LIST, headers: { 'service-version': '1' } } },
    {
      code: 216,
      name: 'a body without Content-Type',
      request: { method: 'POST', path: '/ip_policy_rules', body: RULE, headers: { 'content-type': null } },
    },
    {
      code: 210,
      name: 'a body sent as text/plain',
      request: {
        method: 'POST',
        path: '/ip_policy_rules',
        body: RULE,
        headers: { 'content-type': 'text/plain' },
      },
    },
    { code: 211, name: 'a body on GET', request: { ...LIST, body: '{"limit":1}' } },
    {
      code: 212,
      name: 'a body cut short',
      request: { method: 'POST', path: '/ip_policy_rules', body: RULE, cutShort: true },
    },
    {
      code: 213,
      name: 'a body that is not JSON',
      request: { method: 'POST', path: '/ip_policy_rules', body: '{"cidr":' },
    },
    {
      code: 214,
      name: 'a field the create does not take',
      request: { method: 'POST', path: '/ip_policy_rules', body: { ...RULE, colour: 'red' } },
      field: 'colour',
    },
    {
      code: 215,
      name: 'a cidr of the wrong JSON type',
      request: { method: 'POST', path: '/ip_policy_rules', body: { ...RULE, cidr: 10 } },
      field: 'cidr',
    },
    {
      code: 230,
      name: 'a query that does not parse',
      request: { ...LIST, path: '/ip_policy_rules?limit=%zz' },
    },
    {
      code: 231,
      name: 'a query parameter no list takes',
      request: { ...LIST, path: '/ip_policy_rules?page=2' },
      field: 'page',
    },
    {
      code: 232,
      name: 'limit given twice',
      request: { ...LIST, path: '/ip_policy_rules?limit=1&limit=2' },
      field: 'limit',
    },
    {
      code: 233,
      name: 'limit 101',
      request: { ...LIST, path: '/ip_policy_rules?limit=101' },
      field: 'limit',
    },
    {
      code: 244,
      name: 'limit of letters (page-size-error=244)',
      variants: { 'page-size-error': '244' },
      request: { ...LIST, path: '/ip_policy_rules?limit=ten' },
      field: 'limit',
    },
    {
      code: 227,
      name: 'an ID of another kind in the path',
      request: { method: 'GET', path: `/reserved_addrs/${POLICY}` },
      validate: {
        yaml: 'version: 1\ntcp_edges:\n  db:\n    id: edgtls_2bZt4Jq9cXw1Kx7Lm3Np5Qr8Sv\n',
        expected: 'schema 4:5 tcp_edges.db.id',
      },
    },
    {
      code: 226,
      name: 'a request over the budget',
      options: { rateLimit: { requests: 1, windowMs: 60_000 } },
      request: { ...LIST, before: [LIST] },
    },
    {
      code: 100,
      name: 'rule metadata over 4096 bytes',
      request: { method: 'POST', path: '/ip_policy_rules', body: { ...RULE, metadata: 'm'.repeat(4097) } },
      field: 'metadata',
      validate: {
        yaml: `version: 1\nip_policy_rules:\n  office:\n    ip_policy_id: ${POLICY}\n    cidr: 10.20.0.0/16\n    action: allow\n    metadata:\n      notes: "${'m'.repeat(4097)}"\n`,
        expected: 'too_long 7:5 ip_policy_rules.office.metadata',
      },
    },
  ],
};
