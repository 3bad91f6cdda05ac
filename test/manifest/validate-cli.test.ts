import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../support/built-cli.js';

const run = promisify(execFile);
const CLI = BUILT_CLI;

interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function edgesync(args: readonly string[], cwd = process.cwd()): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('edgesync validate (as a process)', () => {
  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npx tsc -p ." first`);
  });

  it('accepts the examples and says how many files and entries', async () => {
    const result = await edgesync(['validate', 'examples/manifests']);

    expect(result.code).toBe(0);
    expect(result.stdout).toBe('6 files valid (7 entries)\n');
  });

  it('validates the current directory when no path is given', async () => {
    const result = await edgesync(['validate'], resolve('examples/manifests'));

    expect(result.code).toBe(0);
    expect(result.stdout).toBe('6 files valid (7 entries)\n');
  });

  it('prints every error as file:line:col: path: message and a count on stderr', async () => {
    const expected = readFileSync('examples/invalid/wrong-reference-kind/expected.txt', 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => join('examples/invalid/wrong-reference-kind', line));

    const result = await edgesync(['validate', 'examples/invalid/wrong-reference-kind']);

    expect(result.code).toBe(1);
    expect(result.stdout.trimEnd().split('\n')).toEqual(expected);
    expect(result.stderr).toBe('2 errors in 1 file\n');
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

  it('counts the owner toward the metadata limit', async () => {
    const result = await edgesync(['validate', '--owner', 'x'.repeat(4090), 'examples/manifests']);

    expect(result.code).toBe(1);
    expect(result.stdout).toContain('metadata is');
    expect(result.stdout).toContain('at most 4096');
  });

  it('rejects an unknown format with exit code 1', async () => {
    const result = await edgesync(['validate', '--format', 'xml', 'examples/manifests']);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('xml');
  });
});
