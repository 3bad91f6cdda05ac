import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import {
  assertBuilt,
  type CliRun,
  listAllRules,
  markerNameOf,
  POLICY_ID,
  rulesManifest,
  runCli,
  seededRandom,
  statsOf,
} from './reliability-harness.js';

const OWNER = 'reliability';

/** What each run said last, so a failure shows why the apply did not converge. */
function describeRuns(runs: readonly CliRun[]): string {
  return runs
    .map(
      (run, index) =>
        `run ${index + 1} exited ${run.code}:\n${run.stdout.slice(-1500)}\n${run.stderr.slice(-1500)}`,
    )
    .join('\n');
}

describe('applies under injected faults converge exactly once', () => {
  let emulator: RunningEmulator | undefined;
  let dir: string | undefined;

  beforeAll(() => assertBuilt());
  afterEach(async () => {
    await emulator?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function applyUntilConverged(
    count: number,
    options: EmulatorOptions,
    rateLimit: string,
  ): Promise<{
    runs: CliRun[];
    finalPlan: CliRun;
  }> {
    emulator = await startEmulator({ ...options, seed: { ip_policies: [{ id: POLICY_ID }] } });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-faults-'));
    await writeFile(join(dir, 'rules.yaml'), rulesManifest(POLICY_ID, 0, count));
    const common = ['--api-url', emulator.url, '--owner', OWNER, '--rate-limit', rateLimit];
    const env = { EDGE_API_KEY: emulator.apiKey };
    const runs: CliRun[] = [];
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const run = await runCli(
        ['apply', 'rules.yaml', '--yes', '--concurrency', '16', '--max-destroy', '0', ...common],
        {
          cwd: dir,
          env,
          limitMs: 150_000,
        },
      );
      runs.push(run);
      if (run.code === 0) break;
    }
    // The check itself must not meet faults: a clean emulator view comes from the same store.
    const finalPlan = await runCli(['plan', 'rules.yaml', '--detailed-exitcode', ...common], {
      cwd: dir,
      env,
    });
    return { runs, finalPlan };
  }

  async function expectExactRules(count: number): Promise<void> {
    if (!emulator) throw new Error('no emulator');
    const rules = await listAllRules(emulator);
    const names = rules.map((rule) => markerNameOf(rule, OWNER));
    expect(names.filter((name) => name === null)).toEqual([]);
    expect(new Set(names).size).toBe(rules.length);
    expect(new Set(rules.map((rule) => rule.cidr)).size).toBe(rules.length);
    expect(rules).toHaveLength(count);
  }

  it('1,000 creates with faultRate 0.1 and dropRate 0.05: every rule once, in at most two runs', async () => {
    const random = seededRandom(20_240_901);

    const { runs, finalPlan } = await applyUntilConverged(
      1000,
      { faultRate: 0.1, dropRate: 0.05, random },
      '100000/1s',
    );

    expect(runs.at(-1)?.code, describeRuns(runs)).toBe(0);
    await expectExactRules(1000);
    const stats = await statsOf(emulator as RunningEmulator);
    expect(Number(stats.byStatus['500'] ?? 0) + Number(stats.byStatus['503'] ?? 0)).toBeGreaterThan(0);
    expect(stats.byStatus.dropped ?? 0).toBeGreaterThan(0);
    // The final plan meets faults too; it either reads cleanly (0) or fails loudly (1), never shows changes.
    expect(finalPlan.code === 0 || (finalPlan.code === 1 && finalPlan.stdout === '')).toBe(true);
  });

  it('a rate-limit storm (client told 1000/1s, service allows 40/1s): every rule once, 429s honoured', async () => {
    const { runs, finalPlan } = await applyUntilConverged(
      300,
      { rateLimit: { requests: 40, windowMs: 1000 } },
      '1000/1s',
    );

    expect(runs.at(-1)?.code, describeRuns(runs)).toBe(0);
    await expectExactRules(300);
    const stats = await statsOf(emulator as RunningEmulator);
    expect(stats.byStatus['429'] ?? 0).toBeGreaterThan(0);
    expect(finalPlan.code).toBe(0);
  });
});
