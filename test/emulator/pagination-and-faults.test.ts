import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type EmulatorHandle, openEmulator } from './emulator-client.js';

const POLICY = 'ipp_OfficeVpnPolicy000000000001';

/** Deterministic randomness: a small LCG from a seed. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

const open: EmulatorHandle[] = [];
async function start(options: Parameters<typeof openEmulator>[0]): Promise<EmulatorHandle> {
  const h = await openEmulator(options);
  open.push(h);
  return h;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.emulator.close()));
});

describe('emulator pagination', () => {
  it('pages 250 rules newest first with limit, before_id and an absolute next_page_uri', async () => {
    const h = await start({ seed: { ip_policies: [{ id: POLICY }] } });
    const created: string[] = [];
    for (let i = 0; i < 250; i += 1) {
      const r = await h.call('POST', '/ip_policy_rules', {
        cidr: `10.${i}.0.0/16`,
        ip_policy_id: POLICY,
        action: 'allow',
      });
      created.push(r.body.id);
    }

    const seen: string[] = [];
    const uris: (string | null)[] = [];
    let next: string | null = `${h.emulator.url}/ip_policy_rules?limit=100`;
    while (next) {
      const page = await h.call('GET', next);
      seen.push(...page.body.ip_policy_rules.map((r: { id: string }) => r.id));
      expect(page.body.uri).toBe(`${h.emulator.url}/ip_policy_rules`);
      next = page.body.next_page_uri;
      uris.push(next);
    }
    const defaultPage = await h.call('GET', '/ip_policy_rules');
    const small = await h.call('GET', '/ip_policy_rules?limit=3');

    expect(seen).toEqual([...created].reverse());
    expect(uris).toHaveLength(3);
    expect(uris[0]).toBe(`${h.emulator.url}/ip_policy_rules?limit=100&before_id=${created[150]}`);
    expect(uris[2]).toBeNull();
    expect(defaultPage.body.ip_policy_rules).toHaveLength(100);
    expect(small.body.ip_policy_rules.map((r: { id: string }) => r.id)).toEqual([
      created[249],
      created[248],
      created[247],
    ]);
  });

  it('keeps paging when the before_id item was deleted, and caps pages at pageSizeMax', async () => {
    const h = await start({ pageSizeMax: 2, seed: { ip_policies: [{ id: POLICY }] } });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push(
        (
          await h.call('POST', '/ip_policy_rules', {
            cidr: `10.0.${i}.0/24`,
            ip_policy_id: POLICY,
            action: 'deny',
          })
        ).body.id,
      );
    }

    const first = await h.call('GET', '/ip_policy_rules?limit=100');
    await h.call('DELETE', `/ip_policy_rules/${ids[3]}`);
    const second = await h.call('GET', first.body.next_page_uri);

    expect(first.body.ip_policy_rules.map((r: { id: string }) => r.id)).toEqual([ids[4], ids[3]]);
    expect(second.body.ip_policy_rules.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
  });
});

describe('emulator rate limit and faults', () => {
  it('answers 429 with Retry-After over a rolling window, counted in stats', async () => {
    let now = 1_000_000;
    const h = await start({ rateLimit: { requests: 3, windowMs: 10_000 }, now: () => now });

    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      statuses.push((await h.call('GET', '/ip_policy_rules')).status);
      now += 1_000;
    }
    now += 1_000;
    const limited = await h.call('GET', '/ip_policy_rules');
    now += 6_000;
    const afterWindow = await h.call('GET', '/ip_policy_rules');
    const stillLimited = await h.call('GET', '/ip_policy_rules');
    const stats = await fetch(`${h.emulator.url}/_emulator/stats`, {
      headers: { authorization: `Bearer ${h.emulator.apiKey}` },
    });

    expect(statuses).toEqual([200, 200, 200]);
    expect([limited.status, limited.body.error_code]).toEqual([429, 'rate_limited']);
    expect(limited.headers.get('retry-after')).toBe('6');
    expect(afterWindow.status).toBe(200);
    expect(stillLimited.status).toBe(429);
    expect(((await stats.json()) as { byStatus: unknown }).byStatus).toEqual({ '200': 4, '429': 2 });
  });

  it('answers a seeded share of requests 500/503 without applying them', async () => {
    const h = await start({
      faultRate: 0.5,
      random: seededRandom(7),
      seed: { ip_policies: [{ id: POLICY }] },
    });

    const statuses: number[] = [];
    for (let i = 0; i < 40; i += 1) {
      statuses.push(
        (
          await h.call('POST', '/ip_policy_rules', {
            cidr: `10.9.${i}.0/24`,
            ip_policy_id: POLICY,
            action: 'allow',
          })
        ).status,
      );
    }
    const faulted = statuses.filter((s) => s === 500 || s === 503).length;
    const stored: number[] = [];
    for (let attempt = 0; stored.length === 0 && attempt < 50; attempt += 1) {
      const list = await h.call('GET', '/ip_policy_rules');
      if (list.status === 200) stored.push(list.body.ip_policy_rules.length);
    }

    expect(faulted).toBeGreaterThan(5);
    expect(faulted).toBeLessThan(35);
    expect(statuses.every((s) => [201, 500, 503].includes(s))).toBe(true);
    expect(stored[0]).toBe(statuses.filter((s) => s === 201).length);
  });

  it('applies a dropped write and destroys the socket without a response', async () => {
    const h = await start({ dropRate: 1, seed: { ip_policies: [{ id: POLICY }] } });

    const attempt = h.call('POST', '/ip_policy_rules', {
      cidr: '10.7.0.0/16',
      ip_policy_id: POLICY,
      action: 'allow',
    });
    await expect(attempt).rejects.toThrow();
    const list = await h.call('GET', '/ip_policy_rules');
    const stats = await fetch(`${h.emulator.url}/_emulator/stats`, {
      headers: { authorization: `Bearer ${h.emulator.apiKey}` },
    });

    expect(list.body.ip_policy_rules.map((r: { cidr: string }) => r.cidr)).toEqual(['10.7.0.0/16']);
    expect(((await stats.json()) as { byStatus: unknown }).byStatus).toEqual({ dropped: 1, '200': 1 });
  });
});

describe('emulator persistence', () => {
  it('keeps the account across a restart with the same data file, and ignores the seed then', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'edgesync-emulator-'));
    try {
      const dataFile = join(dir, 'nested', 'data.json');
      const first = await openEmulator({ dataFile, seed: { ip_policies: [{ id: POLICY }] } });
      const rule = await first.call('POST', '/ip_policy_rules', {
        cidr: '10.3.0.0/16',
        ip_policy_id: POLICY,
        action: 'allow',
      });
      await first.emulator.close();
      const onDisk = JSON.parse(await readFile(dataFile, 'utf8'));

      const second = await start({
        dataFile,
        seed: { ip_policies: [{ id: 'ipp_NotLoaded0000000000000000000' }] },
      });
      const read = await second.call('GET', `/ip_policy_rules/${rule.body.id}`);
      const policies = await second.call('GET', '/ip_policies');
      const next = await second.call('POST', '/ip_policy_rules', {
        cidr: '10.4.0.0/16',
        ip_policy_id: POLICY,
        action: 'allow',
      });
      const list = await second.call('GET', '/ip_policy_rules');

      expect(onDisk.format).toBe('edgesync-emulator/1');
      expect(read.body).toEqual({
        ...rule.body,
        uri: `${second.emulator.url}/ip_policy_rules/${rule.body.id}`,
        ip_policy: { id: POLICY, uri: `${second.emulator.url}/ip_policies/${POLICY}` },
      });
      expect(policies.body.ip_policies.map((p: { id: string }) => p.id)).toEqual([POLICY]);
      expect(list.body.ip_policy_rules.map((r: { id: string }) => r.id)).toEqual([
        next.body.id,
        rule.body.id,
      ]);
    } finally {
      // The second emulator may still be writing its data file: close it before the directory goes.
      await Promise.all(open.splice(0).map((h) => h.emulator.close()));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
