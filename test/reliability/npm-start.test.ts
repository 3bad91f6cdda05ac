import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** What a fresh clone holds that `npm start` needs; node_modules is linked from this checkout (as `npm ci` would install it). */
const CLONED = [
  'src',
  'scripts',
  'schemas',
  'examples',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
];

function npmStart(cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      'npm',
      ['start'],
      {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd },
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        done({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : null,
          stdout,
          stderr,
        });
      },
    );
  });
}

describe('npm start builds only when dist/ is stale', () => {
  let clone: string;

  beforeAll(async () => {
    clone = await mkdtemp(join(tmpdir(), 'edgesync-npm-start-'));
    for (const entry of CLONED) await cp(join(ROOT, entry), join(clone, entry), { recursive: true });
    await symlink(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
  });

  afterAll(async () => {
    await rm(clone, { recursive: true, force: true });
  });

  it('on a fresh clone it builds and applies; run again, it builds nothing and applies', async () => {
    const first = await npmStart(clone);
    const bundledAt = (await stat(join(clone, 'dist', 'cli', 'main.js'))).mtimeMs;
    const second = await npmStart(clone);
    const bundledAgainAt = (await stat(join(clone, 'dist', 'cli', 'main.js'))).mtimeMs;

    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/build: \d+ source file\(s\) newer than dist\/ .*; compiling/);
    expect(first.stdout).toContain('Apply complete: 4 created');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('build: dist/ is up to date');
    expect(second.stderr).not.toContain('compiling');
    expect(bundledAgainAt).toBe(bundledAt);
    expect(second.stdout).toContain('Apply complete: 4 created');
  });
});
