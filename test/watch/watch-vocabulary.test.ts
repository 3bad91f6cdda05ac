import { describe, expect, it } from 'vitest';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import { SYNC_STATE_MEANINGS } from '../../src/sync-state.js';
import { runEdgesyncInProcess } from '../support/edgesync-cli.js';
import { type DaemonHarness, useDaemonHarness } from './daemon-harness.js';
import { callService, listRules, rulesManifest as rulesManifestOf } from './daemon-process.js';
import { sampleSum } from './prometheus-text.js';

const POLICY = 'ipp_WatchVocabularyPolicy000001';
const OWNER = 'vocabulary';
const FILE = 'manifests/rules.yaml';
const OFFICE = { cidr: '203.0.113.0/24', description: 'office' };
const LAB = { cidr: '198.51.100.0/24' };
const rulesManifest = (rules: Record<string, { cidr: string; description?: string }>): string =>
  rulesManifestOf(POLICY, rules);

/** The daemon's `/status.differences`: what still differs, by the vocabulary's words. */
interface Differences {
  readonly pending: readonly string[];
  readonly drift: readonly string[];
  readonly held: readonly string[];
  readonly skipped: readonly string[];
}

async function differences(daemon: DaemonHarness): Promise<Differences | undefined> {
  return ((await daemon.status()) as { differences?: Differences }).differences;
}

/** The daemon's log lines of one state: their message is the state's name. */
function loggedAs(daemon: DaemonHarness, state: string): unknown[] {
  return daemon.logs.filter((line) => line.msg === state && line.state === state).map((line) => line.address);
}

describe('the daemon names what differs in the one vocabulary: /status, the page, the metrics, the logs, edgesync status', () => {
  const startDaemon = useDaemonHarness();

  it('observe mode: a change behind its back is drift, a new entry is pending, each said as such everywhere', async () => {
    // The account already holds the office rule as the manifests say, marked for this owner.
    const daemon = await startDaemon({
      emulator: {
        seed: {
          ip_policies: [{ id: POLICY, description: 'vocabulary tests' }],
          ip_policy_rules: [
            {
              ip_policy_id: POLICY,
              action: 'allow',
              ...OFFICE,
              metadata: encodeMetadata({}, { owner: OWNER, name: 'office' }),
            },
          ],
        },
      },
      owner: OWNER,
      mode: 'observe',
      files: { [FILE]: rulesManifest({ office: OFFICE }) },
    });
    await daemon.record(1, (record) => record.lastReconcile?.result === 'in-sync');

    const [office] = await listRules(daemon.emulator);
    await callService(daemon.emulator, 'PATCH', `/ip_policy_rules/${office?.id}`, {
      description: 'changed by hand',
    });
    await daemon.change(() => daemon.write(FILE, rulesManifest({ office: OFFICE, lab: LAB })));
    await daemon.advance(daemon.intervalMs);
    await daemon.record(daemon.records.length, (record) => record.differences.drift.length > 0);
    const found = await differences(daemon);
    const status = await daemon.status();
    const page = await (await fetch(`${daemon.url}/`)).text();
    const samples = await daemon.metrics();
    const screen = await runEdgesyncInProcess(['status', '--daemon-url', daemon.url]);

    expect(found).toEqual({
      pending: ['ip_policy_rules.lab'],
      drift: ['ip_policy_rules.office'],
      held: [],
      skipped: [],
    });
    expect(status.last_reconcile?.result).toBe('drift');
    expect((status as { version?: string }).version).toMatch(/^\d+\.\d+\.\d+/);
    expect(page).toContain(`<span class="badge warn">pending</span> ${SYNC_STATE_MEANINGS.pending}`);
    expect(page).toContain(
      '<span class="badge warn">drift</span> the account changed behind edgesync&#39;s back',
    );
    // Each object in its row with its state: office drifted, lab pending.
    expect(page).toMatch(
      /office<\/code><\/td><td><code class="id">ipr_<wbr>\w+<\/code><\/td><td><span class="badge warn">drift</,
    );
    expect(page).toMatch(
      />lab<\/code><\/td><td><code class="id"><span class="muted">-<\/span><\/code><\/td><td><span class="badge warn">pending</,
    );
    expect(page).toContain('1 pending, 1 drift');
    expect(page).toMatch(/<footer>edgesync \d+\.\d+\.\d+/);
    expect(sampleSum(samples, 'edgesync_differences', { state: 'pending' })).toBe(1);
    expect(sampleSum(samples, 'edgesync_differences', { state: 'drift' })).toBe(1);
    expect(sampleSum(samples, 'edgesync_differences', { state: 'held' })).toBe(0);
    expect(screen.stdout).toMatch(/^pending +1 \(observe mode: not applied\): ip_policy_rules\.lab$/m);
    expect(screen.stdout).toMatch(/^drift +1 \(observe mode: not applied\): ip_policy_rules\.office$/m);
    expect(screen.stdout).toMatch(/^daemon +\S+ \(edgesync \d+\.\d+\.\d+\)$/m);
    expect(loggedAs(daemon, 'pending')).toContain('ip_policy_rules.lab');
    expect(loggedAs(daemon, 'drift')).toContain('ip_policy_rules.office');
    expect(loggedAs(daemon, 'drift')).not.toContain('ip_policy_rules.lab');
  });

  it('enforce mode: drift put back and new entries applied are counted apart, and a removed entry is held until it settles', async () => {
    const daemon = await startDaemon({
      emulator: { seed: { ip_policies: [{ id: POLICY, description: 'vocabulary tests' }] } },
      owner: OWNER,
      settleMs: 3_600_000,
      files: { [FILE]: rulesManifest({ office: OFFICE }) },
    });
    await daemon.record(1, async () => (await listRules(daemon.emulator)).length === 1);
    const [office] = await listRules(daemon.emulator);
    await callService(daemon.emulator, 'PATCH', `/ip_policy_rules/${office?.id}`, {
      description: 'changed by hand',
    });
    await daemon.advance(daemon.intervalMs);
    await daemon.record(2, async () =>
      (await listRules(daemon.emulator)).some((rule) => rule.description === 'office'),
    );
    await daemon.change(
      () => daemon.write(FILE, rulesManifest({ office: OFFICE, lab: LAB })),
      async () => (await listRules(daemon.emulator)).length === 2,
    );
    await daemon.change(
      () => daemon.write(FILE, rulesManifest({ lab: LAB })),
      (record) => record.differences.held.length > 0,
    );
    const held = await differences(daemon);
    const samples = await daemon.metrics();

    expect(held).toEqual({ pending: [], drift: [], held: ['ip_policy_rules.office'], skipped: [] });
    expect(sampleSum(samples, 'edgesync_applied_changes_total', { state: 'drift' })).toBe(1);
    expect(sampleSum(samples, 'edgesync_applied_changes_total', { state: 'pending' })).toBe(2);
    expect(sampleSum(samples, 'edgesync_differences', { state: 'held' })).toBe(1);
    expect(loggedAs(daemon, 'held')).toEqual(['ip_policy_rules.office']);
    expect(loggedAs(daemon, 'drift')).toEqual(['ip_policy_rules.office']);
    expect(loggedAs(daemon, 'pending')).toEqual(['ip_policy_rules.office', 'ip_policy_rules.lab']);
  });
});
