import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorOptions } from '../../src/emulator/server.js';
import { finished, listRules, spawnCli, waitFor } from '../apply/cli-process.js';
import { startRelayedApply } from '../apply/counting-relay.js';

/**
 * `edgesync apply` as a process, stopped by signals while creates wait seconds
 * in the emulator or for the request budget: each case waits out latencies of
 * 1.5-3 s or a budget, so they run here, once. In `npm test`, execute-plan.test.ts
 * (nothing new starts after the abort; in-flight creates past the grace period
 * are unknown, not failed), interrupted-apply.test.ts (what an interrupted apply
 * reports for each create), request-budget.test.ts (an abort ends a budget wait)
 * and apply-command.test.ts (SIGTERM to the process: exit 1, the summary adds up)
 * hold the same promises; test/apply/apply-signals.test.ts the second signal.
 */
describe('edgesync apply interrupted by signals (CLI process)', () => {
  const cleanups: Array<() => Promise<void>> = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const start = (options: EmulatorOptions = {}) => startRelayedApply(cleanups, options);

  it('SIGTERM with 8 creates in flight: all 8 are reported created', async () => {
    const { emulator, relay, dir, target } = await start({ latencyMs: 1500 });
    const child = spawnCli(target, ['--yes', '--concurrency', '8', dir]);
    const run = finished(child);

    await waitFor(() => relay.posts() === 8);
    child.kill('SIGTERM');
    const result = await run;

    expect(result.stdout).toMatch(/: 8 created, .* 0 failed, 0 skipped in/);
    expect(result.stdout).not.toMatch(/interrupted|unknown/);
    expect(await listRules(emulator)).toHaveLength(8);
  });

  it('SIGTERM with creates in flight longer than the grace period: unknown, never failed, though they landed', async () => {
    const { emulator, relay, dir, target } = await start({ latencyMs: 3000 });
    const child = spawnCli(target, ['--yes', '--concurrency', '8', '--grace-timeout', '1000', dir]);
    const run = finished(child);

    await waitFor(() => relay.posts() === 8);
    child.kill('SIGTERM');
    const result = await run;

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/Apply interrupted: 0 created, .* 0 failed, 0 skipped, 8 unknown in/);
    expect(result.stderr).not.toMatch(/: failed:/);
    await waitFor(async () => (await listRules(emulator)).length === 8);
  });

  it('SIGINT while actions wait for the request budget: exits without waiting out the grace period, interrupted not failed', async () => {
    // The plan reads 4 lists and the IP policy the rules name; 8 requests a minute leave room for 3 creates,
    // then the rest wait ~60 s.
    const { dir, target } = await start();
    const child = spawnCli(target, ['--yes', '--rate-limit', '8/60s', '--grace-timeout', '600000', dir]);
    const run = finished(child);

    // Off a terminal each finished action is a human line on stderr: `create:ip_policy_rules.r0: done in 12ms [id=…]`.
    await waitFor(() => (run.output().stderr.match(/^create:\S+: done in /gm)?.length ?? 0) === 3);
    child.kill('SIGINT');
    const result = await run;

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/Apply interrupted: 3 created, .* 0 failed, 0 skipped, 5 interrupted in/);
    expect(result.stderr).not.toMatch(/: failed:|not started/);
  });
});
