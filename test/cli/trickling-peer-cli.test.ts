import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, finished, ROOT, spawnEdgesync } from '../support/edgesync-cli.js';
import { startTricklingPeer, type TricklingPeer } from '../support/trickling-peer.js';

/**
 * Each command that reads a peer, as a process, against a peer that sends
 * its headers and then its body 8 KB at a time, forever (a stuck proxy, a
 * hostile daemon or service): the read ends at its deadline with exit 1 and
 * a message that says so, and SIGTERM during the read ends the command with
 * its documented exit code. Before readPeer, `status --wait-commit` read such
 * a daemon past `--wait-timeout` and past SIGTERM (fetch's timeout and
 * abort signals, made with AbortSignal.any, were collected by the garbage
 * collector while the body was still being read).
 */

const TOKEN = 'trickle-test-token-0123456789abcdef';
const COMMIT = 'a'.repeat(40);
const MANIFESTS = join(ROOT, 'examples/manifests');
/** A run that outlives this was not ended by its deadline or its signal: killed, and the test fails. */
const HANG_MS = 20_000;

let dir: string;
let peer: TricklingPeer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgesync-trickle-'));
  await writeFile(join(dir, 'token'), TOKEN, { mode: 0o600 });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await peer.close();
});

interface Reader {
  /** The command line; PEER stands for the trickling peer's URL. */
  readonly args: readonly string[];
  /** The peer is the service (EDGE_API_URL), not a daemon. */
  readonly service?: boolean;
  /** Answered whole by the peer (`POST /reconcile` before `--wait` reads `/status`). */
  readonly answered?: Readonly<Record<string, { readonly status: number; readonly body: string }>>;
  /** What the run says when the deadline ends the read. */
  readonly deadlineMessage: RegExp;
}

const READERS: Readonly<Record<string, Reader>> = {
  'status --daemon-url': {
    args: ['status', '--daemon-url', 'PEER', '--read-timeout', '1s'],
    deadlineMessage:
      /PEER\/status: could not read the daemon's status: the body was still arriving after 1 s/,
  },
  'status --wait-commit': {
    args: ['status', '--daemon-url', 'PEER', '--wait-commit', COMMIT, '--wait-timeout', '2s'],
    deadlineMessage: /commit aaaaaaaaaaaa is not live on PEER after 2s: .*the body was still arriving after/,
  },
  'status --wait-commit --commit-status (the Git host)': {
    args: [
      'status',
      '--commit-status',
      'github',
      '--commit-status-api-url',
      'PEER',
      '--commit-status-repo',
      'acme/infra',
      '--commit-status-token-file',
      'token',
      '--wait-commit',
      COMMIT,
      '--wait-timeout',
      '2s',
    ],
    deadlineMessage:
      /commit aaaaaaaaaaaa is not live after 2s \(GitHub status edgesync\/default\): GitHub \(127\.0\.0\.1:\d+\): GET \/repos\/acme\/infra\/commits\/a{40}\/status: no complete answer \(the body was still arriving after [\d.]+ s/,
  },
  'apply --daemon-url (the CI guard)': {
    args: ['apply', '--daemon-url', 'PEER', '--timeout', '1s', '--yes', MANIFESTS],
    deadlineMessage:
      /PEER\/status: could not read the daemon's status: the body was still arriving after 1 s/,
  },
  'get --daemon-url (its /inventory)': {
    args: ['get', '--daemon-url', 'PEER', '--read-timeout', '1s'],
    deadlineMessage:
      /PEER\/inventory\?limit=1000: could not read the daemon's inventory: the body was still arriving after 1 s/,
  },
  'reconcile (POST /reconcile)': {
    args: ['reconcile', '--daemon-url', 'PEER', '--read-timeout', '1s'],
    deadlineMessage: /PEER\/reconcile: no complete answer: the body was still arriving after 1 s/,
  },
  'reconcile --wait (its /status)': {
    args: ['reconcile', '--daemon-url', 'PEER', '--wait', '--wait-timeout', '2s'],
    answered: { 'POST /reconcile': { status: 202, body: '{"ticket":1,"state":"queued"}' } },
    deadlineMessage: /the forced reconcile had not finished after --wait-timeout 2s/,
  },
  'suspend (POST /suspend)': {
    args: ['suspend', '--daemon-url', 'PEER', '--suspend-token-file', 'token', '--read-timeout', '1s'],
    deadlineMessage: /PEER\/suspend: no complete answer: the body was still arriving after 1 s/,
  },
  'resume (POST /resume)': {
    args: ['resume', '--daemon-url', 'PEER', '--suspend-token-file', 'token', '--read-timeout', '1s'],
    deadlineMessage: /PEER\/resume: no complete answer: the body was still arriving after 1 s/,
  },
  'plan (the service)': {
    args: ['plan', '--timeout', '1s', MANIFESTS],
    service: true,
    deadlineMessage: /GET PEER\/\S+: no complete answer within 1 s/,
  },
  'apply (the service)': {
    args: ['apply', '--timeout', '1s', '--yes', MANIFESTS],
    service: true,
    deadlineMessage: /GET PEER\/\S+: no complete answer within 1 s/,
  },
  'get (the service)': {
    args: ['get', '--timeout', '1s', MANIFESTS],
    service: true,
    deadlineMessage: /GET PEER\/\S+: no complete answer within 1 s/,
  },
  'export (the service)': {
    args: ['export', '--timeout', '1s'],
    service: true,
    deadlineMessage: /GET PEER\/\S+: no complete answer within 1 s/,
  },
  'doctor (the service)': {
    args: ['doctor', '--timeout', '1s'],
    service: true,
    deadlineMessage: /no answer: timeout \(the body was still arriving after 1 s/,
  },
};

function start(reader: Reader): { run: Promise<CliRun>; kill(signal: NodeJS.Signals): void } {
  const args = reader.args.map((arg) => (arg === 'PEER' ? peer.url : arg));
  const child = spawnEdgesync(args, {
    cwd: dir,
    env: {
      EDGE_API_URL: reader.service === true ? peer.url : 'http://127.0.0.1:9',
      EDGE_API_KEY: 'trickle-test-key',
      EDGESYNC_RECONCILE_TOKEN_FILE: join(dir, 'token'),
    },
  });
  child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
  const run = finished(child).finally(() => clearTimeout(timer));
  return { run, kill: (signal) => child.kill(signal) };
}

/** What the run wrote (doctor's lines go to stdout), with the peer's URL as PEER. */
function shown(run: CliRun): string {
  return `${run.stdout}${run.stderr}`.replaceAll(peer.url, 'PEER');
}

describe('a peer that trickles its body: every command that reads one ends at its deadline', () => {
  it.each(Object.entries(READERS))('%s exits 1 saying the answer did not complete', async (_name, reader) => {
    peer = await startTricklingPeer(reader.answered === undefined ? {} : { answered: reader.answered });

    const run = await start(reader).run;

    expect(run.signal).toBeNull();
    expect(run.code).toBe(1);
    expect(shown(run)).toMatch(reader.deadlineMessage);
    expect(run.stderr).not.toContain(TOKEN);
  });
});

describe('a peer that trickles its body: a signal during the read ends every command', () => {
  it.each(
    Object.entries(READERS).flatMap(([name, reader]) =>
      (['SIGTERM', 'SIGINT'] as const).map((signal) => [name, signal, reader] as const),
    ),
  )('%s ends on %s with exit 1', async (_name, signal, reader) => {
    peer = await startTricklingPeer(reader.answered === undefined ? {} : { answered: reader.answered });
    const long: Reader = {
      ...reader,
      args: reader.args.map((arg) => (/^\d+s$/.test(arg) ? '10m' : arg)),
    };
    const running = start(long);

    await peer.answering;
    running.kill(signal);
    const run = await running.run;

    expect(run.signal).toBeNull();
    expect(run.code).toBe(1);
    expect(shown(run)).toMatch(/interrupted/);
    await peer.cutOff;
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'watch ends on %s during a read of a Git host that trickles its answer to a commit status, with exit 0',
    async (signal) => {
      peer = await startTricklingPeer();
      // A checkout at a commit, whose first run posts pending to the host: the daemon reads the host's answer.
      const checkout = await mkdtemp(join(dir, 'checkout-'));
      await mkdir(join(checkout, '.git'));
      await writeFile(join(checkout, '.git', 'HEAD'), `${COMMIT}\n`);
      await mkdir(join(checkout, 'manifests'));
      await writeFile(join(checkout, 'manifests', 'rules.yaml'), 'version: 1\nip_policy_rules: [unclosed\n');
      const running = start({
        args: [
          'watch',
          join(checkout, 'manifests'),
          '--listen',
          '127.0.0.1:0',
          '--commit-status',
          'github',
          '--commit-status-api-url',
          'PEER',
          '--commit-status-repo',
          'acme/infra',
          '--commit-status-token-file',
          'token',
          '--shutdown-timeout',
          '1s',
        ],
        deadlineMessage: /unused/,
      });

      await peer.answering;
      running.kill(signal);
      const run = await running.run;

      expect(peer.requests[0]).toBe(`POST /repos/acme/infra/statuses/${COMMIT}`);
      expect(run.signal).toBeNull();
      expect(run.code).toBe(0);
      expect(run.stderr).not.toContain(TOKEN);
      await peer.cutOff;
    },
  );

  it('watch ends on SIGTERM during a read of a trickling service, at --shutdown-timeout, with exit 0', async () => {
    peer = await startTricklingPeer();
    const running = start({
      args: ['watch', MANIFESTS, '--listen', '127.0.0.1:0', '--timeout', '10m', '--shutdown-timeout', '1s'],
      service: true,
      deadlineMessage: /unused/,
    });

    await peer.answering;
    running.kill('SIGTERM');
    const run = await running.run;

    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
    await peer.cutOff;
  });
});
