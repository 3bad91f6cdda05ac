import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  EVENT_SEVERITY,
  MAX_CHANGES,
  NOTIFICATION_EVENTS,
  webhookBody,
} from '../../src/notify/notification.js';
import { NotificationTracker, type ObservedStatus } from '../../src/notify/notification-tracker.js';
import { parseWebhookFile, parseWebhookUrl, webhookTargets } from '../../src/notify/webhook-target.js';
import type { FieldChange, ResourceChange } from '../../src/plan/plan.js';
import { notificationChanges } from '../../src/watch/notification-changes.js';
import { ROOT } from '../support/edgesync-cli.js';
import { useDaemonHarness } from '../watch/daemon-harness.js';
import { callService, listRules, rulesManifest } from '../watch/daemon-process.js';
import { eventsOf, notifications, startReceiver, type WebhookReceiver } from '../watch/webhook-receivers.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const POLICY = 'ipp_NotifyRulesTestPolicy000001';
const TRACKER = {
  identity: { owner: 'team-a', instance: 'eu-west', service: 'api.edge.example.com' },
  mode: 'enforce',
  statusPageUrl: 'https://edgesync.example.com/eu-west/',
} as const;

function status(result: string, live: string | null, more: Partial<ObservedStatus> = {}): ObservedStatus {
  return {
    lastReconcile: { trigger: 'resync', result },
    manifestsValid: true,
    manifestErrors: [],
    desiredHash: 'h1',
    lastError: result === 'failed' ? { code: 'network_error', message: 'unreachable' } : null,
    lastPlan: { changes: [], errors: [], applied: false },
    lastApply: null,
    skippedEntries: [],
    git: { checkoutCommit: live ?? A, lastAppliedCommit: live },
    ...more,
  };
}

describe('the notification rules (the tracker)', () => {
  it('says when a commit goes live, once per commit, naming it', () => {
    const tracker = new NotificationTracker(TRACKER);

    const first = tracker.observeReconcile(status('in-sync', A), NOW);
    const again = tracker.observeReconcile(status('in-sync', A), NOW);
    const pending = tracker.observeReconcile(
      status('settling', A, { git: { checkoutCommit: B, lastAppliedCommit: A } }),
      NOW,
    );
    const next = tracker.observeReconcile(status('applied', B), NOW);

    expect(first).toEqual([expect.objectContaining({ event: 'commit_live', commit: A, severity: 'info' })]);
    expect(first[0]?.summary).toBe('commit aaaaaaaaaaaa is live: the account holds what it says');
    expect(again).toEqual([]);
    expect(pending).toEqual([]);
    expect(next.map((notification) => [notification.event, notification.commit])).toEqual([
      ['commit_live', B],
    ]);
  });

  it('says "recovered" only when the failure has ended: not while entries are skipped or deletes settle', () => {
    const tracker = new NotificationTracker(TRACKER);
    const seen = (result: string): string[] =>
      tracker.observeReconcile(status(result, null), NOW).map((notification) => notification.event);

    const events = [seen('failed'), seen('partial'), seen('settling'), seen('failed'), seen('in-sync')];

    expect(events).toEqual([['reconcile_failed'], [], [], [], ['reconcile_recovered']]);
  });

  it('says "recovered" only once /readyz would answer 200: a success while not ready ends nothing', () => {
    const tracker = new NotificationTracker(TRACKER);
    const seen = (result: string, ready: boolean): string[] =>
      tracker
        .observeReconcile(status(result, null, { ready }), NOW)
        .map((notification) => notification.event);

    const events = [seen('refused', false), seen('in-sync', false), seen('applied', true)];

    expect(events).toEqual([['reconcile_refused'], [], ['reconcile_recovered']]);
  });

  it('observe mode: drift found names only what drifted, and drift has ended when only changes from Git are left', () => {
    const tracker = new NotificationTracker(TRACKER);
    const asked: (readonly string[])[] = [];
    const run = {
      correctedDrift: [],
      changes: (addresses: readonly string[]) => {
        asked.push(addresses);
        return { list: [], total: addresses.length };
      },
    };
    const observe = (result: string, drift: readonly string[]): string[] =>
      tracker
        .observeReconcile(
          status(result, null, {
            lastPlan: { changes: ['x.edited', ...drift], errors: [], applied: false },
            differences: { drift },
          }),
          NOW,
          run,
        )
        .map((notification) => `${notification.event}: ${notification.summary}`);

    const events = [observe('drift', ['x.widened']), observe('drift', ['x.widened']), observe('pending', [])];

    expect(events).toEqual([
      ['drift_found: drift found (observe mode, not corrected): 1 change(s): x.widened'],
      [],
      ['drift_resolved: no drift any more: what differs is from Git, not applied (observe mode)'],
    ]);
    expect(asked).toEqual([['x.widened']]);
  });

  it('gives every event a severity, and carries identity, the status page and the commit in each', () => {
    const tracker = new NotificationTracker(TRACKER);

    const [failed] = tracker.observeReconcile(status('failed', null), NOW);

    expect(Object.keys(EVENT_SEVERITY).sort()).toEqual([...NOTIFICATION_EVENTS].sort());
    expect(failed).toMatchObject({
      event: 'reconcile_failed',
      severity: 'error',
      identity: TRACKER.identity,
      statusPageUrl: TRACKER.statusPageUrl,
      commit: A,
    });
  });
});

describe('the notification format as docs/operations.md gives it', () => {
  it('lists every event with its severity, and every field of the body', async () => {
    const doc = await readFile(join(ROOT, 'docs', 'operations.md'), 'utf8');
    const section = (from: string, to: string): string => {
      const start = doc.indexOf(from);
      const end = doc.indexOf(to, start);
      expect(start, from).toBeGreaterThan(-1);
      expect(end, to).toBeGreaterThan(start);
      return doc.slice(start, end);
    };
    const documented: Record<string, string> = {};
    for (const [, events = '', severities = ''] of section('**Events.**', '**The body**').matchAll(
      /^\| (`[a-z_]+`(?:, `[a-z_]+`)*) \| ([a-z, ]+) \|/gm,
    )) {
      const levels = severities.split(', ');
      [...events.matchAll(/`([a-z_]+)`/g)].forEach(([, event = ''], index) => {
        documented[event] = levels[index] ?? '';
      });
    }
    const fields = [
      ...section('never escaped:', 'Each rule has its test').matchAll(/^\| `([a-z_]+)` \|/gm),
    ].map(([, field]) => field);
    const body = webhookBody(
      new NotificationTracker(TRACKER).observeEvent('commit_live', 'live', NOW),
      'json',
    );

    expect(documented).toEqual(EVENT_SEVERITY);
    expect(fields.sort()).toEqual(
      Object.keys(body)
        .filter((key) => key !== 'text')
        .sort(),
    );
  });
});

describe('the changed fields a drift event lists', () => {
  const field = (path: string, before: unknown, after: unknown, sensitive = false): FieldChange => ({
    path,
    before,
    after,
    sensitive,
    forcesReplace: false,
  });
  const change = (address: string, fields: readonly FieldChange[]): ResourceChange => ({
    address,
    op: 'update',
    kind: 'ip_policy_rules',
    name: address.split('.')[1] as string,
    changes: fields,
    reason: 'changed',
    actionKeys: [`update:${address}`],
  });

  it('gives old and new values when short, names a secret or a long value without it, and counts past the list', () => {
    const pem = `-----BEGIN CERTIFICATE-----\n${'A'.repeat(64)}\n-----END CERTIFICATE-----`;
    const planned = [
      change('ip_policy_rules.office', [
        field('cidr', '203.0.0.0/16', '203.0.113.0/24'),
        field('action', 'allow', 'deny'),
      ]),
      change('oidc.app', [
        field('client_secret', 'hunter2-old', 'hunter2-new', true),
        field('ca_pem', pem, 'x'),
      ]),
      ...Array.from({ length: MAX_CHANGES + 5 }, (_, index) => change(`ip_policy_rules.r${index}`, [])),
    ];

    const listed = notificationChanges(planned, planned.map((one) => one.address).slice(1));
    const office = notificationChanges(planned, ['ip_policy_rules.office']);

    expect(office).toEqual({
      list: [
        {
          address: 'ip_policy_rules.office',
          op: 'update',
          fields: [
            { path: 'cidr', sensitive: false, before: '203.0.0.0/16', after: '203.0.113.0/24' },
            { path: 'action', sensitive: false, before: 'allow', after: 'deny' },
          ],
        },
      ],
      total: 1,
    });
    expect(listed.total).toBe(MAX_CHANGES + 6);
    expect(listed.list).toHaveLength(MAX_CHANGES);
    expect(listed.list[0]?.fields).toEqual([
      { path: 'client_secret', sensitive: true },
      { path: 'ca_pem', sensitive: false, after: 'x' },
    ]);
    const body = webhookBody(
      {
        event: 'drift_corrected',
        severity: 'warning',
        identity: TRACKER.identity,
        mode: 'enforce',
        statusPageUrl: null,
        commit: null,
        summary: 'drift corrected',
        errors: [],
        changes: listed.list,
        changeCount: listed.total,
        at: new Date(NOW).toISOString(),
      },
      'json',
    );
    expect(JSON.stringify(body)).not.toContain('hunter2');
    expect(String(body.text)).toContain('• oidc.app (update): client_secret (sensitive); ca_pem (none) → x');
    expect(String(body.text)).toContain('… and 6 more changes');
    expect(body.change_count).toBe(MAX_CHANGES + 6);
  });
});

describe('event filters per target', () => {
  it('reads events= on a --notify-file line and --notify-events for --notify; an unknown event is an error naming its place', () => {
    const file = parseWebhookFile(
      [
        'https://hooks.example.com/all',
        'discord https://discord.example.com/live events=commit_live,daemon_stuck',
        'https://hooks.example.com/pager events=reconcile_failed',
      ].join('\n'),
      'notify',
    );
    const flagged = webhookTargets(
      ['https://hooks.example.com/flag'],
      'slack',
      undefined,
      new Set(['entry_stuck']),
    );

    expect(file.map((target) => [target.format, target.events === null ? null : [...target.events]])).toEqual(
      [
        ['slack', null],
        ['discord', ['commit_live', 'daemon_stuck']],
        ['slack', ['reconcile_failed']],
      ],
    );
    expect([...(flagged[0]?.events ?? [])]).toEqual(['entry_stuck']);
    expect(() => parseWebhookFile('https://hooks.example.com/x events=comit_live', 'notify')).toThrow(
      /^notify:1: unknown event "comit_live"; expected a comma-separated list of commit_live, /,
    );
    expect(parseWebhookUrl('https://hooks.example.com/x', 'test').events).toBeNull();
  });
});

describe('notifications from a daemon in process, to local receivers', () => {
  const startDaemon = useDaemonHarness();
  const receivers: WebhookReceiver[] = [];
  afterEach(async () => {
    for (const receiver of receivers.splice(0)) await receiver.close();
  });

  it('drift put back while deletes are held is said, naming only what drifted; the held delete gone later is not drift', async () => {
    const hook = await startReceiver('ok', 'settlingToken000000001');
    receivers.push(hook);
    const rules = { office: { cidr: '203.0.113.0/24' }, lab: { cidr: '198.51.100.0/24' } };
    const daemon = await startDaemon({
      emulator: { seed: { ip_policies: [{ id: POLICY }] } },
      owner: 'team-a',
      // Longer than the interval: the resync after the drift finds the delete still held.
      settleMs: 4 * 3_600_000,
      files: { 'manifests/rules.yaml': rulesManifest(POLICY, rules) },
      notify: {
        targets: [parseWebhookUrl(hook.url, 'test', 'json')],
        timeoutMs: 5000,
        retries: 0,
        expiryWindowMs: 0,
        scrub: (text) => text,
        statusPageUrl: null,
        instance: null,
        service: 'api.edge.example.com',
      },
    });
    await daemon.record(1, async () => (await listRules(daemon.emulator)).length === 2);
    await daemon.change(
      () => daemon.write('manifests/rules.yaml', rulesManifest(POLICY, { office: rules.office })),
      (record) => record.differences.held.length > 0,
    );
    const office = (await listRules(daemon.emulator)).find((rule) => rule.cidr === '203.0.113.0/24');

    await callService(daemon.emulator, 'PATCH', `/ip_policy_rules/${office?.id}`, { cidr: '203.0.0.0/16' });
    const resync = daemon.records.length + 1;
    await daemon.advance(daemon.intervalMs);
    const corrector = await daemon.record(resync, (record) => (record.run?.correctedDrift.length ?? 0) > 0);
    await daemon.advance(4 * 3_600_000);
    await daemon.record(corrector.runs + 1, async () => (await listRules(daemon.emulator)).length === 1);
    await daemon.stop();
    const [corrected, ...more] = notifications(hook);

    expect(corrector.differences.held).toEqual(['ip_policy_rules.lab']);
    expect(corrected).toMatchObject({
      event: 'drift_corrected',
      summary: 'drift corrected: 1 change(s): ip_policy_rules.office',
      changes: [
        {
          address: 'ip_policy_rules.office',
          op: 'update',
          fields: [{ path: 'cidr', sensitive: false, before: '203.0.0.0/16', after: '203.0.113.0/24' }],
        },
      ],
      change_count: 1,
    });
    expect(more.map((body) => body.event)).toEqual([]);
  });

  it('the commit goes live, drift names the fields with old and new values, every body says who, how bad, where to look and which commit; a target gets only its events', async () => {
    const all = await startReceiver('ok', 'allEventsToken00000001');
    const live = await startReceiver('ok', 'liveOnlyToken00000001');
    receivers.push(all, live);
    const targets = parseWebhookFile(`json ${all.url}\njson ${live.url} events=commit_live`, 'notify');
    const daemon = await startDaemon({
      emulator: { seed: { ip_policies: [{ id: POLICY }] } },
      owner: 'team-a',
      prepare: async (dir) => {
        await mkdir(join(dir, '.git'));
        await writeFile(join(dir, '.git', 'HEAD'), `${A}\n`);
      },
      files: {
        'manifests/rules.yaml': rulesManifest(POLICY, { office: { cidr: '203.0.113.0/24', action: 'deny' } }),
      },
      notify: {
        targets,
        timeoutMs: 5000,
        retries: 0,
        expiryWindowMs: 0,
        scrub: (text) => text,
        statusPageUrl: 'https://edgesync.example.com/eu-west/',
        instance: 'eu-west',
        service: 'api.edge.example.com',
      },
    });
    await daemon.record(1);
    const office = (await listRules(daemon.emulator)).find((rule) => rule.cidr === '203.0.113.0/24');

    // The service sets a rule's action at creation only: someone replaced it, keeping its metadata.
    await callService(daemon.emulator, 'DELETE', `/ip_policy_rules/${office?.id}`);
    await callService(daemon.emulator, 'POST', '/ip_policy_rules', {
      ip_policy_id: POLICY,
      cidr: '203.0.0.0/16',
      action: 'allow',
      metadata: office?.metadata,
    });
    const next = daemon.records.length + 1;
    await daemon.advance(daemon.intervalMs);
    await daemon.record(next, (record) => record.lastReconcile?.result === 'applied');
    await all.until(() => eventsOf(all).includes('drift_corrected'));
    // Stopping sends what is queued to every target: live's has had its chance at drift_corrected.
    await daemon.stop();
    const bodies = notifications(all);
    const drift = bodies.find((body) => body.event === 'drift_corrected') as Record<string, unknown>;

    expect(eventsOf(all)).toEqual(['commit_live', 'drift_corrected']);
    expect(eventsOf(live)).toEqual(['commit_live']);
    for (const body of bodies) {
      expect(body).toMatchObject({
        owner: 'team-a',
        instance: 'eu-west',
        service: 'api.edge.example.com',
        status_page_url: 'https://edgesync.example.com/eu-west/',
        commit: A,
      });
      expect(['info', 'warning']).toContain(body.severity);
    }
    expect(drift.severity).toBe('warning');
    expect(drift.changes).toEqual([
      {
        address: 'ip_policy_rules.office',
        op: 'replace',
        fields: [
          { path: 'cidr', sensitive: false, before: '203.0.0.0/16', after: '203.0.113.0/24' },
          { path: 'action', sensitive: false, before: 'allow', after: 'deny' },
        ],
      },
    ]);
    expect(String(drift.text)).toContain(
      '• ip_policy_rules.office (replace): cidr 203.0.0.0/16 → 203.0.113.0/24; action allow → deny',
    );
    expect(String(drift.text)).toMatch(
      /^\[warning\] edgesync team-a\/eu-west on api\.edge\.example\.com: drift corrected/,
    );
    expect(String(drift.text)).toContain('status: https://edgesync.example.com/eu-west/');
  });
});
