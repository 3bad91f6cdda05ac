import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runEdgesyncProcess } from '../support/edgesync-cli.js';
import { API_KEY, hostileServices, manifestDirectories, pathOf, rulesManifest } from './hostile-service.js';

const serve = hostileServices();
const manifests = manifestDirectories();
const MiB = 1024 * 1024;

/** The CLI reports its own peak RSS as it exits. */
const PEAK_RSS_REPORTER =
  "data:text/javascript,import { writeSync } from 'node:fs'; process.on('exit', () => writeSync(2, '\\npeak-rss-kb ' + process.resourceUsage().maxRSS + '\\n'));";

/** Writes `chunk` until `total` bytes are out or the client goes, with backpressure. */
function pump(response: ServerResponse, chunk: Buffer, total: number): void {
  let written = 0;
  let open = true;
  response.on('close', () => {
    open = false;
  });
  response.on('error', () => {});
  const more = (): void => {
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

// 96 gzip members of 16 MiB of spaces each: 1.5 GB once inflated, about 1.5 MB sent.
const bombMember = gzipSync(Buffer.alloc(16 * MiB, 0x20), { level: 9 });

describe('edgesync against a hostile service: response bodies', () => {
  it.each([
    [
      'a 200 MB answer',
      (response: ServerResponse) => {
        response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(200 * MiB) });
        pump(response, Buffer.alloc(MiB, 0x20), 200 * MiB);
      },
      '',
    ],
    [
      'an answer that never ends',
      (response: ServerResponse) => {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        pump(response, Buffer.alloc(64 * 1024, 0x20), Number.POSITIVE_INFINITY);
      },
      '',
    ],
    [
      'a gzip answer inflating to 1.5 GB',
      (response: ServerResponse) => {
        response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
        pump(response, bombMember, bombMember.length * 96);
      },
      ' once decompressed',
    ],
  ])('fails the plan on %s, reads it once, and stays small', async (_case, answer, how) => {
    const dir = await manifests(rulesManifest({ a: '198.51.100.1/32' }));
    const server = await serve((request, response) => {
      if (pathOf(request) !== '/ip_policy_rules') return false;
      answer(response);
      return true;
    });

    const run = await runEdgesyncProcess(['plan', '.'], {
      cwd: dir,
      env: { EDGE_API_URL: server.url, EDGE_API_KEY: API_KEY },
      nodeFlags: ['--import', PEAK_RSS_REPORTER],
      limitMs: 25_000,
    });

    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `GET /ip_policy_rules?limit=100: 200 with a body over 32 MiB${how}; not read further, nor asked again`,
    );
    expect(server.requests.filter((request) => pathOf(request) === '/ip_policy_rules')).toHaveLength(1);
    // Before the bound: 667 MB, 765 MB and 3.2 GB (scripts/hostile-body-rss.mjs); with it about 60-100 MB.
    const peakKb = Number(/peak-rss-kb (\d+)/.exec(run.stderr)?.[1]);
    expect(peakKb).toBeLessThan(200 * 1024);
  });
});
