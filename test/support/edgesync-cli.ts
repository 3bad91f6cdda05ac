import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { PassThrough, type Readable, Writable } from 'node:stream';
import { runEdgesync } from '../../src/cli/run-edgesync.js';
import { BUILT_CLI } from './built-cli.js';

/**
 * The one way tests run edgesync: as a process (`runEdgesyncProcess`,
 * `spawnEdgesync`) where the test is about the process (exit codes, signals,
 * what reaches stdout and stderr, start-up), or in the test's own process
 * (`runEdgesyncInProcess`) where it is about a command's logic: the same
 * command line, the same exit-code table (src/cli/run-edgesync.ts), the
 * emulator over HTTP, without a Node start per call.
 */

export const ROOT = resolve(import.meta.dirname, '../..');

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** What a run talks to and is given; the process gets PATH and nothing else from the test's environment. */
export interface CliOptions {
  /** Working directory. @default the repository root */
  readonly cwd?: string;
  /** EDGE_API_URL and EDGE_API_KEY from it. */
  readonly emulator?: { readonly url: string; readonly apiKey: string };
  /** More variables, after the emulator's (so one can override EDGE_API_URL). */
  readonly env?: Readonly<Record<string, string>>;
  /** Node flags before the CLI, e.g. a heap cap (processes only). */
  readonly nodeFlags?: readonly string[];
  /** Bound on a process run, milliseconds: killed with SIGKILL after it, so a hang is a failure, not a stuck suite. */
  readonly limitMs?: number;
}

function environment(options: CliOptions): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    ...(options.emulator === undefined
      ? {}
      : { EDGE_API_URL: options.emulator.url, EDGE_API_KEY: options.emulator.apiKey }),
    ...options.env,
  };
}

/** `edgesync ARGS` as a process with pipes (no TTY); read it with `finished`. */
export function spawnEdgesync(args: readonly string[], options: CliOptions = {}): ChildProcess {
  return spawn(process.execPath, [...(options.nodeFlags ?? []), BUILT_CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    env: environment(options),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** What the process wrote and how it ended; `output()` reads what it has written so far. */
export function finished(child: ChildProcess): Promise<CliRun> & { output(): CliRun } {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const done = new Promise<CliRun>((resolveRun) => {
    child.on('close', (code, signal) => resolveRun({ code, signal, stdout, stderr }));
  });
  return Object.assign(done, { output: (): CliRun => ({ code: null, signal: null, stdout, stderr }) });
}

/** `edgesync ARGS` as a process, stdin closed, to its end. */
export function runEdgesyncProcess(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  const child = spawnEdgesync(args, options);
  child.stdin?.end();
  const run = finished(child);
  if (options.limitMs === undefined) return run;
  const timer = setTimeout(() => child.kill('SIGKILL'), options.limitMs);
  return run.finally(() => clearTimeout(timer));
}

/** A stream that keeps what is written to it, like a pipe: no TTY. */
class Captured extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** Variables commander reads from process.env itself (flags from the environment, the connection). */
const READ_FROM_PROCESS_ENV = /^(EDGE_|EDGESYNC_)/;

let inProcessQueue: Promise<unknown> = Promise.resolve();

/**
 * `edgesync ARGS` run in this process: the same command line and exit-code
 * table as the binary, stdout and stderr captured, stdin empty. Commander
 * reads a flag's variable from process.env, so for the run process.env holds
 * exactly the given EDGE_* and EDGESYNC_* variables; runs therefore go one at
 * a time.
 */
export function runEdgesyncInProcess(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  const run = inProcessQueue.then(() => runNow(args, options));
  inProcessQueue = run.catch(() => undefined);
  return run;
}

async function runNow(args: readonly string[], options: CliOptions): Promise<CliRun> {
  const env = environment(options);
  const saved = new Map<string, string | undefined>();
  for (const key of Object.keys(process.env)) {
    if (READ_FROM_PROCESS_ENV.test(key)) saved.set(key, process.env[key]);
  }
  for (const key of Object.keys(env)) {
    if (READ_FROM_PROCESS_ENV.test(key) && !saved.has(key)) saved.set(key, process.env[key]);
  }
  for (const key of saved.keys()) delete process.env[key];
  for (const [key, value] of Object.entries(env)) {
    if (READ_FROM_PROCESS_ENV.test(key)) process.env[key] = value;
  }
  const stdout = new Captured();
  const stderr = new Captured();
  const stdin = new PassThrough();
  stdin.end();
  try {
    const code = await runEdgesync([process.execPath, BUILT_CLI, ...args], {
      stdout,
      stderr,
      stdin: stdin as Readable,
      env,
      cwd: options.cwd ?? ROOT,
      shutdown: new AbortController().signal,
    });
    return { code, signal: null, stdout: stdout.text, stderr: stderr.text };
  } finally {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
