import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEdgesyncInProcess } from '../support/edgesync-cli.js';
import { type DaemonHarness, useDaemonHarness } from './daemon-harness.js';
import { rulesManifest } from './daemon-process.js';

const POLICY = 'ipp_StatusTokenTestPolicy000001';
const STATUS_TOKEN = 'status-token-NEVER-PRINTED-0123456789';
const RECONCILE_TOKEN = 'reconcile-token-NEVER-PRINTED-4567890';

describe('--status-token-file: /, /status and /inventory for whoever holds the token (in process)', () => {
  const startDaemon = useDaemonHarness();

  const start = async (): Promise<DaemonHarness> => {
    const daemon = await startDaemon({
      emulator: { seed: { ip_policies: [{ id: POLICY }] } },
      owner: 'status-token-tests',
      statusToken: STATUS_TOKEN,
      reconcileToken: RECONCILE_TOKEN,
      files: { 'manifests/rules.yaml': rulesManifest(POLICY, { office: { cidr: '203.0.113.0/24' } }) },
    });
    await daemon.record(1);
    return daemon;
  };

  it('answers each protected path only with the token (GET and HEAD), and leaves /healthz, /readyz and /metrics open', async () => {
    const daemon = await start();
    const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
      fetch(`${daemon.url}${path}`, { method, headers });
    const bearer = { Authorization: `Bearer ${STATUS_TOKEN}` };

    const refused = await Promise.all(
      ['/', '/status', '/inventory', '/?state=drift'].flatMap((path) => [
        get(path),
        get(path, { Authorization: 'Bearer wrong-token-0123456789abcdef' }),
        get(path, { Authorization: `Bearer ${RECONCILE_TOKEN}` }),
        get(path, { Authorization: `Basic ${STATUS_TOKEN}` }),
        get(`${path}${path.includes('?') ? '&' : '?'}token=${STATUS_TOKEN}`),
        get(path, {}, 'HEAD'),
      ]),
    );
    const allowed = await Promise.all([
      get('/', bearer),
      get('/status', bearer),
      get('/inventory', bearer),
      get('/', bearer, 'HEAD'),
    ]);
    const open = await Promise.all([get('/healthz'), get('/readyz'), get('/metrics')]);
    const refusedBody = await refused[1]?.text();

    expect(refused.map((answer) => answer.status)).toEqual(refused.map(() => 401));
    expect(refused.every((answer) => answer.headers.get('www-authenticate') === 'Bearer')).toBe(true);
    expect(refusedBody).toBe('refused: this daemon needs its status token in "Authorization: Bearer …"\n');
    expect(allowed.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(await allowed[1]?.json()).toMatchObject({ owner: 'status-token-tests' });
    expect(open.map((answer) => answer.status)).toEqual([200, 200, 200]);
  });

  it('status, get and reconcile --wait send it from --status-token-file (or its variable); without it they exit 1; the token shows nowhere', async () => {
    const daemon = await start();
    const env = { EDGESYNC_STATUS_TOKEN_FILE: join(daemon.dir, 'status-token') };

    const status = await runEdgesyncInProcess(['status', '--daemon-url', daemon.url], { env });
    const statusFlag = await runEdgesyncInProcess([
      'status',
      '--daemon-url',
      daemon.url,
      '--status-token-file',
      join(daemon.dir, 'status-token'),
      '--format',
      'json',
    ]);
    const get = await runEdgesyncInProcess(['get', '--daemon-url', daemon.url], { env });
    const reconcile = await runEdgesyncInProcess(['reconcile', '--daemon-url', daemon.url, '--wait'], {
      env: { ...env, EDGESYNC_RECONCILE_TOKEN_FILE: join(daemon.dir, 'token') },
    });
    const statusWithout = await runEdgesyncInProcess(['status', '--daemon-url', daemon.url]);
    const getWithout = await runEdgesyncInProcess(['get', '--daemon-url', daemon.url]);
    const reconcileWithout = await runEdgesyncInProcess(['reconcile', '--daemon-url', daemon.url, '--wait'], {
      env: { EDGESYNC_RECONCILE_TOKEN_FILE: join(daemon.dir, 'token') },
    });
    const bearer = { Authorization: `Bearer ${STATUS_TOKEN}` };
    const shown = [
      JSON.stringify(daemon.logs),
      await (await fetch(`${daemon.url}/status`, { headers: bearer })).text(),
      await (await fetch(`${daemon.url}/`, { headers: bearer })).text(),
      await (await fetch(`${daemon.url}/inventory`, { headers: bearer })).text(),
      await (await fetch(`${daemon.url}/metrics`)).text(),
      ...[status, statusFlag, get, reconcile, statusWithout, getWithout, reconcileWithout].map(
        (run) => run.stdout + run.stderr,
      ),
    ].join('\n');

    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('status-token-tests');
    expect(statusFlag.code, statusFlag.stderr).toBe(0);
    expect(JSON.parse(statusFlag.stdout)).toMatchObject({ owner: 'status-token-tests' });
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toContain('office');
    expect(reconcile.code, reconcile.stderr).toBe(0);
    expect(reconcile.stdout).toContain('reconcile finished');
    expect(statusWithout.code).toBe(1);
    expect(statusWithout.stderr).toContain('HTTP 401');
    expect(getWithout.code).toBe(1);
    expect(reconcileWithout.code).toBe(1);
    expect(shown).not.toContain(STATUS_TOKEN);
    expect(shown).not.toContain(RECONCILE_TOKEN);
  });
});
