import { describe, expect, it } from 'vitest';
import type { LiveObject } from '../../src/kinds/live-state.js';
import { KINDS } from '../../src/kinds/registry.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import { withDesiredStrings } from '../../src/plan-session/share-desired-strings.js';
import { desiredState, entry, liveRule, liveState, marked, OWNER, POLICY } from '../plan/builders.js';
import { readObjects } from '../support/read-objects.js';

/** Freezes an object read and everything in it, so that a write to it throws. */
function deepFrozen(object: LiveObject): LiveObject {
  Object.freeze(object.spec);
  if (object.marker !== null) Object.freeze(object.marker);
  return Object.freeze(object);
}

describe('withDesiredStrings', () => {
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

  it('holds an equal object for each one read, changes none read, and so no plan', () => {
    const state = desired();
    const read = readObjects(live(), 'ip_policy_rules').map(deepFrozen);
    const keep = withDesiredStrings(state, OWNER);

    const held = read.map(keep);

    expect(held).toEqual(readObjects(live(), 'ip_policy_rules'));
    expect(planChanges(state, liveState(held), { kinds: KINDS, owner: OWNER })).toEqual(
      planChanges(state, live(), { kinds: KINDS, owner: OWNER }),
    );
  });

  it("copies only an object marked with the owner and an entry's name; holds the others as read", () => {
    const read = readObjects(live(), 'ip_policy_rules');

    const held = read.map(withDesiredStrings(desired(), OWNER));
    const heldByOther = read.map(withDesiredStrings(desired(), 'someone-else'));

    expect(held.map((object, at) => object === read[at])).toEqual([false, false, true, true]);
    expect(heldByOther.every((object, at) => object === read[at])).toBe(true);
  });
});
