import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type EmulatorOptions, startEmulator } from '../../src/emulator/server.js';
import { finished, ROOT, rulesManifest, spawnCli, waitFor } from './cli-process.js';
import { startCountingRelay } from './counting-relay.js';

const SEED = join(ROOT, 'examples/emulator-seed.yaml');

// The slow cases (creates in flight past the grace period, a signal while actions wait for the
// budget) are in test/reliability/apply-signals.test.ts; execute-plan.test.ts, interrupted-apply.test.ts
// and apply-command.test.ts hold what they promise here. A second signal is tested only here.
describe('edgesync apply interrupted by signals (CLI process)', () => {
  const cleanups: Array<() => Promise<void>> = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function start(options: EmulatorOptions = {}) {
    const emulator = await startEmulator({ seed: await loadSeedFile(SEED), ...options });
    cleanups.push(() => emulator.close());
    const relay = await startCountingRelay(emulator);
    cleanups.push(() => relay.close());
    const dir = await mkdtemp(join(tmpdir(), 'edgesync-signals-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'rules.yaml'), rulesManifest(8));
    // The CLI talks to the relay; the test reads the emulator directly.
    return { emulator, relay, dir, target: { ...emulator, url: relay.url } };
  }

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
