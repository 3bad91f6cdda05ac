import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { type ApiClientOptions, createApiClient, type RequestEvent } from '../../src/api/client.js';
import { NetworkError } from '../../src/api/network-error.js';
import { OutcomeUnknownError } from '../../src/api/outcome-unknown-error.js';
import { RequestAbortedError } from '../../src/api/request-aborted-error.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { USER_AGENT } from '../../src/version.js';
import { FakeTime, SteppedTime, seededRandom, sleepUntilAborted } from './fake-time.js';
import {
  dropConnection,
  type ScriptedHandler,
  type ScriptedServer,
  scriptedServers,
  sendJson,
  sendServiceError,
  startScriptedServer,
} from './scripted-server.js';

const API_KEY = 'sk_test_Secret0123456789abcdef';

const serve = scriptedServers();

/** Answers request i with script[i] (the last one repeats). */
function script(...steps: ScriptedHandler[]): ScriptedHandler {
  return (request, response, index) => {
    const step = steps[Math.min(index, steps.length - 1)];
    step?.(request, response, index);
  };
}

function clientFor(server: ScriptedServer, time: FakeTime, options: Partial<ApiClientOptions> = {}) {
  const budget = new RequestBudget({ clock: time.clock, sleep: time.sleep });
  return createApiClient({
    baseUrl: server.url,
    apiKey: API_KEY,
    budget,
    clock: time.clock,
    sleep: time.sleep,
    retry: { random: seededRandom(7), clock: time.clock },
    ...options,
  });
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

const rule = { id: 'ipr_1', cidr: '10.0.0.0/8', action: 'allow' };

describe('createApiClient: requests', () => {
  it('sends auth, version, user agent and JSON content type, and parses the answer', async () => {
    const server = await serve((_request, response) => sendJson(response, 201, rule));
    const api = clientFor(server, new FakeTime());

    const created = await api.request({
      method: 'POST',
      path: '/ip_policy_rules',
      body: { cidr: '10.0.0.0/8' },
    });
    await api.request({ method: 'GET', path: '/ip_policy_rules/ipr_1' });

    expect(created).toEqual({ status: 201, body: rule });
    const [post, get] = server.requests;
    expect(post?.headers).toMatchObject({
      authorization: `Bearer ${API_KEY}`,
      'service-version': '2',
      'user-agent': USER_AGENT,
      'content-type': 'application/json',
    });
    expect(JSON.parse(post?.body ?? '')).toEqual({ cidr: '10.0.0.0/8' });
    expect(post?.url).toBe('/ip_policy_rules');
    expect(get?.headers['content-type']).toBeUndefined();
    expect(get?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(USER_AGENT).toMatch(/^edgesync\//);
  });

  it('resolves a 204 with an undefined body', async () => {
    const server = await serve((_request, response) => response.writeHead(204).end());
    const api = clientFor(server, new FakeTime());

    const deleted = await api.request({ method: 'DELETE', path: '/ip_policy_rules/ipr_1' });

    expect(deleted).toEqual({ status: 204, body: undefined });
  });

  it('appends paths to a base URL that has a path', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, rule));
    const api = createApiClient({ baseUrl: `${server.url}/v2/`, apiKey: API_KEY });

    await api.request({ method: 'GET', path: '/ip_policy_rules/ipr_1' });

    expect(server.requests[0]?.url).toBe('/v2/ip_policy_rules/ipr_1');
  });

  it.each([
    [
      'POST',
      400,
      'invalid_field',
      { field: 'cidr' },
      'POST /ip_policy_rules: 400 invalid_field (cidr): cidr is not a CIDR [op_test0001]',
    ],
    ['POST', 401, 'unauthorized', {}, 'POST /ip_policy_rules: 401 unauthorized: bad key [op_test0001]'],
    ['GET', 404, 'not_found', {}, 'GET /ip_policy_rules: 404 not_found: no such thing [op_test0001]'],
  ] as const)(
    'turns %s %i into an ApiError with the service fields',
    async (method, status, code, details, message) => {
      const msg = status === 400 ? 'cidr is not a CIDR' : status === 401 ? 'bad key' : 'no such thing';
      const server = await serve((_request, response) =>
        sendServiceError(response, status, code, msg, details),
      );
      const api = clientFor(server, new FakeTime());

      const error = await caught(
        api.request({ method, path: '/ip_policy_rules', body: method === 'POST' ? {} : undefined }),
      );

      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({
        code: 'api_error',
        status,
        errorCode: code,
        msg,
        method,
        path: '/ip_policy_rules',
        operationId: 'op_test0001',
        details: { operation_id: 'op_test0001', ...details },
        message,
      });
      expect(server.requests).toHaveLength(1);
    },
  );

  it('reports a non-JSON error body by its start', async () => {
    const server = await serve((_request, response) =>
      response.writeHead(502).end('<html>Bad gateway</html>'),
    );
    const api = clientFor(server, new FakeTime(), { retry: { maxAttempts: 1 } });

    const error = await caught(api.request({ method: 'GET', path: '/ip_policy_rules' }));

    expect(error).toMatchObject({ status: 502, errorCode: undefined, msg: '<html>Bad gateway</html>' });
  });

  it('waits the Retry-After of a 429 through the shared budget, then succeeds', async () => {
    const server = await serve(
      script(
        (_request, response) =>
          sendServiceError(response, 429, 'rate_limited', 'slow down', {}, { 'Retry-After': '3' }),
        (_request, response) => sendJson(response, 200, rule),
      ),
    );
    const time = new FakeTime();
    const api = clientFor(server, time);

    const result = await api.request({ method: 'GET', path: '/ip_policy_rules/ipr_1' });

    expect(result.body).toEqual(rule);
    expect(server.requests).toHaveLength(2);
    expect(time.now).toBe(3000);
    expect(api.budget.waitedMs).toBe(3000);
    expect(api.stats()).toEqual({ requests: 2, pages: 0, retries: 1, rateLimitWaitMs: 3000 });
  });

  it('pauses every request of the client during a 429 pause, not just the one refused', async () => {
    const time = new SteppedTime();
    const server = await serve(
      script(
        (_request, response) =>
          sendServiceError(response, 429, 'rate_limited', 'slow down', {}, { 'Retry-After': '5' }),
        (request, response) => sendJson(response, 200, { url: request.url, at: time.now }),
      ),
    );
    const api = createApiClient({
      baseUrl: server.url,
      apiKey: API_KEY,
      budget: new RequestBudget({ clock: time.clock, sleep: time.sleep }),
      clock: time.clock,
      sleep: time.sleep,
    });
    const refused = api.request({ method: 'GET', path: '/a' });
    await time.sleeping();

    const other = api.request({ method: 'GET', path: '/b' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const sentDuringPause = server.requests.length;
    time.release();

    expect(sentDuringPause).toBe(1);
    expect((await refused).body).toEqual({ url: '/a', at: 5000 });
    expect((await other).body).toEqual({ url: '/b', at: 5000 });
    expect(api.stats().rateLimitWaitMs).toBe(5000);
  });

  it('gives up on a 429 whose Retry-After exceeds the wait bound, and still pauses the client', async () => {
    const server = await serve((_request, response) =>
      sendServiceError(response, 429, 'rate_limited', 'slow down', {}, { 'Retry-After': '40' }),
    );
    const time = new FakeTime();
    const api = clientFor(server, time);

    const error = await caught(api.request({ method: 'GET', path: '/x' }));

    // 40 s, then another 40 s would pass the 60 s wait bound.
    expect(error).toMatchObject({ status: 429, errorCode: 'rate_limited' });
    expect(server.requests).toHaveLength(2);
    expect(api.budget.pausedForMs).toBe(40_000);
  });

  it.each([
    ['delta seconds past a timer', '1000000000000'],
    ['more digits than a double holds', '9'.repeat(400)],
    ['an HTTP date in the year 9999', 'Fri, 31 Dec 9999 23:59:59 GMT'],
  ])('takes a Retry-After of %s for one window at most, as one retry each', async (_name, retryAfter) => {
    const server = await serve((_request, response) =>
      sendServiceError(response, 429, 'rate_limited', 'slow down', {}, { 'Retry-After': retryAfter }),
    );
    const time = new FakeTime();
    const budget = new RequestBudget({ requests: 100, windowMs: 2000, clock: time.clock, sleep: time.sleep });
    const api = createApiClient({
      baseUrl: server.url,
      apiKey: API_KEY,
      budget,
      clock: time.clock,
      sleep: time.sleep,
      retry: { random: seededRandom(7), clock: time.clock },
    });

    const error = await caught(api.request({ method: 'GET', path: '/x' }));

    expect(error).toMatchObject({ status: 429, errorCode: 'rate_limited' });
    // Five attempts (the retry limit), a window's pause before each retry, and one after giving up.
    expect(server.requests).toHaveLength(5);
    expect(time.sleeps).toEqual([2000, 2000, 2000, 2000]);
    expect(budget.pausedForMs).toBe(2000);
  });

  it.each(['', 'two words', 'line\nbreak', 'clé'])(
    'refuses an API key that cannot be a header value (%o)',
    (apiKey) => {
      expect(() => createApiClient({ baseUrl: 'http://127.0.0.1:1', apiKey })).toThrow(/value not shown/);
    },
  );

  it('backs off after a 429 without Retry-After, and retries a POST refused with 429', async () => {
    const server = await serve(
      script(
        (_request, response) => sendServiceError(response, 429, 'rate_limited', 'slow down'),
        (_request, response) => sendJson(response, 201, rule),
      ),
    );
    const time = new FakeTime();
    const api = clientFor(server, time, { retry: { random: () => 0.5, baseDelayMs: 800 } });

    const created = await api.request({ method: 'POST', path: '/ip_policy_rules', body: {} });

    expect(created.status).toBe(201);
    expect(server.requests).toHaveLength(2);
    expect(time.now).toBe(400);
  });

  it('retries a GET after a 503, with a backoff sleep', async () => {
    const server = await serve(
      script(
        (_request, response) => sendServiceError(response, 503, 'service_unavailable', 'busy'),
        (_request, response) => sendJson(response, 200, rule),
      ),
    );
    const time = new FakeTime();
    const api = clientFor(server, time, { retry: { random: () => 0.25, baseDelayMs: 1000 } });

    const result = await api.request({ method: 'GET', path: '/ip_policy_rules/ipr_1' });

    expect(result.body).toEqual(rule);
    expect(time.sleeps).toEqual([250]);
    expect(api.stats()).toMatchObject({ requests: 2, retries: 1 });
  });

  it('gives up after maxAttempts with the last ApiError', async () => {
    const server = await serve((_request, response) =>
      sendServiceError(response, 500, 'internal_error', 'oops'),
    );
    const api = clientFor(server, new FakeTime(), { retry: { maxAttempts: 3 } });

    const error = await caught(
      api.request({ method: 'PUT', path: '/edges/tcp/edgtcp_1/ip_restriction', body: {} }),
    );

    expect(error).toMatchObject({ status: 500, errorCode: 'internal_error' });
    expect(server.requests).toHaveLength(3);
  });

  it('does not resend a POST answered 503: OutcomeUnknownError', async () => {
    const server = await serve((_request, response) =>
      sendServiceError(response, 503, 'service_unavailable', 'busy'),
    );
    const api = clientFor(server, new FakeTime());

    const error = await caught(api.request({ method: 'POST', path: '/ip_policy_rules', body: {} }));

    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error).toMatchObject({ code: 'outcome_unknown', method: 'POST', path: '/ip_policy_rules' });
    expect((error as Error).cause).toBeInstanceOf(ApiError);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a GET whose connection was dropped', async () => {
    const server = await serve(
      script(
        (_request, response) => dropConnection(response),
        (_request, response) => sendJson(response, 200, rule),
      ),
    );
    const api = clientFor(server, new FakeTime());

    const result = await api.request({ method: 'GET', path: '/ip_policy_rules/ipr_1' });

    expect(result.body).toEqual(rule);
    expect(server.requests).toHaveLength(2);
  });

  it('fails a POST whose connection was dropped with OutcomeUnknownError, without resending', async () => {
    const server = await serve(
      script(
        (_request, response) => dropConnection(response),
        (_request, response) => sendJson(response, 201, rule),
      ),
    );
    const api = clientFor(server, new FakeTime());

    const error = await caught(api.request({ method: 'POST', path: '/ip_policy_rules', body: {} }));

    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as Error).cause).toBeInstanceOf(NetworkError);
    expect((error as { cause: NetworkError }).cause.failure).toMatch(/socket_closed|connection_reset/);
    expect(server.requests).toHaveLength(1);
  });

  it('fails a POST whose body breaks off after a 201 with OutcomeUnknownError', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': '500' });
      response.write('{"id":"ipr_');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    const api = clientFor(server, new FakeTime());

    const error = await caught(api.request({ method: 'POST', path: '/ip_policy_rules', body: {} }));

    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a POST whose connection was refused (nothing was sent), then fails with a NetworkError', async () => {
    const closed = await startScriptedServer(() => {});
    const url = closed.url;
    await closed.close();
    const time = new FakeTime();
    const api = createApiClient({
      baseUrl: url,
      apiKey: API_KEY,
      budget: new RequestBudget({ clock: time.clock, sleep: time.sleep }),
      clock: time.clock,
      sleep: time.sleep,
      retry: { maxAttempts: 3, random: () => 0.5 },
    });

    const error = await caught(api.request({ method: 'POST', path: '/ip_policy_rules', body: {} }));

    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({
      code: 'network_error',
      failure: 'connection_refused',
      beforeSending: true,
    });
    expect(api.stats()).toMatchObject({ requests: 3, retries: 2 });
  });

  it('times out a request that gets no answer after one timeout, retries included: neither a GET nor a POST is sent again', async () => {
    const server = await serve(() => {
      // never answers
    });
    // Long enough that a loaded machine still sends both requests first.
    const api = clientFor(server, new FakeTime(), { timeoutMs: 600, retry: { maxAttempts: 2 } });

    const getError = await caught(api.request({ method: 'GET', path: '/ip_policy_rules/ipr_1' }));
    const postError = await caught(api.request({ method: 'POST', path: '/ip_policy_rules', body: {} }));

    expect(getError).toBeInstanceOf(NetworkError);
    expect(getError).toMatchObject({ failure: 'timeout', beforeSending: false });
    expect((getError as Error).message).toBe(
      `GET ${server.url}/ip_policy_rules/ipr_1: no complete answer within 600 ms`,
    );
    expect(postError).toBeInstanceOf(OutcomeUnknownError);
    expect((postError as Error).cause).toMatchObject({ failure: 'timeout' });
    expect(server.requests.map((request) => request.method)).toEqual(['GET', 'POST']);
  });

  it('retries inside the deadline only: backoff waits count against the timeout', async () => {
    const server = await serve((_request, response) => dropConnection(response));
    const time = new FakeTime();
    const api = clientFor(server, time, {
      timeoutMs: 30_000,
      retry: {
        maxAttempts: 10,
        baseDelayMs: 12_000,
        maxDelayMs: 12_000,
        random: () => 0.99,
        clock: time.clock,
      },
    });

    const error = await caught(api.request({ method: 'GET', path: '/ip_policy_rules' }));

    expect(error).toMatchObject({ failure: 'socket_closed' });
    // Waits of 11,880 ms (on the fake clock): two fit in 30,000 ms, a third
    // would not. The third attempt still has 6 s of real time, so a loaded
    // runner does not turn its dropped connection into a timeout.
    expect(server.requests).toHaveLength(3);
  });

  it('cancels a request in flight when the signal aborts', async () => {
    const controller = new AbortController();
    const server = await serve(() => controller.abort(new Error('shutting down')));
    const api = clientFor(server, new FakeTime());

    const error = await caught(
      api.request(
        { method: 'PATCH', path: '/ip_policy_rules/ipr_1', body: {} },
        { signal: controller.signal },
      ),
    );

    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(error).toMatchObject({ code: 'aborted', method: 'PATCH', mayHaveApplied: true });
    expect(server.requests).toHaveLength(1);
  });

  it('cancels a backoff wait when the signal aborts', async () => {
    const controller = new AbortController();
    const server = await serve((_request, response) => {
      sendServiceError(response, 503, 'service_unavailable', 'busy');
      setTimeout(() => controller.abort(), 20);
    });
    const time = new FakeTime();
    const api = createApiClient({
      baseUrl: server.url,
      apiKey: API_KEY,
      budget: new RequestBudget({ clock: time.clock, sleep: time.sleep }),
      sleep: sleepUntilAborted,
    });

    const error = await caught(api.request({ method: 'GET', path: '/x' }, { signal: controller.signal }));

    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(server.requests).toHaveLength(1);
  });

  it('cancels a wait for the budget when the signal aborts', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, rule));
    let now = 0;
    const api = createApiClient({
      baseUrl: server.url,
      apiKey: API_KEY,
      budget: new RequestBudget({
        requests: 1,
        windowMs: 60_000,
        clock: () => now,
        sleep: sleepUntilAborted,
      }),
    });
    await api.request({ method: 'GET', path: '/x' });
    now = 1000;

    const error = await caught(
      api.request({ method: 'GET', path: '/x' }, { signal: AbortSignal.timeout(50) }),
    );

    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(server.requests).toHaveLength(1);
  });

  it('treats a DELETE answering 404 after an unknown outcome as done', async () => {
    const server = await serve(
      script(
        (_request, response) => sendServiceError(response, 503, 'service_unavailable', 'busy'),
        (_request, response) => sendServiceError(response, 404, 'not_found', 'gone'),
      ),
    );
    const api = clientFor(server, new FakeTime());

    const result = await api.request({ method: 'DELETE', path: '/ip_policy_rules/ipr_1' });

    expect(result).toEqual({ status: 204, body: undefined });
    expect(server.requests).toHaveLength(2);
  });

  it('fails a DELETE answering 404 on its first attempt', async () => {
    const server = await serve((_request, response) => sendServiceError(response, 404, 'not_found', 'gone'));
    const api = clientFor(server, new FakeTime());

    const error = await caught(api.request({ method: 'DELETE', path: '/ip_policy_rules/ipr_1' }));

    expect(error).toMatchObject({ status: 404, errorCode: 'not_found' });
  });

  it('reports every attempt to onRequest', async () => {
    const server = await serve(
      script(
        (_request, response) => sendServiceError(response, 503, 'service_unavailable', 'busy'),
        (_request, response) => sendJson(response, 200, rule),
      ),
    );
    const events: RequestEvent[] = [];
    const api = clientFor(server, new FakeTime(), { onRequest: (event) => events.push(event) });

    await api.request({ method: 'GET', path: '/ip_policy_rules/ipr_1' }, { kind: 'ip_policy_rules' });

    expect(events).toEqual([
      {
        method: 'GET',
        path: '/ip_policy_rules/ipr_1',
        kind: 'ip_policy_rules',
        status: 503,
        errorCode: 'service_unavailable',
        durationMs: 0,
        attempt: 1,
      },
      {
        method: 'GET',
        path: '/ip_policy_rules/ipr_1',
        kind: 'ip_policy_rules',
        status: 200,
        errorCode: undefined,
        durationMs: 0,
        attempt: 2,
      },
    ]);
  });
});

describe('createApiClient: the key stays secret', () => {
  it('never puts the key in an error message, error field or log line, even when the server echoes it', async () => {
    const server = await serve(
      script(
        (request, response) =>
          sendServiceError(response, 401, 'unauthorized', `bad key ${request.headers.authorization}`, {
            header: request.headers.authorization,
          }),
        (_request, response) => dropConnection(response),
        (request, response) =>
          sendJson(response, 200, {
            ip_policy_rules: [],
            next_page_uri: `http://evil.example/?key=${request.headers.authorization}`,
          }),
      ),
    );
    const lines: string[] = [];
    const logger = pino(
      { level: 'debug' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      }),
    );
    const api = clientFor(server, new FakeTime(), { logger, retry: { maxAttempts: 1 } });
    const errors: unknown[] = [];

    errors.push(await caught(api.request({ method: 'GET', path: '/a' })));
    errors.push(await caught(api.request({ method: 'POST', path: '/b', body: {} })));
    errors.push(
      await caught(
        (async () => {
          for await (const _page of api.paginate('/ip_policy_rules', 'ip_policy_rules')) {
            // read every page
          }
        })(),
      ),
    );

    expect(errors.map((error) => (error as Error).constructor.name)).toEqual([
      'ApiError',
      'OutcomeUnknownError',
      'PaginationError',
    ]);
    expect((errors[0] as ApiError).msg).toBe('bad key Bearer [REDACTED]');
    for (const error of errors) {
      const text = `${(error as Error).message} ${JSON.stringify(error)} ${String((error as Error).cause)}`;
      expect(text).not.toContain(API_KEY);
    }
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toContain(API_KEY);
  });
});
