import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { judgeCommit } from '../../src/cli/status-commit-verdict.js';
import type { StatusView } from '../../src/cli/status-read.js';
import { propertyRuns } from '../support/property-runs.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

function status(overrides: {
  readonly result?: string;
  readonly live?: string | null;
  readonly reconciled?: string | null;
  readonly skipped?: number;
  readonly mode?: 'enforce' | 'observe';
  readonly suspended?: boolean;
  readonly git?: null;
}): StatusView {
  return {
    mode: overrides.mode ?? 'enforce',
    suspended: overrides.suspended ?? false,
    suspension: overrides.suspended ? { since: '2026-01-01T00:00:00.000Z', by: '10.1.2.3' } : null,
    owner: 'o',
    paths: ['manifests'],
    ready: true,
    notReadyReason: null,
    manifestsValid: true,
    manifestErrors: [],
    lastReconcile:
      overrides.result === undefined
        ? null
        : { trigger: 'change', result: overrides.result, startedAt: '', finishedAt: '', durationMs: 1 },
    lastSuccessAt: null,
    lastError: null,
    lastPlan: null,
    lastApplyFailures: [],
    differences: null,
    version: null,
    skippedEntries: Array.from({ length: overrides.skipped ?? 0 }, (_, index) => ({
      kind: 'ip_policy_rules',
      name: `r${index}`,
      reason: 'unique_key_taken',
      message: 'held by another owner',
      file: 'manifests/rules.yaml',
      line: 3,
      column: 3,
    })),
    heldDeletes: [],
    git:
      overrides.git === null
        ? null
        : {
            lastAppliedCommit: overrides.live === undefined ? A : overrides.live,
            lastAppliedAt: null,
            checkoutCommit: overrides.reconciled === undefined ? A : overrides.reconciled,
          },
    cache: null,
  };
}

describe('judgeCommit: is a commit live on the daemon', () => {
  it.each([
    ['live and in sync', status({ result: 'applied' }), true, true, 'live'],
    [
      'live, then a resync of it skipped an entry',
      status({ result: 'partial', skipped: 1 }),
      true,
      true,
      'failed',
    ],
    [
      'live, a newer commit being reconciled',
      status({ result: 'failed', reconciled: B }),
      true,
      true,
      'live',
    ],
    ['not read yet', status({ result: 'applied' }), false, false, 'pending'],
    ['read, invalid', status({ result: 'invalid', live: B }), false, true, 'failed'],
    ['read, refused', status({ result: 'refused', live: B }), false, true, 'failed'],
    ['read, an error the daemon retries', status({ result: 'failed', live: B }), false, true, 'pending'],
    ['read, deletes settling', status({ result: 'settling', live: B }), false, true, 'pending'],
    ['observe, drift', status({ result: 'drift', live: B, mode: 'observe' }), false, true, 'pending'],
    ['no git checkout', status({ result: 'applied', git: null }), false, false, 'failed'],
    [
      'suspended, not read yet',
      status({ result: 'pending', live: B, suspended: true }),
      false,
      false,
      'suspended',
    ],
    [
      'suspended, read and pending',
      status({ result: 'pending', live: B, suspended: true }),
      false,
      true,
      'suspended',
    ],
    ['suspended, but already live', status({ result: 'in-sync', suspended: true }), true, true, 'live'],
  ])('%s', (_name, view, liveReaches, reconciledReaches, state) => {
    expect(judgeCommit(view, A, { liveReaches, reconciledReaches }).state).toBe(state);
  });

  it('a failure names the skipped entries at file:line', () => {
    const verdict = judgeCommit(status({ result: 'partial', skipped: 2, live: B }), A, {
      liveReaches: false,
      reconciledReaches: true,
    });

    expect(verdict).toMatchObject({ state: 'failed' });
    expect(verdict.state === 'live' ? [] : verdict.details).toEqual([
      'manifests/rules.yaml:3:3: skipped ip_policy_rules.r0 (unique_key_taken): held by another owner',
      'manifests/rules.yaml:3:3: skipped ip_policy_rules.r1 (unique_key_taken): held by another owner',
    ]);
  });

  it('never says live when the live commit does not reach the commit, nor with an entry skipped in its reconcile', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('in-sync', 'applied', 'drift', 'settling', 'partial', 'refused', 'invalid', 'failed'),
        fc.boolean(),
        fc.boolean(),
        fc.nat(3),
        fc.constantFrom(A, B, null),
        (result, liveReaches, reconciledReaches, skipped, reconciled) => {
          const view = status({ result, skipped, reconciled });
          const verdict = judgeCommit(view, A, { liveReaches, reconciledReaches });

          if (!liveReaches) expect(verdict.state).not.toBe('live');
          if (reconciled === A && (skipped > 0 || !['in-sync', 'applied'].includes(result))) {
            expect(verdict.state).not.toBe('live');
          }
        },
      ),
      { numRuns: propertyRuns({ small: 100, large: 1000 }) },
    );
  });
});
