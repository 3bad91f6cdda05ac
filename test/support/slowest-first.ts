import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The test files that take longest, slowest first (seconds in the `npm test`
 * of 2026-11-27 on the 2-core machine while others loaded it: load average
 * 8, every file about 1.5 times as long as on 2026-11-23). They mostly wait
 * on processes, the emulator's budget and timers, so starting them first
 * lets the many short files fill the workers around them. vitest orders by
 * the durations it cached from the last run; a fresh clone (CI) has no cache
 * and would start files by size, leaving a 20 s file for the end. A stale
 * entry here only changes the order, never what runs.
 */
export const SLOWEST_TEST_FILES: readonly string[] = [
  'test/apply/apply-progress-tty.test.ts', // 25 s
  'test/apply/saved-plan-claims.test.ts', // 24 s
  'test/watch/watch-daemon.test.ts', // 23 s
  'test/manifest/parse-workers.test.ts', // 22 s
  'test/watch/status-cli.test.ts', // 20 s
  'test/watch/watch-reconcile.test.ts', // 18 s
  'test/manifest/parse-fast-path.test.ts', // 18 s
  'test/docs/docs-run.test.ts', // 17 s
  'test/doctor/doctor-cli.test.ts', // 17 s
  'test/cli/environment-flags.test.ts', // 16 s
  'test/manifest/manifest-tree.test.ts', // 15 s
  'test/watch/watch-settle.test.ts', // 12 s
];

export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification): number => {
      const index = SLOWEST_TEST_FILES.findIndex((name) => file.moduleId.endsWith(`/${name}`));
      return index === -1 ? SLOWEST_TEST_FILES.length : index;
    };
    // Array.prototype.sort is stable: the rest keep vitest's own order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
