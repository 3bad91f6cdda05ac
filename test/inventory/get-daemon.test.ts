import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import { runEdgesyncInProcess, runEdgesyncProcess } from '../support/edgesync-cli.js';
import { type DaemonHarness, useDaemonHarness } from '../watch/daemon-harness.js';
import { assertBuilt, callService, listRules, rulesManifest } from '../watch/daemon-process.js';

const POLICY = 'ipp_GetDaemonTestPolicy00000001';
const OWNER = 'team-a';
const FILE = 'manifests/rules.yaml';
const marked = (name: string) => encodeMetadata({}, { owner: OWNER, name });

interface Listed {
  readonly kind: string;
  readonly name: string;
  readonly id: string | null;
  readonly state: string;
  readonly reason: string | null;
  readonly fields: string[];
  readonly source: string | null;
}

/** A listener that counts every request and answers each with `answer` (a stand-in for the service, or for a hostile daemon). */
async function countingServer(
  answer: (url: string) => { status: number; body: string } = () => ({ status: 500, body: '' }),
): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const { status, body } = answer(req.url ?? '/');
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('edgesync get --daemon-url: the inventory as a daemon knows it', () => {
  const startDaemon = useDaemonHarness();
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /** A daemon in observe mode over an account with one object changed behind its back, one to create and one to prune. */
  async function driftedDaemon(): Promise<DaemonHarness> {
    const daemon = await startDaemon({
      emulator: {
        seed: {
          ip_policies: [{ id: POLICY, description: 'get tests' }],
          ip_policy_rules: [
            { ip_policy_id: POLICY, action: 'allow', cidr: '203.0.113.0/24', metadata: marked('office') },
            { ip_policy_id: POLICY, action: 'deny', cidr: '192.0.2.0/24', metadata: marked('old') },
            { ip_policy_id: POLICY, action: 'deny', cidr: '198.18.0.0/15', description: 'not ours' },
          ],
        },
      },
      owner: OWNER,
      mode: 'observe',
      files: {
        [FILE]: rulesManifest(POLICY, {
          office: { cidr: '203.0.113.0/24' },
          partner: { cidr: '198.51.100.0/24' },
        }),
      },
    });
    await daemon.record(1);
    const office = (await listRules(daemon.emulator)).find((rule) => rule.cidr === '203.0.113.0/24');
    await callService(daemon.emulator, 'PATCH', `/ip_policy_rules/${office?.id}`, { cidr: '203.0.0.0/16' });
    await daemon.advance(daemon.intervalMs);
    await daemon.record(2, (record) => record.differences.drift.length > 0);
    return daemon;
  }

  it('prints the table and the JSON of get against the account, with drift and its fields, reading only /inventory', async () => {
    const daemon = await driftedDaemon();
    const service = await countingServer();
    closers.push(service.close);
    const env = { EDGE_API_URL: service.url, EDGE_API_KEY: 'unused-key' };

    const text = await runEdgesyncInProcess(['get', '--daemon-url', daemon.url], { env });
    const json = await runEdgesyncInProcess(['get', '--daemon-url', `${daemon.url}/`, '--format', 'json'], {
      env,
    });
    const drift = await runEdgesyncInProcess(
      ['get', '--daemon-url', daemon.url, '--state', 'drift', '--format', 'json'],
      { env },
    );

    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^KIND\s+NAME\s+ID\s+STATE\s+REASON$/);
    expect(lines.slice(1).map((line) => line.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'ip_policy_rules office',
      'ip_policy_rules old',
      'ip_policy_rules partner',
    ]);
    expect(lines[1]).toMatch(/ipr_\w+\s+drift\s+update: /);
    expect(lines[3]).toMatch(/partner\s+-\s+pending\s+create: /);
    expect(text.stderr).toMatch(/^3 objects: 2 pending, 1 drift \(as of reconcile \d+, \d{4}-\d\d-\d\dT/m);
    const parsed = JSON.parse(json.stdout) as {
      source: string;
      owner: string;
      counts: object;
      objects: Listed[];
    };
    expect(parsed).toMatchObject({ owner: OWNER, source: 'daemon', complete: true, manifests_valid: true });
    expect(parsed.counts).toEqual({ in_sync: 0, pending: 2, drift: 1, skipped: 0, held: 0 });
    expect(parsed.objects.find((object) => object.name === 'office')).toMatchObject({
      state: 'drift',
      fields: ['cidr'],
    });
    expect((JSON.parse(drift.stdout) as { objects: Listed[] }).objects.map((object) => object.name)).toEqual([
      'office',
    ]);
    expect(service.requests).toEqual([]);
  });

  it('walks every page of an inventory of 2,500 objects, in order', async () => {
    const names = Array.from({ length: 2_500 }, (_, index) => `rule-${String(index).padStart(4, '0')}`);
    const cidr = (index: number) => `10.${index >> 8}.${index & 255}.0/24`;
    // Already managed: the daemon finds them in sync, with no write.
    const daemon = await startDaemon({
      emulator: {
        seed: {
          ip_policies: [{ id: POLICY, description: 'get tests' }],
          ip_policy_rules: names.map((name, index) => ({
            ip_policy_id: POLICY,
            action: 'allow',
            cidr: cidr(index),
            metadata: marked(name),
          })),
        },
      },
      owner: OWNER,
      files: {
        [FILE]: rulesManifest(
          POLICY,
          Object.fromEntries(names.map((name, index) => [name, { cidr: cidr(index) }])),
        ),
      },
    });
    await daemon.record(1, (record) => record.lastReconcile?.result === 'in-sync');

    const run = await runEdgesyncInProcess(['get', '--daemon-url', daemon.url, '--format', 'json']);

    expect(run.code, run.stderr).toBe(0);
    const objects = (JSON.parse(run.stdout) as { objects: Listed[] }).objects;
    expect(objects.map((object) => object.name)).toEqual(names);
    expect(objects.every((object) => object.state === 'in_sync' && object.id?.startsWith('ipr_'))).toBe(true);
    expect(run.stderr).toMatch(/^2500 objects: 2500 in sync/m);
  });

  it.each([
    [
      'a 400',
      { status: 400, body: '{"error":{"code":"invalid_parameter","message":"limit: too big"}}' },
      /HTTP 400: limit: too big/,
    ],
    ['a 404', { status: 404, body: 'not found' }, /HTTP 404: this daemon serves no \/inventory/],
    ['not JSON', { status: 200, body: '<html>' }, /not JSON, so not an edgesync daemon's \/inventory/],
    [
      'a wrong shape',
      { status: 200, body: '{"owner":"x","objects":[{"kind":"k"}]}' },
      /not an edgesync daemon's inventory: /,
    ],
    [
      'a cursor that never moves on',
      {
        status: 200,
        body: '{"owner":"x","source":"daemon","as_of":null,"manifests_valid":true,"complete":true,"counts":{},"objects":[],"next":"ip_policy_rules/a"}',
      },
      /says its next is "ip_policy_rules\/a" again/,
    ],
  ])(
    'refuses %s from what answers at --daemon-url, exit 1 naming the URL',
    async (_what, answer, message) => {
      const peer = await countingServer(() => answer);
      closers.push(peer.close);

      const run = await runEdgesyncInProcess([
        'get',
        '--daemon-url',
        `http://user:pass@${peer.url.slice(7)}`,
      ]);

      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toContain(peer.url.slice(7));
      expect(run.stderr).not.toContain('pass');
    },
  );

  it('refuses paths (the daemon reads its own manifests) and an owner the daemon does not manage', async () => {
    const daemon = await driftedDaemon();

    const withPaths = await runEdgesyncInProcess(['get', 'manifests', '--daemon-url', daemon.url]);
    const otherOwner = await runEdgesyncInProcess(['get', '--daemon-url', daemon.url, '--owner', 'team-b']);

    expect(withPaths.code).toBe(1);
    expect(withPaths.stderr).toContain(
      '--daemon-url: lists what the daemon manages from its own manifests: give no paths (found "manifests")',
    );
    expect(otherOwner.code).toBe(1);
    expect(otherOwner.stderr).toContain('--owner: the daemon at');
    expect(otherOwner.stderr).toContain('manages owner "team-a" (found "team-b")');
  });

  it('as a process: exit 0 with the table, and not one request to the service it is pointed at', async () => {
    assertBuilt();
    const daemon = await startDaemon({
      emulator: { seed: { ip_policies: [{ id: POLICY, description: 'get tests' }] } },
      owner: OWNER,
      realTime: true,
      files: { [FILE]: rulesManifest(POLICY, { office: { cidr: '203.0.113.0/24' } }) },
    });
    await daemon.record(1, (record) => record.lastReconcile?.result === 'applied');
    const service = await countingServer();
    closers.push(service.close);

    const run = await runEdgesyncProcess(['get', '--daemon-url', daemon.url], {
      env: { EDGE_API_URL: service.url, EDGE_API_KEY: 'unused-key', EDGESYNC_OWNER: OWNER },
      limitMs: 60_000,
    });

    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^ip_policy_rules\s+office\s+ipr_\w+\s+in sync\s*$/m);
    expect(run.stderr).toMatch(/^1 object: 1 in sync \(as of reconcile 1, /m);
    expect(service.requests).toEqual([]);
  });
});
