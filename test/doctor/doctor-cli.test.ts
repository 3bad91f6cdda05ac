import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorOptions } from '../../src/emulator/emulator-options.js';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { emulatorStats, listAll } from '../apply/apply-harness.js';
import { inspectClient } from '../apply/cli-process.js';
import {
  finished,
  ROOT,
  runEdgesyncInProcess,
  runEdgesyncProcess,
  spawnEdgesync,
} from '../support/edgesync-cli.js';

const SEED = join(ROOT, 'examples/emulator-seed.yaml');
const TLS = join(ROOT, 'test/fixtures/tls');
const CERT = join(TLS, 'loopback-cert.pem');
const TCP_EDGE = 'edgtcp_SshEdge00000000000000000001';
const TLS_EDGE = 'edgtls_DbEdge000000000000000000001';
const LIMIT_MS = 60_000;

/** Every collection the emulator lists, and the modules of the seeded TCP and TLS edges. */
const COLLECTIONS = [
  ['/ip_policies', 'ip_policies'],
  ['/endpoint_configurations', 'endpoint_configurations'],
  ['/ip_policy_rules', 'ip_policy_rules'],
  ['/reserved_addrs', 'reserved_addrs'],
  ['/certificate_authorities', 'certificate_authorities'],
  ['/edges/https', 'https_edges'],
] as const;
const MODULES = [
  `/edges/tcp/${TCP_EDGE}/ip_restriction`,
  `/edges/tls/${TLS_EDGE}/mutual_tls`,
  `/edges/tls/${TLS_EDGE}/tls_termination`,
];

/** What the account holds: every collection's ids, and each probed module as read (404 or its body). */
async function accountSnapshot(emulator: RunningEmulator): Promise<Record<string, unknown>> {
  const inspect = inspectClient(emulator);
  const snapshot: Record<string, unknown> = {};
  for (const [path, key] of COLLECTIONS) {
    const items = await listAll<{ id: string }>({ inspect }, path, key);
    snapshot[path] = items.map((item) => item.id).sort();
  }
  for (const path of MODULES) {
    const response = await fetch(`${emulator.url}${path}`, {
      headers: { authorization: `Bearer ${emulator.apiKey}`, 'service-version': '2' },
    });
    snapshot[path] = response.status === 200 ? await response.json() : response.status;
  }
  return snapshot;
}

async function writesSeen(emulator: RunningEmulator): Promise<string[]> {
  const { byRoute } = await emulatorStats({ emulator });
  return Object.keys(byRoute).filter((route) => !route.startsWith('GET '));
}

/**
 * As a process: the read-only run (exit 0), SIGINT during the probes, and the TLS trust Node reads
 * from NODE_EXTRA_CA_CERTS when it starts. In this process, through the same command line and
 * exit-code table: what doctor says and leaves behind in every other case.
 */
describe('edgesync doctor against the emulator', () => {
  let emulator: RunningEmulator | undefined;
  let proxy: Server | undefined;

  beforeAll(async () => {
    // The seed is read once: every test starts its own emulator from it.
    await loadSeedFile(SEED);
  });
  afterEach(async () => {
    proxy?.closeAllConnections();
    await new Promise((closed) => (proxy ? proxy.close(closed) : closed(undefined)));
    proxy = undefined;
    await emulator?.close();
    emulator = undefined;
  });

  async function start(options: EmulatorOptions = {}): Promise<RunningEmulator> {
    emulator = await startEmulator({ seed: await loadSeedFile(SEED), ...options });
    return emulator;
  }

  it('read-only: every assumption holds or is unknown, one line each, exit 0, and nothing is written', async () => {
    const running = await start();

    const run = await runEdgesyncProcess(['doctor'], { emulator: running, limitMs: LIMIT_MS });

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ok {3}http:\/\/127\.0\.0\.1:\d+ answers: HTTP 200$/m);
    expect(run.stdout).toContain('ok   the API key is accepted: HTTP 200');
    expect(run.stdout).toContain('ok   requests with Service-Version: 2 are served: HTTP 200');
    expect(run.stdout).toContain('unknown: the service sends no rate-limit header');
    for (const [path, key] of COLLECTIONS.slice(2)) {
      expect(run.stdout).toContain(`ok   GET ${path} answers {"${key}": [...]`);
    }
    expect(run.stdout).not.toContain('FAIL');
    expect(await writesSeen(running)).toEqual([]);
    // At most two GETs per listed kind (a first page, and a second only where there is one), plus the first.
    expect((await emulatorStats({ emulator: running })).total).toBeLessThanOrEqual(2 * 4 + 1);
  });

  it('read-only pages a list that has a second page, and says so', async () => {
    const seed = await loadSeedFile(SEED);
    emulator = await startEmulator({
      seed: {
        ...seed,
        https_edges: [
          ...(seed.https_edges ?? []),
          { id: `edghts_${'SecondEdge'.padEnd(27, '0')}`, hostports: ['second.example.com:443'] },
        ],
      },
    });

    const run = await runEdgesyncInProcess(['doctor'], { emulator, limitMs: LIMIT_MS });

    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^ok {3}GET \/edges\/https\?limit=1 pages by next_page_uri.*: a second page with other items$/m,
    );
    expect(run.stdout).toContain('the list is empty: paging not exercised');
  });

  it('--format json: snake_case, one check per line of text', async () => {
    const running = await start();

    const run = await runEdgesyncInProcess(['doctor', '--format', 'json'], {
      emulator: running,
      limitMs: LIMIT_MS,
    });
    const report = JSON.parse(run.stdout) as {
      ok: boolean;
      left_behind: string[];
      checks: { check: string; verdict: string; assumption: string; answered: string }[];
    };

    expect(run.code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.left_behind).toEqual([]);
    expect(report.checks.map((check) => check.check)).toContain('connection.key');
    expect(report.checks.find((check) => check.check === 'budget')?.verdict).toBe('unknown');
  });

  it.each([
    [{}, 'not-found', 'clears'],
    [{ 'unset-module': 'null-ok' }, 'null-ok', 'clears'],
  ] as const)(
    '--probe-writes with variants %j: holds, tells the variants, and leaves every collection as it was',
    async (variants, unsetModule, emptyList) => {
      const running = await start({ variants });
      const before = await accountSnapshot(running);

      const run = await runEdgesyncInProcess(['doctor', '--probe-writes', '--probe-edge', TLS_EDGE], {
        emulator: running,
        limitMs: LIMIT_MS,
      });

      expect(run.stdout).not.toContain('FAIL');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        `GET of an unset mutual_tls answers 404 or 200 with nothing (unset-module): HTTP ${unsetModule === 'not-found' ? '404' : '200 with nothing'} [${unsetModule}]`,
      );
      expect(run.stdout).toContain(`[${emptyList}]`);
      expect(run.stdout).toContain('ok   POST creates one IP policy rule as sent');
      expect(run.stdout).toContain('ok   DELETE answers 204, and the HTTPS edge reads as gone (404)');
      expect(run.stdout).toContain('ok   mutual_tls is put back as found: as found');
      expect(await writesSeen(running)).toContain('POST /certificate_authorities');
      expect(await accountSnapshot(running)).toEqual(before);
    },
  );

  it('--probe-edge on a TCP edge puts its IP restriction back as found', async () => {
    const running = await start();
    const before = await accountSnapshot(running);

    const run = await runEdgesyncInProcess(['doctor', '--probe-writes', '--probe-edge', TCP_EDGE], {
      emulator: running,
      limitMs: LIMIT_MS,
    });

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('ok   a PUT of ip_restriction reads back as put: as put');
    expect(run.stdout).toContain('ok   ip_restriction is put back as found: as found');
    expect(await accountSnapshot(running)).toEqual(before);
  });

  it('fails on empty-list=ignored: the one variant edgesync cannot converge with, named unsupported; nothing left behind', async () => {
    const running = await start({ variants: { 'empty-list': 'ignored' } });
    const before = await accountSnapshot(running);

    const run = await runEdgesyncInProcess(['doctor', '--probe-writes'], {
      emulator: running,
      limitMs: LIMIT_MS,
    });

    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^FAIL a PATCH with "hostports": \[\] empties the HTTPS edge's hostports \(empty-list=clears\): ignored: .*\(unsupported\) \[ignored\]$/m,
    );
    expect(run.stdout).toContain('1 assumption(s) do not hold');
    expect(await accountSnapshot(running)).toEqual(before);
  });

  it('SIGINT after the first POST: cleans up, says so, exits 1, and every collection is as it was', async () => {
    // Each request waits 40 ms in the emulator: the signal arrives while the probe is mid-way.
    const running = await start({ latencyMs: 40 });
    const before = await accountSnapshot(running);

    const child = spawnEdgesync(['doctor', '--probe-writes', '--probe-edge', TLS_EDGE], {
      emulator: running,
    });
    child.stdin?.end();
    const run = finished(child);
    for (
      let tries = 0;
      tries < 2000 && (await writesSeen(running)).every((route) => !route.startsWith('POST '));
      tries += 1
    ) {
      await new Promise((wait) => setTimeout(wait, 5));
    }
    child.kill('SIGINT');
    const ended = await run;

    expect(ended.stdout).toContain('interrupted: the probes stopped and cleaned up');
    expect(ended.stdout).not.toContain('NOT REMOVED');
    expect(ended.code).toBe(1);
    expect(await accountSnapshot(running)).toEqual(before);
  });

  it('a wrong key: the key line fails and names EDGE_API_KEY; exit 1', async () => {
    const running = await start();

    const run = await runEdgesyncInProcess(['doctor'], {
      env: { EDGE_API_URL: running.url, EDGE_API_KEY: 'not-the-key' },
      limitMs: LIMIT_MS,
    });

    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'FAIL the API key is accepted: HTTP 401: the key was refused; check EDGE_API_KEY (or --api-key)',
    );
    expect(run.stdout).not.toContain('not-the-key');
  });

  it('a wrong URL: no answer, named; exit 1', async () => {
    const closed = createServer();
    await new Promise<void>((listening) => closed.listen(0, '127.0.0.1', listening));
    const { port } = closed.address() as AddressInfo;
    await new Promise((done) => closed.close(done));

    const run = await runEdgesyncInProcess(['doctor'], {
      env: { EDGE_API_URL: `http://127.0.0.1:${port}`, EDGE_API_KEY: 'k' },
      limitMs: LIMIT_MS,
    });

    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`FAIL http://127.0.0.1:${port} answers: no answer: connection_refused`);
  });

  it('a TLS certificate not trusted: the TLS line fails and names NODE_EXTRA_CA_CERTS; trusted, it holds', async () => {
    const running = await start();
    const target = new URL(running.url);
    proxy = createHttpsServer(
      { key: await readFile(join(TLS, 'loopback-key.pem')), cert: await readFile(CERT) },
      (incoming, outgoing) => {
        const forwarded = httpRequest(
          new URL(incoming.url ?? '/', target),
          { method: incoming.method, headers: { ...incoming.headers, host: target.host } },
          (answer) => {
            // As a service that states its budget does: the doctor reads it from here, never by spending it.
            outgoing.writeHead(answer.statusCode ?? 502, {
              ...answer.headers,
              'ratelimit-limit': '120',
              'ratelimit-remaining': '117',
            });
            answer.pipe(outgoing);
          },
        );
        incoming.pipe(forwarded);
      },
    );
    const server = proxy;
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const untrusted = await runEdgesyncProcess(['doctor'], {
      env: { EDGE_API_URL: url, EDGE_API_KEY: running.apiKey },
      limitMs: LIMIT_MS,
    });
    const trusted = await runEdgesyncProcess(['doctor'], {
      env: { EDGE_API_URL: url, EDGE_API_KEY: running.apiKey, NODE_EXTRA_CA_CERTS: CERT },
      limitMs: LIMIT_MS,
    });

    expect(untrusted.code).toBe(1);
    expect(untrusted.stdout).toMatch(
      /^FAIL the service's TLS certificate is trusted: certificate rejected: .*NODE_EXTRA_CA_CERTS$/m,
    );
    expect(trusted.stdout).toContain(
      "ok   the service's TLS certificate is trusted: the handshake succeeded",
    );
    expect(trusted.stdout).toContain(
      'ok   the request budget left (120 per 60 s in the service family), where the service says it: 117 of 120 left',
    );
    expect(trusted.code).toBe(0);
  });
});
