import { createHash, getHashes } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { type CliRun, ROOT, runEdgesyncInProcess } from '../support/edgesync-cli.js';

/**
 * A saved plan is a CI artifact kept for weeks: whoever can read it must
 * not be able to test guesses at a secret it sends. `plan --out` with
 * `--plan-key-file` holds HMAC-SHA-256 digests under a key the file does
 * not hold; without a key it holds no digest at all; `apply --plan`
 * confirms a secret only under the same key, and refuses (exit 3) what it
 * cannot check, saying how to give the key.
 */

const SEED = join(ROOT, 'examples/emulator-seed.yaml');
const KEY = 'plan-key-cli-test-key-0123456789abcdef';
const OTHER_KEY = 'another-plan-key-for-the-cli-test-0123456789';
/** A weak secret, the kind a guess finds: the file must give no way to test one. */
const SECRET = 'hunter2-weak-secret';

/** Every unkeyed digest of `value` a reader could compute, in the encodings a file could hold it in. */
function unkeyedDigests(value: string): string[] {
  const found: string[] = [];
  const algorithms = getHashes().filter((name) => !/shake/i.test(name));
  for (const input of [value, `${value}\n`]) {
    for (const algorithm of algorithms) {
      const digest = createHash(algorithm).update(input).digest();
      found.push(digest.toString('hex'), digest.toString('base64'), digest.toString('base64url'));
    }
  }
  return found;
}

describe('plan files hold no digest of a secret that a reader can compute (CLI)', () => {
  let emulator: RunningEmulator;
  let dir: string;

  beforeEach(async () => {
    emulator = await startEmulator({ seed: await loadSeedFile(SEED) });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-plan-key-'));
    await cp(join(ROOT, 'examples/manifests'), join(dir, 'manifests'), { recursive: true });
    await writeFile(join(dir, 'manifests/secrets/oidc-client-secret.txt'), `${SECRET}\n`);
    await writeFile(join(dir, 'plan.key'), `${KEY}\n`, { mode: 0o600 });
    await writeFile(join(dir, 'other.key'), OTHER_KEY, { mode: 0o600 });
  });
  afterEach(async () => {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** In this process: what these promise is the files, the messages and the exit code's number, not the process. */
  const edgesync = (args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> =>
    runEdgesyncInProcess(args, { emulator, cwd: dir, env });
  const planFile = (name: string): Promise<string> => readFile(join(dir, name), 'utf8');

  it('with --plan-key-file, holds keyed digests and the key id only; without, holds none', async () => {
    const keyed = await edgesync(['plan', 'manifests', '--out', 'keyed.json'], {
      EDGESYNC_PLAN_KEY_FILE: 'plan.key',
    });
    const unkeyed = await edgesync(['plan', 'manifests', '--out', 'unkeyed.json']);
    const files = [await planFile('keyed.json'), await planFile('unkeyed.json')];

    expect(keyed.code, keyed.stderr).toBe(0);
    expect(unkeyed.code, unkeyed.stderr).toBe(0);
    expect(unkeyed.stderr).toContain('the file holds no digest of it: apply --plan will refuse them');
    for (const text of files) {
      expect(text).not.toContain(SECRET);
      for (const digest of unkeyedDigests(SECRET)) expect(text).not.toContain(digest);
      for (const form of [KEY, Buffer.from(KEY).toString('hex'), Buffer.from(KEY).toString('base64')])
        expect(text).not.toContain(form);
    }
    const [withKey, withoutKey] = files.map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(withKey?.plan_key_id).toMatch(/^[0-9a-f]{16}$/);
    expect(files[0]).toMatch(/"\$sensitive": "hmac-sha256:[0-9a-f]{16}:[0-9a-f]{64}"/);
    expect(withoutKey?.plan_key_id).toBeNull();
    expect(files[1]).toContain('"$sensitive": "withheld"');
    expect(files[1]).not.toMatch(/hmac-sha256|sha256:/);
  });

  it('hashes the manifests without their secrets: another secret gives the same desired_hash', async () => {
    const first = await runEdgesyncInProcess(['plan', 'manifests', '--format', 'json'], {
      emulator,
      cwd: dir,
    });
    await writeFile(join(dir, 'manifests/secrets/oidc-client-secret.txt'), 'a-completely-different-secret\n');
    const second = await runEdgesyncInProcess(['plan', 'manifests', '--format', 'json'], {
      emulator,
      cwd: dir,
    });

    expect(JSON.parse(first.stdout).desired_hash).toBe(JSON.parse(second.stdout).desired_hash);
  });

  it('applies a keyed plan with the same key, and refuses it (exit 3) without the key or with another, saying which key', async () => {
    await edgesync(['plan', 'manifests', '--out', 'plan.json', '--plan-key-file', 'plan.key']);

    const noKey = await edgesync(['apply', '--plan', 'plan.json', '--yes', 'manifests']);
    const otherKey = await edgesync([
      'apply',
      '--plan',
      'plan.json',
      '--yes',
      'manifests',
      '--plan-key-file',
      'other.key',
    ]);
    const sameKey = await edgesync(['apply', '--plan', 'plan.json', '--yes', 'manifests'], {
      EDGESYNC_PLAN_KEY_FILE: 'plan.key',
    });

    expect(noKey.code, noKey.stderr).toBe(3);
    expect(noKey.stderr).toMatch(/digested with plan key [0-9a-f]{16}; give this apply the same key/);
    expect(otherKey.code, otherKey.stderr).toBe(3);
    expect(otherKey.stderr).toContain('and this apply has another key');
    expect(sameKey.code, sameKey.stderr).toBe(0);
    expect(sameKey.stdout).toContain('Apply complete');
    for (const run of [noKey, otherKey, sameKey]) expect(`${run.stdout}${run.stderr}`).not.toContain(SECRET);
  });

  it('refuses (exit 3) a plan made without a key that sends a secret, saying how to give the key', async () => {
    await edgesync(['plan', 'manifests', '--out', 'plan.json']);

    const apply = await edgesync(['apply', '--plan', 'plan.json', '--yes', 'manifests'], {
      EDGESYNC_PLAN_KEY_FILE: 'plan.key',
    });

    expect(apply.code, apply.stderr).toBe(3);
    expect(apply.stderr).toContain('made without --plan-key-file');
    expect(apply.stderr).toContain('give plan and apply the same --plan-key-file (EDGESYNC_PLAN_KEY_FILE)');
  });

  it('refuses (exit 3) a plan file of the older format, whose digests were plain sha256', async () => {
    await edgesync(['plan', 'manifests', '--out', 'plan.json', '--plan-key-file', 'plan.key']);
    const text = await planFile('plan.json');
    const older = text
      .replace('"format_version": 5', '"format_version": 3')
      .replaceAll(
        /"hmac-sha256:[0-9a-f]{16}:[0-9a-f]{64}"/g,
        `"sha256:${createHash('sha256').update(SECRET).digest('hex')}"`,
      );
    await writeFile(join(dir, 'plan.json'), older);

    const apply = await edgesync(['apply', '--plan', 'plan.json', '--yes', 'manifests'], {
      EDGESYNC_PLAN_KEY_FILE: 'plan.key',
    });

    expect(apply.code, apply.stderr).toBe(3);
    expect(apply.stderr).toContain(
      'saved by an older edgesync (format 3), whose plan files held a plain sha256',
    );
  });

  it('refuses a plan key under 32 bytes (exit 1), naming the flag and never printing the key', async () => {
    await writeFile(join(dir, 'short.key'), 'too-short-key\n', { mode: 0o600 });

    const plan = await edgesync(['plan', 'manifests', '--out', 'plan.json', '--plan-key-file', 'short.key']);

    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('a plan key has at least 32 bytes (found 13)');
    expect(plan.stderr).not.toContain('too-short-key');
  });
});
