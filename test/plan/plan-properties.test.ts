import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/registry.js';
import type { DesiredEntry } from '../../src/manifest/desired-state.js';
import type { Plan } from '../../src/plan/plan.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import { propertyRuns } from '../support/property-runs.js';
import {
  CORP_PEM,
  desiredState,
  entry,
  liveState,
  marked,
  OTHER_POLICY,
  OWNER,
  PARTNER_PEM,
  POLICY,
} from './builders.js';
import { InMemoryAccount } from './in-memory-account.js';
import { waitsFor } from './waits-for.js';

/** Disjoint, nested and cross-family ranges, so that rules overlap in every way the ordering cares about. */
const CIDRS = [
  '10.0.0.0/24',
  '10.0.1.0/24',
  '10.0.0.0/16',
  '10.0.1.128/25',
  '0.0.0.0/0',
  '2001:db8::/32',
  '2001:db8:1::/48',
];
const POLICIES = [POLICY, OTHER_POLICY];
const NAMES = ['a', 'b', 'c', 'd'];
const PEMS = [CORP_PEM, PARTNER_PEM];

const description = fc.option(fc.constantFrom('one', 'two'), { nil: undefined });
/** Owner of a live object: ours, another team's, or no marker at all. */
const liveOwner = fc.constantFrom('ours', 'theirs', 'none');

const ruleKey = (rule: { cidr: string; policy: string }): string => `${rule.cidr} ${rule.policy}`;

const ruleArb = fc.record({
  name: fc.constantFrom(...NAMES),
  cidr: fc.constantFrom(...CIDRS),
  policy: fc.constantFrom(...POLICIES),
  action: fc.constantFrom('allow', 'deny'),
  description,
});

const caArb = fc.record({
  name: fc.constantFrom('corp', 'partner'),
  pem: fc.constantFrom(...PEMS),
  description,
});

const edgeArb = fc.record({
  name: fc.constantFrom('web', 'api'),
  hostports: fc.subarray(['a.example.com:443', 'b.example.com:443', 'c.example.com:443'], { minLength: 1 }),
  cas: fc.option(fc.subarray(['corp', 'partner']), { nil: undefined }),
  tls: fc.constantFrom(undefined, null, { min_version: '1.2' }, { min_version: '1.3' }),
});

const scenarioArb = fc.record({
  rules: fc
    .uniqueArray(ruleArb, { selector: (rule) => rule.name, maxLength: 4 })
    .filter((rules) => new Set(rules.map(ruleKey)).size === rules.length),
  cas: fc.uniqueArray(caArb, { selector: (ca) => ca.name, maxLength: 2 }),
  // One edge per hostport, as the service holds.
  edges: fc
    .uniqueArray(edgeArb, { selector: (edge) => edge.name, maxLength: 2 })
    .filter(
      (edges) =>
        new Set(edges.flatMap((edge) => edge.hostports)).size ===
        edges.flatMap((edge) => edge.hostports).length,
    ),
  liveRules: fc.array(fc.record({ rule: ruleArb, owner: liveOwner }), { maxLength: 5 }),
  liveCas: fc.array(fc.record({ ca: caArb, owner: liveOwner }), { maxLength: 3 }),
  liveEdges: fc.array(fc.record({ edge: edgeArb, owner: liveOwner }), { maxLength: 2 }),
});

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

/**
 * The account before planning. Rules keep the service's uniqueness; desired
 * rules and hostports never collide with an unmanaged one (that is a plan
 * error a person must resolve, not a planning choice); each hostport is
 * served by one live edge; unmanaged edges name only unmanaged CAs.
 */
function buildAccount(scenario: Scenario): { account: InMemoryAccount; unmanaged: Set<string> } {
  const account = new InMemoryAccount();
  const unmanaged = new Set<string>();
  const taken = new Set<string>();
  const desiredKeys = new Set(scenario.rules.map(ruleKey));
  const metadataFor = (owner: string, name: string): Record<string, unknown> => {
    if (owner === 'ours') return { metadata: marked(name) };
    if (owner === 'theirs') return { metadata: marked(name, 'team-b') };
    return {};
  };
  scenario.liveRules.forEach(({ rule, owner }, index) => {
    if (taken.has(ruleKey(rule)) || (owner !== 'ours' && desiredKeys.has(ruleKey(rule)))) return;
    taken.add(ruleKey(rule));
    const id = `ipr_live${index}`;
    if (owner !== 'ours') unmanaged.add(id);
    account.add('ip_policy_rules', {
      id,
      uri: `https://sim/${id}`,
      created_at: `2026-01-01T00:00:0${index}Z`,
      cidr: rule.cidr,
      action: rule.action,
      ip_policy: { id: rule.policy, uri: 'https://sim/ipp' },
      ...(rule.description ? { description: rule.description } : {}),
      ...metadataFor(owner, rule.name),
    });
  });
  const unmanagedCas: string[] = [];
  const managedCas: string[] = [];
  scenario.liveCas.forEach(({ ca, owner }, index) => {
    const id = `ca_live${index}`;
    if (owner !== 'ours') {
      unmanaged.add(id);
      unmanagedCas.push(id);
    } else managedCas.push(id);
    account.add('certificate_authorities', {
      id,
      uri: `https://sim/${id}`,
      created_at: `2026-01-01T00:01:0${index}Z`,
      ca_pem: ca.pem,
      ...(ca.description ? { description: ca.description } : {}),
      ...metadataFor(owner, ca.name),
    });
  });
  const desiredHostports = new Set(scenario.edges.flatMap((edge) => edge.hostports));
  const served = new Set<string>();
  scenario.liveEdges.forEach(({ edge, owner }, index) => {
    if (edge.hostports.some((hostport) => served.has(hostport))) return;
    if (owner !== 'ours' && edge.hostports.some((hostport) => desiredHostports.has(hostport))) return;
    for (const hostport of edge.hostports) served.add(hostport);
    const id = `edghts_live${index}`;
    const pool = owner === 'ours' ? [...managedCas, ...unmanagedCas] : unmanagedCas;
    const cas = edge.cas === undefined ? undefined : pool.slice(0, edge.cas.length);
    if (owner !== 'ours') unmanaged.add(id);
    account.add('https_edges', {
      id,
      uri: `https://sim/${id}`,
      created_at: `2026-01-01T00:02:0${index}Z`,
      hostports: edge.hostports,
      mutual_tls:
        cas === undefined
          ? null
          : { enabled: true, certificate_authorities: cas.map((ca) => ({ id: ca, uri: 'x' })) },
      tls_termination: edge.tls ? { enabled: true, min_version: edge.tls.min_version } : null,
      routes: [],
      ...metadataFor(owner, edge.name),
    });
  });
  return { account, unmanaged };
}

function desiredEntries(scenario: Scenario): DesiredEntry[] {
  return [
    ...scenario.rules.map((rule) =>
      entry('ip_policy_rules', rule.name, {
        cidr: rule.cidr,
        action: rule.action,
        ip_policy_id: rule.policy,
        ...(rule.description ? { description: rule.description } : {}),
      }),
    ),
    ...scenario.cas.map((ca) =>
      entry('certificate_authorities', ca.name, {
        ca_pem: ca.pem,
        ...(ca.description ? { description: ca.description } : {}),
      }),
    ),
    ...scenario.edges.map((edge) =>
      entry('https_edges', edge.name, {
        hostports: edge.hostports,
        // a CA name only where that CA is declared, as validation requires
        ...(edge.cas === undefined
          ? {}
          : {
              mutual_tls: {
                certificate_authorities: edge.cas.filter((name) =>
                  scenario.cas.some((ca) => ca.name === name),
                ),
              },
            }),
        ...(edge.tls === undefined ? {} : { tls_termination: edge.tls }),
      }),
    ),
  ];
}

const options = { owner: OWNER, force: true, allowEmpty: true, kinds: KINDS } as const;

/** Overlap through ipaddr.js, independent of the planner's range arithmetic. */
function overlapOracle(a: string, b: string): boolean {
  const [left, leftBits] = ipaddr.parseCIDR(a);
  const [right, rightBits] = ipaddr.parseCIDR(b);
  if (left.kind() !== right.kind()) return false;
  return left.match(right, Math.min(leftBits, rightBits));
}

interface RuleTouch {
  readonly key: string;
  readonly op: 'create' | 'delete';
  readonly action: string;
  readonly cidr: string;
}

/** The rule creates and deletes of a plan, with the CIDR and action each creates or removes. */
function ruleTouches(plan: Plan, account: InMemoryAccount): RuleTouch[] {
  const touches: RuleTouch[] = [];
  for (const action of plan.actions) {
    if (action.kind !== 'ip_policy_rules') continue;
    if (action.op === 'create') {
      const body = action.request.body as { cidr: string; action: string };
      touches.push({ key: action.key, op: 'create', action: body.action, cidr: body.cidr });
    }
    if (action.op === 'delete') {
      const raw = account.raw(action.request.path.split('/').pop() ?? '');
      touches.push({ key: action.key, op: 'delete', action: String(raw?.action), cidr: String(raw?.cidr) });
    }
  }
  return touches;
}

describe('planChanges: properties', () => {
  it('applying the plan then planning again gives no changes, and unmanaged objects are never touched', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        const { account, unmanaged } = buildAccount(scenario);
        const unmanagedBefore = new Map([...unmanaged].map((id) => [id, JSON.stringify(account.raw(id))]));
        const desired = desiredState(desiredEntries(scenario));

        const plan = planChanges(desired, liveState(account.liveObjects()), options);
        expect(plan.errors).toEqual([]);
        for (const action of plan.actions) {
          for (const id of unmanaged) expect(action.request.path).not.toContain(id);
          account.apply(action);
        }
        const again = planChanges(desired, liveState(account.liveObjects()), options);

        expect(again.changes).toEqual([]);
        expect(again.actions).toEqual([]);
        for (const [id, before] of unmanagedBefore) expect(JSON.stringify(account.raw(id))).toBe(before);
      }),
      { numRuns: propertyRuns({ small: 60, large: 300 }), seed: 20261121 },
    );
  });

  it('every plan is in topological order and deterministic', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        const { account } = buildAccount(scenario);
        const desired = desiredState(desiredEntries(scenario));
        const live = liveState(account.liveObjects());

        const plan = planChanges(desired, live, options);

        const seen = new Set<string>();
        for (const action of plan.actions) {
          for (const dependency of action.dependsOn) expect(seen.has(dependency)).toBe(true);
          seen.add(action.key);
        }
        expect(JSON.stringify(planChanges(desired, live, options))).toBe(JSON.stringify(plan));
      }),
      { numRuns: propertyRuns({ small: 50, large: 200 }), seed: 7 },
    );
  });

  it('access never widens: an overlapping deny is created before an allow, and an allow deleted before a deny', () => {
    const runs = propertyRuns({ small: 60, large: 300 });
    let overlappingPairs = 0;
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        const { account } = buildAccount(scenario);
        const desired = desiredState(desiredEntries(scenario));

        const plan = planChanges(desired, liveState(account.liveObjects()), options);

        const touches = ruleTouches(plan, account);
        for (const later of touches) {
          // The action that would widen access if it ran first, and the one it must wait for.
          const widening =
            (later.op === 'create' && later.action === 'allow') ||
            (later.op === 'delete' && later.action === 'deny');
          if (!widening) continue;
          const waits = waitsFor(plan, later.key);
          for (const first of touches) {
            if (first.op !== later.op || first.action === later.action) continue;
            if (!overlapOracle(first.cidr, later.cidr)) continue;
            overlappingPairs += 1;
            expect(waits.has(first.key), `${later.key} waits for ${first.key}`).toBe(true);
          }
        }
      }),
      { numRuns: runs, seed: 20261122 },
    );
    // The scenarios must actually exercise the rule: more than one overlapping pair in six cases.
    expect(overlappingPairs).toBeGreaterThan(runs / 6);
  });
});
