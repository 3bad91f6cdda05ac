import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../support/built-cli.js';

const MAIN = BUILT_CLI;
const children: ChildProcessWithoutNullStreams[] = [];

function run(args: readonly string[]): {
  child: ChildProcessWithoutNullStreams;
  lines: AsyncIterator<string>;
} {
  const child = spawn(process.execPath, [MAIN, 'emulator', ...args], { stdio: 'pipe' });
  children.push(child);
  return { child, lines: createInterface({ input: child.stdout })[Symbol.asyncIterator]() };
}

async function nextLine(lines: AsyncIterator<string>): Promise<string> {
  const line = await lines.next();
  if (line.done) throw new Error('emulator exited before printing');
  return line.value;
}

function exitCode(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('edgesync emulator (process)', () => {
  let dir: string;

  beforeAll(async () => {
    expect(existsSync(MAIN)).toBe(true);
    dir = await mkdtemp(join(tmpdir(), 'edgesync-emulator-cli-'));
  }, 180_000);
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the URL then the generated key, serves, and exits 0 on SIGTERM after flushing --data', async () => {
    const dataFile = join(dir, 'data.json');
    const { child, lines } = run([
      '--port',
      '0',
      '--data',
      dataFile,
      '--seed',
      'examples/emulator-seed.yaml',
    ]);

    const url = await nextLine(lines);
    const key = await nextLine(lines);
    const headers = {
      authorization: `Bearer ${key}`,
      'service-version': '2',
      'content-type': 'application/json',
    };
    const created = await fetch(`${url}/ip_policy_rules`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        cidr: '10.0.0.0/8',
        ip_policy_id: 'ipp_OfficeVpnPolicy000000000001',
        action: 'allow',
      }),
    });
    const rule = (await created.json()) as { id: string };
    child.kill('SIGTERM');
    const code = await exitCode(child);
    const saved = JSON.parse(await readFile(dataFile, 'utf8'));

    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(key).toMatch(/^edgesync_emulator_[0-9A-Za-z]{32}$/);
    expect(created.status).toBe(201);
    expect(code).toBe(0);
    expect(saved.collections.ip_policy_rules.map((r: { id: string }) => r.id)).toEqual([rule.id]);
  });

  it('takes --api-key and prints only the URL', async () => {
    const { child, lines } = run(['--api-key', 'local-key', '--page-size-max', '1']);

    const url = await nextLine(lines);
    const ok = await fetch(`${url}/ip_policy_rules`, {
      headers: { authorization: 'Bearer local-key', 'service-version': '2' },
    });
    child.kill('SIGINT');

    expect(ok.status).toBe(200);
    expect(await exitCode(child)).toBe(0);
  });

  /** Statuses of `count` list reads sent at once, sorted. */
  async function burst(url: string, key: string, count: number): Promise<number[]> {
    const statuses = await Promise.all(
      Array.from({ length: count }, () =>
        fetch(`${url}/ip_policy_rules`, {
          headers: { authorization: `Bearer ${key}`, 'service-version': '2' },
        }).then(async (response) => {
          await response.arrayBuffer();
          return response.status;
        }),
      ),
    );
    return statuses.sort();
  }

  it("applies the family's 120 requests per 60 s by default, and none with --rate-limit off", async () => {
    const limited = run(['--api-key', 'k']);
    const unlimited = run(['--api-key', 'k', '--rate-limit', 'off']);
    const limitedUrl = await nextLine(limited.lines);
    const unlimitedUrl = await nextLine(unlimited.lines);

    const limitedStatuses = await burst(limitedUrl, 'k', 125);
    const unlimitedStatuses = await burst(unlimitedUrl, 'k', 125);
    limited.child.kill('SIGTERM');
    unlimited.child.kill('SIGTERM');

    expect(limitedStatuses.filter((status) => status === 200)).toHaveLength(120);
    expect(limitedStatuses.filter((status) => status === 429)).toHaveLength(5);
    expect(unlimitedStatuses.every((status) => status === 200)).toBe(true);
  });

  it('answers every 404 with --not-found-code', async () => {
    const { child, lines } = run(['--api-key', 'k', '--rate-limit', 'off', '--not-found-code', 'E404']);
    const url = await nextLine(lines);

    const response = await fetch(`${url}/edges/tcp/edgtcp_Missing000000000000000000001/ip_restriction`, {
      headers: { authorization: 'Bearer k', 'service-version': '2' },
    });
    const body = (await response.json()) as { error_code: string };
    child.kill('SIGTERM');

    expect([response.status, body.error_code]).toEqual([404, 'E404']);
  });

  it.each([
    [['--rate-limit', '120'], /rate limit must look like 120\/60s/],
    [['--fault-rate', '2'], /--fault-rate: expected a share from 0 to 1 \(found "2"\)/],
    [['--port', 'http'], /--port: expected a whole number/],
  ])('refuses %j with a clear message and exit 1', async (args, message) => {
    const { child } = run(args);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });

    expect(await exitCode(child)).toBe(1);
    expect(stderr).toMatch(message);
  });
});
