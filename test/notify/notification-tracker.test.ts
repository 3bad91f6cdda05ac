import { describe, expect, it } from 'vitest';
import { NotificationTracker, type ObservedStatus } from '../../src/notify/notification-tracker.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const TRACKER = {
  identity: { owner: 'o', instance: null, service: 'api.edge.example.com' },
  mode: 'enforce',
  statusPageUrl: null,
} as const;

function status(result: string, more: Partial<ObservedStatus> = {}): ObservedStatus {
  return {
    lastReconcile: { trigger: 'resync', result },
    manifestsValid: true,
    manifestErrors: [],
    desiredHash: 'h1',
    lastError: result === 'failed' ? { code: 'apply_incomplete', message: 'boom' } : null,
    lastPlan: { changes: [], errors: [], applied: false },
    lastApply: null,
    skippedEntries: [],
    git: { checkoutCommit: 'abc123' },
    ...more,
  };
}

function events(tracker: NotificationTracker, results: readonly ObservedStatus[]): string[] {
  return results.flatMap((seen) => tracker.observeReconcile(seen, NOW).map((n) => n.event));
}

describe('NotificationTracker', () => {
  it('says a failure repeated every cycle once, then its recovery once', () => {
    const tracker = new NotificationTracker(TRACKER);

    const seen = events(tracker, [
      status('in-sync'),
      status('failed'),
      status('failed'),
      status('failed'),
      status('applied'),
      status('in-sync'),
    ]);

    expect(seen).toEqual(['reconcile_failed', 'reconcile_recovered']);
  });

  it('says deletes held past --settle-max once, and once when none is', () => {
    const tracker = new NotificationTracker(TRACKER);
    const held = { maxMs: 60_000, overdue: ['ip_policy_rules.old'] };
    const none = { maxMs: 60_000, overdue: [] };

    const said = [
      status('invalid', { manifestsValid: false, settle: held }),
      status('invalid', { manifestsValid: false, settle: held }),
      status('applied', { settle: none }),
    ].flatMap((seen) => tracker.observeReconcile(seen, NOW));

    expect(said.map((notification) => notification.event)).toEqual([
      'manifests_invalid',
      'deletes_held',
      'manifests_valid',
      'deletes_released',
    ]);
    expect(said[1]?.summary).toBe(
      '1 delete(s) held for over --settle-max (60 s): the manifests do not read valid; they go once they do',
    );
    expect(said[1]?.errors.map((error) => error.message)).toEqual(['ip_policy_rules.old: delete held']);
  });

  it('keeps a failure through invalid manifests: only a reconcile that succeeds ends it', () => {
    const tracker = new NotificationTracker(TRACKER);
    const invalid = status('invalid', {
      manifestsValid: false,
      manifestErrors: [{ file: 'a.yaml', line: 3, column: 5, message: 'bad' }],
    });

    const seen = events(tracker, [status('failed'), invalid, invalid, status('in-sync')]);

    expect(seen).toEqual(['reconcile_failed', 'manifests_invalid', 'manifests_valid', 'reconcile_recovered']);
  });

  it('tells a refusal from a failure, and says drift corrected for the drift the run put back, whatever its result', () => {
    const tracker = new NotificationTracker(TRACKER);
    const corrected = (result: string, correctedDrift: readonly string[]): string[] =>
      tracker
        .observeReconcile(status(result), NOW, {
          correctedDrift,
          changes: (addresses) => ({ list: [], total: addresses.length }),
        })
        .map((notification) => `${notification.event}: ${notification.summary}`);

    const seen = [
      ...corrected('applied', []),
      ...corrected('settling', ['x.a']),
      ...corrected('partial', ['x.b']),
      ...events(tracker, [
        status('refused', {
          lastPlan: {
            changes: [],
            errors: [],
            applied: false,
            refusal: { code: 'empty-desired', message: 'no' },
          },
        }),
        status('refused'),
        status('failed'),
        status('in-sync'),
      ]),
    ];

    expect(seen).toEqual([
      'drift_corrected: drift corrected: 1 change(s): x.a',
      'drift_corrected: drift corrected: 1 change(s): x.b',
      'reconcile_refused',
      'reconcile_failed',
      'reconcile_recovered',
    ]);
  });

  it('says an entry is stuck at its third skip in a row, once, and when it is no longer skipped', () => {
    const tracker = new NotificationTracker(TRACKER);
    const skipped = (reconciles: number): ObservedStatus =>
      status('partial', {
        skippedEntries: [
          {
            kind: 'k',
            name: 'n',
            reason: 'unique_key_taken',
            message: 'taken',
            file: 'f.yaml',
            line: 2,
            column: 3,
            reconciles,
          },
        ],
      });

    const seen =
      tracker.observeReconcile(skipped(1), NOW).length + tracker.observeReconcile(skipped(2), NOW).length;
    const third = tracker.observeReconcile(skipped(3), NOW);
    const fourth = tracker.observeReconcile(skipped(4), NOW);
    const gone = tracker.observeReconcile(status('in-sync'), NOW);

    expect(seen).toBe(0);
    expect(third).toEqual([
      expect.objectContaining({
        event: 'entry_stuck',
        errors: [{ file: 'f.yaml', line: 2, column: 3, message: 'taken' }],
        commit: 'abc123',
      }),
    ]);
    expect(fourth).toEqual([]);
    expect(gone.map((n) => n.event)).toEqual(['entry_recovered']);
  });

  it('says a stuck loop once, and once when it turns again', () => {
    const tracker = new NotificationTracker(TRACKER);
    const stuck = { alive: false, detail: 'stuck: reconcile running for 900 s' };

    const seen = [
      tracker.observeHealth({ alive: true, detail: 'idle' }, NOW),
      tracker.observeHealth(stuck, NOW),
      tracker.observeHealth(stuck, NOW),
      tracker.observeHealth({ alive: true, detail: 'idle' }, NOW),
    ].flatMap((out) => out.map((n) => `${n.event}: ${n.summary}`));

    expect(seen).toEqual([
      'daemon_stuck: daemon stuck: stuck: reconcile running for 900 s',
      'daemon_recovered: daemon running again: idle',
    ]);
  });

  it('says each expiry inside the window once per date, and none outside it', () => {
    const tracker = new NotificationTracker(TRACKER);
    const day = 86_400_000;
    const place = { file: 'ca.yaml', line: 3, column: 3 };
    const soon = { kind: 'k', name: 'soon', notAfter: NOW + 10 * day, ...place };
    const later = { kind: 'k', name: 'later', notAfter: NOW + 100 * day, ...place };

    const first = tracker.observeExpiries([soon, later], NOW, 30 * day);
    const again = tracker.observeExpiries([soon, later], NOW + day, 30 * day);
    const renewed = tracker.observeExpiries([{ ...soon, notAfter: NOW + 20 * day }], NOW, 30 * day);

    expect(first.map((n) => n.summary)).toEqual(['k.soon expires in 10 day(s)']);
    expect(again).toEqual([]);
    expect(renewed).toHaveLength(1);
  });
});
