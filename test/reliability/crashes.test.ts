import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import {
  assertBuilt,
  CLI,
  listAllRules,
  markerNameOf,
  POLICY_ID,
  rulesManifest,
  runCli,
  seededRandom,
  statsOf,
  writesOf,
} from './reliability-harness.js';

const OWNER = 'crash';
const KILLS = 20;
/** Two overlapping rule sets: switching between them creates some rules and prunes others. */
const SETS = [
  { from: 0, count: 60 },
  { from: 30, count: 60 },
] as const;

/**
 * One long-lived in-test emulator outlives every killed process, as the
 * service outlives a CI runner. Each round SIGKILLs `edgesync apply` or
 * `edgesync watch` once a seeded number of writes has landed, then the next
 * round carries on from whatever state that left.
 */
describe('SIGKILL at random points, then a re-run converges', () => {
  let emulator: RunningEmulator;
  let dir: string;

  beforeAll(async () => {
    assertBuilt();
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY_ID }] } });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-crash-'));
  });
  afterAll(async () => {
    await emulator?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  function spawnCommand(command: 'apply' | 'watch'): ChildProcess {
    const args =
      command === 'apply'
        ? ['apply', 'rules.yaml', '--yes', '--concurrency', '8']
        : [
            'watch',
            'rules.yaml',
            '--listen',
            '127.0.0.1:0',
            '--debounce',
            '50ms',
            // Deletes wait for the manifests to settle: a second, not the default 10, so that kills
            // (within 10 s of each start) land among the prunes too, as they did before deletes waited.
            '--settle',
            '1s',
            '--log-level',
            'warn',
          ];
    return spawn(
      process.execPath,
      [
        CLI,
        ...args,
        '--api-url',
        emulator.url,
        '--owner',
        OWNER,
        '--max-destroy',
        '1000',
        '--rate-limit',
        '100000/1s',
      ],
      { cwd: dir, env: { ...process.env, EDGE_API_KEY: emulator.apiKey }, stdio: 'ignore' },
    );
  }

  async function killAfterWrites(child: ChildProcess, writes: number): Promise<boolean> {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const start = writesOf(await statsOf(emulator));
    let killed = false;
    const deadline = Date.now() + 10_000;
    while (child.exitCode === null && child.signalCode === null && Date.now() < deadline) {
      if (writesOf(await statsOf(emulator)) - start >= writes) {
        child.kill('SIGKILL');
        killed = true;
        break;
      }
      await sleep(2);
    }
    if (!killed && child.exitCode === null) child.kill('SIGKILL');
    await exited;
    return killed;
  }

  it.each(['apply', 'watch'] as const)(`%s killed at ${KILLS} seeded points`, async (command) => {
    const random = seededRandom(command === 'apply' ? 7 : 11);
    let killedMidway = 0;

    for (let round = 0; round < KILLS; round += 1) {
      const set = SETS[round % SETS.length] ?? SETS[0];
      await writeFile(join(dir, 'rules.yaml'), rulesManifest(POLICY_ID, set.from, set.count));
      const child = spawnCommand(command);
      if (await killAfterWrites(child, 1 + Math.floor(random() * 40))) killedMidway += 1;
    }
    const finalSet = SETS[KILLS % SETS.length] ?? SETS[0];
    await writeFile(join(dir, 'rules.yaml'), rulesManifest(POLICY_ID, finalSet.from, finalSet.count));
    const common = ['--api-url', emulator.url, '--owner', OWNER, '--max-destroy', '1000'];
    const env = { EDGE_API_KEY: emulator.apiKey };
    const rerun = await runCli(['apply', 'rules.yaml', '--yes', ...common], { cwd: dir, env });
    const plan = await runCli(['plan', 'rules.yaml', '--detailed-exitcode', ...common], { cwd: dir, env });

    expect(killedMidway).toBeGreaterThan(KILLS / 2);
    expect(rerun.code).toBe(0);
    expect(plan.code).toBe(0);
    const rules = await listAllRules(emulator);
    const names = rules.map((rule) => markerNameOf(rule, OWNER));
    expect(names.filter((name) => name === null)).toEqual([]);
    const expected = Array.from({ length: finalSet.count }, (_, index) => `rule-${finalSet.from + index}`);
    expect([...names].sort()).toEqual([...expected].sort());
  });
});
