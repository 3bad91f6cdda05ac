import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/cli/logger.js';
import { TerminalRow } from '../../src/cli/terminal-row.js';
import { TerminalScreen } from '../support/terminal-screen.js';

function terminalOf(columns: number) {
  const stream = Object.assign(new PassThrough(), { isTTY: true, columns });
  const screen = new TerminalScreen(columns, { newlineIsCrLf: true });
  stream.on('data', (chunk: Buffer) => screen.write(chunk.toString('utf8')));
  return { row: new TerminalRow(stream), screen };
}

describe('TerminalRow', () => {
  it('writes a log line above the row, never glued onto it, and draws the row again below', async () => {
    const { row, screen } = terminalOf(80);
    const logger = createLogger({ format: 'pretty', destination: row.output, color: false });

    row.show('Applying 12/30 · ETA 4s · waiting for the request budget');
    logger.warn({ running: 4 }, 'stopping: no new actions start');
    row.show('Applying 13/30 · ETA 3s · waiting for the request budget');
    row.clear();
    row.output.write('Apply interrupted: 13 created\n');

    const lines = await screen.lines();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[[^\]]+\] WARN: stopping: no new actions start/);
    expect(lines[0]).not.toContain('Applying');
    expect(lines[1]).toBe('Apply interrupted: 13 created');
    screen.dispose();
  });

  it('passes writes through untouched while no row is drawn', async () => {
    const { row, screen } = terminalOf(40);

    row.output.write('read manifests\n');
    row.show('Reading the account (1s) · 0 pages');
    row.output.write('warning: x\n');

    expect(await screen.lines()).toEqual([
      'read manifests',
      'warning: x',
      'Reading the account (1s) · 0 pages',
    ]);
    expect(row.output.isTTY).toBe(true);
    expect(row.columns).toBe(40);
    screen.dispose();
  });
});
