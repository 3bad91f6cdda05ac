import { afterEach, describe, expect, it } from 'vitest';
import { parseWebhookUrl } from '../../src/notify/webhook-target.js';
import { commitStatusEvent, DaemonEvents, notificationEvent } from '../../src/watch/daemon-events.js';
import { useDaemonHarness } from './daemon-harness.js';
import { rulesManifest } from './daemon-process.js';
import { eventsOf, startReceiver, type WebhookReceiver } from './webhook-receivers.js';

const POLICY = 'ipp_DaemonEventsTestPolicy00001';
const FILE = 'manifests/rules.yaml';

describe('the daemon events the status page lists', () => {
  it('keeps the last 50, newest first, whatever the uptime', () => {
    const events = new DaemonEvents();

    for (let at = 1; at <= 120; at += 1)
      events.add({ at, source: 'reconcile', tone: 'ok', text: `reconcile ${at}` });
    const listed = events.list();

    expect(listed).toHaveLength(50);
    expect(listed[0]?.text).toBe('reconcile 120');
    expect(listed.at(-1)?.text).toBe('reconcile 71');
  });

  it('says what a notification and a commit status post did, the target as shown, never its URL', () => {
    const made = notificationEvent(
      {
        type: 'made',
        event: 'drift_corrected',
        severity: 'warning',
        summary: 'ip_policy_rules.office: cidr',
      },
      1,
    );
    const failed = notificationEvent(
      { type: 'failed', target: 'https://hooks.example.com/…', reason: 'rejected' },
      2,
    );
    const posted = commitStatusEvent(
      'posted',
      '0123456789abcdef0123456789abcdef01234567',
      { status: { state: 'failure', description: 'manifests/rules.yaml:3: invalid' } as never },
      3,
    );
    const refused = commitStatusEvent(
      'refused',
      '0123456789abcdef0123456789abcdef01234567',
      { message: 'HTTP 401' },
      4,
    );

    expect(made).toEqual({
      at: 1,
      source: 'notification',
      tone: 'warn',
      text: 'drift_corrected [warning]: ip_policy_rules.office: cidr',
    });
    expect(failed).toMatchObject({
      tone: 'bad',
      text: 'not delivered to https://hooks.example.com/…: rejected',
    });
    expect(posted).toMatchObject({
      source: 'commit_status',
      tone: 'bad',
      text: '0123456789ab failure: manifests/rules.yaml:3: invalid',
    });
    expect(refused).toMatchObject({ tone: 'bad', text: '0123456789ab not posted (refused): HTTP 401' });
  });
});

describe('the last events on the page of a daemon in process', () => {
  const startDaemon = useDaemonHarness();
  const receivers: WebhookReceiver[] = [];
  afterEach(async () => {
    for (const receiver of receivers.splice(0)) await receiver.close();
  });

  it('lists each reconcile, each notification made, each post delivered or given up, with times, and no webhook token', async () => {
    const ok = await startReceiver('ok', 'eventsOkToken00000000001');
    const failing = await startReceiver('fail', 'eventsFailToken000000001');
    receivers.push(ok, failing);
    const daemon = await startDaemon({
      emulator: { seed: { ip_policies: [{ id: POLICY }] } },
      owner: 'team-a',
      files: { [FILE]: rulesManifest(POLICY, { office: { cidr: '203.0.113.0/24' } }) },
      notify: {
        targets: [parseWebhookUrl(ok.url, 'test', 'json'), parseWebhookUrl(failing.url, 'test', 'json')],
        timeoutMs: 5000,
        retries: 0,
        expiryWindowMs: 0,
        scrub: (text) => text,
        statusPageUrl: null,
        instance: null,
        service: 'api.edge.example.com',
      },
    });
    await daemon.record(1);

    await daemon.change(() => daemon.write(FILE, 'version: 1\nip_policy_rules: [\n'));
    await ok.until(() => eventsOf(ok).includes('manifests_invalid'));
    let page = '';
    for (let tries = 0; tries < 200 && !page.includes('not delivered to'); tries += 1) {
      page = await (await fetch(`${daemon.url}/`)).text();
      if (!page.includes('not delivered to')) await new Promise((resolve) => setImmediate(resolve));
    }
    const events = page.slice(page.indexOf('<h2 id="events">'));

    expect(events).toMatch(/reconcile \d+ \(change\): invalid; 1 manifest error\(s\)/);
    expect(events).toMatch(/reconcile 1 \(startup\): applied; applied 1 change\(s\)/);
    expect(events).toMatch(/manifests_invalid \[error\]: /);
    expect(events).toContain(`delivered to ${new URL(ok.url).protocol}//${new URL(ok.url).host}/…`);
    expect(events).toMatch(/not delivered to http:\/\/127\.0\.0\.1:\d+\/…: rejected/);
    expect(events).toMatch(/<td><code>\d{4}-\d\d-\d\dT[\d:.]+Z<\/code><\/td><td>notification<\/td>/);
    expect(page).not.toContain(ok.token);
    expect(page).not.toContain(failing.token);
  });
});
