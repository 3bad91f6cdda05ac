import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { assertBuilt, type CliRun, listAllRules, POLICY_ID, runCli, statsOf } from './reliability-harness.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
const API_KEY = 'edgesync_reliability_key_3f9a7c1d2b8e4a6f';
const OIDC_SECRET = 'oidc-secret-from-env-71c2d9e8a4';

describe('no output of any command holds a secret', () => {
  let emulator: RunningEmulator;
  let dir: string;

  beforeAll(async () => {
    assertBuilt();
    emulator = await startEmulator({
      apiKey: API_KEY,
      seed: await loadSeedFile(join(EXAMPLES, 'emulator-seed.yaml')),
    });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-secrets-'));
    await cp(join(EXAMPLES, 'manifests'), join(dir, 'manifests'), { recursive: true });
    const web = join(dir, 'manifests', 'https-edges.yaml');
    const text = await readFile(web, 'utf8');
    await writeFile(
      web,
      text.replace('{ file: secrets/oidc-client-secret.txt }', '{ env: OIDC_CLIENT_SECRET }'),
    );
  });
  afterAll(async () => {
    await emulator?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('validate, plan (text, json, markdown, --out), apply, a failing key and export: zero hits', async () => {
    const env = { EDGE_API_KEY: API_KEY, OIDC_CLIENT_SECRET: OIDC_SECRET };
    const api = ['--api-url', emulator.url, '--log-level', 'debug'];
    const runs: CliRun[] = [];
    const run = async (args: string[], extraEnv: Record<string, string> = {}): Promise<void> => {
      runs.push(await runCli(args, { cwd: dir, env: { ...env, ...extraEnv } }));
    };

    await run(['validate', 'manifests']);
    for (const format of ['text', 'json', 'markdown'])
      await run(['plan', 'manifests', '--format', format, ...api]);
    await run(['plan', 'manifests', '--out', 'saved.plan', ...api]);
    await run(['apply', '--plan', 'saved.plan', 'manifests', '--yes', ...api]);
    await run(['plan', 'manifests', ...api], { OIDC_CLIENT_SECRET: `${OIDC_SECRET}-rotated` });
    await run(['apply', 'manifests', '--yes', ...api], { EDGE_API_KEY: `${API_KEY}-wrong` });
    await run(['export', '--out', 'exported', ...api]);

    const texts = runs.flatMap((item) => [item.stdout, item.stderr]);
    for (const name of await readdir(dir, { recursive: true })) {
      const path = join(dir, String(name));
      if (!String(name).startsWith('manifests')) texts.push(await readFile(path, 'utf8').catch(() => ''));
    }
    const all = texts.join('\n');
    expect(runs.filter((item) => item.code === 0).length).toBeGreaterThanOrEqual(5);
    expect(all).not.toContain(API_KEY);
    expect(all).not.toContain(OIDC_SECRET);
  });
});

describe('the emulator under 50 concurrent clients', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY_ID }] } });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('answers no unexpected 5xx for a few seconds, and its state matches what the clients did', async () => {
    const headers = {
      Authorization: `Bearer ${emulator.apiKey}`,
      'Service-Version': '2',
      'Content-Type': 'application/json',
    };
    const deadline = Date.now() + 3000;
    const kept = new Set<string>();
    const client = async (clientIndex: number): Promise<void> => {
      for (let step = 0; Date.now() < deadline; step += 1) {
        const cidr = `10.${clientIndex}.${(step >> 8) & 255}.${step & 255}/32`;
        const created = await fetch(`${emulator.url}/ip_policy_rules`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ ip_policy_id: POLICY_ID, cidr, action: 'deny' }),
        });
        const { id } = (await created.json()) as { id: string };
        await (await fetch(`${emulator.url}/ip_policy_rules?limit=10`, { headers })).text();
        if (step % 2 === 0) {
          await fetch(`${emulator.url}/ip_policy_rules/${id}`, { method: 'DELETE', headers });
        } else {
          kept.add(id);
        }
      }
    };

    await Promise.all(Array.from({ length: 50 }, (_, index) => client(index)));

    const stats = await statsOf(emulator);
    const serverErrors = Object.entries(stats.byStatus).filter(([status]) => status.startsWith('5'));
    expect(serverErrors).toEqual([]);
    expect(stats.total).toBeGreaterThan(150);
    const live = await listAllRules(emulator);
    expect(new Set(live.map((rule) => rule.id))).toEqual(kept);
    expect(new Set(live.map((rule) => rule.cidr)).size).toBe(live.length);
  });
});
