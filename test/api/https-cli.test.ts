import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { KINDS } from '../../src/kinds/registry.js';
import { BUILT_CLI } from '../support/built-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const TLS = join(ROOT, 'test/fixtures/tls');
/** A self-signed certificate for 127.0.0.1 (test only, valid until 2126), trusted through NODE_EXTRA_CA_CERTS. */
const CERT = join(TLS, 'loopback-cert.pem');
const RULE =
  'version: 1\nip_policy_rules:\n  office-vpn:\n    ip_policy_id: ipp_OfficeVpnPolicy000000000001\n    cidr: 203.0.113.0/24\n    action: allow\n';

interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The service is HTTPS, the emulator plain HTTP: this proxy terminates TLS
 * in front of it, and answers with a brotli body whenever the client asks
 * for one (only over TLS does edgesync ask for `br`), as a CDN in front of
 * the service may.
 */
async function startTlsProxy(
  target: URL,
): Promise<{ server: Server; url: string; acceptEncodings: string[]; handshakesRefused: () => number }> {
  const acceptEncodings: string[] = [];
  let refused = 0;
  const server = createServer(
    { key: await readFile(join(TLS, 'loopback-key.pem')), cert: await readFile(CERT) },
    (incoming, outgoing) => {
      acceptEncodings.push(String(incoming.headers['accept-encoding']));
      const { 'accept-encoding': _dropped, ...headers } = incoming.headers;
      const forwarded = httpRequest(
        new URL(incoming.url ?? '/', target),
        { method: incoming.method, headers: { ...headers, host: target.host } },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => {
            const body = Buffer.concat(chunks);
            const brotli = String(incoming.headers['accept-encoding']).includes('br');
            const { 'content-length': _length, ...answerHeaders } = answer.headers;
            outgoing.writeHead(answer.statusCode ?? 502, {
              ...answerHeaders,
              ...(brotli ? { 'content-encoding': 'br' } : {}),
            });
            outgoing.end(brotli ? brotliCompressSync(body) : body);
          });
        },
      );
      incoming.pipe(forwarded);
    },
  );
  server.on('tlsClientError', () => {
    refused += 1;
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return { server, url: `https://127.0.0.1:${port}`, acceptEncodings, handshakesRefused: () => refused };
}

function runCli(cwd: string, args: readonly string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolveRun) => {
    execFile(
      process.execPath,
      [BUILT_CLI, ...args],
      { cwd, env: { PATH: process.env.PATH ?? '', ...env } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolveRun({ code, stdout, stderr });
      },
    );
  });
}

const READ_LINE = 'read . (node_modules and hidden directories such as .git are skipped)';

describe('edgesync over HTTPS (as a process, the emulator behind a TLS proxy)', () => {
  let emulator: RunningEmulator;
  let proxy: Awaited<ReturnType<typeof startTlsProxy>>;
  let dir: string;

  beforeAll(async () => {
    emulator = await startEmulator({ seed: await loadSeedFile(join(ROOT, 'examples/emulator-seed.yaml')) });
    proxy = await startTlsProxy(new URL(emulator.url));
    dir = await mkdtemp(join(tmpdir(), 'edgesync-https-'));
    await writeFile(join(dir, 'rules.yaml'), RULE);
  });

  afterAll(async () => {
    proxy.server.closeAllConnections();
    await new Promise((closed) => proxy.server.close(closed));
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('plans over TLS, with brotli-compressed answers, when the certificate is trusted', async () => {
    const run = await runCli(dir, ['plan', '--owner', 'https-test', '.'], {
      EDGE_API_URL: proxy.url,
      EDGE_API_KEY: emulator.apiKey,
      NODE_EXTRA_CA_CERTS: CERT,
    });

    expect(run.stderr).not.toContain(emulator.apiKey);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('ip_policy_rules.office-vpn');
    expect(proxy.acceptEncodings.length).toBeGreaterThan(0);
    expect(new Set(proxy.acceptEncodings)).toEqual(new Set(['br, gzip, deflate']));
  });

  it('refuses a certificate it does not trust at once, says which check failed and how to trust it, and exits 1 without the key', async () => {
    const run = await runCli(dir, ['plan', '--owner', 'https-test', '.'], {
      EDGE_API_URL: proxy.url,
      EDGE_API_KEY: emulator.apiKey,
    });

    expect(run.code).toBe(1);
    expect(run.stderr).toContain(proxy.url);
    expect(run.stderr).toMatch(/certificate/i);
    // Node 26 appends its own hint to OpenSSL's reason (`; if the root CA is installed locally, …`).
    expect(run.stderr).toContain('(certificate rejected: self-signed certificate');
    expect(run.stderr).toContain('NODE_EXTRA_CA_CERTS');
    // No retry: the next handshake meets the same certificate. At most one per kind's first list page (16 with retries).
    expect(proxy.handshakesRefused()).toBeGreaterThan(0);
    expect(proxy.handshakesRefused()).toBeLessThanOrEqual(KINDS.length);
    expect(`${run.stdout}${run.stderr}`).not.toContain(emulator.apiKey);
  });

  it('an https:// URL of a plain-HTTP server says so and to use http://, on one line', async () => {
    const plain = emulator.url.replace(/^http:/, 'https:');

    const run = await runCli(dir, ['plan', '--owner', 'https-test', '.'], {
      EDGE_API_URL: plain,
      EDGE_API_KEY: emulator.apiKey,
    });

    expect(run.code).toBe(1);
    // What was read comes first (before the account is read), then the error, on one line of its own.
    expect(run.stderr).toBe(
      `${READ_LINE}\nedgesync: the server at ${plain} speaks plain HTTP; use ${emulator.url} in EDGE_API_URL (--api-url)\n`,
    );
  });

  it('an http:// URL of a TLS server says so and to use https://, on one line', async () => {
    const plain = proxy.url.replace(/^https:/, 'http:');

    const run = await runCli(dir, ['plan', '--owner', 'https-test', '.'], {
      EDGE_API_URL: plain,
      EDGE_API_KEY: emulator.apiKey,
    });

    expect(run.code).toBe(1);
    // What was read comes first (before the account is read), then the error, on one line of its own.
    expect(run.stderr).toBe(
      `${READ_LINE}\nedgesync: the server at ${plain} speaks HTTPS; use ${proxy.url} in EDGE_API_URL (--api-url)\n`,
    );
    expect(run.stderr).not.toContain(emulator.apiKey);
  });
});
