import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../support/built-cli.js';
import { runEdgesyncInProcess, runEdgesyncProcess } from '../support/edgesync-cli.js';

const CLI = BUILT_CLI;

/** edgesync as a process: for the exit codes and what reaches the streams. */
const edgesyncProcess = (args: readonly string[], cwd = process.cwd(), env: Record<string, string> = {}) =>
  runEdgesyncProcess(args, { cwd, env });
/** edgesync in this process, with the same environment: for what validate decides and prints. */
const edgesync = (args: readonly string[], cwd = process.cwd(), env: Record<string, string> = {}) =>
  runEdgesyncInProcess(args, { cwd, env });

describe('edgesync validate (as a process)', () => {
  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npx tsc -p ." first`);
  });

  it('accepts the examples and says how many files and entries', async () => {
    const result = await edgesyncProcess(['validate', 'examples/manifests']);

    expect(result.code).toBe(0);
    expect(result.stdout).toBe('6 files valid (7 entries)\n');
  });

  it('validates the current directory when no path is given', async () => {
    const result = await edgesync(['validate'], resolve('examples/manifests'));

    expect(result.code).toBe(0);
    expect(result.stdout).toBe('6 files valid (7 entries)\n');
  });

  it('prints every error as file:line:col: path: message and a count, on stderr', async () => {
    const expected = readFileSync('examples/invalid/wrong-reference-kind/expected.txt', 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => join('examples/invalid/wrong-reference-kind', line));

    const result = await edgesyncProcess(['validate', 'examples/invalid/wrong-reference-kind']);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toEqual([...expected, '2 errors in 1 file']);
  });

  it('--format json prints an array of located errors', async () => {
    const result = await edgesync(['validate', '--format', 'json', 'examples/invalid/cidr-host-bits']);

    expect(result.code).toBe(1);
    const errors = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(errors).toEqual([
      {
        file: join('examples/invalid/cidr-host-bits', 'rules.yaml'),
        line: 6,
        column: 5,
        path: 'ip_policy_rules.office.cidr',
        code: 'cidr_host_bits',
        message: '"10.0.0.5/24" has host bits set; write the network address: 10.0.0.0/24',
      },
      expect.objectContaining({ line: 10, column: 5, code: 'cidr_host_bits' }),
    ]);
  });

  it('--format json prints [] and exits 0 when valid', async () => {
    const result = await edgesync(['validate', '--format', 'json', 'examples/manifests']);

    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([]);
    expect(result.stderr).toBe('6 files valid (7 entries)\n');
  });

  it('--format sarif prints SARIF 2.1.0 results with regions', async () => {
    const result = await edgesync(['validate', '--format', 'sarif', 'examples/invalid/route-selector']);

    expect(result.code).toBe(1);
    const sarif = JSON.parse(result.stdout) as {
      version: string;
      runs: {
        tool: { driver: { name: string; rules: { id: string }[] } };
        results: {
          ruleId: string;
          level: string;
          message: { text: string };
          locations: { physicalLocation: { artifactLocation: { uri: string }; region: unknown } }[];
        }[];
      }[];
    };
    expect(sarif.version).toBe('2.1.0');
    const [run] = sarif.runs;
    expect(run?.tool.driver.name).toBe('edgesync');
    expect(run?.tool.driver.rules.map((rule) => rule.id)).toEqual(['route_selector']);
    expect(run?.results).toHaveLength(3);
    expect(run?.results[0]).toMatchObject({
      ruleId: 'route_selector',
      level: 'error',
      message: {
        text: 'https_edges.web.routes[0]: select the route by id or by match_type and match, not both',
      },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: 'examples/invalid/route-selector/web.yaml' },
            region: { startLine: 7, startColumn: 9 },
          },
        },
      ],
    });
  });

  it('--format sarif names files from the git top level, relative, whatever the working directory', async () => {
    const fromSubdirectory = await edgesync(
      ['validate', '--format', 'sarif', '.'],
      resolve('examples/invalid/route-selector'),
    );
    const withRepoRoot = await edgesync([
      'validate',
      '--format',
      'sarif',
      '--repo-root',
      'examples',
      'examples/invalid/route-selector',
    ]);

    const uris = (stdout: string): unknown[] =>
      (
        JSON.parse(stdout) as {
          runs: { results: { locations: { physicalLocation: { artifactLocation: unknown } }[] }[] }[];
        }
      ).runs[0]?.results.map((result) =>
        JSON.stringify(result.locations[0]?.physicalLocation.artifactLocation),
      ) ?? [];
    expect(new Set(uris(fromSubdirectory.stdout))).toEqual(
      new Set([JSON.stringify({ uri: 'examples/invalid/route-selector/web.yaml', uriBaseId: '%SRCROOT%' })]),
    );
    expect(new Set(uris(withRepoRoot.stdout))).toEqual(
      new Set([JSON.stringify({ uri: 'invalid/route-selector/web.yaml', uriBaseId: '%SRCROOT%' })]),
    );
    expect(fromSubdirectory.stdout).not.toContain(process.cwd());
  });

  it('--format sarif points informationUri at the project that package.json names', async () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { repository: { url: string } };
    const project = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

    const result = await edgesync(['validate', '--format', 'sarif', 'examples/invalid/route-selector']);

    const driver = (JSON.parse(result.stdout) as { runs: { tool: { driver: { informationUri: string } } }[] })
      .runs[0]?.tool.driver;
    expect(project).toBe('https://github.com/edgesync/edgesync');
    expect(driver?.informationUri.startsWith(`${project}/`)).toBe(true);
  });

  it('counts the owner toward the metadata limit', async () => {
    const result = await edgesync(['validate', '--owner', 'x'.repeat(4090), 'examples/manifests']);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('metadata is');
    expect(result.stderr).toContain('at most 4096');
  });

  it('rejects an unknown format with exit code 1', async () => {
    const result = await edgesyncProcess(['validate', '--format', 'xml', 'examples/manifests']);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('xml');
  });

  describe('secret references', () => {
    const manifest = (secret: string): string =>
      [
        'version: 1',
        'https_edges:',
        '  web:',
        '    hostports: [web.example.com:443]',
        '    routes:',
        '      - match_type: path_prefix',
        '        match: /app',
        '        oidc:',
        '          issuer: https://accounts.example.com',
        '          client_id: app',
        `          client_secret: ${secret}`,
        'certificate_authorities:',
        '  corp:',
        '    ca_pem: { env: CORP_CA_PEM }',
        '',
      ].join('\n');
    let dir: string;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'edgesync-validate-secrets-'));
    });

    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    async function tree(name: string, secret: string, files: Record<string, string> = {}): Promise<string> {
      const root = join(dir, name);
      await mkdir(join(root, 'secrets'), { recursive: true });
      await writeFile(join(root, 'edges.yaml'), manifest(secret));
      for (const [path, text] of Object.entries(files)) await writeFile(join(root, path), text);
      return root;
    }

    it('resolves no environment variable: unset { env } references are valid', async () => {
      const root = await tree('env', '{ env: WEB_OIDC_CLIENT_SECRET }');

      const result = await edgesync(['validate', root]);

      expect(result.code).toBe(0);
      expect(result.stdout).toBe('1 file valid (2 entries)\n');
    });

    it('reads no { file } secret but checks that it exists inside the root', async () => {
      const present = await tree('file-present', '{ file: secrets/oidc.txt }', {
        'secrets/oidc.txt': 's3cret\n',
      });
      const missing = await tree('file-missing', '{ file: secrets/oidc.txt }');
      const outside = await tree('file-outside', '{ file: ../file-present/secrets/oidc.txt }');

      const ok = await edgesync(['validate', present]);
      const gone = await edgesync(['validate', missing]);
      const out = await edgesync(['validate', outside]);

      expect(ok.code).toBe(0);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toContain(
        'https_edges.web.routes[0].oidc.client_secret: file "secrets/oidc.txt" does not exist',
      );
      expect(out.code).toBe(1);
      expect(out.stderr).toContain('is outside the manifest root');
    });

    it('still checks the form of a reference', async () => {
      const root = await tree('bad-form', '{ env: "not a name" }');

      const result = await edgesync(['validate', root]);

      expect(result.code).toBe(1);
      expect(result.stderr).toContain('https_edges.web.routes[0].oidc.client_secret');
    });

    it('--require-secrets resolves every variable and reads every file, as plan does', async () => {
      const root = await tree('strict', '{ env: WEB_OIDC_CLIENT_SECRET }');

      const unset = await edgesync(['validate', '--require-secrets', root]);
      const set = await edgesync(['validate', '--require-secrets', root], process.cwd(), {
        WEB_OIDC_CLIENT_SECRET: 'x',
        CORP_CA_PEM: readFileSync('examples/manifests/certs/corp-root.pem', 'utf8'),
      });

      expect(unset.code).toBe(1);
      expect(unset.stderr).toContain('environment variable WEB_OIDC_CLIENT_SECRET is not set');
      expect(unset.stderr).toContain('environment variable CORP_CA_PEM is not set');
      expect(set.code).toBe(0);
    });
  });
});
