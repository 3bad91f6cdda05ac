import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { BUILT_CLI } from '../support/built-cli.js';
import { assertBuilt, eventually } from './daemon-process.js';
import { parsePrometheusText } from './prometheus-text.js';

const EXAMPLES = resolve('examples');

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(args: readonly string[], cwd: string): Promise<Run> {
  const child = spawn(process.execPath, [BUILT_CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

/** Runs `watch` until `until` holds on its stderr and metrics, then stops it with SIGTERM. */
async function watchUntil(
  args: readonly string[],
  cwd: string,
  until: (stderr: string, metrics: string) => boolean,
): Promise<{ stderr: string; metrics: string; code: number | null }> {
  const child = spawn(process.execPath, [BUILT_CLI, 'watch', '--listen', '127.0.0.1:0', ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', EDGE_API_KEY: 'key' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  try {
    const url = await new Promise<string>((done, fail) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /^listening on (http:\/\/\S+)\n/.exec(stdout);
        if (match?.[1]) done(match[1]);
      });
      void exited.then((code) => fail(new Error(`watch exited with ${code}:\n${stderr}`)));
    });
    const metrics = await eventually(async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return until(stderr, text) ? text : undefined;
    });
    child.kill('SIGTERM');
    return { stderr, metrics, code: await exited };
  } finally {
    child.kill('SIGKILL');
  }
}

function jsonLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('logs and metrics an operator reads', () => {
  let dir: string;
  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-logs-'));
    await cp(EXAMPLES, join(dir, 'examples'), { recursive: true });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('watch: levels are names, build_info, one kind label per kind, drifted counts objects not module changes', async () => {
    const seed = ['--emulator', '--emulator-seed', 'examples/emulator-seed.yaml'];
    const plan = await run(['plan', ...seed, '--format', 'json', 'examples/manifests'], dir);
    const changes = (JSON.parse(plan.stdout) as { changes: { kind: string; name: string }[] }).changes;
    const objects = new Set(changes.map((change) => `${change.kind}.${change.name}`));

    const { stderr, metrics, code } = await watchUntil(
      [...seed, '--mode', 'observe', '--interval', '1h', 'examples/manifests'],
      dir,
      // Observe mode on a fresh account: everything the examples hold is pending (Git has it, the account not yet).
      (_stderr, text) => /edgesync_reconciles_total\{result="pending"\} 1/.test(text),
    );
    const samples = parsePrometheusText(metrics);
    const drifted = samples.filter((sample) => sample.name === 'edgesync_drifted_objects');
    const requestKinds = new Set(
      samples
        .filter((sample) => sample.name === 'edgesync_api_requests_total')
        .map((sample) => sample.labels.kind),
    );
    const buildInfo = samples.find((sample) => sample.name === 'edgesync_build_info');

    expect(code).toBe(0);
    expect(jsonLines(stderr).length).toBeGreaterThan(3);
    expect(jsonLines(stderr).every((line) => typeof line.level === 'string')).toBe(true);
    expect(jsonLines(stderr).find((line) => line.msg === 'reconcile finished')?.level).toBe('info');
    expect(buildInfo?.labels).toEqual({
      version: VERSION,
      node: process.versions.node,
      platform: process.platform,
      arch: process.arch,
    });
    expect(buildInfo?.value).toBe(1);
    expect(requestKinds.has('tcp_edges')).toBe(true);
    expect([...requestKinds].filter((kind) => kind?.includes('.'))).toEqual([]);
    expect(changes.length).toBeGreaterThan(objects.size);
    expect(drifted.reduce((sum, sample) => sum + sample.value, 0)).toBe(objects.size);
    expect(drifted.find((sample) => sample.labels.kind === 'https_edges')?.value).toBe(1);
    // observe mode creates nothing: the CA has no live ID yet
    expect(
      samples.filter(
        (sample) => sample.name === 'edgesync_certificate_authority_expiration_timestamp_seconds',
      ),
    ).toEqual([
      {
        name: 'edgesync_certificate_authority_expiration_timestamp_seconds',
        labels: { name: 'corp-root', id: '' },
        value:
          Date.parse(
            new X509Certificate(await readFile(join(EXAMPLES, 'manifests/certs/corp-root.pem'))).validTo,
          ) / 1000,
      },
    ]);
  });

  it('watch: a failed reconcile logs at error', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const address = closed.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    await new Promise<void>((done) => closed.close(() => done()));

    const { stderr } = await watchUntil(
      ['--api-url', `http://127.0.0.1:${address.port}`, '--interval', '1h', 'examples/manifests'],
      dir,
      (text) => text.includes('"msg":"reconcile finished"'),
    );
    const finished = jsonLines(stderr).find((line) => line.msg === 'reconcile finished');

    expect(finished?.result).toBe('failed');
    expect(finished?.level).toBe('error');
  });

  it('apply: each action is logged under "action"; --log-format pretty prints one line per event', async () => {
    const seed = [
      '--emulator',
      '--emulator-seed',
      'examples/emulator-seed.yaml',
      '--yes',
      '--log-level',
      'info',
    ];
    const json = await run(['apply', ...seed, '--log-format', 'json', 'examples/manifests'], dir);
    const pretty = await run(['apply', ...seed, '--log-format', 'pretty', 'examples/manifests'], dir);
    const actions = jsonLines(json.stderr).filter((line) => line.msg === 'action finished');
    const prettyEvents = pretty.stderr.split('\n').filter((line) => /\] (INFO|WARN|ERROR)\b/.test(line));

    expect(json.code).toBe(0);
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.every((line) => typeof line.action === 'string' && !('key' in line))).toBe(true);
    expect(pretty.code).toBe(0);
    expect(prettyEvents.filter((line) => line.includes('action finished')).length).toBe(actions.length);
    expect(
      prettyEvents
        .filter((line) => line.includes('action finished'))
        .every((line) => line.includes('"action":')),
    ).toBe(true);
    expect(pretty.stderr).not.toMatch(/^\s+"?\w+"?: /m);
  });

  it('--log-level verbose is refused with the valid levels', async () => {
    const plan = await run(['plan', '--emulator', '--log-level', 'verbose', 'examples/manifests'], dir);

    expect(plan.code).toBe(1);
    expect(plan.stderr).toBe(
      'edgesync: --log-level: expected one of fatal, error, warn, info, debug, trace, silent (found "verbose")\nsee `edgesync plan --help`\n',
    );
  });
});
