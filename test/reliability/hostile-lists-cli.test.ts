import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import {
  API_KEY,
  hostileServices,
  listedRule,
  manifestDirectories,
  pathOf,
  rulesManifest,
  runAgainst,
} from '../api/hostile-service.js';
import { type RecordedRequest, sendJson } from '../api/scripted-server.js';
import { type DaemonProcess, eventually, startDaemon } from '../watch/daemon-process.js';

const serve = hostileServices();
const manifests = manifestDirectories();

/** A 27-character id of the service's form. */
const ruleId = (n: number): string => `ipr_${String(n).padStart(27, '0')}`;
/** The manifest's one entry, a deny rule, as the service lists it. */
const DENY_A = listedRule(ruleId(1), 'a', '198.51.100.1/32', 'deny');
/** An unmanaged deny rule beside it. */
const DENY_B = { ...listedRule(ruleId(2), 'b', '198.51.100.2/32', 'deny'), metadata: '' };

/** The rules list: page N is what `pageOf(N)` gives (items, next page number or a URI, or null). */
function rulesList(
  pageOf: (n: number) => { readonly items: readonly object[]; readonly next: number | string | null },
) {
  return (request: RecordedRequest, response: Parameters<typeof sendJson>[0]): boolean => {
    if (request.method !== 'GET' || pathOf(request) !== '/ip_policy_rules') return false;
    const n = Number(new URL(request.url, 'http://x').searchParams.get('page') ?? '1');
    const { items, next } = pageOf(n);
    const nextUri = typeof next === 'number' ? `/ip_policy_rules?page=${next}` : next;
    sendJson(response, 200, { ip_policy_rules: items, uri: '/ip_policy_rules', next_page_uri: nextUri });
    return true;
  };
}

const writes = (requests: readonly RecordedRequest[]) =>
  requests.filter((request) => request.method !== 'GET');

// Here, not in `npm test`: two processes a case and a daemon (about 17 s in a loaded `npm test`).
// test/api/paginate.test.ts holds each of these lists in `npm test`, through the client the CLI uses,
// with the same messages (repeated id, repeated page, a loop back, the object bound, empty pages), and
// test/kinds/read-live-state.test.ts that a list that fails fails the whole read.
describe('edgesync against a hostile service: lists', () => {
  it.each([
    [
      'the same rule id on page 1 and page 2',
      rulesList((n) => ({ items: n === 1 ? [DENY_B, DENY_A] : [DENY_A], next: n === 1 ? 2 : null })),
      [],
      /listing \/ip_policy_rules failed after 1 page\(s\): repeated id: "ipr_0+1" is listed on page 1 and again on page 2/,
    ],
    [
      'a page repeated under another URI',
      rulesList((n) => ({
        items: [DENY_B, DENY_A],
        next: n === 1 ? 2 : null,
      })),
      [],
      /repeated page: page 2 lists the same 2 object\(s\) as page 1 \(the first: "ipr_0+2"\)/,
    ],
    [
      'a next_page_uri that loops back to page 1',
      rulesList((n) => ({
        items: n === 1 ? [DENY_A] : [],
        next: n === 1 ? 2 : '/ip_policy_rules?limit=100',
      })),
      [],
      /repeated page: next_page_uri points to a page already read/,
    ],
    [
      'a next_page_uri that never ends, new rules on every page, past --max-list-objects',
      rulesList((n) => ({
        items: [100 * n, 100 * n + 1].map((id) =>
          listedRule(ruleId(id), `gone-${id}`, '203.0.113.0/24', 'allow'),
        ),
        next: n + 1,
      })),
      ['--max-list-objects', '20'],
      /too many objects: more than 20 objects, the bound on one list \(--max-list-objects; raise it if the account holds more\)/,
    ],
    [
      'a next_page_uri that never ends, empty pages',
      rulesList((n) => ({ items: n === 1 ? [DENY_A] : [], next: n + 1 })),
      [],
      /empty pages: 10 pages in a row without an object still point to a next page/,
    ],
  ])('fails the read of %s: plan exits 1 and apply sends no write', async (_case, list, flags, message) => {
    const dir = await manifests(rulesManifest({ a: '198.51.100.1/32' }));
    const server = await serve(list);

    const plan = await runAgainst(server, ['plan', ...flags, '.'], { cwd: dir });
    const apply = await runAgainst(server, ['apply', '--yes', ...flags, '.'], { cwd: dir });

    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(message);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toMatch(message);
    expect(writes(server.requests)).toEqual([]);
  });

  it('takes the object bound from EDGESYNC_MAX_LIST_OBJECTS, and reads a list within it', async () => {
    const cidrs = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`r${i}`, `10.0.${i}.1/32`]));
    const dir = await manifests(rulesManifest(cidrs));
    const rules = Object.entries(cidrs).map(([name, cidr], i) =>
      listedRule(ruleId(10 + i), name, cidr, 'deny'),
    );
    const server = await serve(
      rulesList((n) => ({ items: rules.slice((n - 1) * 100, n * 100), next: n < 3 ? n + 1 : null })),
    );

    const within = await runAgainst(server, ['plan', '.'], {
      cwd: dir,
      env: { EDGESYNC_MAX_LIST_OBJECTS: '250' },
    });
    const over = await runAgainst(server, ['plan', '.'], {
      cwd: dir,
      env: { EDGESYNC_MAX_LIST_OBJECTS: '249' },
    });

    expect(within.code).toBe(0);
    expect(within.stdout).toMatch(/No changes/);
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(/more than 249 objects/);
  });
});

describe('edgesync watch against a list that repeats an id', () => {
  let daemon: DaemonProcess | undefined;
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
  });

  it('keeps running, says why the read failed, and deletes nothing', async () => {
    const dir = await manifests(rulesManifest({ a: '198.51.100.1/32' }));
    const server = await serve(
      rulesList((n) => ({ items: n === 1 ? [DENY_B, DENY_A] : [DENY_A], next: n === 1 ? 2 : null })),
    );
    const service = { url: server.url, apiKey: API_KEY } as RunningEmulator;
    daemon = await startDaemon(service, ['.', '--interval', '1s', '--rate-limit', '1000/1s'], dir);
    const running = daemon;
    const listings = () => server.requests.filter((request) => request.url.includes('page=2')).length;

    const error = await eventually(async () => {
      const status = (await (await fetch(`${running.url}/status`)).json()) as {
        last_error: { message: string } | null;
      };
      return listings() >= 3 ? status.last_error?.message : undefined;
    });
    const health = await fetch(`${running.url}/healthz`);
    const exitCode = await running.stop('SIGTERM');
    daemon = undefined;

    expect(error).toMatch(/repeated id: "ipr_0+1" is listed on page 1 and again on page 2/);
    expect(health.status).toBe(200);
    expect(writes(server.requests)).toEqual([]);
    expect(exitCode).toBe(0);
  });
});
