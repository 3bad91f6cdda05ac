import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { OrderedCollection } from '../../src/emulator/ordered-collection.js';
import type { BaseRecord } from '../../src/emulator/records.js';
import { EmulatorStore } from '../../src/emulator/store.js';
import {
  IP_POLICY_RULES,
  type IpPolicyRuleRecord,
  ruleKey,
} from '../../src/kinds/ip-policy-rules/emulator.js';
import { propertyRuns } from '../support/property-runs.js';
import { type EmulatorHandle, openEmulator } from './emulator-client.js';

function record(seq: number): BaseRecord {
  return { id: `r${seq}`, created_at: '2026-01-01T00:00:00Z', seq };
}

/** Every page from newest to oldest, following the last ID of each page as `before_id` does. */
function walk(collection: OrderedCollection<BaseRecord>, size: number): number[] {
  const seen: number[] = [];
  let before: number | undefined;
  for (;;) {
    const { records, more } = collection.page(before, size);
    seen.push(...records.map((r) => r.seq));
    const last = records[records.length - 1];
    if (!more || last === undefined) return seen;
    before = last.seq;
  }
}

describe('OrderedCollection', () => {
  it('pages newest first after any mix of inserts and deletes, as a sort of what is left would', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant<'insert'>('insert'), fc.nat(200)), { maxLength: 300 }),
        fc.integer({ min: 1, max: 7 }),
        (operations, size) => {
          const collection = new OrderedCollection<BaseRecord>();
          const model = new Map<string, BaseRecord>();
          let seq = 0;
          for (const operation of operations) {
            if (operation === 'insert') {
              seq += 1;
              collection.insert(record(seq));
              model.set(`r${seq}`, record(seq));
            } else {
              collection.delete(`r${operation}`);
              model.delete(`r${operation}`);
            }
          }

          const expected = [...model.values()].map((r) => r.seq).sort((a, b) => b - a);

          expect(walk(collection, size)).toEqual(expected);
          expect([...collection.newestFirst()].map((r) => r.seq)).toEqual(expected);
          expect(collection.size).toBe(model.size);
          for (const id of model.keys()) expect(collection.has(id)).toBe(true);
        },
      ),
      { numRuns: propertyRuns({ small: 100, large: 1000 }) },
    );
  });

  it('cuts a page below a deleted sequence number', () => {
    const collection = new OrderedCollection<BaseRecord>();
    for (const seq of [1, 2, 3, 4, 5]) collection.insert(record(seq));
    collection.delete('r3');

    const { records, more } = collection.page(3, 1);

    expect(records.map((r) => r.seq)).toEqual([2]);
    expect(more).toBe(true);
  });

  it('places a record that arrives out of order by its sequence number', () => {
    const collection = new OrderedCollection<BaseRecord>();
    for (const seq of [5, 1, 3]) collection.insert(record(seq));

    expect(collection.page(undefined, 10).records.map((r) => r.seq)).toEqual([5, 3, 1]);
  });
});

describe('EmulatorStore indexes', () => {
  function rule(store: EmulatorStore, policy: string, cidr: string): IpPolicyRuleRecord {
    const seq = store.takeSeq();
    const created: IpPolicyRuleRecord = {
      id: `ipprule_${seq}`,
      created_at: '2026-01-01T00:00:00Z',
      seq,
      cidr,
      ip_policy_id: policy,
      action: 'allow',
    };
    store.insert(IP_POLICY_RULES, created);
    return created;
  }

  const ruleFor = (store: EmulatorStore, policy: string, cidr: string) =>
    store.holderOf(IP_POLICY_RULES, ruleKey(policy, cidr));

  it('finds the rule of a policy and CIDR through deletes, CIDR changes and a restore', () => {
    const store = new EmulatorStore([IP_POLICY_RULES]);
    const first = rule(store, 'ipp_a', '10.0.0.0/8');
    const second = rule(store, 'ipp_a', '10.1.0.0/16');
    rule(store, 'ipp_b', '10.0.0.0/8');

    store.rekey(IP_POLICY_RULES, second, (record) => {
      record.cidr = '10.2.0.0/16';
    });
    store.delete(IP_POLICY_RULES, first.id);
    const restored = new EmulatorStore([IP_POLICY_RULES]);
    restored.restore(store.snapshot());

    for (const candidate of [store, restored]) {
      expect(ruleFor(candidate, 'ipp_a', '10.0.0.0/8')).toBeUndefined();
      expect(ruleFor(candidate, 'ipp_a', '10.1.0.0/16')).toBeUndefined();
      expect(ruleFor(candidate, 'ipp_a', '10.2.0.0/16')?.id).toBe(second.id);
      expect(ruleFor(candidate, 'ipp_b', '10.0.0.0/8')?.ip_policy_id).toBe('ipp_b');
      expect(candidate.list(IP_POLICY_RULES).map((r) => r.cidr)).toEqual(['10.0.0.0/8', '10.2.0.0/16']);
    }
  });
});

describe('emulator lists and uniqueness over HTTP', () => {
  let handle: EmulatorHandle | undefined;
  afterEach(async () => {
    await handle?.emulator.close();
    handle = undefined;
  });

  it('keeps one rule per CIDR and policy after a PATCH and a delete free a CIDR, and pages newest first', async () => {
    handle = await openEmulator({
      seed: { ip_policies: [{ id: 'ipp_OfficeVpnPolicy000000000001', description: 'office' }] },
    });
    const create = (cidr: string) =>
      handle?.call('POST', '/ip_policy_rules', {
        cidr,
        ip_policy_id: 'ipp_OfficeVpnPolicy000000000001',
        action: 'allow',
      });
    const a = await create('10.0.0.0/8');
    const b = await create('10.1.0.0/16');
    const c = await create('10.2.0.0/16');

    const moved = await handle.call('PATCH', `/ip_policy_rules/${a?.body.id}`, { cidr: '10.9.0.0/16' });
    const reuseMovedFrom = await create('10.0.0.0/8');
    const clashMovedTo = await create('10.9.0.0/16');
    await handle.call('DELETE', `/ip_policy_rules/${b?.body.id}`);
    const reuseDeleted = await create('10.1.0.0/16');
    const firstPage = await handle.call('GET', '/ip_policy_rules?limit=2');
    await handle.call('DELETE', `/ip_policy_rules/${firstPage.body.ip_policy_rules[1].id}`);
    const secondPage = await handle.call('GET', firstPage.body.next_page_uri);

    expect(moved.status).toBe(200);
    expect(reuseMovedFrom?.status).toBe(201);
    expect([clashMovedTo?.status, clashMovedTo?.body.error_code]).toEqual([400, 'conflict']);
    expect(reuseDeleted?.status).toBe(201);
    expect(firstPage.body.ip_policy_rules.map((r: { cidr: string }) => r.cidr)).toEqual([
      '10.1.0.0/16',
      '10.0.0.0/8',
    ]);
    expect(secondPage.body.ip_policy_rules.map((r: { id: string }) => r.id)).toEqual([
      c?.body.id,
      a?.body.id,
    ]);
    expect(secondPage.body.next_page_uri).toBeNull();
  });
});
