import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { ROOT, runEdgesyncInProcess } from '../support/edgesync-cli.js';

const SEED = join(ROOT, 'examples/emulator-seed.yaml');
const EDGE_FLAGS = [
  '--tcp-edge',
  'edgtcp_SshEdge00000000000000000001',
  '--tls-edge',
  'edgtls_DbEdge000000000000000000001',
];

/** Every key of a JSON value, at any depth, except below `skip` (the manifest, whose keys are entry names and the user's metadata). */
function keysOf(value: unknown, skip: ReadonlySet<string>): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => keysOf(item, skip));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) => [
    key,
    ...(skip.has(key) ? [] : keysOf(child, skip)),
  ]);
}

describe('edgesync export --format json (in this process, against the emulator over HTTP)', () => {
  let emulator: RunningEmulator;
  let dir: string;

  beforeEach(async () => {
    emulator = await startEmulator({ seed: await loadSeedFile(SEED) });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-export-json-'));
    // Objects this owner owns, a CA and an OIDC secret among them.
    const applied = await runEdgesyncInProcess(['apply', '--yes', 'examples/manifests'], { emulator });
    expect(applied.code, applied.stderr).toBe(0);
  });

  afterEach(async () => {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the manifest the YAML export holds, the secret variables and what was left out, in snake_case', async () => {
    const yaml = await runEdgesyncInProcess(['export', ...EDGE_FLAGS], { emulator });
    const json = await runEdgesyncInProcess(['export', '--format', 'json', ...EDGE_FLAGS], { emulator });
    const report = JSON.parse(json.stdout);

    expect(json.code, json.stderr).toBe(0);
    expect(report.format_version).toBe(1);
    expect(report.owner).toBe('default');
    // The same manifest as the YAML, value for value.
    expect(report.manifest).toEqual(parse(yaml.stdout));
    expect(Object.keys(report.manifest)).toEqual(
      expect.arrayContaining(['version', 'ip_policy_rules', 'reserved_addrs', 'certificate_authorities']),
    );
    expect(report.entries).toContainEqual(
      expect.objectContaining({ kind: 'ip_policy_rules', name: 'office-vpn' }),
    );
    expect(report.secrets).toEqual([
      expect.objectContaining({ kind: 'https_edges', env: expect.stringMatching(/^[A-Z0-9_]+$/) }),
    ]);
    expect(report.skipped).toEqual({ unmanaged: expect.any(Number), other_owners: 0, duplicates: 0 });
    expect(report.files).toBeNull();
    for (const key of keysOf(report, new Set(['manifest']))) expect(key).toMatch(/^[a-z0-9_]+$/);
    // The secret itself is never exported.
    expect(json.stdout).not.toContain('client_secret": "');
  });

  it('with --out, writes the YAML files and reports them as JSON on stdout', async () => {
    const out = join(dir, 'exported');

    const run = await runEdgesyncInProcess(['export', '--format', 'json', '--out', out, ...EDGE_FLAGS], {
      emulator,
    });
    const report = JSON.parse(run.stdout);

    expect(run.code, run.stderr).toBe(0);
    expect(report.files.out).toBe(out);
    expect([...report.files.written].sort()).toEqual(
      (await readdir(out, { recursive: true }))
        .filter((name) => name.endsWith('.yaml') || name.endsWith('.pem'))
        .sort(),
    );
    expect(report.files.removed).toEqual([]);
  });

  it('an error is a JSON diagnostic on stdout, and still text on stderr, exit 1', async () => {
    const badKind = await runEdgesyncInProcess(['export', '--format', 'json', '--kinds', 'ip_rules'], {
      emulator,
    });
    const unreachable = await runEdgesyncInProcess(['export', '--format', 'json'], {
      env: { EDGE_API_URL: 'http://127.0.0.1:1', EDGE_API_KEY: 'x' },
    });

    expect(badKind.code).toBe(1);
    expect(JSON.parse(badKind.stdout)).toEqual({
      format_version: 1,
      diagnostics: [
        expect.objectContaining({ severity: 'error', code: 'invalid_option', source: null, path: null }),
      ],
    });
    expect(badKind.stderr).toContain('--kinds: expected some of');
    expect(unreachable.code).toBe(1);
    expect(JSON.parse(unreachable.stdout).diagnostics).toHaveLength(1);
  });
});
