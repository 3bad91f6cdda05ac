import { closeSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { outputStream } from '../../src/cli/output-stream.js';
import { runEdgesyncProcess } from '../support/edgesync-cli.js';

const RECORD_BUILTINS = join(import.meta.dirname, 'record-builtins.cjs');

/** Runs the built CLI with stdout and stderr on pipes, as a script or CI reads them, and lists what Node loaded. */
async function runPiped(args: readonly string[], dir: string) {
  const builtinsFile = join(dir, `builtins-${args.join('-').replace(/[^a-z]+/g, '_')}.log`);
  const { code, stdout, stderr } = await runEdgesyncProcess(args, {
    nodeFlags: ['--require', RECORD_BUILTINS],
    env: { EDGESYNC_TEST_BUILTINS_FILE: builtinsFile },
  });
  const loaded = (await readFile(builtinsFile, 'utf8')).split('\n');
  return { code, stdout, stderr, loaded };
}

describe('stdout and stderr on a pipe or a file are written without net', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('validate and --version print through pipes, every line, without loading net or tty', async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-output-'));
    const valid = await runPiped(['validate', 'examples/manifests'], dir);
    expect(valid.code).toBe(0);
    expect(valid.stdout).toBe('6 files valid (7 entries)\n');
    expect(valid.loaded).not.toContain('NativeModule net');
    expect(valid.loaded).not.toContain('NativeModule tty');
    const version = await runPiped(['--version'], dir);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(version.loaded).not.toContain('NativeModule net');
    // The errors, then the summary, on stderr: in order, every line complete.
    const invalid = await runPiped(['validate', 'examples/invalid'], dir);
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toBe('');
    const errors = invalid.stderr.trimEnd().split('\n');
    const summary = errors.pop();
    expect(errors.length).toBeGreaterThan(10);
    for (const line of errors) expect(line).toMatch(/^examples\/invalid\/[^:]+:\d+:\d+: /);
    expect(summary).toMatch(new RegExp(`^${errors.length} errors in \\d+ files$`));
  });

  it('a file gets every chunk, strings and bytes, in order; anything else gets the process stream', async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-output-'));
    const file = join(dir, 'out.txt');
    const fd = openSync(file, 'w');
    const fallback = new PassThrough();
    const stream = outputStream(fd, () => fallback);
    expect(stream).not.toBe(fallback);
    const big = 'x'.repeat(200_000);
    stream.write('caf\u00e9 ');
    stream.write(Buffer.from('\u2026 bytes\n'));
    stream.write(`${big}\n`);
    await new Promise<void>((done) => stream.end(done));
    closeSync(fd);
    expect(await readFile(file, 'utf8')).toBe(`caf\u00e9 \u2026 bytes\n${big}\n`);

    // /dev/null is a character device, as a terminal is: the process's own stream.
    const devNull = openSync('/dev/null', 'w');
    expect(outputStream(devNull, () => fallback)).toBe(fallback);
    closeSync(devNull);
  });

  it('a closed descriptor is an error of the stream, not a crash', async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-output-'));
    const fd = openSync(join(dir, 'out.txt'), 'w');
    const stream = outputStream(fd, () => new PassThrough());
    closeSync(fd);
    const failed = new Promise<Error>((done) => stream.on('error', done));
    stream.write('lost\n');
    expect(((await failed) as NodeJS.ErrnoException).code).toBe('EBADF');
  });
});
