import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorOptions } from '../../src/emulator/server.js';
import { finished, spawnCli, waitFor } from './cli-process.js';
import { startRelayedApply } from './counting-relay.js';

// The slow cases (creates in flight past the grace period, a signal while actions wait for the
// budget) are in test/reliability/apply-signals.test.ts; execute-plan.test.ts, interrupted-apply.test.ts
// and apply-command.test.ts hold what they promise here. A second signal is tested only here.
describe('edgesync apply interrupted by signals (CLI process)', () => {
  const cleanups: Array<() => Promise<void>> = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const start = (options: EmulatorOptions = {}) => startRelayedApply(cleanups, options);

  it('a second signal exits at once and says the summary is incomplete', async () => {
    const { relay, dir, target } = await start({ latencyMs: 5000 });
    const child = spawnCli(target, ['--yes', '--concurrency', '8', dir]);
    const run = finished(child);

    await waitFor(() => relay.posts() === 8);
    child.kill('SIGTERM');
    await waitFor(() => run.output().stderr.includes('stopping: no new actions start'));
    child.kill('SIGTERM');
    const result = await run;

    expect(result.signal).toBe('SIGTERM');
    expect(result.stderr).toContain('edgesync: second SIGTERM: exiting now; the summary is incomplete');
    expect(result.stdout).not.toContain('Apply');
  });
});
