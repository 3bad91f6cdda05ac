import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/cli/duration-option.js';
import { addWatchFlags } from '../../src/cli/watch-flags.js';
import {
  DEFAULT_SETTLE_MS,
  type LastDesired,
  type Settling,
  settleDesired,
} from '../../src/watch/reconcile/desired-settling.js';

/** Loads of the manifests one after another, each settled against the one before, as a daemon's runs are. */
function loads(periodMs: number): { observe(hash: string | null, now: number): Settling } {
  let last: LastDesired = { hash: null, since: null };
  return {
    observe(hash, now) {
      const settling = settleDesired(last, hash, now, periodMs);
      last = { hash, since: settling.since };
      return settling;
    },
  };
}

describe('settleDesired', () => {
  it('settles once one desired state has read the same over the whole period', () => {
    const settling = loads(10_000);

    const first = settling.observe('a', 1_000);
    const early = settling.observe('a', 10_999);
    const late = settling.observe('a', 11_000);

    expect(first).toEqual({ settled: false, since: 1_000, settlesAt: 11_000 });
    expect(early.settled).toBe(false);
    expect(late).toEqual({ settled: true, since: 1_000, settlesAt: 11_000 });
  });

  it('starts the period again when the desired state changes, even back to an earlier one', () => {
    const settling = loads(10_000);
    settling.observe('a', 0);

    const changed = settling.observe('b', 5_000);
    const back = settling.observe('a', 12_000);

    expect(changed).toEqual({ settled: false, since: 5_000, settlesAt: 15_000 });
    expect(back).toEqual({ settled: false, since: 12_000, settlesAt: 22_000 });
  });

  it('never counts an invalid read as settled, and starts again after one', () => {
    const settling = loads(10_000);
    settling.observe('a', 0);

    const invalid = settling.observe(null, 20_000);
    const again = settling.observe('a', 21_000);

    expect(invalid).toEqual({ settled: false, since: null, settlesAt: null });
    expect(again).toEqual({ settled: false, since: 21_000, settlesAt: 31_000 });
  });

  it('with a period of 0 is always settled, invalid reads included', () => {
    const settling = loads(0);

    expect(settling.observe('a', 5).settled).toBe(true);
    expect(settling.observe(null, 6).settled).toBe(true);
  });

  it('is what --settle defaults to', () => {
    const program = new Command();
    const watch = addWatchFlags(program.command('watch'), []);
    const flag = watch.options.find((option) => option.long === '--settle');

    expect(parseDuration('--settle', String(flag?.defaultValue))).toBe(DEFAULT_SETTLE_MS);
  });
});
