import { describe, expect, it } from 'vitest';
import type { KindName } from '../../src/kinds/kind-name.js';
import type { LiveObject } from '../../src/kinds/live-state.js';
import { KINDS } from '../../src/kinds/registry.js';
import { LiveStateCache } from '../../src/watch/live-state-cache.js';
import { readObjects } from '../support/read-objects.js';

const KIND_NAMES = KINDS.map((kind) => kind.name);

function rule(id: string, description: string): LiveObject {
  return {
    kind: 'ip_policy_rules',
    id,
    marker: { owner: 'team', name: id },
    spec: { description },
    outputs: {},
    fingerprint: `${id}:${description}`,
  };
}

/** Every kind read in full, empty but for `rules`. */
function filled(rules: readonly LiveObject[]): LiveStateCache {
  const cache = new LiveStateCache(KIND_NAMES);
  for (const kind of KIND_NAMES) {
    const version = cache.beginFullRead(kind);
    cache.acceptFullRead({
      kind,
      objects: kind === 'ip_policy_rules' ? rules : [],
      missingIds: [],
      startedAtVersion: version,
      finishedAt: 1000,
    });
  }
  return cache;
}

function descriptions(cache: LiveStateCache): Record<string, unknown> {
  return Object.fromEntries(
    readObjects(cache.snapshot(), 'ip_policy_rules').map((o) => [o.id, o.spec.description]),
  );
}

describe('LiveStateCache', () => {
  it('is incomplete, and holds nothing of a kind, until that kind was read in full', () => {
    const cache = new LiveStateCache(KIND_NAMES);
    const version = cache.beginFullRead('ip_policy_rules');

    const during = cache.snapshot();
    cache.acceptFullRead({
      kind: 'ip_policy_rules',
      objects: [rule('ipr_1', 'a')],
      missingIds: [],
      startedAtVersion: version,
      finishedAt: 5,
    });

    expect(during.complete).toBe(false);
    expect(readObjects(during, 'ip_policy_rules')).toEqual([]);
    expect(cache.snapshot().complete).toBe(false);
    expect(cache.kindsToRead()).toEqual(KIND_NAMES.filter((kind) => kind !== 'ip_policy_rules'));
    expect(descriptions(cache)).toEqual({ ipr_1: 'a' });
  });

  it('gives the object it holds for one read again unchanged (same fingerprint), and the new one otherwise', () => {
    const held = rule('ipr_1', 'a');
    const cache = filled([held]);
    const same = rule('ipr_1', 'a');
    const changed = rule('ipr_1', 'b');
    const unknown = rule('ipr_2', 'a');

    expect(cache.heldIfSame(same)).toBe(held);
    expect(cache.heldIfSame(changed)).toBe(changed);
    expect(cache.heldIfSame(unknown)).toBe(unknown);
  });

  it('takes in writes and reads by ID, and a full read begun before them does not undo them', () => {
    const cache = filled([rule('ipr_1', 'a'), rule('ipr_2', 'b'), rule('ipr_3', 'c')]);
    const version = cache.beginFullRead('ip_policy_rules');

    cache.put(rule('ipr_1', 'written'));
    cache.remove('ip_policy_rules', 'ipr_2');
    cache.put(rule('ipr_4', 'created'));
    // The full read's pages were served before those writes.
    cache.acceptFullRead({
      kind: 'ip_policy_rules',
      objects: [rule('ipr_1', 'a'), rule('ipr_2', 'b'), rule('ipr_3', 'changed behind our back')],
      missingIds: [],
      startedAtVersion: version,
      finishedAt: 2000,
    });

    expect(descriptions(cache)).toEqual({
      ipr_1: 'written',
      ipr_3: 'changed behind our back',
      ipr_4: 'created',
    });
    expect(cache.snapshot().complete).toBe(true);
  });

  it('drops a kind after a surprise: incomplete until read again, and an older full read never replaces a newer one', () => {
    const cache = filled([rule('ipr_1', 'a')]);
    const olderRead = cache.beginFullRead('ip_policy_rules');
    cache.put(rule('ipr_1', 'b'));

    cache.drop('ip_policy_rules');
    const dropped = cache.snapshot();
    const newerRead = cache.beginFullRead('ip_policy_rules');
    cache.acceptFullRead({
      kind: 'ip_policy_rules',
      objects: [rule('ipr_1', 'newer')],
      missingIds: [],
      startedAtVersion: newerRead,
      finishedAt: 3000,
    });
    cache.acceptFullRead({
      kind: 'ip_policy_rules',
      objects: [rule('ipr_1', 'older')],
      missingIds: [],
      startedAtVersion: olderRead,
      finishedAt: 3100,
    });

    expect(dropped.complete).toBe(false);
    expect(readObjects(dropped, 'ip_policy_rules')).toEqual([]);
    expect(descriptions(cache)).toEqual({ ipr_1: 'newer' });
  });

  it('takes in a changed object of a list page at once, unless the daemon changed it after the read began', () => {
    const cache = filled([rule('ipr_1', 'a'), rule('ipr_2', 'b')]);
    const version = cache.beginFullRead('ip_policy_rules');
    cache.put(rule('ipr_2', 'written'));

    const takes = [
      cache.takeInListed(rule('ipr_1', 'changed behind our back'), version),
      cache.takeInListed(rule('ipr_1', 'changed behind our back'), version),
      cache.takeInListed(rule('ipr_2', 'b'), version),
    ];

    expect(takes).toEqual([true, false, false]);
    expect(descriptions(cache)).toEqual({ ipr_1: 'changed behind our back', ipr_2: 'written' });
  });

  it('marks module writes stale until read again, and says whether a full read found anything new', () => {
    const cache = filled([rule('ipr_1', 'a')]);

    cache.markStale('tcp_edges', 'edgtcp_1');
    const stale = [...cache.staleIds()];
    cache.remove('tcp_edges', 'edgtcp_1', true);

    expect(stale).toEqual([['tcp_edges', ['edgtcp_1']]]);
    expect(cache.staleIds().size).toBe(0);
    expect(cache.snapshot().missingIds).toEqual(['edgtcp_1']);
    expect(cache.differs('ip_policy_rules', [rule('ipr_1', 'a')], [])).toBe(false);
    expect(cache.differs('ip_policy_rules', [rule('ipr_1', 'b')], [])).toBe(true);
    expect(cache.differs('ip_policy_rules', [], [])).toBe(true);
    expect(cache.differs('reserved_addrs' as KindName, [], [])).toBe(false);
  });

  it('names what a list page should have held in the last read’s order, skipping what the daemon touched since', () => {
    const cache = filled(['ipr_1', 'ipr_2', 'ipr_3', 'ipr_4', 'ipr_5'].map((id) => rule(id, 'x')));
    const version = cache.beginFullRead('ip_policy_rules');
    cache.put(rule('ipr_2', 'ours'));

    const first = cache.unlistedOnPage('ip_policy_rules', ['ipr_new', 'ipr_3'], -1, version);
    const second = cache.unlistedOnPage('ip_policy_rules', ['ipr_5'], first.reached, version);
    const unknownOnly = cache.unlistedOnPage('ip_policy_rules', ['ipr_other'], second.reached, version);

    expect(first).toEqual({ reached: 2, suspects: ['ipr_1'] });
    expect(second).toEqual({ reached: 4, suspects: ['ipr_4'] });
    expect(unknownOnly).toEqual({ reached: 4, suspects: [] });
  });

  it('takes in a named module-only edge found gone by a full read, unless the daemon touched it since', () => {
    const cache = filled([]);
    const edge: LiveObject = {
      kind: 'tcp_edges',
      id: 'edgetcp_1',
      marker: null,
      spec: {},
      outputs: {},
      fingerprint: 'f',
    };
    const other: LiveObject = { ...edge, id: 'edgetcp_2' };
    cache.put(edge);
    cache.put(other);
    const version = cache.beginFullRead('tcp_edges');
    cache.put({ ...other, fingerprint: 'g' });

    expect(cache.takeInMissing('tcp_edges', 'edgetcp_1', version)).toBe(true);
    expect(cache.takeInMissing('tcp_edges', 'edgetcp_1', version)).toBe(false);
    expect(cache.takeInMissing('tcp_edges', 'edgetcp_2', version)).toBe(false);
    expect(cache.knows('tcp_edges', 'edgetcp_1')).toBe(true);
    expect(cache.get('tcp_edges', 'edgetcp_1')).toBeUndefined();
    expect(cache.get('tcp_edges', 'edgetcp_2')?.fingerprint).toBe('g');
  });
});
