import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runEdgesyncProcess } from '../support/edgesync-cli.js';

/** edgesync as a process in `cwd`, with PATH alone. */
const run = (args: readonly string[], cwd: string) => runEdgesyncProcess(args, { cwd });

describe('duration and rate flags take units on every command', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('plan and apply take --rate-limit 120/60, --timeout 30s and --grace-timeout 2s', async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-flags-'));
    await writeFile(join(dir, 'empty.yaml'), 'version: 1\n');
    const flags = ['--emulator', '--rate-limit', '120/60', '--timeout', '30s'];

    const plan = await run(['plan', ...flags, 'empty.yaml'], dir);
    const apply = await run(['apply', '--yes', '--grace-timeout', '2s', ...flags, 'empty.yaml'], dir);
    const bad = await run(['plan', '--emulator', '--timeout', '30 seconds', 'empty.yaml'], dir);

    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(apply.code).toBe(0);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--timeout: expected a duration like 500ms, 30s or 5m (found "30 seconds")');
  });
});
