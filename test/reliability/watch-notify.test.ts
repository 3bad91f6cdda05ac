import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import {
  assertBuilt,
  callService,
  type DaemonProcess,
  eventually,
  getStatus,
  listRules,
  type RuleSpec,
  rulesManifest as rulesManifestOf,
  startDaemon,
} from '../watch/daemon-process.js';
import { parsePrometheusText, sampleSum } from '../watch/prometheus-text.js';
import { type SwitchableService, startSwitchableService } from '../watch/switchable-service.js';
import { eventsOf, notifications, startReceiver, type WebhookReceiver } from '../watch/webhook-receivers.js';

const POLICY = 'ipp_WatchNotifyTestPolicy000001';
const OWNER = 'notify-tests';
const rulesManifest = (rules: Record<string, RuleSpec>): string => rulesManifestOf(POLICY, rules);
const EDGE = 'edghts_NotifyTestEdge0000000000001';
const ROUTE = 'edghtsrt_NotifyTestRoute000000000001';
const CLIENT_SECRET = 'oidc-client-secret-never-shown-42';
/** An edge whose route's OIDC module carries a client secret from the environment. */
const edgesManifest = (scope: string): string =>
  `version: 1\nhttps_edges:\n  web:\n    id: ${EDGE}\n    hostports: [web.notify.example.com:443]\n    routes:\n      - id: ${ROUTE}\n        oidc:\n          issuer: https://accounts.example.com\n          client_id: edge-app\n          client_secret: { env: NOTIFY_OIDC_SECRET }\n          scopes: [openid, ${scope}]\n`;
const CA_PEM = resolve(import.meta.dirname, '../fixtures/certs/corp-root.pem');

async function metric(
  daemon: DaemonProcess,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  return sampleSum(parsePrometheusText(await (await fetch(`${daemon.url}/metrics`)).text()), name, labels);
}

/** Resolves once `receiver` got `event` (`count` times), with the receiver's events so far. */
function received(receiver: WebhookReceiver, event: string, count = 1): Promise<string[]> {
  return eventually(() => {
    const events = eventsOf(receiver);
    return events.filter((seen) => seen === event).length >= count ? events : undefined;
  }, 30_000);
}

// Here, not in `npm test`, because each case drives a daemon through many reconciles (about 20 s in
// all). In `npm test`, test/notify/notification-tracker.test.ts holds which event is said once and when
// its end is said, test/notify/notifier.test.ts a receiver that hangs (queue bound, no wait), and
// test/notify/webhook-target.test.ts URLs shown as scheme://host/… only and the bodies' text.
describe('edgesync watch --notify (the daemon as a process, local webhook receivers)', () => {
  let emulator: RunningEmulator;
  let hop: SwitchableService;
  let dir: string;
  let manifests: string;
  let daemon: DaemonProcess | undefined;
  const receivers: WebhookReceiver[] = [];

  const receiver = async (...args: Parameters<typeof startReceiver>): Promise<WebhookReceiver> => {
    const started = await startReceiver(...args);
    receivers.push(started);
    return started;
  };

  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    emulator = await startEmulator({
      seed: {
        ip_policies: [{ id: POLICY, description: 'notify tests' }],
        https_edges: [
          {
            id: EDGE,
            hostports: ['web.notify.example.com:443'],
            routes: [{ id: ROUTE, match_type: 'path_prefix', match: '/app' }],
          },
        ],
        // Another owner's rule: an entry claiming its CIDR is skipped every reconcile.
        ip_policy_rules: [
          { ip_policy_id: POLICY, cidr: '198.51.100.0/24', action: 'deny', description: 'not ours' },
        ],
      },
    });
    hop = await startSwitchableService(emulator);
    dir = await mkdtemp(join(tmpdir(), 'edgesync-watch-notify-'));
    manifests = join(dir, 'manifests');
    await mkdir(join(manifests, 'certs'), { recursive: true });
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await Promise.all(receivers.splice(0).map((started) => started.close()));
    await hop.close();
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('posts each event once, then its end once, to a receiver, with no secret in any body, log line or /status', async () => {
    const hook = await receiver('ok', 'T0NOTIFY/B0NOTIFY/sl4ckT0kenNeverShown9');
    await copyFile(CA_PEM, join(manifests, 'certs/corp-root.pem'));
    await writeFile(
      join(manifests, 'ca.yaml'),
      'version: 1\ncertificate_authorities:\n  corp-root:\n    ca_pem_file: certs/corp-root.pem\n',
    );
    const edges = join(manifests, 'edges.yaml');
    await writeFile(edges, edgesManifest('email'));
    const rules = join(manifests, 'rules.yaml');
    await writeFile(rules, rulesManifest({ office: { cidr: '203.0.113.0/24' } }));
    daemon = await startDaemon(
      hop.service,
      [
        manifests,
        '--owner',
        OWNER,
        '--interval',
        '1s',
        '--rate-limit',
        '6000/60s',
        '--settle',
        '0s',
        '--notify-timeout',
        '2s',
        '--notify-retries',
        '1',
        // Every CA is near its end in a window of a century: the fixture's is notified at once.
        '--ca-expiry-warning',
        '36500d',
      ],
      dir,
      // The URL comes from the environment, as the docs advise for a secret.
      { EDGESYNC_NOTIFY: hook.url, NOTIFY_OIDC_SECRET: CLIENT_SECRET },
    );
    const running = daemon;
    await received(hook, 'ca_expiring');
    const office = await eventually(async () =>
      (await listRules(emulator)).find((r) => r.cidr === '203.0.113.0/24'),
    );

    // Invalid manifests, twice over (two reconciles see them), then valid again.
    await writeFile(
      rules,
      `${rulesManifest({ office: { cidr: '203.0.113.0/24' } })}  broken:\n    ip_policy_id: ${POLICY}\n    cidr: 10.0.0.0/99\n    action: allow\n`,
    );
    await received(hook, 'manifests_invalid');
    await eventually(async () =>
      (await getStatus(running)).last_reconcile?.result === 'invalid' ? true : undefined,
    );
    await writeFile(rules, rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'v2' } }));
    await received(hook, 'manifests_valid');

    // A service that refuses every write and echoes the API key and the body (the OIDC module's client
    // secret): a failure repeated by every retry.
    hop.rejectWrites = true;
    await writeFile(edges, edgesManifest('profile'));
    await writeFile(rules, rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'v3' } }));
    await received(hook, 'reconcile_failed');
    await eventually(async () =>
      (await metric(running, 'edgesync_reconciles_total', { result: 'failed' })) >= 3 ? true : undefined,
    );
    hop.rejectWrites = false;
    await received(hook, 'reconcile_recovered');

    // Drift behind the daemon's back, corrected by a background read.
    await callService(emulator, 'PATCH', `/ip_policy_rules/${office.id}`, { description: 'changed by hand' });
    await received(hook, 'drift_corrected');

    // An empty manifest set is refused (the daemon never prunes everything), then restored.
    await rm(join(manifests, 'ca.yaml'));
    await rm(edges);
    await writeFile(rules, 'version: 1\n');
    await received(hook, 'reconcile_refused');
    await writeFile(rules, rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'v3' } }));
    await received(hook, 'reconcile_recovered', 2);

    // An entry whose CIDR another owner holds: skipped every reconcile, stuck after three, then dropped.
    await writeFile(
      rules,
      rulesManifest({
        office: { cidr: '203.0.113.0/24', description: 'v3' },
        lab: { cidr: '198.51.100.0/24', action: 'deny' },
      }),
    );
    await received(hook, 'entry_stuck');
    await writeFile(rules, rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'v3' } }));
    await received(hook, 'entry_recovered');
    const status = await getStatus(running);
    const failedReconciles = await metric(running, 'edgesync_reconciles_total', { result: 'failed' });
    const logs = running.stderr();
    await running.stop('SIGTERM');
    daemon = undefined;

    const events = eventsOf(hook);
    const bodies = notifications(hook);
    expect(failedReconciles).toBeGreaterThanOrEqual(3);
    expect(events.filter((event) => event === 'reconcile_failed')).toHaveLength(1);
    expect(events.filter((event) => event === 'manifests_invalid')).toHaveLength(1);
    expect(events.filter((event) => event === 'ca_expiring')).toHaveLength(1);
    expect(events.filter((event) => event === 'entry_stuck')).toHaveLength(1);
    expect(events.indexOf('reconcile_failed')).toBeLessThan(events.indexOf('reconcile_recovered'));
    for (const body of bodies) {
      expect(body).toMatchObject({ owner: OWNER, mode: 'enforce', instance: null, text: expect.any(String) });
      expect(String(body.text)).toMatch(
        new RegExp(`^\\[${String(body.severity)}\\] edgesync ${OWNER} on ${String(body.service)}: `),
      );
    }
    const invalid = bodies.find((body) => body.event === 'manifests_invalid');
    expect(invalid?.errors).toEqual([
      expect.objectContaining({
        file: expect.stringContaining('rules.yaml'),
        line: 9,
        location: expect.stringMatching(/rules\.yaml:9:\d+$/),
      }),
    ]);
    expect(String(invalid?.text)).toMatch(/rules\.yaml:9:\d+: /);
    const failed = bodies.find((body) => body.event === 'reconcile_failed');
    expect(JSON.stringify(failed)).toContain('write refused for Bearer [REDACTED]');
    expect(JSON.stringify(failed)).toContain('client_secret');
    const stuck = bodies.find((body) => body.event === 'entry_stuck');
    expect(stuck?.summary).toContain('ip_policy_rules.lab');
    const expiring = bodies.find((body) => body.event === 'ca_expiring');
    expect(expiring?.errors).toEqual([
      expect.objectContaining({ file: expect.stringContaining('ca.yaml'), line: 3 }),
    ]);
    // No secret anywhere: not the API key, not the webhook's token, not its whole URL.
    for (const text of [...hook.bodies, logs, JSON.stringify(status)]) {
      expect(text).not.toContain(emulator.apiKey);
      expect(text).not.toContain(CLIENT_SECRET);
      expect(text).not.toContain(hook.token);
      expect(text).not.toContain('sl4ckT0kenNeverShown9');
    }
    expect(status.notifications?.targets).toEqual([`http://${new URL(hook.url).host}/…`]);
  }, 120_000);

  it('delays no edit for a receiver that hangs, fails (500) or is gone, and counts each delivery given up', async () => {
    const ok = await receiver('ok', 'okToken0000000000000001');
    const hang = await receiver('hang', 'hangToken00000000000002');
    const fail = await receiver('fail', 'failToken00000000000003');
    const gone = await receiver('gone', 'goneToken00000000000004');
    const urls = join(dir, 'notify-urls');
    await writeFile(urls, `# receivers that fail\n${fail.url}\n\n${gone.url}\n`);
    const rules = join(manifests, 'rules.yaml');
    await writeFile(rules, rulesManifest({ office: { cidr: '203.0.113.0/24' } }));
    daemon = await startDaemon(
      hop.service,
      [
        manifests,
        '--owner',
        OWNER,
        '--rate-limit',
        '6000/60s',
        '--notify-file',
        urls,
        // Long enough that the hanging receiver holds its first post for the whole test.
        '--notify-timeout',
        '120s',
        '--notify-retries',
        '1',
      ],
      dir,
      { EDGESYNC_NOTIFY: `${ok.url} ${hang.url}` },
    );
    const running = daemon;
    await eventually(async () => (await listRules(emulator)).find((r) => r.cidr === '203.0.113.0/24'));

    await writeFile(rules, `${rulesManifest({ office: { cidr: '203.0.113.0/24' } })}  broken: 1\n`);
    await received(ok, 'manifests_invalid');
    await eventually(() => (hang.open() === 1 ? true : undefined));
    await writeFile(
      rules,
      rulesManifest({ office: { cidr: '203.0.113.0/24' }, lab: { cidr: '192.0.2.0/24', action: 'deny' } }),
    );
    const lab = await eventually(async () =>
      (await listRules(emulator)).find((r) => r.cidr === '192.0.2.0/24'),
    );
    const hangHeldThen = { open: hang.open(), received: hang.bodies.length };
    await received(ok, 'manifests_valid');
    const failed = await eventually(async () => {
      const rejected = await metric(running, 'edgesync_notifications_failed_total', { reason: 'rejected' });
      const unreachable = await metric(running, 'edgesync_notifications_failed_total', {
        reason: 'unreachable',
      });
      return rejected >= 2 && unreachable >= 2 ? { rejected, unreachable } : undefined;
    });
    const delivered = await metric(running, 'edgesync_notifications_delivered_total');
    const status = await getStatus(running);
    // A receiver that never answers holds no shutdown.
    const exitCode = await running.stop('SIGTERM');
    daemon = undefined;

    expect(exitCode).toBe(0);
    // The edit reached the service while the hanging receiver still held the first post, unanswered.
    expect(lab.action).toBe('deny');
    expect(hangHeldThen).toEqual({ open: 1, received: 1 });
    expect(eventsOf(ok)).toEqual(['manifests_invalid', 'manifests_valid']);
    // Two notifications, each tried twice (--notify-retries 1) at the failing receiver, then given up.
    expect(fail.bodies).toHaveLength(4);
    expect(failed).toEqual({ rejected: 2, unreachable: 2 });
    expect(delivered).toBe(2);
    expect(status.notifications).toMatchObject({ sent: 2, delivered: 2, failed: 4 });
    expect(status.notifications?.targets).toHaveLength(4);
    for (const target of [ok, hang, fail, gone]) expect(running.stderr()).not.toContain(target.token);
  }, 60_000);

  it('in observe mode, posts drift found once however many reconciles see it, and once when it is gone', async () => {
    const hook = await receiver('ok', 'observeToken00000000005');
    const rules = join(manifests, 'rules.yaml');
    await writeFile(rules, rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'wanted' } }));
    const created = await callService(emulator, 'POST', '/ip_policy_rules', {
      ip_policy_id: POLICY,
      cidr: '203.0.113.0/24',
      action: 'allow',
      description: 'wanted',
      metadata: JSON.stringify({ edgesync: { owner: OWNER, name: 'office' } }),
    });
    const id = (created.body as { id: string }).id;
    daemon = await startDaemon(
      hop.service,
      [manifests, '--mode', 'observe', '--owner', OWNER, '--interval', '1s', '--rate-limit', '6000/60s'],
      dir,
      { EDGESYNC_NOTIFY: hook.url },
    );
    const running = daemon;
    await eventually(async () =>
      (await getStatus(running)).last_reconcile?.result === 'in-sync' ? true : undefined,
    );

    await callService(emulator, 'PATCH', `/ip_policy_rules/${id}`, { description: 'changed by hand' });
    await received(hook, 'drift_found');
    await eventually(async () =>
      (await metric(running, 'edgesync_reconciles_total', { result: 'drift' })) >= 3 ? true : undefined,
    );
    await callService(emulator, 'PATCH', `/ip_policy_rules/${id}`, { description: 'wanted' });
    await received(hook, 'drift_resolved');

    const drift = notifications(hook).find((body) => body.event === 'drift_found');
    expect(eventsOf(hook)).toEqual(['drift_found', 'drift_resolved']);
    expect(drift).toMatchObject({ mode: 'observe' });
    expect(String(drift?.summary)).toContain('ip_policy_rules.office');
  }, 60_000);
});
