import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/registry.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import { shareDesiredStrings } from '../../src/plan-session/share-desired-strings.js';
import {
  CORP_PEM,
  desiredState,
  entry,
  liveCa,
  liveRule,
  liveState,
  marked,
  OWNER,
  POLICY,
} from '../plan/builders.js';

describe('shareDesiredStrings', () => {
  const desired = () =>
    desiredState([
      entry('ip_policy_rules', 'office', {
        ip_policy_id: POLICY,
        cidr: '10.0.0.0/8',
        action: 'allow',
        description: 'office',
      }),
      entry('ip_policy_rules', 'lab', {
        ip_policy_id: POLICY,
        cidr: '10.1.0.0/16',
        action: 'deny',
        description: 'lab',
      }),
    ]);
  const live = () =>
    liveState([
      // The same entry: every string equal.
      liveRule('ipr_1', {
        cidr: '10.0.0.0/8',
        action: 'allow',
        description: 'office',
        metadata: marked('office'),
      }),
      // Drifted: another CIDR and description.
      liveRule('ipr_2', {
        cidr: '10.2.0.0/16',
        action: 'deny',
        description: 'old lab',
        metadata: marked('lab'),
      }),
      // Unmarked, and marked for a name no entry has.
      liveRule('ipr_3', { cidr: '10.0.0.0/8', action: 'allow', description: 'office' }),
      liveRule('ipr_4', { cidr: '10.3.0.0/16', action: 'allow', metadata: marked('gone') }),
    ]);

  it('changes no value of any live object, and so no plan', () => {
    const state = desired();
    const shared = live();

    shareDesiredStrings(state, shared, OWNER);

    expect(shared).toEqual(live());
    expect(planChanges(state, shared, { owner: OWNER })).toEqual(
      planChanges(state, live(), { owner: OWNER }),
    );
  });

  it('hands its index of marked objects only to a plan of the same owner and kinds', () => {
    const state = desired();
    const otherOwner = live();
    shareDesiredStrings(state, otherOwner, OWNER);
    // A CA of ours too: a plan of rules alone does not count it among the objects it owns.
    const otherKinds = () =>
      liveState([
        ...live().objects.ip_policy_rules,
        liveCa('ca_1', { pem: CORP_PEM, metadata: marked('corp') }),
      ]);
    const sharedOtherKinds = otherKinds();
    shareDesiredStrings(state, sharedOtherKinds, OWNER);
    const ruleKinds = KINDS.filter((kind) => kind.name === 'ip_policy_rules');

    expect(planChanges(state, otherOwner, { owner: 'someone-else' })).toEqual(
      planChanges(state, live(), { owner: 'someone-else' }),
    );
    expect(planChanges(state, sharedOtherKinds, { owner: OWNER, kinds: ruleKinds })).toEqual(
      planChanges(state, otherKinds(), { owner: OWNER, kinds: ruleKinds }),
    );
  });
});
