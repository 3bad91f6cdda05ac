import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { type CliRun, runEdgesyncInProcess } from '../support/edgesync-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SEED = join(ROOT, 'examples/emulator-seed.yaml');
const RULE =
  'version: 1\nip_policy_rules:\n  office-vpn:\n    ip_policy_id: ipp_OfficeVpnPolicy000000000001\n    cidr: 203.0.113.0/24\n    action: allow\n';
const SKIP_CLAUSE = 'node_modules and hidden directories such as .git are skipped';

/** In this process: what is promised is what plan and apply say they read. */
function runCli(emulator: RunningEmulator, cwd: string, args: readonly string[]): Promise<CliRun> {
  return runEdgesyncInProcess(args, { emulator, cwd });
}

describe('plan and apply say which directories they read (as processes, against the emulator)', () => {
  let emulator: RunningEmulator;
  let dir: string;

  beforeEach(async () => {
    emulator = await startEmulator({ seed: await loadSeedFile(SEED) });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-read-'));
    // What a repository holds besides manifests: broken YAML that must never be read.
    await mkdir(join(dir, 'node_modules', 'some-package'), { recursive: true });
    await writeFile(join(dir, 'node_modules', 'some-package', 'config.yaml'), 'a: [broken\n');
    await mkdir(join(dir, '.git'));
    await writeFile(join(dir, '.git', 'x.yaml'), 'a: [broken\n');
    await mkdir(join(dir, 'manifests'));
    await writeFile(join(dir, 'manifests', 'rules.yaml'), RULE);
    // A link back up: the walk skips it with a warning, which the commands must show.
    await symlink('.', join(dir, 'manifests', 'loop'));
  });

  afterEach(async () => {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('plan with no path: the directories read, what was skipped and the walk warnings, on stderr', async () => {
    const run = await runCli(emulator, dir, ['plan']);

    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('+ ip_policy_rules.office-vpn');
    expect(run.stderr).toContain(`read manifests (no path given: ${SKIP_CLAUSE})\n`);
    expect(run.stderr).toContain(
      'warning: manifests/loop: symlink to a directory already read (manifests); skipped',
    );
  });

  it('plan given a directory names the directories read too; given only files, it adds no note', async () => {
    const run = await runCli(emulator, dir, ['plan', 'manifests']);
    const fileOnly = await runCli(emulator, dir, ['plan', 'manifests/rules.yaml']);

    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`read manifests (${SKIP_CLAUSE})\n`);
    expect(fileOnly.code, fileOnly.stderr).toBe(0);
    expect(fileOnly.stderr).toBe('');
  });

  it('plan --format json carries manifests_read, valid against schemas/plan.schema.json', async () => {
    const schema = JSON.parse(await readFile(join(ROOT, 'schemas/plan.schema.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

    const run = await runCli(emulator, dir, ['plan', '--format', 'json']);
    const output = JSON.parse(run.stdout);

    expect(run.code, run.stderr).toBe(0);
    expect(validate(output), JSON.stringify(validate.errors)).toBe(true);
    expect(output.manifests_read).toEqual({
      directories: ['manifests'],
      warnings: [
        'manifests/loop: symlink to a directory already read (manifests); skipped, so no loop or file is read twice',
      ],
      no_path_given: true,
      skipped: ['node_modules', '.*'],
    });
  });

  it('apply with no path, and apply --plan, say what they read', async () => {
    const saved = await runCli(emulator, dir, ['plan', '--out', 'plan.json']);
    const fromFile = await runCli(emulator, dir, ['apply', '--plan', 'plan.json', '--yes']);
    await writeFile(join(dir, 'manifests', 'rules.yaml'), RULE.replace('action: allow', 'action: deny'));
    const direct = await runCli(emulator, dir, ['apply', '--yes']);

    expect(saved.code, saved.stderr).toBe(0);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    // Its paths come from the command line (none: "."), which must be those the plan was made from.
    expect(fromFile.stderr).toContain(`read manifests (no path given: ${SKIP_CLAUSE})\n`);
    expect(direct.code, direct.stderr).toBe(0);
    expect(direct.stdout).toContain('ip_policy_rules.office-vpn');
    expect(direct.stderr).toContain(`read manifests (no path given: ${SKIP_CLAUSE})\n`);
    expect(direct.stderr).toContain('warning: manifests/loop: symlink to a directory already read');
  });
});
