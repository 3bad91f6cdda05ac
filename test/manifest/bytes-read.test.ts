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

describe('loadDesiredState onExpectedBytes', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-bytes-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // plan limits the heap's growth from these while the load still reads (heap-growth.ts).
  it('is told the bytes read so far scaled to every file found, after each file, and at last their size', async () => {
    const texts = [rules('a', 3), rules('b', 40), `# only a comment\n${rules('c', 7)}`];
    await Promise.all(texts.map((text, index) => writeFile(join(dir, `${index}.yaml`), text)));
    const expected: number[] = [];
    const loaded = await loadDesiredState([dir], {
      cwd: dir,
      onExpectedBytes: (bytes) => expected.push(bytes),
    });
    expect(loaded.ok).toBe(true);
    const [a, b, c] = texts.map((text) => Buffer.byteLength(text)) as [number, number, number];
    // Files are read a few ahead, in any order: the first read is one file's size times three.
    expect(expected).toHaveLength(3);
    expect([a * 3, b * 3, c * 3]).toContain(expected[0]);
    expect(expected[2]).toBe(a + b + c);
  });
});
