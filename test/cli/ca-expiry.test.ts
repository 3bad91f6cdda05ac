import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEdgesyncProcess } from '../support/edgesync-cli.js';

const HAS_OPENSSL = spawnSync('openssl', ['version']).status === 0;

/** edgesync as a process in `cwd`, with PATH alone. */
const run = (args: readonly string[], cwd: string) => runEdgesyncProcess(args, { cwd });

describe.skipIf(!HAS_OPENSSL)('a CA that expires soon is warned of in validate and plan', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-ca-expiry-'));
    await mkdir(join(dir, 'm', 'certs'), { recursive: true });
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '10',
        '-subj',
        '/CN=soon',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'm', 'certs', 'soon.pem'),
      ],
      { stdio: 'ignore' },
    );
    await writeFile(
      join(dir, 'm', 'cas.yaml'),
      'version: 1\ncertificate_authorities:\n  soon-root:\n    ca_pem_file: certs/soon.pem\n',
    );
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('warns within 30 days by default, not with --ca-expiry-warning 5d; the run still succeeds', async () => {
    const validate = await run(['validate', 'm'], dir);
    const quiet = await run(['validate', '--ca-expiry-warning', '5d', 'm'], dir);
    const plan = await run(['plan', '--emulator', 'm'], dir);

    expect(validate.code).toBe(0);
    expect(validate.stderr).toMatch(
      /^warning: .*cas\.yaml:3:3: certificate_authorities\.soon-root: the CA expires in (9|10) day\(s\) \(20\d\d-/m,
    );
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).not.toContain('warning:');
    expect(plan.code).toBe(0);
    expect(plan.stderr).toContain('certificate_authorities.soon-root: the CA expires in');
  });

  it('refuses a --ca-expiry-warning that is not a duration', async () => {
    const { code, stderr } = await run(['validate', '--ca-expiry-warning', 'a month', 'm'], dir);

    expect(code).toBe(1);
    expect(stderr).toContain('--ca-expiry-warning: expected a duration');
  });
});
