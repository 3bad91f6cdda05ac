import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { CLI, finished, listRules, ROOT, rulesManifest } from './cli-process.js';

const SCRIPT = '/usr/bin/script';

/** Visible text of terminal output: escape sequences removed. */
function visible(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching the ANSI escapes is the point
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
}

describe('apply progress on an 80-column terminal (pseudo-terminal via util-linux script)', () => {
  let emulator: RunningEmulator | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await emulator?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(!existsSync(SCRIPT))(
    'fits every redraw in 80 columns and says when it waits for the request budget',
    async () => {
      emulator = await startEmulator({ seed: await loadSeedFile(join(ROOT, 'examples/emulator-seed.yaml')) });
      dir = await mkdtemp(join(tmpdir(), 'edgesync-progress-'));
      await writeFile(join(dir, 'rules.yaml'), rulesManifest(12));
      const apply = [
        process.execPath,
        CLI,
        'apply',
        '--yes',
        '--rate-limit',
        '5/2s',
        '--log-level',
        'warn',
        dir,
      ]
        .map((part) => JSON.stringify(part))
        .join(' ');
      // `script` gives the CLI a pseudo-terminal; `stty cols 80` makes it an 80-column one.
      const child = spawn(SCRIPT, ['-qec', `stty cols 80 rows 24; ${apply}`, '/dev/null'], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          EDGE_API_URL: emulator.url,
          EDGE_API_KEY: emulator.apiKey,
          TERM: 'xterm',
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      });

      const result = await finished(child);

      expect(result.code).toBe(0);
      expect(await listRules(emulator)).toHaveLength(12);
      const redraws = visible(result.stdout)
        .split(/\r|\n/)
        .filter((line) => line.startsWith('Applying '));
      expect(redraws.length).toBeGreaterThan(1);
      expect(redraws.filter((line) => [...line].length > 79)).toEqual([]);
      expect(redraws.some((line) => /waiting for the request budget \(next slot in \d+ s\)/.test(line))).toBe(
        true,
      );
      expect(visible(result.stdout)).toMatch(/Apply complete: 12 created/);
    },
  );
});
