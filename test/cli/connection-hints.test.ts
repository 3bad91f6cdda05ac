import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runEdgesyncInProcess } from '../support/edgesync-cli.js';

const EXAMPLES = join(ROOT, 'examples/manifests');
const HINT = 'is EDGE_API_URL (--api-url) right and the service up?';

/** A port nothing listens on: taken from the OS, then let go. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

describe('a closed port gets the same hint from every command that talks to the service', () => {
  it.each([
    ['plan', [EXAMPLES]],
    ['apply', ['--yes', EXAMPLES]],
    ['apply', ['--yes', '--format', 'json', EXAMPLES]],
    ['export', []],
    ['doctor', []],
    ['doctor', ['--format', 'json']],
  ])('%s %j', async (command, args) => {
    const port = await closedPort();

    const run = await runEdgesyncInProcess([command, ...args], {
      env: { EDGE_API_URL: `http://127.0.0.1:${port}`, EDGE_API_KEY: 'key', OIDC_CLIENT_SECRET: 'x' },
    });

    expect(run.code).toBe(1);
    expect(`${run.stdout}${run.stderr}`).toContain(HINT);
  });
});

describe('--rate-limit takes the same forms on every command', () => {
  it('off with --emulator: applied, with neither budget in the way', async () => {
    const run = await runEdgesyncInProcess(
      [
        'apply',
        '--yes',
        '--emulator',
        '--rate-limit',
        'off',
        '--emulator-seed',
        join(ROOT, 'examples/emulator-seed.yaml'),
        EXAMPLES,
      ],
      { env: { OIDC_CLIENT_SECRET: 'x' } },
    );

    expect(run.stderr).not.toContain('--rate-limit');
    expect(run.stdout).toMatch(/^Apply complete: 4 created, .* 0 failed, 0 skipped in/m);
    expect(run.code).toBe(0);
  });

  it.each(['plan', 'apply', 'export', 'doctor'])(
    '%s: off against a real service is refused, saying why',
    async (command) => {
      const run = await runEdgesyncInProcess([command, '--rate-limit', 'off'], {
        env: { EDGE_API_URL: 'http://127.0.0.1:9', EDGE_API_KEY: 'key' },
      });

      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        "edgesync: --rate-limit: off would disable edgesync's budget against the service, which allows 120 requests a minute",
      );
    },
  );
});
