import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/registry.js';
import type { DesiredEntry, DesiredState } from '../../src/manifest/desired-state.js';
import { InSyncLedger } from '../../src/watch/reconcile/in-sync-ledger.js';
import {
  firstRecord,
  type ReconcileRecord,
  type RunInput,
} from '../../src/watch/reconcile/reconcile-record.js';
import { type RunFacts, recordRun } from '../../src/watch/reconcile/record-run.js';

const INPUT: RunInput = {
  trigger: 'change',
  mode: 'enforce',
  commit: null,
  changeEventAt: null,
  fileEvents: [],
};
const SETTLE = { periodMs: 10_000, maxMs: 60_000 };

function entry(name: string): DesiredEntry {
  return {
    kind: 'ip_policy_rules',
    name,
    spec: { cidr: '192.0.2.0/24' },
    location: { file: 'rules.yaml', line: 3, column: 3 },
  } as unknown as DesiredEntry;
}

function desiredOf(entries: readonly DesiredEntry[], hash: string): DesiredState {
  return { entries, files: ['rules.yaml'], hash };
}

describe('the in-sync ledger', () => {
  it('says an entry object is matched from the run that marked it on, and never changes what an earlier record says', () => {
    const ledger = new InSyncLedger();
    const office = entry('office');
    const atRun1 = ledger.asOf(1);

    ledger.mark([office], 2);
    const edited = entry('office');

    expect(atRun1(office)).toBe(false);
    expect(ledger.asOf(2)(office)).toBe(true);
    expect(ledger.asOf(3)(office)).toBe(true);
    expect(ledger.asOf(3)(edited)).toBe(false);
  });
});

describe('recordRun, the record stage', () => {
  const context = { kinds: KINDS, owner: 'default', ledger: new InSyncLedger() };
  const facts = (overrides: Partial<RunFacts>): RunFacts => ({
    input: INPUT,
    outcome: { result: 'in-sync', notReadyReason: null, retry: false, error: null },
    startedAt: 1_000,
    finishedAt: 1_250,
    rateLimitWaitMs: 0,
    ...overrides,
  });

  it('keeps what a failed run did not reach, takes what it did, and makes its problem the last error until a success', () => {
    const desired = desiredOf([entry('office')], 'h1');
    const start: ReconcileRecord = {
      ...firstRecord(SETTLE, context.ledger),
      skippedEntries: [
        {
          kind: 'ip_policy_rules',
          name: 'lab',
          reason: 'unique_key_taken',
          message: 'taken',
          file: 'rules.yaml',
          line: 7,
          column: 3,
          waitsFor: null,
          since: '2024-01-01T00:00:00.000Z',
          reconciles: 1,
        },
      ],
    };
    const manifests = {
      valid: true,
      problems: [],
      desired,
      said: '{}',
      realPaths: new Map<string, string>(),
    };
    const failure = { code: 'api_error', message: 'the service is down', at: '2024-01-01T00:00:01.250Z' };

    const failed = recordRun(
      context,
      start,
      facts({
        manifests,
        settling: { hash: 'h1', since: 1_000, deletes: null },
        outcome: {
          result: 'failed',
          notReadyReason: 'last reconcile failed: down',
          retry: false,
          error: failure,
        },
      }),
    );
    const recovered = recordRun(context, failed, facts({ manifests, startedAt: 2_000, finishedAt: 2_100 }));

    expect(failed.runs).toBe(1);
    expect(failed.manifests.desired).toBe(desired);
    expect(failed.settle).toMatchObject({ hash: 'h1', since: 1_000, heldDeletes: [] });
    expect(failed.skippedEntries).toBe(start.skippedEntries);
    expect(failed.plan).toBeNull();
    expect(failed.ready).toBe(false);
    expect(failed.notReadyReason).toBe('last reconcile failed: down');
    expect(failed.lastError).toEqual(failure);
    expect(failed.lastReconcile).toMatchObject({ trigger: 'change', result: 'failed', durationMs: 250 });
    expect(recovered.lastError).toBeNull();
    expect(recovered.ready).toBe(true);
    expect(recovered.lastSuccessAt).toBe('1970-01-01T00:00:02.100Z');
    expect(start.runs).toBe(0);
    expect(start.lastError).toBeNull();
  });

  it('is not ready while the manifests are invalid, whatever the run made of the last valid ones', () => {
    const desired = desiredOf([entry('office')], 'h1');
    const problems = [{ file: 'rules.yaml', line: 4, column: 5, path: 'x', message: 'bad' }];

    const record = recordRun(
      context,
      firstRecord(SETTLE, context.ledger),
      facts({ manifests: { valid: false, problems, desired, said: null, realPaths: new Map() } }),
    );

    expect(record.ready).toBe(false);
    expect(record.notReadyReason).toBe('1 manifest error(s); see /status');
    expect(record.settle.hash).toBeNull();
  });
});
