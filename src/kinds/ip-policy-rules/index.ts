import { refId } from '../api-json.js';
import type { Kind, ParkingSpot } from '../kind.js';
import { metadataKind } from '../metadata-kind.js';
import { IP_POLICY_IDS } from '../referenced-resources/index.js';
import { sharedCopy } from '../repeated-strings.js';
import { checkCidr } from './check-cidr.js';
import { canonicalCidr, cidrRange } from './cidr.js';
import { cidrCovers } from './cidr-covers.js';
import { IP_POLICY_RULES_SCHEMA } from './schema.js';

const canonical = (cidr: unknown): unknown => (typeof cidr === 'string' ? canonicalCidr(cidr) : cidr);

/**
 * Where a rule waits while it moves: a temporary deny on the /31 (/127), the
 * rule on its last address. Documentation and discard ranges, which accounts
 * rarely hold rules for; the planner passes over one that overlaps anything
 * the account or the plan holds.
 */
const PARKING_SPOTS: readonly ParkingSpot[] = [
  ...['192.0.2.', '198.51.100.', '203.0.113.'].flatMap((net) =>
    [254, 252, 250].map((last) => ({ guard: `${net}${last}/31`, spot: `${net}${last + 1}/32` })),
  ),
  ...['100::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:'].flatMap((net) =>
    [0xfffe, 0xfffc, 0xfffa].map((last) => ({
      guard: `${net}${last.toString(16)}/127`,
      spot: `${net}${(last + 1).toString(16)}/128`,
    })),
  ),
];

export const ipPolicyRules: Kind = metadataKind({
  name: 'ip_policy_rules',
  title: 'IP policy rule',
  idPrefix: 'ipr_',
  namedIds: [IP_POLICY_IDS],
  path: '/ip_policy_rules',
  fields: [
    { name: 'description', onChange: 'update' },
    { name: 'metadata', onChange: 'update' },
    { name: 'cidr', onChange: 'update' },
    { name: 'action', onChange: 'replace', recurs: true },
    { name: 'ip_policy_id', onChange: 'replace', recurs: true, names: IP_POLICY_IDS, memberOf: true },
  ],
  schema: IP_POLICY_RULES_SCHEMA,
  // The service holds one rule per CIDR and IP policy.
  uniqueKey: ['cidr', 'ip_policy_id'],
  accessDecision: {
    field: 'action',
    allow: 'allow',
    deny: 'deny',
    // Regardless of policy: an endpoint may list several IP policies, so
    // rules of different policies can decide for the same address.
    range: (spec) => (typeof spec.cidr === 'string' ? cidrRange(spec.cidr) : undefined),
    parkingSpots: PARKING_SPOTS,
    guardCovers: cidrCovers,
  },
  checkEntry: (value) => {
    if (typeof value.cidr !== 'string') return [];
    const cidr = checkCidr(value.cidr);
    if (!cidr.ok) return [{ code: cidr.code, pointer: '/cidr', message: cidr.message }];
    // The service reads no mask as an error, not as a single address.
    if (!value.cidr.includes('/')) {
      const bits = value.cidr.includes(':') ? 128 : 32;
      return [
        {
          code: 'invalid_cidr',
          pointer: '/cidr',
          message: `a CIDR needs its mask: write "${value.cidr}/${bits}" for the one address (found "${value.cidr}")`,
        },
      ];
    }
    return [];
  },
  fromApi: (object) => ({
    spec: {
      cidr: canonical(object.cidr),
      ip_policy_id: refId(object.ip_policy) ?? undefined,
      action: typeof object.action === 'string' ? sharedCopy(object.action) : object.action,
    },
  }),
  normalizeOwn: (spec) => ({ cidr: canonical(spec.cidr) }),
  probe: {
    list: { path: '/ip_policy_rules', key: 'ip_policy_rules' },
    // A documentation range, in a policy of the probe's own: no traffic is decided by it.
    object: {
      needs: [IP_POLICY_IDS],
      spec: (word, ids) => ({
        description: `edgesync doctor probe ${word}`,
        cidr: '192.0.2.0/24',
        action: 'deny',
        ip_policy_id: ids.get(IP_POLICY_IDS.prefix),
      }),
      update: () => ({ cidr: '198.51.100.0/24' }),
    },
  },
  emulator: async () => (await import('./emulator.js')).IP_POLICY_RULES_PART,
});
