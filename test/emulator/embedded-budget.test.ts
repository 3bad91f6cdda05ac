import { describe, expect, it } from 'vitest';
import { openConnection } from '../../src/cli/connection.js';

/**
 * `--emulator` (the embedded emulator of plan, apply, watch and `npm start`)
 * applies the family's 120 requests per 60 s, as `edgesync emulator` does:
 * a client told it may send more than that meets a 429.
 */
describe('the embedded emulator of --emulator', () => {
  it('answers 429 past 120 requests in a minute', async () => {
    const statuses: (number | undefined)[] = [];
    // The first 429 ends the burst: the rest would wait out its Retry-After.
    const stop = new AbortController();
    const conn = await openConnection(
      { emulator: true, rateLimit: '1000/1s', timeout: '30s' },
      {
        onRequest: (event) => {
          statuses.push(event.status);
          if (event.status === 429) stop.abort();
        },
      },
    );
    try {
      await Promise.allSettled(
        Array.from({ length: 125 }, () =>
          conn.api.request({ method: 'GET', path: '/ip_policy_rules' }, { signal: stop.signal }),
        ),
      );
    } finally {
      await conn.close();
    }

    // An answer racing the abort may go unrecorded: at most 120, never more.
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(120);
    expect(statuses).toContain(429);
  });
});
