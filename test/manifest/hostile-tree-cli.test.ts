import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEdgesyncProcess } from '../support/edgesync-cli.js';

/** The CLI as a process with a small heap, killed after `limitMs`: growing without bound or hanging fails. */
const edgesync = (args: readonly string[], cwd: string, limitMs = 20_000) =>
  runEdgesyncProcess(args, { cwd, env: { NO_COLOR: '1' }, nodeFlags: ['--max-old-space-size=96'], limitMs });

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point.
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

const RULE = (name: string, action: string): string =>
  `version: 1\nip_policy_rules:\n  ${name}:\n    ip_policy_id: ipp_2a8bxxxxxxxxxxxxxxxxxxxxxxxxx\n    cidr: 10.0.0.1/32\n    action: ${action}\n`;

describe('edgesync validate on hostile trees (as a process)', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-hostile-cli-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([[[]], [['--allow-outside-root']]])(
    'refuses zero.yaml -> /dev/zero and random.yaml -> /dev/urandom at once, in bounded memory (%j)',
    async (flags) => {
      await mkdir(join(dir, 'm'));
      await writeFile(join(dir, 'm', 'ok.yaml'), RULE('ok', 'deny'));
      await symlink('/dev/zero', join(dir, 'm', 'zero.yaml'));
      await symlink('/dev/urandom', join(dir, 'm', 'random.yaml'));

      const run = await edgesync(['validate', 'm', ...flags], dir);

      expect(run.signal).toBeNull();
      expect(run.code).toBe(1);
      const code =
        flags.length === 0 ? 'outside the manifest root' : 'a character device, not a regular file';
      // A problem with the file as a whole: no line or column is made up for it.
      expect(run.stderr).toContain(`m/random.yaml: `);
      expect(run.stderr).toContain(`m/zero.yaml: `);
      expect(run.stderr.split('\n').filter((line) => line.includes(code))).toHaveLength(2);
    },
  );

  it('refuses a manifest symlinked outside the root and never echoes its secret, in any format', async () => {
    await mkdir(join(dir, 'repo', 'manifests'), { recursive: true });
    await mkdir(join(dir, 'home'));
    await writeFile(join(dir, 'home', 'creds.yaml'), RULE('leak', 'sk_live_51HxSecretValue'));
    await symlink('../../home/creds.yaml', join(dir, 'repo', 'manifests', 'creds.yaml'));

    const runs = await Promise.all(
      ['text', 'json', 'sarif'].map((format) =>
        edgesync(['validate', 'manifests', '--format', format], join(dir, 'repo')),
      ),
    );

    for (const [index, run] of runs.entries()) {
      expect(run.code).toBe(1);
      if (index === 0) expect(run.stderr).toContain('outside the manifest root');
      else expect(run.stdout).toContain('path_outside_root');
      expect(`${run.stdout}${run.stderr}`).not.toContain('sk_live');
    }
    expect(runs[0]?.stderr).toBe(
      'manifests/creds.yaml: symlink to a file outside the manifest root (the directory given on the command line); not read. Pass --allow-outside-root to follow it\n1 error in 1 file\n',
    );
  });

  it('escapes BEL, ESC, newlines and U+202E of names and values: every error stays one file:line:col line', async () => {
    await writeFile(
      join(dir, 'm.yaml'),
      'version: 1\nip_policy_rules:\n  "bell\\a-esc\\e[2J-nl\\n-rlo\\u202e":\n    ip_policy_id: ipp_2a8bxxxxxxxxxxxxxxxxxxxxxxxxx\n    cidr: 10.0.0.1/32\n    action: "deny\\a\\u202e\\n"\n',
    );

    const runs = await Promise.all(
      ['text', 'json', 'sarif'].map((format) => edgesync(['validate', 'm.yaml', '--format', format], dir)),
    );

    for (const run of runs) {
      expect(run.code).toBe(1);
      expect(`${run.stdout}${run.stderr}`).not.toMatch(RAW_CONTROL);
    }
    const lines = runs[0]?.stderr.trimEnd().split('\n').slice(0, -1) ?? [];
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^m\.yaml:\d+:\d+: /);
    expect(runs[0]?.stderr).toContain('bell\\x07-esc\\x1b[2J-nl\\n-rlo\\u202e');
  });

  it('parses a large manifest off the main thread with the same results and locations', async () => {
    const padding = `# ${'x'.repeat(98)}\n`.repeat(12_000);
    await writeFile(join(dir, 'big.yaml'), `${RULE('ok', 'deny')}${padding}`);
    await writeFile(join(dir, 'bad.yaml'), `${padding}${RULE('bad', 'maybe')}`);

    const valid = await edgesync(['validate', 'big.yaml'], dir);
    const invalid = await edgesync(['validate', 'bad.yaml'], dir);

    expect(valid.stdout).toBe('1 file valid (1 entry)\n');
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^bad\.yaml:12006:5: ip_policy_rules\.bad\.action: .*maybe/);
  });

  it('with no path, skips node_modules and .git and says which directories it read', async () => {
    await mkdir(join(dir, 'node_modules', 'some-package'), { recursive: true });
    await writeFile(join(dir, 'node_modules', 'some-package', 'config.yaml'), 'a: [broken\n');
    await mkdir(join(dir, '.git'));
    await writeFile(join(dir, '.git', 'x.yaml'), 'a: [broken\n');
    await mkdir(join(dir, 'manifests'));
    await writeFile(join(dir, 'manifests', 'rules.yaml'), RULE('ok', 'deny'));

    const run = await edgesync(['validate'], dir);

    expect(run.code).toBe(0);
    expect(run.stdout).toBe('1 file valid (1 entry)\n');
    expect(run.stderr).toBe(
      'read manifests (no path given: node_modules and hidden directories such as .git are skipped)\n',
    );
  });
});
