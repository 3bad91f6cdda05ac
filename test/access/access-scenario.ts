import fc from 'fast-check';
import { expect } from 'vitest';
import type { DesiredEntry } from '../../src/manifest/desired-state.js';
import { seededRandom } from '../apply/hand-plan.js';
import { CORP_PEM, entry, OTHER_POLICY, PARTNER_PEM, POLICY } from '../plan/builders.js';
import {
  type AccessHarness,
  applyPlan,
  planAgainst,
  readSnapshot,
  shuffledPlan,
  startAccessHarness,
} from './access-harness.js';
import { type AccountSnapshot, findLostValues, findWidenings, momentsOf } from './access-model.js';

/**
 * One account state, as a small JSON-able description: rules over two IP
 * policies, two CAs, and the modules of a TCP edge, a TLS edge and an HTTPS
 * edge with one route (all three seeded, adopted by id).
 */
export interface AccountSpec {
  readonly rules: readonly RuleSpec[];
  readonly cas: readonly { readonly name: 'corp' | 'partner'; readonly pem: 'corp' | 'partner' }[];
  /** The TCP edge's `ip_restriction`: null removes it. */
  readonly tcp: readonly ('p1' | 'p2')[] | null;
  /** The TLS edge's mutual TLS CAs (by name): null removes the module. */
  readonly tls: readonly string[] | null;
  readonly web: { readonly mutualTls: readonly string[] | null; readonly oidc: boolean };
}

export interface RuleSpec {
  readonly name: string;
  readonly cidr: string;
  readonly policy: 'p1' | 'p2';
  readonly action: 'allow' | 'deny';
}

/** A pair of states and how to move between them. */
export interface AccessScenario {
  readonly a: AccountSpec;
  readonly b: AccountSpec;
  /** Seed of the order the plan's actions are answered in (one the dependencies allow). */
  readonly orderSeed: number;
  /** The killed run stops after this share (0–1) of the plan's actions has been answered. */
  readonly killAt: number;
}

const id = (prefix: string, text: string): string => `${prefix}${text.padEnd(27, '0')}`;
export const TCP_EDGE = id('edgtcp_', 'AccessTcp');
export const TLS_EDGE = id('edgtls_', 'AccessTls');
export const WEB_EDGE = id('edghts_', 'AccessWeb');
export const WEB_ROUTE = id('edghtsrt_', 'AccessWebRoute');
const POLICY_IDS = { p1: POLICY, p2: OTHER_POLICY } as const;
const PEMS = { corp: CORP_PEM, partner: PARTNER_PEM } as const;

export const ACCESS_SEED = {
  ip_policies: [{ id: POLICY }, { id: OTHER_POLICY }],
  https_edges: [
    {
      id: WEB_EDGE,
      hostports: ['web.example.com:443'],
      routes: [{ id: WEB_ROUTE, match_type: 'path_prefix', match: '/app' }],
    },
  ],
  tcp_edges: [{ id: TCP_EDGE, hostports: ['1.tcp.example.com:20000'] }],
  tls_edges: [{ id: TLS_EDGE, hostports: ['db.example.com:443'] }],
};

/** Nested, overlapping and disjoint ranges in both families. */
const CIDRS = [
  '10.0.0.0/8',
  '10.1.0.0/16',
  '10.1.2.0/24',
  '10.1.3.0/24',
  '10.2.0.0/16',
  '0.0.0.0/0',
  '2001:db8::/32',
  '2001:db8:1::/48',
  '2001:db8:2::/48',
];
const NAMES = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7'];

const ruleArb = fc.record({
  name: fc.constantFrom(...NAMES),
  cidr: fc.constantFrom(...CIDRS),
  policy: fc.constantFrom<'p1' | 'p2'>('p1', 'p2'),
  action: fc.constantFrom<'allow' | 'deny'>('allow', 'deny'),
});

const keyOf = (rule: RuleSpec): string => `${rule.policy} ${rule.cidr}`;

const specArb: fc.Arbitrary<AccountSpec> = fc.record({
  rules: fc
    .uniqueArray(ruleArb, { selector: (rule) => rule.name, maxLength: 5 })
    .map((rules) =>
      rules.filter((rule, index) => rules.findIndex((other) => keyOf(other) === keyOf(rule)) === index),
    ),
  cas: fc.uniqueArray(
    fc.record({
      name: fc.constantFrom<'corp' | 'partner'>('corp', 'partner'),
      pem: fc.constantFrom<'corp' | 'partner'>('corp', 'partner'),
    }),
    { selector: (ca) => ca.name, maxLength: 2 },
  ),
  tcp: fc.option(fc.subarray<'p1' | 'p2'>(['p1', 'p2'], { minLength: 1 }), { nil: null }),
  tls: fc.option(fc.subarray(['corp', 'partner'], { minLength: 1 }), { nil: null }),
  web: fc.record({
    mutualTls: fc.option(fc.subarray(['corp', 'partner'], { minLength: 1 }), { nil: null }),
    oidc: fc.boolean(),
  }),
});

type Mutation =
  | { readonly op: 'rename' | 'flip' | 'policy' | 'remove'; readonly at: number; readonly name: string }
  | { readonly op: 'move'; readonly at: number; readonly cidr: string }
  | { readonly op: 'swap'; readonly at: number; readonly with: number }
  | { readonly op: 'add'; readonly rule: RuleSpec }
  | { readonly op: 'modules'; readonly spec: AccountSpec };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    op: fc.constantFrom<'rename' | 'flip' | 'policy' | 'remove'>('rename', 'flip', 'policy', 'remove'),
    at: fc.nat(),
    name: fc.constantFrom(...NAMES),
  }),
  fc.record({ op: fc.constant<'move'>('move'), at: fc.nat(), cidr: fc.constantFrom(...CIDRS) }),
  fc.record({ op: fc.constant<'swap'>('swap'), at: fc.nat(), with: fc.nat() }),
  fc.record({ op: fc.constant<'add'>('add'), rule: ruleArb }),
  fc.record({ op: fc.constant<'modules'>('modules'), spec: specArb }),
);

/** B from A by renames, moves, flips, swaps, adds and removes, and new module and CA settings. */
function mutate(a: AccountSpec, mutations: readonly Mutation[]): AccountSpec {
  let rules = [...a.rules];
  let rest: Omit<AccountSpec, 'rules'> = { cas: a.cas, tcp: a.tcp, tls: a.tls, web: a.web };
  const valid = (next: readonly RuleSpec[]): boolean =>
    new Set(next.map(keyOf)).size === next.length &&
    new Set(next.map((rule) => rule.name)).size === next.length;
  const at = (index: number): number => (rules.length === 0 ? -1 : index % rules.length);
  for (const mutation of mutations) {
    let next = rules;
    if (mutation.op === 'add') next = [...rules, mutation.rule];
    else if (mutation.op === 'modules') {
      const { rules: _ignored, ...modules } = mutation.spec;
      rest = modules;
      continue;
    } else {
      const index = at(mutation.at);
      const rule = rules[index];
      if (rule === undefined) continue;
      const replace = (changed: RuleSpec): RuleSpec[] =>
        rules.map((other, position) => (position === index ? changed : other));
      if (mutation.op === 'rename') next = replace({ ...rule, name: mutation.name });
      if (mutation.op === 'flip')
        next = replace({ ...rule, action: rule.action === 'allow' ? 'deny' : 'allow' });
      if (mutation.op === 'policy') next = replace({ ...rule, policy: rule.policy === 'p1' ? 'p2' : 'p1' });
      if (mutation.op === 'remove') next = rules.filter((_, position) => position !== index);
      if (mutation.op === 'move') next = replace({ ...rule, cidr: mutation.cidr });
      if (mutation.op === 'swap') {
        const otherIndex = at(mutation.with);
        const other = rules[otherIndex];
        if (other === undefined || otherIndex === index) continue;
        next = rules.map((candidate, position) =>
          position === index
            ? { ...rule, cidr: other.cidr }
            : position === otherIndex
              ? { ...other, cidr: rule.cidr }
              : candidate,
        );
      }
    }
    if (valid(next)) rules = next;
  }
  return { rules, ...rest };
}

export const scenarioArb: fc.Arbitrary<AccessScenario> = fc
  .record({
    a: specArb,
    mutations: fc.array(mutationArb, { minLength: 1, maxLength: 6 }),
    orderSeed: fc.integer({ min: 1, max: 1_000_000 }),
    killAt: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .map(({ a, mutations, orderSeed, killAt }) => ({ a, b: mutate(a, mutations), orderSeed, killAt }));

/** The manifests of a state. Module CAs name only declared CAs, as validation requires. */
export function entriesOf(spec: AccountSpec): DesiredEntry[] {
  const declared = (names: readonly string[] | null): string[] | null => {
    const kept = (names ?? []).filter((name) => spec.cas.some((ca) => ca.name === name));
    return kept.length === 0 ? null : kept;
  };
  const tls = declared(spec.tls);
  const webTls = declared(spec.web.mutualTls);
  return [
    ...spec.rules.map((rule) =>
      entry('ip_policy_rules', rule.name, {
        cidr: rule.cidr,
        action: rule.action,
        ip_policy_id: POLICY_IDS[rule.policy],
      }),
    ),
    ...spec.cas.map((ca) => entry('certificate_authorities', ca.name, { ca_pem: PEMS[ca.pem] })),
    entry(
      'tcp_edges',
      'ssh',
      {
        ip_restriction:
          spec.tcp === null ? null : { ip_policies: spec.tcp.map((policy) => POLICY_IDS[policy]) },
      },
      { id: TCP_EDGE },
    ),
    entry(
      'tls_edges',
      'db',
      { mutual_tls: tls === null ? null : { certificate_authorities: tls } },
      { id: TLS_EDGE },
    ),
    entry(
      'https_edges',
      'web',
      {
        hostports: ['web.example.com:443'],
        mutual_tls: webTls === null ? null : { certificate_authorities: webTls },
        routes: [
          {
            id: WEB_ROUTE,
            oidc: spec.web.oidc
              ? { issuer: 'https://id.example.com', client_id: 'web', client_secret: 'web-secret' }
              : null,
          },
        ],
      },
      { id: WEB_EDGE },
    ),
  ];
}

/**
 * Applies A, then B in an order its dependencies allow, then back to A,
 * then B killed part way and finished by planning B again. At every answer
 * nothing is open that both ends keep closed, and no stable value both ends
 * hold is gone; each apply converges.
 */
export async function checkScenario(scenario: AccessScenario): Promise<void> {
  const harness = await startAccessHarness(ACCESS_SEED);
  try {
    const a = entriesOf(scenario.a);
    const b = entriesOf(scenario.b);
    const random = seededRandom(scenario.orderSeed);
    await applyConverged(harness, a, random, 'A');
    const stateA = await readSnapshot(harness);

    const toB = await transition(harness, b, random, 'A → B');
    expectSafe(stateA, toB.end, toB.moments, 'A → B');
    const back = await transition(harness, a, random, 'B → A');
    expectSafe(toB.end, back.end, back.moments, 'B → A');

    const stateA2 = back.end;
    const plan = await planAgainst(harness, b);
    const killAfter = Math.max(1, Math.ceil(scenario.killAt * plan.actions.length));
    const from = harness.writes.length;
    await applyPlan(harness, shuffledPlan(plan, random), { killAfter, concurrency: 1 });
    const killedAt = harness.writes.length - from;
    await applyConverged(harness, b, random, `B after a kill at write ${killedAt}`);
    const moments = momentsOf(stateA2, harness.writes.slice(from));
    expectSafe(stateA2, toB.end, moments, `A → B killed after ${killedAt} writes, then B again`);
  } finally {
    await harness.emulator.close();
  }
}

async function applyConverged(
  harness: AccessHarness,
  entries: readonly DesiredEntry[],
  random: () => number,
  label: string,
): Promise<void> {
  const plan = await planAgainst(harness, entries);
  expect(plan.errors, label).toEqual([]);
  const result = await applyPlan(harness, shuffledPlan(plan, random), { concurrency: 1 });
  expect(
    result.actions.filter((action) => action.outcome !== 'done'),
    label,
  ).toEqual([]);
  expect(
    (await planAgainst(harness, entries)).actions.map((action) => action.key),
    `${label} converges`,
  ).toEqual([]);
}

async function transition(
  harness: AccessHarness,
  entries: readonly DesiredEntry[],
  random: () => number,
  label: string,
): Promise<{ end: AccountSnapshot; moments: AccountSnapshot[] }> {
  const start = await readSnapshot(harness);
  const from = harness.writes.length;
  await applyConverged(harness, entries, random, label);
  const end = await readSnapshot(harness);
  const moments = momentsOf(start, harness.writes.slice(from));
  expect(moments.at(-1), `${label}: the replayed answers end where the service is`).toEqual(end);
  return { end, moments };
}

function expectSafe(
  a: AccountSnapshot,
  b: AccountSnapshot,
  moments: readonly AccountSnapshot[],
  label: string,
): void {
  expect(findWidenings(a, b, moments), `${label}: access widened`).toEqual([]);
  expect(findLostValues(a, b, moments), `${label}: stable values lost`).toEqual([]);
}
