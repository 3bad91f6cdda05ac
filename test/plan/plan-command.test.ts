import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { KINDS } from '../../src/kinds/registry.js';
import { parseSavedPlan } from '../../src/plan/saved-plan-reader.js';
import { BUILT_CLI } from '../support/built-cli.js';
import { runEdgesyncInProcess, runEdgesyncProcess } from '../support/edgesync-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = BUILT_CLI;
const EXAMPLES = join(ROOT, 'examples/manifests');
const SEED = join(ROOT, 'examples/emulator-seed.yaml');
const EXAMPLE_SECRET = readFileSync(join(EXAMPLES, 'secrets/oidc-client-secret.txt'), 'utf8').trim();

describe('edgesync plan (CLI against the emulator)', () => {
  let emulator: RunningEmulator;
  let scratch: string;

  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error(`build first: npx tsc -p . (missing ${CLI})`);
  });

  beforeEach(async () => {
    emulator = await startEmulator({ seed: await loadSeedFile(SEED) });
    scratch = await mkdtemp(join(tmpdir(), 'edgesync-plan-'));
  });

  /** As a process: what the exit code and the streams are (one test per exit code). */
  const cliProcess = (args: readonly string[]) => runEdgesyncProcess(args, { emulator });
  /** In this process: what the command decides and prints. */
  const cli = (args: readonly string[], env: Record<string, string> = {}) =>
    runEdgesyncInProcess(args, { emulator, env });

  afterEach(async () => {
    await emulator.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('prints the text plan and exits 0, or 2 with --detailed-exitcode; secrets never shown', async () => {
    const plain = await cliProcess(['plan', EXAMPLES]);
    const detailed = await cliProcess(['plan', '--detailed-exitcode', EXAMPLES]);

    expect(plain.code).toBe(0);
    expect(detailed.code).toBe(2);
    expect(plain.stdout).toContain('+ certificate_authorities.corp-root {');
    expect(plain.stdout).toContain(
      'Plan: 4 to create (1 then updated), 0 to update, 0 to replace, 0 to delete, 1 to adopt',
    );
    expect(plain.stdout).toContain('(sensitive)');
    expect(plain.stdout).not.toContain('\u001b[');
    expect(plain.stdout + plain.stderr).not.toContain(EXAMPLE_SECRET);
  });

  it('--format json is valid against schemas/plan.schema.json and carries request stats', async () => {
    const schema = JSON.parse(await readFile(join(ROOT, 'schemas/plan.schema.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

    const run = await cli(['plan', '--format', 'json', EXAMPLES]);
    const output = JSON.parse(run.stdout);

    expect(run.code).toBe(0);
    expect(validate(output), JSON.stringify(validate.errors)).toBe(true);
    expect(output.summary.create).toBe(4);
    expect(output.stats.requests).toBeGreaterThan(0);
    expect(output.stats.pages).toBeGreaterThan(0);
    expect(run.stdout).not.toContain(EXAMPLE_SECRET);
  });

  it('--format markdown renders a pull-request comment', async () => {
    const run = await cli(['plan', '--format', 'markdown', EXAMPLES]);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('### edgesync plan — owner `default`');
    expect(run.stdout).toContain(
      '| 🟢 | `certificate_authorities.corp-root` | create | not in the live account | `examples/manifests/certificate-authorities.yaml:7:3` |',
    );
    expect(run.stdout).not.toContain(EXAMPLE_SECRET);
  });

  it('--format markdown names manifests from --repo-root and keeps to --max-chars', async () => {
    const run = await cli([
      'plan',
      '--format',
      'markdown',
      '--repo-root',
      'examples',
      '--max-chars',
      '1500',
      EXAMPLES,
    ]);
    const tooSmall = await cli(['plan', '--format', 'markdown', '--max-chars', '99', EXAMPLES]);

    expect(run.code).toBe(0);
    expect(run.stdout.length).toBeLessThanOrEqual(1500);
    expect(run.stdout).toContain('`manifests/certificate-authorities.yaml:7:3`');
    expect(run.stdout).toContain('_Not shown to stay under 1,500 characters:');
    expect(tooSmall.code).toBe(1);
    expect(tooSmall.stderr).toContain('--max-chars: expected a whole number of at least 1000 (found "99")');
  });

  it('--target takes KIND or KIND.NAME; one that matches nothing or names no kind exits 1', async () => {
    const kind = await cli(['plan', '--target', 'ip_policy_rules', EXAMPLES]);
    const missing = await cli(['plan', '--target', 'ip_policy_rules.nope', EXAMPLES]);
    const unknown = await cli(['plan', '--target', 'ip_rules', EXAMPLES]);

    expect(kind.code).toBe(0);
    expect(kind.stdout).toContain('Plan: 2 to create, 0 to update, 0 to replace, 0 to delete.');
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(
      '--target ip_policy_rules.nope matches no entry of the manifests and no object this owner owns',
    );
    expect(missing.stdout).not.toContain('No changes');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('expected KIND or KIND.NAME with KIND one of ip_policy_rules,');
  });

  it('show renders a saved plan as text, JSON and markdown, like plan did, without secrets', async () => {
    const file = join(scratch, 'plan.json');
    const planned = await cli(['plan', '--format', 'json', '--out', file, EXAMPLES]);
    const plannedText = await cli(['plan', EXAMPLES]);

    const text = await cli(['show', file]);
    const json = await cli(['show', '--format', 'json', file]);
    const markdown = await cli(['show', '--format', 'markdown', file]);
    const broken = await cli(['show', join(scratch, 'missing.json')]);

    expect([text.code, json.code, markdown.code]).toEqual([0, 0, 0]);
    // The changes as plan showed them, then every request the file holds, which apply only checks.
    expect(text.stdout.slice(0, plannedText.stdout.length)).toBe(plannedText.stdout);
    expect(text.stdout.slice(plannedText.stdout.length)).toMatch(
      /^\nThis file holds 12 request\(s\)\. `edgesync apply --plan` sends none of them as written: .*\n\n# create:ip_policy_rules\.office-vpn\nPOST \/ip_policy_rules\n/,
    );
    expect(text.stdout).toContain('"client_secret": "(sensitive)"');
    expect(markdown.stdout).toContain('**This file holds 12 request(s).**');
    expect({ ...JSON.parse(json.stdout), stats: null }).toEqual({
      ...JSON.parse(planned.stdout),
      stats: null,
      // What plan read is not saved: show has no walk to report.
      manifests_read: undefined,
    });
    expect(markdown.stdout).toContain(
      '**Plan: 4 to create (1 then updated), 0 to update, 0 to replace, 0 to delete, 1 to adopt',
    );
    for (const output of [text.stdout, json.stdout, markdown.stdout])
      expect(output).not.toContain(EXAMPLE_SECRET);
    expect(json.stdout).not.toContain('$sensitive');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('cannot read the plan file');
  });

  it('--format json writes errors to stdout as JSON diagnostics too: manifests, options, the network, a plan file', async () => {
    const broken = join(scratch, 'broken.yaml');
    await writeFile(
      broken,
      'version: 1\nip_policy_rules:\n  office:\n    ip_policy_id: ipp_OfficeVpnPolicy000000000001\n    action: allow\n    cidr: 10.0.0.5/24\n',
    );
    const parsed = (stdout: string) =>
      JSON.parse(stdout) as {
        format_version: number;
        diagnostics: { severity: string; code: string; message: string; source: unknown; path: unknown }[];
      };

    const manifest = await cli(['plan', '--format', 'json', broken]);
    const option = await cli(['plan', '--format', 'json', '--target', 'nope', EXAMPLES]);
    const network = await cli(['plan', '--format', 'json', EXAMPLES], {
      EDGE_API_URL: 'http://127.0.0.1:1',
    });
    const show = await cli(['show', '--format', 'json', join(scratch, 'missing.json')]);

    expect(manifest.code).toBe(1);
    expect(parsed(manifest.stdout).format_version).toBe(1);
    expect(parsed(manifest.stdout).diagnostics).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        code: 'cidr_host_bits',
        source: { file: broken, line: 6, column: 5 },
        path: 'ip_policy_rules.office.cidr',
      }),
    );
    expect(option.code).toBe(1);
    expect(parsed(option.stdout).diagnostics).toEqual([
      expect.objectContaining({ code: 'invalid_option', source: null, path: null }),
    ]);
    expect(network.code).toBe(1);
    expect(parsed(network.stdout).diagnostics).toHaveLength(1);
    expect(show.code).toBe(1);
    expect(parsed(show.stdout).diagnostics[0]?.code).toBe('plan_file_invalid');
    for (const run of [manifest, option, network, show]) expect(run.stderr).not.toBe('');
  });

  it('--out saves a plan file that reads back, its secrets withheld without a plan key', async () => {
    const file = join(scratch, 'plan.json');

    const run = await cli(['plan', '--out', file, EXAMPLES]);
    const text = await readFile(file, 'utf8');
    const saved = parseSavedPlan(text, KINDS);

    expect(run.code).toBe(0);
    expect(text).not.toContain(EXAMPLE_SECRET);
    expect(text).toContain('"$sensitive": "withheld"');
    expect(run.stderr).toContain('without --plan-key-file (EDGESYNC_PLAN_KEY_FILE) the file holds no digest');
    expect(saved.manifestPaths).toEqual([EXAMPLES]);
    expect(Object.keys(saved.fingerprints)).toContain('edghts_WebEdge00000000000000000001');
  });

  it('after apply, plan finds no changes (exit 0 even with --detailed-exitcode)', async () => {
    const applied = await cli(['apply', '--yes', EXAMPLES]);

    const run = await cli(['plan', '--detailed-exitcode', EXAMPLES]);

    expect(applied.code, applied.stderr.slice(-1500)).toBe(0);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No changes. The account matches the manifests.');
  });

  it('refuses (exit 4) an empty manifest set that would prune everything the owner owns', async () => {
    await cli(['apply', '--yes', EXAMPLES]);
    await writeFile(join(scratch, 'empty.yaml'), 'version: 1\n');

    const run = await cliProcess(['plan', scratch]);

    expect(run.code).toBe(4);
    expect(run.stdout).toContain('Refused (empty-desired)');
  });

  it('exits 1 with the manifest location for an error only the account reveals', async () => {
    await writeFile(
      join(scratch, 'edges.yaml'),
      [
        'version: 1',
        'https_edges:',
        '  web:',
        '    id: edghts_WebEdge00000000000000000001',
        '    hostports: [web.example.com:443]',
        '    routes:',
        '      - match_type: path_prefix',
        '        match: /nowhere',
        '        oidc: null',
        '',
      ].join('\n'),
    );

    const run = await cli(['plan', scratch]);

    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/Error: .*edges\.yaml:7:\d+: .*matches 0 routes/);
  });

  it('exits 1 and prints manifest errors like validate does', async () => {
    await writeFile(
      join(scratch, 'bad.yaml'),
      'version: 1\nip_policy_rules:\n  x:\n    cidr: 10.0.0.0/8\n    action: maybe\n',
    );

    const run = await cliProcess(['plan', scratch]);

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/bad\.yaml:\d+:\d+/);
    expect(run.stdout).toBe('');
  });
});
