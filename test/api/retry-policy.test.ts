import { describe, expect, it } from 'vitest';
import type { HttpMethod } from '../../src/api/edge-api.js';
import type { NetworkFailure } from '../../src/api/network-error.js';
import { type AttemptFailure, createRetryPolicy, parseRetryAfter } from '../../src/api/retry-policy.js';
import { seededRandom } from './fake-time.js';

const response = (status: number, retryAfter?: string): AttemptFailure => ({
  type: 'response',
  status,
  ...(retryAfter === undefined ? {} : { retryAfter }),
});
const network = (failure: NetworkFailure): AttemptFailure => ({ type: 'network', failure });

describe('createRetryPolicy', () => {
  it.each([400, 401, 403, 404, 405, 409, 413])('does not retry a %i', (status) => {
    const policy = createRetryPolicy({ random: () => 0.5 });

    const decision = policy.decide({ method: 'GET', attempt: 1, failure: response(status), waitedMs: 0 });

    expect(decision).toEqual({ retry: false, reason: 'not_retryable' });
  });

  it.each<[HttpMethod, AttemptFailure]>([
    ['GET', response(429)],
    ['GET', response(500)],
    ['GET', response(502)],
    ['GET', response(503)],
    ['GET', response(504)],
    ['GET', network('connection_reset')],
    ['GET', network('socket_closed')],
    ['GET', network('timeout')],
    ['PUT', response(503)],
    ['PUT', network('timeout')],
    ['PATCH', response(500)],
    ['PATCH', network('connection_reset')],
    ['DELETE', response(502)],
    ['DELETE', network('socket_closed')],
    ['POST', response(429)],
    ['POST', network('connection_refused')],
    ['POST', network('dns')],
    ['POST', network('connect_timeout')],
  ])('retries %s after %o', (method, failure) => {
    const policy = createRetryPolicy({ random: () => 0.5 });

    const decision = policy.decide({ method, attempt: 1, failure, waitedMs: 0 });

    expect(decision.retry).toBe(true);
  });

  it.each<[HttpMethod, NetworkFailure]>([
    ['GET', 'certificate_rejected'],
    ['POST', 'certificate_rejected'],
    ['GET', 'plain_http'],
    ['POST', 'plain_http'],
  ])('does not retry a %s whose TLS handshake failed on what the server is (%s)', (method, failure) => {
    const policy = createRetryPolicy({ random: () => 0.5 });

    const decision = policy.decide({ method, attempt: 1, failure: network(failure), waitedMs: 0 });

    expect(decision).toEqual({ retry: false, reason: 'not_retryable' });
  });

  it.each<AttemptFailure>([
    response(500),
    response(502),
    response(503),
    response(504),
    network('connection_reset'),
    network('socket_closed'),
    network('timeout'),
    network('other'),
  ])('does not resend a POST that may have been applied (%o)', (failure) => {
    const policy = createRetryPolicy({ random: () => 0.5 });

    const decision = policy.decide({ method: 'POST', attempt: 1, failure, waitedMs: 0 });

    expect(decision).toEqual({ retry: false, reason: 'write_may_have_applied' });
  });

  it('waits the Retry-After seconds of a 429', () => {
    const policy = createRetryPolicy({ random: () => 0.5 });

    const decision = policy.decide({ method: 'GET', attempt: 1, failure: response(429, '7'), waitedMs: 0 });

    expect(decision).toEqual({ retry: true, delayMs: 7000, source: 'retry-after' });
  });

  it('waits until the HTTP date of a Retry-After', () => {
    const now = Date.parse('2026-03-01T10:00:00Z');
    const policy = createRetryPolicy({ clock: () => now, random: () => 0.5 });

    const decision = policy.decide({
      method: 'GET',
      attempt: 1,
      failure: response(429, 'Sun, 01 Mar 2026 10:00:30 GMT'),
      waitedMs: 0,
    });

    expect(decision).toEqual({ retry: true, delayMs: 30_000, source: 'retry-after' });
  });

  it('waits at most maxRetryAfterMs, saying what the service asked for', () => {
    const policy = createRetryPolicy({ maxRetryAfterMs: 60_000, random: () => 0.5 });

    const asked = (retryAfter: string) =>
      policy.decide({ method: 'GET', attempt: 1, failure: response(429, retryAfter), waitedMs: 0 });

    expect(asked('60')).toEqual({ retry: true, delayMs: 60_000, source: 'retry-after' });
    expect(asked('1000000000000')).toEqual({
      retry: true,
      delayMs: 60_000,
      source: 'retry-after',
      cappedFromMs: 1e15,
    });
  });

  it('counts each capped wait as one retry: a service that keeps answering 429 meets the attempt limit', () => {
    const policy = createRetryPolicy({ maxRetryAfterMs: 100, maxAttempts: 3, random: () => 0.5 });
    const decisions = [1, 2, 3].map((attempt) =>
      policy.decide({ method: 'POST', attempt, failure: response(429, '1000000000000'), waitedMs: 0 }),
    );

    expect(decisions.map((decision) => decision.retry)).toEqual([true, true, false]);
    expect(decisions[2]).toEqual({ retry: false, reason: 'attempts_exhausted' });
  });

  it('backs off when a 429 has no Retry-After', () => {
    const policy = createRetryPolicy({ baseDelayMs: 1000, random: () => 0.5 });

    const decision = policy.decide({ method: 'POST', attempt: 1, failure: response(429), waitedMs: 0 });

    expect(decision).toEqual({ retry: true, delayMs: 500, source: 'backoff' });
  });

  it('draws full-jitter backoff in [0, min(max, base·2^(attempt-1)))', () => {
    const random = seededRandom(42);
    const policy = createRetryPolicy({
      baseDelayMs: 100,
      maxDelayMs: 1000,
      maxAttempts: 10,
      maxTotalWaitMs: 1e9,
      random,
    });

    for (let attempt = 1; attempt <= 8; attempt += 1) {
      const ceiling = Math.min(1000, 100 * 2 ** (attempt - 1));
      const delays = Array.from({ length: 200 }, () => {
        const decision = policy.decide({ method: 'GET', attempt, failure: response(503), waitedMs: 0 });
        if (!decision.retry) throw new Error('expected a retry');
        return decision.delayMs;
      });

      expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...delays)).toBeLessThan(ceiling);
      // Full jitter spans the whole range, not a band near the ceiling.
      expect(Math.min(...delays)).toBeLessThan(ceiling * 0.1);
      expect(Math.max(...delays)).toBeGreaterThan(ceiling * 0.9);
    }
  });

  it('stops after maxAttempts', () => {
    const policy = createRetryPolicy({ maxAttempts: 3, random: () => 0.5 });

    const third = policy.decide({ method: 'GET', attempt: 2, failure: response(503), waitedMs: 0 });
    const fourth = policy.decide({ method: 'GET', attempt: 3, failure: response(503), waitedMs: 0 });

    expect(third.retry).toBe(true);
    expect(fourth).toEqual({ retry: false, reason: 'attempts_exhausted' });
  });

  it('stops when the next wait would exceed the total wait bound', () => {
    const policy = createRetryPolicy({ maxTotalWaitMs: 10_000, random: () => 0.5 });

    const within = policy.decide({ method: 'GET', attempt: 1, failure: response(429, '3'), waitedMs: 7000 });
    const beyond = policy.decide({ method: 'GET', attempt: 1, failure: response(429, '4'), waitedMs: 7000 });

    expect(within).toEqual({ retry: true, delayMs: 3000, source: 'retry-after' });
    expect(beyond).toEqual({ retry: false, reason: 'wait_exhausted' });
  });

  it('refuses nonsensical options with the bad value', () => {
    expect(() => createRetryPolicy({ maxAttempts: 0 })).toThrow(
      /maxAttempts must be a number >= 1 \(found 0\)/,
    );
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-03-01T10:00:00Z');

  it.each<[string | null | undefined, number | undefined]>([
    ['0', 0],
    ['12', 12_000],
    [' 3 ', 3000],
    ['Sun, 01 Mar 2026 10:01:00 GMT', 60_000],
    ['Sun, 01 Mar 2026 09:00:00 GMT', 0],
    ['soon', undefined],
    ['-5', undefined],
    ['1.5', undefined],
    ['', undefined],
    [null, undefined],
    [undefined, undefined],
  ])('reads %o as %o ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
