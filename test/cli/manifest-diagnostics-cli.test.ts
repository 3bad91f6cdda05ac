import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEdgesyncProcess } from '../support/edgesync-cli.js';

/** `description` is indented one space short of its siblings: the parser reports three errors for it. */
const MISINDENTED = `version: 1
ip_policy_rules:
  office:
    ip_policy_id: ipp_OfficeVpnPolicy000000000001
    cidr: 203.0.113.0/24
    action: allow
   description: office
    protect: true
`;

/** `action` is indented under `cidr`, whose value is on its own line: the parser blames line 5. */
const UNDER_A_VALUE = `version: 1
ip_policy_rules:
  office:
    ip_policy_id: ipp_OfficeVpnPolicy000000000001
    cidr: 203.0.113.0/24
      action: allow
`;

const TYPO = `version: 1
ip_policy_rules:
  office:
    ip_policy_id: ipp_OfficeVpnPolicy000000000001
    cdir: 203.0.113.0/24
    action: allow
`;

describe('manifest problems are one located line each, on stderr (CLI process)', () => {
  let dir: string;
  const run = (args: readonly string[]) => runEdgesyncProcess(args, { cwd: dir });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-diagnostics-'));
    await writeFile(join(dir, 'misindented.yaml'), MISINDENTED);
    await writeFile(join(dir, 'under-a-value.yaml'), UNDER_A_VALUE);
    await writeFile(join(dir, 'typo.yaml'), TYPO);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a misindented key is one line at the key, naming the columns it could be at', async () => {
    const result = await run(['validate', 'misindented.yaml']);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'misindented.yaml:7:4: indentation: expected "description" at column 1, 3 or 5, where the mappings above it start (found column 4)\n' +
        '1 error in 1 file\n',
    );
  });

  it('a line indented under a key that has its value is placed on that line, not on the one above', async () => {
    const result = await run(['validate', 'under-a-value.yaml']);

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'under-a-value.yaml:6:7: indentation: expected "action" at column 5 or less: it is indented under "cidr" (line 5), which already has a value\n' +
        '1 error in 1 file\n',
    );
  });

  it("--log-level debug adds the parser's own messages below the line", async () => {
    const result = await run(['validate', '--log-level', 'debug', 'misindented.yaml']);

    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      expect.stringMatching(/^misindented\.yaml:7:4: indentation: /),
      '  yaml parser: 7:1: All mapping items must start at the same column',
      '  yaml parser: 7:17: Nested mappings are not allowed in compact mappings',
      '  yaml parser: 7:17: Implicit keys need to be on a single line',
      '1 error in 1 file',
      '',
    ]);
  });

  it('plan reports the same one line before any request', async () => {
    const quiet = await run(['plan', '--emulator', 'misindented.yaml']);
    const detailed = await run(['plan', '--emulator', '--log-level', 'debug', 'misindented.yaml']);

    expect(quiet.code).toBe(1);
    expect(quiet.stderr).toContain(
      'misindented.yaml:7:4: indentation: expected "description" at column 1, 3 or 5, where the mappings above it start (found column 4)\n1 manifest error(s): nothing was planned\n',
    );
    expect(quiet.stderr).not.toContain('yaml parser');
    expect(detailed.stderr).toContain(
      '  yaml parser: 7:1: All mapping items must start at the same column\n',
    );
  });

  it('a path that does not exist is named without a position', async () => {
    const text = await run(['validate', 'nope/']);
    const json = await run(['validate', '--format', 'json', 'nope/']);

    expect(text.code).toBe(1);
    expect(text.stderr).toBe('nope/: no such file or directory\n1 error in 1 file\n');
    expect(JSON.parse(json.stdout)).toEqual([
      {
        file: 'nope/',
        line: null,
        column: null,
        path: '',
        code: 'file_not_found',
        message: 'no such file or directory',
      },
    ]);
  });

  it('validate writes a typo (with its did-you-mean) on stderr; --format json and sarif are documents on stdout', async () => {
    const text = await run(['validate', 'typo.yaml']);
    const json = await run(['validate', '--format', 'json', 'typo.yaml']);
    const sarif = await run(['validate', '--format', 'sarif', 'typo.yaml']);

    expect(text.code).toBe(1);
    expect(text.stdout).toBe('');
    expect(text.stderr.split('\n')[0]).toMatch(
      /^typo\.yaml:5:5: ip_policy_rules\.office\.cdir: unknown field "cdir"; did you mean `cidr`\?/,
    );
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ code: 'schema', line: 5, column: 5 }),
    ]);
    expect(json.stderr).toBe('1 error in 1 file\n');
    expect(JSON.parse(sarif.stdout)).toMatchObject({ version: '2.1.0' });
    expect(sarif.stderr).toBe('1 error in 1 file\n');
  });
});
