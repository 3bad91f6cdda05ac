import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/manifest/load-desired-state.js';

const rules = (prefix: string, count: number): string =>
  `version: 1\nip_policy_rules:\n${Array.from(
    { length: count },
    (_, index) =>
      `  ${prefix}-${index}:\n    ip_policy_id: ipp_2a8bxxxxxxxxxxxxxxxxxxxxxxxxx\n    cidr: 10.0.${index}.0/24\n` +
      `    action: ${index % 2 === 0 ? 'allow' : 'deny'}\n`,
  ).join('')}`;

describe('loadDesiredState onBytesRead', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-bytes-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // plan limits the heap's growth from these totals while the load still reads (heap-growth.ts).
  it('is told the bytes read so far after each file, up to the size of every file', async () => {
    const texts = [rules('a', 3), rules('b', 40), `# only a comment\n${rules('c', 7)}`];
    await Promise.all(texts.map((text, index) => writeFile(join(dir, `${index}.yaml`), text)));
    const totals: number[] = [];
    const loaded = await loadDesiredState([dir], { cwd: dir, onBytesRead: (total) => totals.push(total) });
    expect(loaded.ok).toBe(true);
    const sizes = texts.map((text) => Buffer.byteLength(text));
    expect(totals).toHaveLength(3);
    expect([...totals].sort((a, b) => a - b)).toEqual(totals);
    expect(totals.at(-1)).toBe(sizes.reduce((sum, size) => sum + size, 0));
  });
});
