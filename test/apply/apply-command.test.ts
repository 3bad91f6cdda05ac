import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { parseMetadata } from '../../src/kinds/ownership-marker.js';
import { KINDS } from '../../src/kinds/registry.js';
import { serializeSavedPlan, toSavedPlan } from '../../src/plan/saved-plan.js';
import { preparePlan } from '../../src/plan-session/prepare-plan.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';
import { shellPath } from '../support/shell-path.js';
import {
  applyInProcess,
  CLI,
  finished,
  inspectClient,
  listRules,
  ROOT,
  rulesManifest,
  runCli,
  spawnCli,
  waitFor,
  writes,
} from './cli-process.js';

const EXAMPLES = join(ROOT, 'examples/manifests');
const SEED = join(ROOT, 'examples/emulator-seed.yaml');

describe('edgesync apply (CLI process)', () => {
  let emulator: RunningEmulator | undefined;
  let dir: string | undefined;

  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error(`build first: npx tsc -p . (missing ${CLI})`);
  });

  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function start(options: EmulatorOptions = {}): Promise<RunningEmulator> {
    emulator = await startEmulator({ seed: await loadSeedFile(SEED), ...options });
    return emulator;
  }

  async function manifestDir(text: string): Promise<string> {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-apply-'));
    await writeFile(join(dir, 'rules.yaml'), text);
    return dir;
  }

  /** Plans `paths` against the emulator and saves the plan as `plan --out` would, in the manifest directory. */
  async function savedPlan(running: RunningEmulator, paths: readonly string[]) {
    const prepared = await preparePlan(paths, inspectClient(running), {
      load: { ...BUILT_IN_LOAD, cwd: ROOT },
      plan: { kinds: KINDS, owner: 'default' },
    });
    if (!prepared.ok) throw new Error('manifests invalid');
    const planFile = join(dir as string, 'plan.json');
    await writeFile(planFile, serializeSavedPlan(toSavedPlan(prepared.value.plan, paths)));
    return { planFile, plan: prepared.value.plan };
  }

  it('applies every example, after which there is nothing left to change', async () => {
    const running = await start();

    const first = await applyInProcess(running, ['--yes', EXAMPLES]);
    const second = await applyInProcess(running, ['--yes', EXAMPLES]);

    expect(first.stderr).not.toContain('failed');
    expect(first.stdout).toMatch(
      /Apply complete: 4 created, 0 updated, 0 replaced, 0 deleted, 1 adopted, 6 module\(s\) written, 0 failed, 0 skipped in/,
    );
    expect(first.code).toBe(0);
    expect(second.stdout).toContain('No changes.');
    expect(second.code).toBe(0);
  });

  it.skipIf(!existsSync('/usr/bin/script')).each([
    ['yes', 0, 'Apply complete'],
    ['no', 1, 'Apply cancelled.'],
  ])('on a TTY asks first; answering %s exits %i', async (answer, code, expected) => {
    const running = await start();
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} apply --log-level warn ${JSON.stringify(EXAMPLES)}`;
    // util-linux `script` gives the CLI a pseudo-terminal, so it sees a TTY as a person's shell would.
    const child = spawn('/usr/bin/script', ['-qec', command, '/dev/null'], {
      cwd: ROOT,
      env: { PATH: shellPath(), EDGE_API_URL: running.url, EDGE_API_KEY: running.apiKey },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const run = finished(child);
    let asked = false;
    child.stdout?.on('data', (chunk: Buffer) => {
      if (!asked && chunk.toString('utf8').includes("Only 'yes' will be accepted:")) {
        asked = true;
        child.stdin?.write(`${answer}\n`);
      }
    });

    const result = await run;

    expect(asked).toBe(true);
    expect(result.code).toBe(code);
    expect(result.stdout).toContain(expected);
    expect((await writes(running)) > 0).toBe(answer === 'yes');
  });

  it('refuses without a TTY and without --yes, sending no write', async () => {
    const running = await start();

    const run = await runCli(running, [EXAMPLES]);

    expect(run.code).toBe(1);
    expect(run.stderr).toContain('pass --yes');
    expect(await writes(running)).toBe(0);
  });

  it('--dry-run prints the requests with secrets masked and sends no write', async () => {
    const running = await start();

    const run = await applyInProcess(running, ['--dry-run', EXAMPLES]);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('POST /ip_policy_rules');
    expect(run.stdout).toContain('"client_secret": "(sensitive)"');
    expect(run.stdout).not.toContain('dev-only-not-a-real-secret');
    expect(await writes(running)).toBe(0);
  });

  it('applies a saved plan whose objects have not changed', async () => {
    const running = await start();
    const paths = [await manifestDir(rulesManifest(3))];
    const { planFile } = await savedPlan(running, paths);

    const run = await runCli(running, ['--yes', '--plan', planFile, ...paths]);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Apply complete: 3 created');
    expect(await listRules(running)).toHaveLength(3);
  });

  it('refuses a saved plan whose objects changed since it was made (exit 3)', async () => {
    const running = await start();
    const paths = [await manifestDir(rulesManifest(2))];
    await applyInProcess(running, ['--yes', ...paths]);
    await writeFile(
      join(paths[0] as string, 'rules.yaml'),
      rulesManifest(2).replace('action: deny\n', 'action: deny\n    description: changed\n'),
    );
    const { planFile, plan } = await savedPlan(running, paths);
    const target = plan.changes.find((change) => change.id !== undefined);
    await inspectClient(running).request({
      method: 'PATCH',
      path: `/ip_policy_rules/${target?.id}`,
      body: { description: 'edited by hand' },
    });
    const writesBefore = await writes(running);

    const run = await runCli(running, ['--yes', '--plan', planFile, ...paths]);

    expect(run.code).toBe(3);
    expect(run.stderr).toContain('changed since the plan was made');
    expect(await writes(running)).toBe(writesBefore);
  });

  it('refuses a saved plan when the manifests changed since (exit 3)', async () => {
    const running = await start();
    const paths = [await manifestDir(rulesManifest(2))];
    const { planFile } = await savedPlan(running, paths);
    await writeFile(join(paths[0] as string, 'rules.yaml'), rulesManifest(3));

    const run = await applyInProcess(running, ['--yes', '--plan', planFile, ...paths]);

    expect(run.code).toBe(3);
    expect(run.stderr).toContain('the manifests changed');
    expect(await writes(running)).toBe(0);
  });

  it('refuses with exit code 4 when the plan destroys more than --max-destroy, unless --force', async () => {
    const running = await start();
    const paths = [await manifestDir(rulesManifest(4))];
    await applyInProcess(running, ['--yes', ...paths]);
    await writeFile(join(paths[0] as string, 'rules.yaml'), rulesManifest(1));

    const refused = await runCli(running, ['--yes', '--max-destroy', '2', ...paths]);
    const forced = await applyInProcess(running, ['--yes', '--max-destroy', '2', '--force', ...paths]);

    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('more than the limit');
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('3 deleted');
    expect(await listRules(running)).toHaveLength(1);
  });

  it('converges with no duplicates after the process is killed with SIGKILL mid-apply', async () => {
    const running = await start({ latencyMs: 40 });
    const paths = [await manifestDir(rulesManifest(40))];
    const child = spawnCli(running, ['--yes', '--concurrency', '2', ...paths]);
    const killed = finished(child);

    await waitFor(async () => (await listRules(running)).length >= 6);
    child.kill('SIGKILL');
    const first = await killed;
    const rerun = await applyInProcess(running, ['--yes', ...paths]);
    const check = await applyInProcess(running, ['--yes', ...paths]);

    expect(first.signal).toBe('SIGKILL');
    expect(rerun.code).toBe(0);
    const rules = await listRules(running);
    expect(rules).toHaveLength(40);
    expect(new Set(rules.map((rule) => parseMetadata(rule.metadata).marker?.name)).size).toBe(40);
    expect(check.stdout).toContain('No changes.');
  });

  it('on SIGTERM stops starting actions, finishes those in flight and reports (exit 1)', async () => {
    const running = await start({ latencyMs: 40 });
    const paths = [await manifestDir(rulesManifest(40))];
    const child = spawnCli(running, ['--yes', '--concurrency', '2', ...paths]);
    const run = finished(child);

    await waitFor(async () => (await listRules(running)).length >= 4);
    child.kill('SIGTERM');
    const result = await run;

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/Apply interrupted: (\d+) created, .* (\d+) interrupted in/);
    const [, created, notStarted] =
      /Apply interrupted: (\d+) created, .* (\d+) interrupted/.exec(result.stdout) ?? [];
    expect(Number(created) + Number(notStarted)).toBe(40);
    expect(await listRules(running)).toHaveLength(Number(created));
  });
});
