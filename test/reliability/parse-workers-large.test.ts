import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type * as manifestFiles from '../../src/manifest/manifest-files.js';
import type * as parseInWorker from '../../src/manifest/parse-in-worker.js';

/**
 * A file over what the pool's workers are given, parsed in a worker of its own with a heap sized
 * from the file: the compiled worker script (dist/, built by the global setup), as in
 * test/manifest/parse-workers.test.ts. Here because parsing 4.2 MB takes seconds of CPU; in
 * `npm test`, test/manifest/hostile-tree-cli.test.ts validates a 1.2 MB file, which takes the same
 * path (a worker of its own, 112 MB), and parse-workers.test.ts holds parseHeapMb's table.
 */
const DIST = new URL('../../dist/src/manifest/', import.meta.url);
const built = async <T>(module: string): Promise<T> => (await import(new URL(module, DIST).href)) as T;
const { ManifestParsing } = await built<typeof parseInWorker>('parse-in-worker.js');
const { walkManifestTree } = await built<typeof manifestFiles>('manifest-files.js');

/** Every queued file through a worker, from the first byte. */
const ALL_IN_WORKERS = { poolStartBytes: 0, callerParses: false } as const;

const POLICY = 'ipp_2a8bxxxxxxxxxxxxxxxxxxxxxxxxx';
const rules = (prefix: string, count: number): string =>
  `version: 1\nip_policy_rules:\n${Array.from(
    { length: count },
    (_, index) =>
      `  ${prefix}-${index}:\n    ip_policy_id: ${POLICY}\n    cidr: 10.${index >> 8}.${index & 255}.0/24\n` +
      `    action: ${index % 2 === 0 ? 'allow' : 'deny'}\n    description: rule ${index} of ${prefix}\n`,
  ).join('')}`;

describe('parsing a large file on a worker thread of its own', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-parse-large-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('parses a file over what the pool is given in a worker whose heap is sized from the file', async () => {
    await mkdir(join(dir, 'm'));
    // 30,000 plain rules in one file, 4.2 MB: refused before with "parsing needs more than 96 MB".
    await writeFile(join(dir, 'm', 'block-list.yaml'), rules('r', 30_000));
    await writeFile(join(dir, 'm', 'small.yaml'), rules('s', 10));
    const { files } = await walkManifestTree(['m'], { cwd: dir, allowOutsideRoot: false });
    const parsing = new ManifestParsing(ALL_IN_WORKERS);

    const [large, small] = await Promise.all(files.map((file) => parsing.parse(file)));
    await parsing.close();

    if (!large?.ok || !small?.ok) throw new Error(JSON.stringify([large, small]).slice(0, 300));
    const data = large.manifest.data as { ip_policy_rules: Record<string, unknown> };
    expect(Object.keys(data.ip_policy_rules)).toHaveLength(30_000);
    expect(parsing.workersStarted).toBe(2);
  }, 60_000);
});
