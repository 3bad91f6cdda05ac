import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The test files that take longest, slowest first (seconds on a quiet 2-core
 * machine, `npm test` of 2026-11-23). They mostly wait on processes, the
 * emulator's budget and timers, so starting them first lets the many short
 * files fill the workers around them. vitest orders by the durations it
 * cached from the last run; a fresh clone (CI) has no cache and would start
 * files by size, leaving a 30 s file for the end. A stale entry here only
 * changes the order, never what runs.
 */
export const SLOWEST_TEST_FILES: readonly string[] = [
  'test/watch/watch-live-cache.test.ts', // 31 s
  'test/apply/apply-signals.test.ts', // 19 s
  'test/watch/watch-daemon.test.ts', // 12 s
  'test/apply/apply-command.test.ts', // 11 s
  'test/pr-flow/pull-request-flow.test.ts', // 8 s
  'test/watch/daemon-logs-metrics.test.ts', // 8 s
  'test/manifest/manifest-tree.test.ts', // 7 s
  'test/export/export-json.test.ts', // 7 s
  'test/apply/apply-progress-tty.test.ts', // 6 s
  'test/plan/plan-command.test.ts', // 6 s
  'test/apply/execute-plan.test.ts', // 6 s
  'test/cli/lazy-commands.test.ts', // 6 s
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
