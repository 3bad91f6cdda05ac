import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runEdgesyncInProcess } from '../support/edgesync-cli.js';

const EXAMPLES = join(ROOT, 'examples/manifests');
const SEED = join(ROOT, 'examples/emulator-seed.yaml');
const APPLY = ['apply', '--yes', '--emulator', '--emulator-seed', SEED, EXAMPLES];

/** Lines of `text` that parse as JSON objects: log records. */
function jsonRecords(text: string): unknown[] {
  return text.split('\n').flatMap((line) => {
    try {
      const parsed: unknown = JSON.parse(line);
      return typeof parsed === 'object' && parsed !== null ? [parsed] : [];
    } catch {
      return [];
    }
  });
}

describe('off a terminal, the one-shot commands write human lines on stderr unless --log-format json', () => {
  it('apply: what it read, the emulator it started and each action as a line a person reads, no JSON record', async () => {
    const run = await runEdgesyncInProcess(APPLY, { env: { OIDC_CLIENT_SECRET: 'x' } });

    expect(run.code, run.stderr).toBe(0);
    expect(jsonRecords(run.stderr)).toEqual([]);
    expect(run.stderr).toMatch(/^embedded emulator started \(url http:\/\/127\.0\.0\.1:\d+\)$/m);
    expect(run.stderr).toMatch(/^read .*examples\/manifests/m);
    expect(run.stderr).toMatch(/^create:ip_policy_rules\.office-vpn: done in \d+ms \[id=ipr_\w+\]$/m);
    expect(run.stdout).toMatch(/^Apply complete: /m);
  });

  it('--log-format json: pino records for log collectors, the same events', async () => {
    const run = await runEdgesyncInProcess([...APPLY, '--log-format', 'json'], {
      env: { OIDC_CLIENT_SECRET: 'x' },
    });

    expect(run.code, run.stderr).toBe(0);
    const records = jsonRecords(run.stderr) as { msg?: string; action?: string }[];
    expect(records.map((record) => record.msg)).toContain('embedded emulator started');
    expect(
      records.filter((record) => record.msg === 'action finished').map((record) => record.action),
    ).toContain('create:ip_policy_rules.office-vpn');
  });
});
