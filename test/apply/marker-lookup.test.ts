import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import type { EdgeApi } from '../../src/api/edge-api.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { MarkerLookup, type MarkerQuery } from '../../src/apply/marker-lookup.js';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import { createIpPolicy, type Harness, startHarness } from './apply-harness.js';
import { createRuleAction, OWNER, ruleCidr } from './hand-plan.js';

const PAGE_SIZE = 2;

interface Rule {
  readonly id: string;
  readonly metadata: string;
}

/**
 * A list endpoint under the test's control: `/ip_policy_rules`, newest first,
 * two items a page. Each page is computed when its request arrives and sent
 * once `release` lets it go, so a test can change the collection while a
 * listing is in flight, as a landing create would.
 */
class ListServer {
  /** Newest first. */
  readonly rules: Rule[] = [];
  /** `before_id` of each page request in arrival order; '' for a first page. */
  readonly pageRequests: string[] = [];
  /** Page requests (by arrival index) that are answered 400. */
  readonly failing = new Set<number>();
  #held: Array<() => void> | undefined;
  #server: Server | undefined;
  #nextId = 0;

  async start(): Promise<string> {
    this.#server = createServer((request, response) => this.#handle(request, response));
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.release();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve());
  }

  add(name: string, owner = OWNER): string {
    this.#nextId += 1;
    const id = `ipr_${String(this.#nextId).padStart(27, '0')}`;
    this.rules.unshift({ id, metadata: encodeMetadata(undefined, { owner, name }) });
    return id;
  }

  /** From now on pages are computed on arrival but not sent until `release`. */
  hold(): void {
    this.#held ??= [];
  }

  release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const send of held) send();
  }

  /** Resolves once `count` page requests have arrived. */
  async pageRequestsReach(count: number): Promise<void> {
    while (this.pageRequests.length < count) await new Promise((resolve) => setTimeout(resolve, 2));
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== '/ip_policy_rules') {
      response.writeHead(404).end();
      return;
    }
    const beforeId = url.searchParams.get('before_id') ?? '';
    const index = this.pageRequests.push(beforeId) - 1;
    const start = beforeId === '' ? 0 : this.rules.findIndex((rule) => rule.id === beforeId) + 1;
    const items = this.rules.slice(start, start + PAGE_SIZE);
    const last = items.at(-1);
    const more = start + PAGE_SIZE < this.rules.length && last !== undefined;
    const nextUrl = new URL(url.href.replace('http://127.0.0.1', `http://${request.headers.host}`));
    if (last !== undefined) nextUrl.searchParams.set('before_id', last.id);
    const body = this.failing.has(index)
      ? { error_code: 'invalid_field', status_code: 400, msg: 'bad page', details: { field: 'before_id' } }
      : { ip_policy_rules: items, uri: url.href, next_page_uri: more ? nextUrl.href : null };
    const send = (): void => {
      response.writeHead(this.failing.has(index) ? 400 : 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (this.#held) this.#held.push(send);
    else send();
  }
}

function query(name: string): MarkerQuery {
  return { path: '/ip_policy_rules', kind: 'ip_policy_rules', marker: { owner: OWNER, name } };
}

function clientFor(baseUrl: string): EdgeApi {
  return createApiClient({
    baseUrl,
    apiKey: 'test-key',
    budget: new RequestBudget({ requests: 100_000, windowMs: 1000 }),
    retry: { maxAttempts: 1 },
  });
}

describe('MarkerLookup against a list server under the test’s control', () => {
  let server: ListServer | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  async function startListServer(names: readonly string[]): Promise<{ server: ListServer; api: EdgeApi }> {
    server = new ListServer();
    const url = await server.start();
    // The last name is the newest.
    for (const name of names) server.add(name);
    return { server, api: clientFor(url) };
  }

  it('serves every lookup made before its listing starts with that one listing, and stops once all are found', async () => {
    const { server: list, api } = await startListServer(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']);
    const lookup = new MarkerLookup({ api, preexistingIds: new Set() });

    // r7, r6 are page 1 and r5, r4 page 2: nothing older needs reading.
    const found = await Promise.all([lookup.find(query('r7')), lookup.find(query('r4'))]);

    expect(found).toEqual([list.rules[0]?.id, list.rules[3]?.id]);
    expect(list.pageRequests).toHaveLength(2);
    expect(lookup.stats()).toEqual({ lookups: 2, listings: 1, pages: 2 });
  });

  it('reads to the last page before it calls a marker absent, and skips objects older than the plan', async () => {
    const { server: list, api } = await startListServer(['r0', 'r1', 'r2', 'r3', 'r4']);
    const replaced = list.rules.find((rule) => rule.metadata.includes('"r2"'))?.id ?? '';
    const lookup = new MarkerLookup({ api, preexistingIds: new Set([replaced]) });

    const found = await Promise.all([lookup.find(query('r2')), lookup.find(query('missing'))]);

    expect(found).toEqual([undefined, undefined]);
    expect(list.pageRequests).toHaveLength(3);
  });

  it('makes a lookup asked for while a listing runs wait for the next listing, one for all such lookups', async () => {
    const { server: list, api } = await startListServer(['r0', 'r1', 'r2', 'r3']);
    const lookup = new MarkerLookup({ api, preexistingIds: new Set() });
    list.hold();
    const first = lookup.find(query('r3'));
    await list.pageRequestsReach(1);
    // These creates land after the first listing read its first page: only a later listing can see them.
    const lateA = list.add('late-a');
    const lateB = list.add('late-b');
    const waiting = [lookup.find(query('late-a')), lookup.find(query('late-b')), lookup.find(query('gone'))];
    list.release();

    const answers = await Promise.all([first, ...waiting]);

    expect(answers).toEqual([list.rules[2]?.id, lateA, lateB, undefined]);
    // Listing 1: its one page held r3. Listing 2: three pages to the end for "gone".
    expect(list.pageRequests).toEqual(['', '', list.rules[1]?.id, list.rules[3]?.id]);
    expect(lookup.stats()).toEqual({ lookups: 4, listings: 2, pages: 4 });
  });

  it('fails the lookups of a listing that fails; the next lookup lists again', async () => {
    const { server: list, api } = await startListServer(['r0', 'r1', 'r2']);
    list.failing.add(0);
    const lookup = new MarkerLookup({ api, preexistingIds: new Set() });

    const failed = await Promise.allSettled([lookup.find(query('r0')), lookup.find(query('r1'))]);
    const retried = await lookup.find(query('r0'));

    expect(failed.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(failed[0]?.status === 'rejected' && String(failed[0].reason)).toMatch(/HTTP 400|bad page/);
    expect(retried).toBe(list.rules[2]?.id);
    expect(lookup.stats().listings).toBe(2);
  });
});

describe('MarkerLookup against the emulator', () => {
  let harness: Harness | undefined;

  afterEach(async () => {
    await harness?.emulator.close();
    harness = undefined;
  });

  it('finds the object carrying the marker unless it existed before the plan', async () => {
    harness = await startHarness();
    const policyId = await createIpPolicy(harness);
    const action = createRuleAction('web', policyId, ruleCidr(4));
    const other = { cidr: ruleCidr(5), ip_policy_id: policyId, action: 'deny' };
    await harness.inspect.request({
      method: 'POST',
      path: '/ip_policy_rules',
      body: { ...other, metadata: encodeMetadata(undefined, { owner: 'someone-else', name: 'web' }) },
    });
    const created = await harness.inspect.request<{ id: string }>(action.request);

    const found = await new MarkerLookup({ api: harness.api, preexistingIds: new Set() }).find(query('web'));
    const foundWhenOld = await new MarkerLookup({
      api: harness.api,
      preexistingIds: new Set([created.body.id]),
    }).find(query('web'));

    expect(found).toBe(created.body.id);
    expect(foundWhenOld).toBeUndefined();
  });
});
