import { describe, expect, it } from 'vitest';
import type { Kind } from '../../src/kinds/kind.js';
import type { LiveObject } from '../../src/kinds/live-state.js';
import { KINDS } from '../../src/kinds/registry.js';
import type { DesiredEntry } from '../../src/manifest/desired-state.js';
import { ENTRY_KEY_BUILDERS } from '../../src/plan/entry-keys.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import type { EntryKeyBuilders } from '../../src/plan/planner-options.js';
import {
  CORP_PEM,
  desiredState,
  entry,
  liveEdge,
  liveRule,
  liveState,
  marked,
  OTHER_POLICY,
  OWNER,
  POLICY,
} from './builders.js';

type Spec = Readonly<Record<string, unknown>>;

/** The planner's own key builders, counting each spec they are given. */
function countingBuilders(): {
  builders: EntryKeyBuilders;
  forms: Map<Spec, number>;
  keys: Map<Spec, number>;
} {
  const forms = new Map<Spec, number>();
  const keys = new Map<Spec, number>();
  const count = (counts: Map<Spec, number>, spec: Spec): void => {
    counts.set(spec, (counts.get(spec) ?? 0) + 1);
  };
  const builders: EntryKeyBuilders = {
    comparableForm: (kind: Kind, spec: Spec) => {
      count(forms, spec);
      return ENTRY_KEY_BUILDERS.comparableForm(kind, spec);
    },
    keyNumbering: () => {
      const numbering = ENTRY_KEY_BUILDERS.keyNumbering();
      return {
        numberOf: (kind: Kind, spec: Spec) => {
          count(keys, spec);
          return numbering.numberOf(kind, spec);
        },
      };
    },
  };
  return { builders, forms, keys };
}

const rule = (cidr: string, action: 'allow' | 'deny', policy = POLICY): Record<string, unknown> => ({
  cidr,
  action,
  ip_policy_id: policy,
});

describe('each entry is keyed once', () => {
  it('works out every comparable form and unique key in the first phase, and no later phase again', () => {
    const entries: DesiredEntry[] = [
      entry('ip_policy_rules', 'created', rule('10.5.0.0/16', 'deny')),
      // An allow and a deny trade CIDRs: the allow is parked (rule 8), which keys its parking spot and guard.
      entry('ip_policy_rules', 'swap-allow', rule('10.1.3.0/24', 'allow')),
      entry('ip_policy_rules', 'swap-deny', rule('10.1.2.0/24', 'deny')),
      entry('ip_policy_rules', 'renamed', rule('10.9.0.0/16', 'deny')),
      entry('ip_policy_rules', 'replaced', rule('10.4.0.0/16', 'allow', OTHER_POLICY)),
      entry('certificate_authorities', 'corp', { ca_pem: CORP_PEM }),
      entry('https_edges', 'web', {
        hostports: ['b.example.com:443', 'a.example.com:443'],
        mutual_tls: { certificate_authorities: ['corp'] },
      }),
    ];
    const liveObjects: LiveObject[] = [
      liveRule('ipr_allow', { cidr: '10.1.2.0/24', action: 'allow', metadata: marked('swap-allow') }),
      liveRule('ipr_deny', { cidr: '10.1.3.0/24', action: 'deny', metadata: marked('swap-deny') }),
      liveRule('ipr_renamed', { cidr: '10.9.0.0/16', action: 'deny', metadata: marked('original') }),
      liveRule('ipr_replaced', { cidr: '10.4.0.0/16', action: 'allow', metadata: marked('replaced') }),
      liveRule('ipr_pruned', { cidr: '10.6.0.0/16', action: 'deny', metadata: marked('pruned') }),
      liveEdge('edghts_web', { hostports: ['a.example.com:443'], metadata: marked('web') }),
    ];
    const { builders, forms, keys } = countingBuilders();

    const plan = planChanges(desiredState(entries), liveState(liveObjects), {
      kinds: KINDS,
      owner: OWNER,
      force: true,
      keyBuilders: builders,
    });

    expect(plan.errors).toEqual([]);
    // The plans the counts are about: a create, a rename, a parked move, a replace and a prune.
    expect(plan.actions.map((action) => action.key)).toEqual(
      expect.arrayContaining([
        'create:ip_policy_rules.created',
        'update:ip_policy_rules.renamed',
        'update:ip_policy_rules.swap-allow#from-parking',
        'create:ip_policy_rules.swap-allow#parking-guard',
        'create:ip_policy_rules.replaced',
        'delete:ip_policy_rules.replaced',
        'delete:ip_policy_rules.pruned',
      ]),
    );
    for (const planned of entries) expect(forms.get(planned.spec)).toBe(1);
    expect(forms.size).toBe(entries.length);
    const keyed = entries.filter((planned) => planned.kind === 'ip_policy_rules');
    const keyedForms = keyed.map((planned) => ENTRY_KEY_BUILDERS.comparableForm(ruleKind(), planned.spec));
    for (const form of keyedForms) expect(countOfEqual(keys, form)).toBe(1);
    for (const object of liveObjects.filter((live) => live.kind === 'ip_policy_rules'))
      expect(keys.get(object.spec)).toBe(1);
  });
});

function ruleKind(): Kind {
  return KINDS.find((kind) => kind.name === 'ip_policy_rules') as Kind;
}

/** Calls with a spec equal to `spec`: an entry's comparable form may be a copy of its spec. */
function countOfEqual(counts: ReadonlyMap<Spec, number>, spec: Spec): number {
  let total = 0;
  for (const [counted, calls] of counts) if (JSON.stringify(counted) === JSON.stringify(spec)) total += calls;
  return total;
}
