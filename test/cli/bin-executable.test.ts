import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../support/built-cli.js';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the edgesync binary', () => {
  it("is package.json's bin and runs by itself, as npx, npm's links and a shell run it (shebang and execute bit)", async () => {
    const manifest = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      version: string;
    };
    expect(join(REPO_ROOT, manifest.bin.edgesync ?? '')).toBe(BUILT_CLI);
    // Not `node main.js`: the file itself is executed, so a missing execute bit fails with EACCES.
    const { stdout } = await run(BUILT_CLI, ['--version']);
    expect(stdout.trim()).toContain(manifest.version);
  });
});
