import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../support/built-cli.js';

const ROOT = resolve('.');
const ANSI = '\u001b[';

function planStdout(args: readonly string[], env: Record<string, string>): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      BUILT_CLI,
      ...args,
      '--emulator',
      '--emulator-seed',
      'examples/emulator-seed.yaml',
      'examples/manifests',
    ],
    { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  return new Promise((done) => child.on('close', () => done(stdout)));
}

describe('colour: --no-color, NO_COLOR only when non-empty, FORCE_COLOR', () => {
  it('plan without a TTY: FORCE_COLOR colours, --no-color and a non-empty NO_COLOR win, an empty NO_COLOR does not count', async () => {
    const [plain, forced, flagged, emptyNoColor, noColor] = await Promise.all([
      planStdout(['plan'], {}),
      planStdout(['plan'], { FORCE_COLOR: '1' }),
      planStdout(['plan', '--no-color'], { FORCE_COLOR: '1' }),
      planStdout(['plan'], { FORCE_COLOR: '1', NO_COLOR: '' }),
      planStdout(['plan'], { FORCE_COLOR: '1', NO_COLOR: '1' }),
    ]);

    expect(plain).toContain('to create');
    expect(plain).not.toContain(ANSI);
    expect(forced).toContain(ANSI);
    expect(flagged).not.toContain(ANSI);
    expect(emptyNoColor).toContain(ANSI);
    expect(noColor).not.toContain(ANSI);
  });

  it('apply has --no-color too', async () => {
    const [forced, flagged] = await Promise.all([
      planStdout(['apply', '--yes'], { FORCE_COLOR: '1' }),
      planStdout(['apply', '--yes', '--no-color'], { FORCE_COLOR: '1' }),
    ]);

    expect(forced).toContain(ANSI);
    expect(flagged).toContain('to create');
    expect(flagged).not.toContain(ANSI);
  });
});
