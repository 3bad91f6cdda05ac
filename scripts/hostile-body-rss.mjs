#!/usr/bin/env node
// Peak RSS of `edgesync plan` against a service whose rules list answers with
// a body no client should hold: 200 MB declared, a body that never ends, and
// a gzip body that inflates to 1.5 GB. For docs/apply.md's figures, before
// and after a change:
//
//   node scripts/hostile-body-rss.mjs [CLI]   (default dist/cli/main.js)
//
// Each run is bounded (HOSTILE_RSS_SECONDS, default 60 s, then SIGKILL): a
// build without the bound grows for as long as it is let. Plain JavaScript:
// it runs any build's CLI, an old one included.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const cli = resolve(process.argv[2] ?? 'dist/cli/main.js');
const MiB = 1024 * 1024;
const LIMIT_S = Number(process.env.HOSTILE_RSS_SECONDS ?? '60');
const LIST_KEYS = {
  '/ip_policy_rules': 'ip_policy_rules',
  '/reserved_addrs': 'reserved_addrs',
  '/certificate_authorities': 'certificate_authorities',
  '/edges/https': 'https_edges',
};

/** Writes `chunk` until `total` bytes are written (Infinity: until the client goes). */
function pump(response, chunk, total) {
  let written = 0;
  let open = true;
  response.on('close', () => {
    open = false;
  });
  response.on('error', () => {});
  const more = () => {
    while (open && written < total) {
      written += chunk.length;
      if (!response.write(chunk)) {
        response.once('drain', more);
        return;
      }
    }
    if (open) response.end();
  };
  more();
}

// 96 gzip members of 16 MiB of spaces each: 1.5 GB inflated, about 1.5 MB sent.
const bombMember = gzipSync(Buffer.alloc(16 * MiB, 0x20), { level: 9 });
const BODIES = {
  'declared-200MB': (response) => {
    response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(200 * MiB) });
    pump(response, Buffer.alloc(MiB, 0x20), 200 * MiB);
  },
  endless: (response) => {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    pump(response, Buffer.alloc(64 * 1024, 0x20), Number.POSITIVE_INFINITY);
  },
  'gzip-1.5GB': (response) => {
    response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    pump(response, bombMember, bombMember.length * 96);
  },
};

async function measure(name, answer) {
  let listRequests = 0;
  const server = createServer((request, response) => {
    const path = new URL(request.url, 'http://x').pathname;
    if (path === '/ip_policy_rules') {
      listRequests += 1;
      answer(response);
      return;
    }
    const key = LIST_KEYS[path];
    response.writeHead(key ? 200 : 404, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify(key ? { [key]: [], next_page_uri: null } : {}));
  });
  await new Promise((listening) => server.listen(0, '127.0.0.1', listening));
  const dir = mkdtempSync(join(tmpdir(), 'edgesync-rss-'));
  writeFileSync(
    join(dir, 'rules.yaml'),
    'version: 1\nip_policy_rules:\n  a:\n    ip_policy_id: ipp_RssPolicy00000000000000001\n    cidr: 198.51.100.1/32\n    action: deny\n',
  );
  const started = Date.now();
  const child = spawn(process.execPath, [cli, 'plan', '.'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      EDGE_API_URL: `http://127.0.0.1:${server.address().port}`,
      EDGE_API_KEY: 'sk_rss_key',
    },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  // VmHWM is the process's own peak; read until it exits, so a run killed at the bound has one too.
  let peakKb = 0;
  const sample = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {
      // exited between two samples
    }
  }, 50);
  const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_S * 1000);
  const code = await new Promise((done) => child.on('close', (exit, signal) => done(exit ?? signal)));
  clearTimeout(timer);
  clearInterval(sample);
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
  const lines = stderr.trim().split('\n');
  const message = lines.find((line) => line.startsWith('edgesync:')) ?? lines.at(-1) ?? '';
  process.stdout.write(
    `${name}: exit ${code}, peak RSS ${Math.round(peakKb / 1024)} MB, ${listRequests} list request(s), ${((Date.now() - started) / 1000).toFixed(1)} s\n  ${message.slice(0, 200)}\n`,
  );
}

for (const [name, answer] of Object.entries(BODIES)) await measure(name, answer);
