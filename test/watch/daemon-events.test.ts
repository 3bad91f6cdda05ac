import { describe, expect, it } from 'vitest';
import { commitStatusEvent, DaemonEvents, notificationEvent } from '../../src/watch/daemon-events.js';

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
