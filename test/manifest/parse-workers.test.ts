import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DesiredState } from '../../src/manifest/desired-state.js';
import * as inline from '../../src/manifest/load-desired-state.js';
import type { ManifestError } from '../../src/manifest/manifest-error.js';
import type * as manifestFiles from '../../src/manifest/manifest-files.js';
import type * as manifestMemo from '../../src/manifest/manifest-memo.js';
import type * as parseInWorker from '../../src/manifest/parse-in-worker.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';

/**
 * The parsing workers run the compiled worker script (dist/, built by the
 * tests' global setup): from TypeScript sources every file is parsed on the
 * calling thread. So the loader with workers is the compiled one, and the
 * loader from sources is the inline path it must match, error for error and
 * entry for entry.
 */
const DIST = new URL('../../dist/src/manifest/', import.meta.url);
const built = async <T>(module: string): Promise<T> => (await import(new URL(module, DIST).href)) as T;
const withWorkers = await built<typeof inline>('load-desired-state.js');
const { ManifestParsing, parseHeapMb } = await built<typeof parseInWorker>('parse-in-worker.js');
const { walkManifestTree } = await built<typeof manifestFiles>('manifest-files.js');
const { ManifestMemo } = await built<typeof manifestMemo>('manifest-memo.js');

/** Every queued file through a worker, from the first byte. */
const ALL_IN_WORKERS = { poolStartBytes: 0, callerParses: false } as const;

const POLICY = 'ipp_2a8bxxxxxxxxxxxxxxxxxxxxxxxxx';
/** Rules whose CIDRs are their own: the first octet from the prefix (10 for a, 11 for b, …), the rest from the index. */
const rules = (prefix: string, count: number, extra = ''): string =>
  `version: 1\nip_policy_rules:\n${Array.from(
    { length: count },
    (_, index) =>
      `  ${prefix}-${index}:\n    ip_policy_id: ${POLICY}\n    cidr: ${10 + prefix.charCodeAt(0) - 97}.${index >> 8}.${index & 255}.0/24\n` +
      `    action: ${index % 2 === 0 ? 'allow' : 'deny'}\n    description: rule ${index} of ${prefix}\n`,
  ).join('')}${extra}`;

function errorRows(errors: readonly ManifestError[]) {
  return errors.map(({ code, file, line, column, path, detail }) => ({
    code,
    file,
    line,
    column,
    path,
    detail,
  }));
}

function entryRows(state: DesiredState) {
  return state.entries.map(({ kind, name, id, protect, spec, location, fieldLocations }) => ({
    kind,
    name,
    id,
    protect,
    spec,
    location,
    fieldLocations,
  }));
}

describe('parsing on worker threads', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-parse-workers-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives the entries, locations and hash of the inline parse', async () => {
    await cp(join(import.meta.dirname, '..', '..', 'examples', 'manifests'), join(dir, 'm'), {
      recursive: true,
    });
    for (const prefix of ['a', 'b', 'c'])
      await writeFile(join(dir, 'm', `${prefix}-rules.yaml`), rules(prefix, 400));
    const options = { cwd: dir, readSecrets: false };

    const here = await inline.loadDesiredState(['m'], { ...BUILT_IN_LOAD, ...options });
    const there = await withWorkers.loadDesiredState(['m'], {
      ...BUILT_IN_LOAD,
      ...options,
      parsing: ALL_IN_WORKERS,
    });

    if (!here.ok || !there.ok) throw new Error('the manifests are valid');
    expect(there.value.entries.length).toBe(here.value.entries.length);
    expect(entryRows(there.value)).toEqual(entryRows(here.value));
    expect(there.value.hash).toBe(here.value.hash);
    expect(there.value.files).toEqual(here.value.files);
  });

  it('reports every error at the file:line:col of the inline parse, in the same order', async () => {
    await mkdir(join(dir, 'm'));
    const files: Record<string, string> = {
      // A schema error (did you mean), and a name defined again in d.yaml.
      'a.yaml': rules('a', 50).replace('    cidr: 10.0.7.0/24\n', '    cdir: 10.0.7.0/24\n'),
      'b.yaml': 'version: 1\nip_policy_rules:\n  x: [unclosed\n',
      'c.yaml': `${rules('c', 5)}  c-1:\n    ip_policy_id: ${POLICY}\n`,
      'd.yaml': rules('a', 3).replace('description: rule 1 of a', 'description: !!binary aGk='),
      'e.yaml': 'version: 1\n---\nversion: 1\n',
      'f.yaml': rules('f', 20).replace('action: allow', 'action: permit'),
      'g.yaml': '- not a mapping\n',
    };
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, 'm', name), text);

    const here = await inline.loadDesiredState(['m'], { ...BUILT_IN_LOAD, cwd: dir });
    const there = await withWorkers.loadDesiredState(['m'], {
      ...BUILT_IN_LOAD,
      cwd: dir,
      parsing: ALL_IN_WORKERS,
    });

    if (here.ok || there.ok) throw new Error('the manifests are invalid');
    expect(new Set(here.errors.map((error) => error.file)).size).toBe(Object.keys(files).length);
    expect(errorRows(there.errors)).toEqual(errorRows(here.errors));
    expect(there.errors.map(String)).toEqual(here.errors.map(String));
  });

  it('parses the files in workers (and none for a small load by default)', async () => {
    await mkdir(join(dir, 'm'));
    for (const prefix of ['a', 'b']) await writeFile(join(dir, 'm', `${prefix}.yaml`), rules(prefix, 10));
    const { files } = await walkManifestTree(['m'], { cwd: dir, allowOutsideRoot: false });

    const pooled = new ManifestParsing(ALL_IN_WORKERS);
    const outcomes = await Promise.all(files.map((file) => pooled.parse(file)));
    await pooled.close();
    const small = new ManifestParsing();
    for (const file of files) await small.parse(file);
    await small.close();

    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true]);
    expect(pooled.workersStarted).toBeGreaterThanOrEqual(1);
    expect(small.workersStarted).toBe(0);
  });

  it('with runtime V8 flags set, sets them again once each worker is up, before it parses anything more', async () => {
    await mkdir(join(dir, 'm'));
    for (const prefix of ['a', 'b', 'c'])
      await writeFile(join(dir, 'm', `${prefix}.yaml`), rules(prefix, 10));
    const { files } = await walkManifestTree(['m'], { cwd: dir, allowOutsideRoot: false });
    const events: string[] = [];
    const runtimeFlags = { set: () => true, reapply: () => void events.push('flags set again') };

    // The caller parses what no worker has been given: without the wait, it would take the first file at once.
    const parsing = new ManifestParsing({ poolStartBytes: 0, runtimeFlags });
    const pending = await Promise.all(files.map((file) => parsing.start(file)));
    for (const [index, one] of pending.entries()) {
      expect((await one.take()).ok).toBe(true);
      events.push(`file ${index} taken`);
    }
    await parsing.close();

    expect(parsing.workersStarted).toBeGreaterThanOrEqual(1);
    const taken = events.indexOf('file 0 taken');
    expect(events.slice(0, taken)).toEqual(
      Array.from({ length: parsing.workersStarted }, () => 'flags set again'),
    );
    expect(events.slice(taken, taken + 3)).toEqual(['file 0 taken', 'file 1 taken', 'file 2 taken']);
  });

  it('turns a worker that runs out of heap into an error naming the file, and goes on with the others', async () => {
    await mkdir(join(dir, 'm'));
    // 100 KB of one flow list: fifty thousand YAML nodes, over a pool worker's heap lowered to 32 MB
    // (at the 96 MB a file of 1 MB is given, running out was most of this file's time).
    await writeFile(join(dir, 'm', 'a-huge.yaml'), `version: 1\nx: [${'1,'.repeat(50_000)}1]\n`);
    await writeFile(join(dir, 'm', 'b.yaml'), rules('b', 10));
    await writeFile(join(dir, 'm', 'c.yaml'), 'version: 1\nip_policy_rules:\n  x: [unclosed\n');

    const there = await withWorkers.loadDesiredState(['m'], {
      ...BUILT_IN_LOAD,
      cwd: dir,
      parsing: { ...ALL_IN_WORKERS, poolHeapMb: 32 },
    });

    if (there.ok) throw new Error('the huge file is refused');
    expect(errorRows(there.errors)).toEqual([
      {
        code: 'file_too_large',
        file: join('m', 'a-huge.yaml'),
        line: undefined,
        column: undefined,
        path: '',
        detail: 'parsing needs more than 32 MB; split the file or write it out more simply',
      },
      expect.objectContaining({ code: 'yaml_syntax', file: join('m', 'c.yaml'), line: 4 }),
    ]);
  }, 60_000);

  // A file over what the pool is given, parsed in a worker of its own (30,000 rules, 4.2 MB), is in
  // test/reliability/parse-workers-large.test.ts; test/manifest/hostile-tree-cli.test.ts parses 1.2 MB in one.
  it.each([
    [0, 96],
    [1024 * 1024, 96],
    [4_354_634, 324],
    [5 * 1024 * 1024, 384],
  ])('gives the parse of %i bytes a heap of %i MB', (bytes, heapMb) => {
    expect(parseHeapMb(bytes)).toBe(heapMb);
  });

  it('leaves no worker behind: a process that loads through the pool exits by itself', async () => {
    await mkdir(join(dir, 'm'));
    for (const prefix of ['a', 'b', 'c'])
      await writeFile(join(dir, 'm', `${prefix}.yaml`), rules(prefix, 30));
    const loader = fileURLToPath(new URL('load-desired-state.js', DIST));
    const registry = fileURLToPath(new URL('../kinds/registry.js', DIST));
    await writeFile(
      join(dir, 'load.mjs'),
      `const { loadDesiredState } = await import(${JSON.stringify(loader)});
const { KINDS } = await import(${JSON.stringify(registry)});
const loaded = await loadDesiredState(['m'], { kinds: KINDS, parsing: { poolStartBytes: 0, callerParses: false } });
console.log(loaded.ok ? loaded.value.entries.length : loaded.errors.map(String).join('; '));`,
    );

    const { stdout } = await promisify(execFile)(process.execPath, ['load.mjs'], {
      cwd: dir,
      timeout: 30_000,
    });

    expect(stdout.trim()).toBe('90');
  }, 40_000);

  it('parses on the calling thread when a worker cannot start (node -e refuses --input-type in workers)', async () => {
    await mkdir(join(dir, 'm'));
    for (const prefix of ['a', 'b', 'c'])
      await writeFile(join(dir, 'm', `${prefix}.yaml`), rules(prefix, 30));
    const loader = fileURLToPath(new URL('load-desired-state.js', DIST));
    const registry = fileURLToPath(new URL('../kinds/registry.js', DIST));
    const script = `const { loadDesiredState } = await import(${JSON.stringify(loader)});
const { KINDS } = await import(${JSON.stringify(registry)});
const loaded = await loadDesiredState(['m'], { kinds: KINDS, parsing: { poolStartBytes: 0, callerParses: false } });
console.log(loaded.ok ? loaded.value.entries.length : loaded.errors.map(String).join('; '));`;

    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dir,
      timeout: 30_000,
    });

    expect(stdout.trim()).toBe('90');
  }, 40_000);

  it("reloads as the daemon does: the memo keeps unchanged files' entries and the pool parses the changed one", async () => {
    await mkdir(join(dir, 'm'));
    for (const prefix of ['a', 'b', 'c'])
      await writeFile(join(dir, 'm', `${prefix}.yaml`), rules(prefix, 30));
    const memo = new ManifestMemo();
    const load = async (): Promise<DesiredState> => {
      const loaded = await withWorkers.loadDesiredState(['m'], {
        ...BUILT_IN_LOAD,
        cwd: dir,
        memo,
        parsing: ALL_IN_WORKERS,
      });
      if (!loaded.ok) throw new Error(loaded.errors.map(String).join('\n'));
      return loaded.value;
    };
    const first = await load();
    await writeFile(
      join(dir, 'm', 'b.yaml'),
      rules('b', 30).replace('description: rule 3 of b', 'description: edited'),
    );

    const second = await load();
    const fresh = await inline.loadDesiredState(['m'], { ...BUILT_IN_LOAD, cwd: dir });

    if (!fresh.ok) throw new Error('the manifests are valid');
    const named = (state: DesiredState, name: string) => state.entries.find((entry) => entry.name === name);
    expect(named(second, 'a-3')).toBe(named(first, 'a-3'));
    expect(named(second, 'b-3')).not.toBe(named(first, 'b-3'));
    expect(named(second, 'b-3')?.spec.description).toBe('edited');
    expect(second.hash).toBe(fresh.value.hash);
    expect(entryRows(second)).toEqual(entryRows(fresh.value));
  });
});
