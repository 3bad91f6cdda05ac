import { describe, expect, it } from 'vitest';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import { type DaemonHarness, useDaemonHarness } from './daemon-harness.js';
import { callService, listRules, rulesManifest as rulesManifestOf } from './daemon-process.js';

const POLICY = 'ipp_DaemonInventoryPolicy000001';
const OWNER = 'inventory';
const FILE = 'manifests/rules.yaml';
const rulesManifest = (rules: Record<string, { cidr: string; description?: string; action?: string }>) =>
  rulesManifestOf(POLICY, rules);
const marked = (name: string) => encodeMetadata({}, { owner: OWNER, name });

interface InventoryJson {
  readonly owner: string;
  readonly source: string;
  readonly as_of: { readonly reconcile: number; readonly finished_at: string } | null;
  readonly manifests_valid: boolean | null;
  readonly complete: boolean;
  readonly counts: Readonly<Record<string, number>>;
  readonly objects: readonly {
    readonly kind: string;
    readonly name: string;
    readonly id: string | null;
    readonly state: string;
    readonly reason: string | null;
    readonly fields: readonly string[];
    readonly source: string | null;
  }[];
  readonly next: string | null;
}

async function inventory(
  daemon: DaemonHarness,
  query = '',
): Promise<{ status: number; body: InventoryJson }> {
  const response = await fetch(`${daemon.url}/inventory${query}`);
  return { status: response.status, body: (await response.json()) as InventoryJson };
}

describe("the daemon's /inventory: what the owner manages, each object's state as only the daemon knows it", () => {
  const startDaemon = useDaemonHarness();

  it('observe mode: drift with the fields that changed, a create and a prune pending, no unmanaged object', async () => {
    const daemon = await startDaemon({
      emulator: {
        seed: {
          ip_policies: [{ id: POLICY, description: 'inventory tests' }],
          ip_policy_rules: [
            { ip_policy_id: POLICY, action: 'allow', cidr: '203.0.113.0/24', metadata: marked('office') },
            { ip_policy_id: POLICY, action: 'allow', cidr: '192.0.2.0/24', metadata: marked('old') },
            { ip_policy_id: POLICY, action: 'deny', cidr: '198.18.0.0/15', description: 'not ours' },
          ],
        },
      },
      owner: OWNER,
      mode: 'observe',
      settleMs: 0,
      files: {
        [FILE]: rulesManifest({ office: { cidr: '203.0.113.0/24' }, lab: { cidr: '198.51.100.0/24' } }),
      },
    });
    await daemon.record(1);
    const office = (await listRules(daemon.emulator)).find((rule) => rule.cidr === '203.0.113.0/24');
    await callService(daemon.emulator, 'PATCH', `/ip_policy_rules/${office?.id}`, { cidr: '203.0.0.0/16' });
    await daemon.advance(daemon.intervalMs);
    await daemon.record(2, (record) => record.differences.drift.length > 0);

    const all = await inventory(daemon);
    const drift = await inventory(daemon, '?state=drift');
    const pending = await inventory(daemon, '?state=pending,in_sync&kind=ip_policy_rules');

    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ owner: OWNER, source: 'daemon', manifests_valid: true, complete: true });
    expect(all.body.as_of?.reconcile).toBeGreaterThanOrEqual(2);
    expect(all.body.objects.map((object) => [object.name, object.state, object.fields])).toEqual([
      ['lab', 'pending', []],
      ['office', 'drift', ['cidr']],
      ['old', 'pending', []],
    ]);
    expect(all.body.objects.find((object) => object.name === 'office')).toMatchObject({
      id: office?.id,
      source: expect.stringMatching(/manifests\/rules\.yaml:3$/),
    });
    expect(all.body.objects.find((object) => object.name === 'lab')?.id).toBeNull();
    expect(all.body.objects.find((object) => object.name === 'old')?.reason).toMatch(/^delete: /);
    expect(all.body.counts).toEqual({ in_sync: 0, pending: 2, drift: 1, skipped: 0, held: 0 });
    expect(all.body.next).toBeNull();
    expect(drift.body.objects.map((object) => object.name)).toEqual(['office']);
    expect(drift.body.counts).toEqual({ in_sync: 0, pending: 0, drift: 1, skipped: 0, held: 0 });
    expect(pending.body.objects.map((object) => object.name)).toEqual(['lab', 'old']);
  });

  it('enforce mode: what the apply created has its new ID, what it deleted is gone, a skipped entry says why', async () => {
    const daemon = await startDaemon({
      emulator: {
        seed: {
          ip_policies: [{ id: POLICY, description: 'inventory tests' }],
          ip_policy_rules: [
            { ip_policy_id: POLICY, action: 'allow', cidr: '192.0.2.0/24', metadata: marked('old') },
            { ip_policy_id: POLICY, action: 'deny', cidr: '198.18.0.0/15', description: 'not ours' },
          ],
        },
      },
      owner: OWNER,
      settleMs: 0,
      files: {
        [FILE]: rulesManifest({
          office: { cidr: '203.0.113.0/24' },
          // Another owner's object holds this CIDR: the entry is skipped, the rest applied.
          taken: { cidr: '198.18.0.0/15', action: 'deny' },
        }),
      },
    });
    await daemon.record(1, (record) => record.lastReconcile?.result === 'partial');
    const rules = await listRules(daemon.emulator);

    const applied = await inventory(daemon);

    expect(applied.body.objects.map((object) => [object.name, object.state])).toEqual([
      ['office', 'in_sync'],
      ['taken', 'skipped'],
    ]);
    expect(applied.body.objects[0]?.id).toBe(rules.find((rule) => rule.cidr === '203.0.113.0/24')?.id);
    expect(applied.body.objects[1]?.reason).toMatch(/^unique_key_taken: /);
    expect(rules.map((rule) => rule.cidr)).not.toContain('192.0.2.0/24');
  });

  it('holds a delete while the manifests settle, and lists it as held', async () => {
    const daemon = await startDaemon({
      emulator: { seed: { ip_policies: [{ id: POLICY, description: 'inventory tests' }] } },
      owner: OWNER,
      settleMs: 60_000,
      files: { [FILE]: rulesManifest({ keep: { cidr: '192.0.2.0/24' }, old: { cidr: '198.51.100.0/24' } }) },
    });
    await daemon.record(1);
    await daemon.advance(60_000);
    await daemon.record(1, () => true);

    await daemon.change(() => daemon.write(FILE, rulesManifest({ keep: { cidr: '192.0.2.0/24' } })));
    const held = await inventory(daemon, '?state=held');

    expect(held.body.objects.map((object) => [object.name, object.state, object.source])).toEqual([
      ['old', 'held', null],
    ]);
    expect(held.body.objects[0]?.id).toMatch(/^ipr_/);
  });

  it('pages through 25 objects 10 at a time in order, each page after the one before, none twice or missed', async () => {
    const rules = Object.fromEntries(
      Array.from({ length: 25 }, (_, index) => [
        `rule-${String(index).padStart(2, '0')}`,
        { cidr: `10.0.${index}.0/24` },
      ]),
    );
    const daemon = await startDaemon({
      emulator: { seed: { ip_policies: [{ id: POLICY, description: 'inventory tests' }] } },
      owner: OWNER,
      files: { [FILE]: rulesManifest(rules) },
    });
    await daemon.record(1, (record) => record.lastReconcile?.result === 'applied');
    const whole = await inventory(daemon);

    const pages: InventoryJson[] = [];
    let after: string | null = null;
    do {
      const query: string = `?limit=10${after === null ? '' : `&after=${encodeURIComponent(after)}`}`;
      const page: InventoryJson = (await inventory(daemon, query)).body;
      pages.push(page);
      after = page.next;
    } while (after !== null && pages.length < 10);
    const rulePage = await inventory(daemon, '?kind=ip_policy_rules&limit=1000');

    expect(pages.map((page) => page.objects.length)).toEqual([10, 10, 5]);
    expect(pages[0]?.next).toBe('ip_policy_rules/rule-09');
    expect(pages.flatMap((page) => page.objects)).toEqual(whole.body.objects);
    expect(whole.body.objects.map((object) => object.name)).toEqual(Object.keys(rules));
    expect(whole.body.objects.every((object) => object.state === 'in_sync' && object.id !== null)).toBe(true);
    expect(pages.every((page) => page.counts.in_sync === 25)).toBe(true);
    expect(rulePage.body.objects).toHaveLength(25);
  });

  it.each([
    ['?limit=0', 'limit', 'limit: expected a whole number from 1 to 1000 (found "0")'],
    ['?limit=1001', 'limit', 'limit: expected a whole number from 1 to 1000 (found "1001")'],
    ['?limit=ten', 'limit', 'limit: expected a whole number from 1 to 1000 (found "ten")'],
    ['?limit=1e3', 'limit', 'limit: expected a whole number from 1 to 1000 (found "1e3")'],
    [
      '?state=drifted',
      'state',
      'state: expected states among in_sync, pending, drift, skipped, held (found "drifted")',
    ],
    ['?state=', 'state', 'state: empty (leave it out to list every state)'],
    ['?kind=rules', 'kind', 'kind: expected kinds among'],
    ['?after=office', 'after', 'after: expected KIND/NAME, the "next" of the page before (found "office")'],
    ['?after=nope/office', 'after', 'after: expected KIND/NAME'],
    ['?status=drift', 'status', 'status: not a parameter of /inventory (expected kind, state, after, limit)'],
    ['?state=drift&state=held', 'state', 'state: given more than once (give one comma-separated list)'],
  ])('refuses %s with a 400 that names the parameter', async (query, parameter, message) => {
    const daemon = await startDaemon({
      emulator: { seed: { ip_policies: [{ id: POLICY, description: 'inventory tests' }] } },
      owner: OWNER,
      files: { [FILE]: rulesManifest({ office: { cidr: '203.0.113.0/24' } }) },
    });
    await daemon.record(1);

    const response = await fetch(`${daemon.url}/inventory${query}`);
    const body = (await response.json()) as { error: { code: string; parameter: string; message: string } };

    expect(response.status).toBe(400);
    expect(body.error.code).toBe('invalid_parameter');
    expect(body.error.parameter).toBe(parameter);
    expect(body.error.message.startsWith(message)).toBe(true);
  });

  it('says it knows no object before the first plan, and keeps the last valid inventory while the manifests are invalid', async () => {
    const daemon = await startDaemon({
      emulator: { seed: { ip_policies: [{ id: POLICY, description: 'inventory tests' }] } },
      owner: OWNER,
      files: { [FILE]: 'version: 1\nip_policy_rules:\n  office:\n    cidr: [\n' },
    });
    await daemon.record(1);
    const none = await inventory(daemon);
    const first = await daemon.change(() =>
      daemon.write(FILE, rulesManifest({ office: { cidr: '203.0.113.0/24' } })),
    );

    const broken = await daemon.change(() => daemon.write(FILE, 'version: 1\nip_policy_rules: [\n'));
    const invalid = await inventory(daemon);

    expect(none.body).toMatchObject({ as_of: null, manifests_valid: false, objects: [], next: null });
    expect(invalid.body.manifests_valid).toBe(false);
    // The run that found them invalid planned the last valid ones again.
    expect(broken.runs).toBeGreaterThan(first.runs);
    expect(invalid.body.as_of?.reconcile).toBe(broken.runs);
    expect(invalid.body.objects.map((object) => [object.name, object.state])).toEqual([
      ['office', 'in_sync'],
    ]);
  });
});
