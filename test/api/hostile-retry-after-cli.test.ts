import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { type DaemonProcess, eventually, startDaemon } from '../watch/daemon-process.js';
import {
  API_KEY,
  hostileServices,
  manifestDirectories,
  pathOf,
  rulesManifest,
  runAgainst,
} from './hostile-service.js';
import { sendServiceError } from './scripted-server.js';

const serve = hostileServices();
const manifests = manifestDirectories();

describe('edgesync against a hostile service: Retry-After', () => {
  it('caps a Retry-After of 31,000 years at the window and fails each create at the retry limit, without a timer warning', async () => {
    const dir = await manifests(rulesManifest({ a: '198.51.100.1/32', b: '198.51.100.2/32' }));
    const server = await serve((request, response) => {
      if (request.method !== 'POST') return false;
      sendServiceError(response, 429, 'rate_limited', 'slow down', {}, { 'Retry-After': '1000000000000' });
      return true;
    });

    // A window of 200 ms: the cap is the window, so the test waits a few pauses of 200 ms, not minutes.
    const run = await runAgainst(
      server,
      ['apply', '--yes', '--concurrency', '1', '--rate-limit', '1000/200ms', '--log-format', 'json', '.'],
      { cwd: dir },
    );

    expect(run.signal).toBeNull();
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/TimeoutOverflowWarning/);
    // Each create: its first attempt and four retries after a capped pause each (the retry limit of 5).
    const posts = server.requests.filter((request) => request.method === 'POST');
    expect(posts.map(pathOf)).toEqual(Array(10).fill('/ip_policy_rules'));
    expect(run.stdout).toMatch(/Apply incomplete: 0 created, .* 2 failed/);
    expect(run.stderr).toMatch(/create:ip_policy_rules\.a: failed: .*429/);
  });
});

describe('edgesync watch against a service that answers only 429', () => {
  let daemon: DaemonProcess | undefined;
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
  });

  it('answers /healthz 503 naming the 429s once they have lasted longer than --interval', async () => {
    const dir = await manifests(rulesManifest({ a: '198.51.100.1/32' }));
    const server = await serve((_request, response) => {
      sendServiceError(response, 429, 'rate_limited', 'slow down', {}, { 'Retry-After': '1000000000000' });
      return true;
    });
    const service = { url: server.url, apiKey: API_KEY } as RunningEmulator;
    daemon = await startDaemon(service, ['.', '--interval', '2s', '--rate-limit', '100/1s'], dir);
    const running = daemon;

    const stuck = await eventually(async () => {
      const response = await fetch(`${running.url}/healthz`);
      return response.status === 503 ? response.text() : undefined;
    });

    expect(stuck).toMatch(
      /^stuck: the service has answered every request with 429 for \d+ s, over --interval \(requests paused \d+ s more\)\n$/,
    );
    expect(running.stderr()).not.toMatch(/TimeoutOverflowWarning/);
  });
});
