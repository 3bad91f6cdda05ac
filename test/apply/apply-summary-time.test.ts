import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { ROOT, rulesManifest, runCli } from './cli-process.js';

describe("the apply summary's time", () => {
  let emulator: RunningEmulator | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await emulator?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('is the whole run: it covers the reads of the account before the first write, not the writes alone', async () => {
    // The emulator's clock is read as each request arrives (its rate limit): the first and last reading bound them.
    const seen = { recording: false, first: Number.POSITIVE_INFINITY, last: 0 };
    emulator = await startEmulator({
      seed: await loadSeedFile(join(ROOT, 'examples/emulator-seed.yaml')),
      rateLimit: { requests: 1000, windowMs: 1000 },
      now: () => {
        const now = Date.now();
        if (seen.recording) {
          seen.first = Math.min(seen.first, now);
          seen.last = Math.max(seen.last, now);
        }
        return now;
      },
    });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-summary-'));
    await writeFile(join(dir, 'rules.yaml'), rulesManifest(1));
    seen.recording = true;
    const startedAt = Date.now();

    // Four listings at 2 requests a second take a second and more; the one create comes after them.
    const run = await runCli(emulator, ['--yes', '--rate-limit', '2/1s', dir]);

    const lifetimeMs = Date.now() - startedAt;
    expect(run.code).toBe(0);
    const seconds = Number(/^Apply complete: 1 created, .* in (\d+\.\d)s\.$/m.exec(run.stdout)?.[1]);
    expect(seen.last - seen.first).toBeGreaterThanOrEqual(1000);
    // Rounded to a tenth of a second.
    expect(seconds * 1000 + 50).toBeGreaterThanOrEqual(seen.last - seen.first);
    expect(seconds * 1000).toBeLessThanOrEqual(lifetimeMs);
  });
});
