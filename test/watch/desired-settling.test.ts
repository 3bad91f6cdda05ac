import { Command } from 'commander';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/cli/duration-option.js';
import { addWatchFlags } from '../../src/cli/watch-flags.js';
import type { Plan } from '../../src/plan/plan.js';
import {
  DEFAULT_SETTLE_MS,
  type DeleteSettling,
  type EntryPlaces,
  type FileEvent,
  settleDeletes,
  type TrackedDelete,
  touches,
} from '../../src/watch/reconcile/desired-settling.js';
import { propertyRuns } from '../support/property-runs.js';

const RULES = '/m/rules.yaml';
const MORE_RULES = '/m/more-rules.yaml';
const CAS = '/m/cas.yaml';

/** A plan that deletes the rule `old` (a prune), as far as the settle stage reads a plan. */
const PRUNE = {
  actions: [
    {
      key: 'delete:ip_policy_rules.old',
      op: 'delete',
      kind: 'ip_policy_rules',
      name: 'old',
      change: 'ip_policy_rules.old',
      request: { method: 'DELETE', path: '/ip_policy_rules/ipr_1' },
    },
    {
      key: 'create:ip_policy_rules.new',
      op: 'create',
      kind: 'ip_policy_rules',
      name: 'new',
      change: 'ip_policy_rules.new',
      request: { method: 'POST', path: '/ip_policy_rules' },
    },
  ],
} as unknown as Plan;

/** `old` was in rules.yaml; rules.yaml and more-rules.yaml hold rules now, cas.yaml CAs. */
const PLACES: EntryPlaces = {
  filesOf: () => undefined,
  formerFilesOf: (kind, name) => (kind === 'ip_policy_rules' && name === 'old' ? [RULES] : undefined),
  holdsKind: (file, kind) =>
    kind === 'ip_policy_rules'
      ? file === RULES || file === MORE_RULES
      : kind === 'certificate_authorities' && file === CAS,
};

const PERIOD = 10_000;
const MAX = 60_000;

/** Runs of the settle stage one after another, as a daemon's runs are, each taking the events since the last. */
function runs(options: { valid?: (now: number) => boolean; periodMs?: number; desiredSince?: number } = {}) {
  let tracked: readonly TrackedDelete[] = [];
  return (now: number, events: readonly FileEvent[] = []): DeleteSettling => {
    const settled = settleDeletes({
      plan: PRUNE,
      previous: tracked,
      events,
      valid: options.valid?.(now) ?? true,
      desiredSince: options.desiredSince ?? now,
      places: PLACES,
      now,
      periodMs: options.periodMs ?? PERIOD,
      maxMs: MAX,
    });
    tracked = settled.tracked;
    return settled;
  };
}

const changed = (path: string, at: number): FileEvent => ({ path, at, tree: false });

describe('settleDeletes: a delete waits until its entry has been quiet for --settle', () => {
  it('counts from the event that removed the entry, on the file that held it, and lets it go a period later', () => {
    const run = runs();

    const first = run(1_500, [changed(RULES, 1_000)]);
    const early = run(10_999);
    const late = run(11_000);

    expect(first.due.has('ip_policy_rules.old')).toBe(false);
    expect(first.nextAt).toBe(11_000);
    expect(first.tracked).toEqual([
      expect.objectContaining({
        address: 'ip_policy_rules.old',
        since: 1_500,
        changedAt: 1_000,
        files: [RULES],
      }),
    ]);
    expect(early.due.size).toBe(0);
    expect(late.due).toEqual(new Set(['ip_policy_rules.old']));
    expect(late.dueAtMax).toEqual([]);
  });

  it('lets a delete asked for with no event (drift corrected) go at once when the desired state has read the same for --settle', () => {
    const run = runs({ desiredSince: 1_000 });

    expect(run(20_000).due.has('ip_policy_rules.old')).toBe(true);
    expect(runs({ desiredSince: 15_000 })(20_000).due.size).toBe(0);
  });

  it('starts again on each event on that file, whatever it reads: removed, restored and removed within one debounce', () => {
    const run = runs();
    run(1_500, [changed(RULES, 1_000)]);

    // Three writes in one debounce leave the file reading as before, but each is a change.
    const after = run(8_300, [changed(RULES, 8_000)]);
    const atFirstPeriod = run(11_000);
    const later = run(18_000);

    expect(after.tracked[0]?.changedAt).toBe(8_000);
    expect(atFirstPeriod.due.size).toBe(0);
    expect(later.due.has('ip_policy_rules.old')).toBe(true);
  });

  it('starts again when another file of the same kind changes (it may be receiving the entry), never for a file of another kind', () => {
    const run = runs();
    run(1_500, [changed(RULES, 1_000)]);

    const sameKind = run(5_500, [changed(MORE_RULES, 5_000)]);
    const otherKind = run(14_000, [changed(CAS, 13_000)]);
    const quiet = run(15_000);

    expect(sameKind.tracked[0]?.changedAt).toBe(5_000);
    expect(otherKind.tracked[0]?.changedAt).toBe(5_000);
    expect(otherKind.due.size).toBe(0);
    expect(quiet.due.has('ip_policy_rules.old')).toBe(true);
  });

  it('sends the delete at --settle-max of steady absence, however steadily a file of its kind keeps changing, and says so', () => {
    const run = runs();
    run(1_500, [changed(RULES, 1_000)]);
    let last: DeleteSettling | undefined;
    let sentAt: number | null = null;

    for (let now = 3_000; now <= 80_000 && sentAt === null; now += 2_000) {
      last = run(now, [changed(MORE_RULES, now - 500)]);
      if (last.due.has('ip_policy_rules.old')) sentAt = now;
    }

    // Absent since the run at 1.5 s: the first run at or past 1.5 s + 60 s.
    expect(sentAt).toBe(63_000);
    expect(last?.dueAtMax.map((tracked) => tracked.address)).toEqual(['ip_policy_rules.old']);
  });

  it('while the manifests do not read valid: sends nothing, counts every event, and reports a delete held past --settle-max', () => {
    const invalidNow = runs({ valid: () => false });
    invalidNow(1_500, [changed(RULES, 1_000)]);
    const cas = invalidNow(5_000, [changed(CAS, 4_000)]);
    const past = invalidNow(70_000);

    expect(cas.tracked[0]?.changedAt).toBe(4_000);
    expect(past.due.size).toBe(0);
    expect(past.overdue.map((tracked) => tracked.address)).toEqual(['ip_policy_rules.old']);
    expect(past.nextAt).toBeNull();
  });

  it('holds the delete through invalid reads, past --settle-max too, and sends it at the first valid read after the bound', () => {
    let valid = true;
    const run = runs({ valid: () => valid });
    run(1_500, [changed(RULES, 1_000)]);
    valid = false;
    const broken = run(20_000, [changed(MORE_RULES, 19_000)]);
    const past = run(70_000);
    valid = true;
    // The broken file is mended, and another file of rules keeps changing: the bound has passed.
    const mended = run(80_000, [changed(MORE_RULES, 79_500)]);

    expect(broken.due.size).toBe(0);
    expect(broken.overdue).toEqual([]);
    expect(past.due.size).toBe(0);
    expect(past.overdue.map((tracked) => tracked.address)).toEqual(['ip_policy_rules.old']);
    expect(mended.due.has('ip_policy_rules.old')).toBe(true);
    expect(mended.overdue).toEqual([]);
    expect(mended.dueAtMax.map((tracked) => tracked.address)).toEqual(['ip_policy_rules.old']);
  });

  it('with a period of 0 lets every delete go at once, invalid reads included', () => {
    const run = runs({ periodMs: 0, valid: () => false });

    expect(run(5, [changed(RULES, 5)]).due.has('ip_policy_rules.old')).toBe(true);
  });

  it('never sends a delete before --settle after an event that counts, unless --settle-max of absence has passed; always by then', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            gap: fc.integer({ min: 100, max: 15_000 }),
            file: fc.constantFrom(RULES, MORE_RULES, CAS, null),
          }),
          { minLength: 1, maxLength: 60 },
        ),
        (steps) => {
          const run = runs();
          let now = 1_000;
          let lastCounting = 1_000;
          const since = now + 100;
          run(since, [changed(RULES, now)]);
          now = since;
          for (const step of steps) {
            now += step.gap;
            const event = step.file === null ? [] : [changed(step.file, now - 50)];
            if (step.file === RULES || step.file === MORE_RULES) lastCounting = now - 50;
            const settled = run(now, event);
            const due = settled.due.has('ip_policy_rules.old');
            const quiet = now >= lastCounting + PERIOD;
            const absentLong = now >= since + MAX;
            expect(due).toBe(quiet || absentLong);
            if (due) return;
          }
        },
      ),
      { numRuns: propertyRuns({ small: 100, large: 2000 }) },
    );
  });
});

describe('touches: which files an event may have changed', () => {
  it.each([
    ['/m/rules.yaml', '/m/rules.yaml', true],
    ['/m/rules.yaml', '/m/more-rules.yaml', false],
    ['/cm/..data', '/cm/..2026_11_29_12_00_00.000000001/rules.yaml', true],
    ['/cm/..data', '/other/rules.yaml', false],
    ['/m/rules.yaml.bak', '/m/rules.yaml', false],
  ])('an event on %s touches %s: %s', (path, file, expected) => {
    expect(touches(path, file)).toBe(expected);
  });
});

describe('--settle', () => {
  it('is what --settle defaults to', () => {
    const program = new Command();
    const watch = addWatchFlags(program.command('watch'), []);
    const flag = watch.options.find((option) => option.long === '--settle');

    expect(parseDuration('--settle', String(flag?.defaultValue))).toBe(DEFAULT_SETTLE_MS);
  });
});
