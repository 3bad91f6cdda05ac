import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { RequestAbortedError } from '../../src/api/request-aborted-error.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';

const POLICY = 'ipp_SharedSignalPolicy000000001';

describe('many requests sharing one caller signal', () => {
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it('listen to a signal of their own, so the shared one never holds a listener', async () => {
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY }] } });
    const api = createApiClient({
      baseUrl: emulator.url,
      apiKey: emulator.apiKey,
      budget: new RequestBudget({ requests: 1_000, windowMs: 60_000 }),
    });
    const shared = new AbortController();

    const requests = Array.from({ length: 50 }, () =>
      api.request({ method: 'GET', path: `/ip_policies/${POLICY}` }, { signal: shared.signal }),
    );
    const listenersWhileWaiting = getEventListeners(shared.signal, 'abort').length;
    const responses = await Promise.all(requests);

    expect(listenersWhileWaiting).toBe(0);
    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(200));
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });

  it('are all stopped by an abort of the shared signal', async () => {
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY }] }, latencyMs: 1_000 });
    const api = createApiClient({
      baseUrl: emulator.url,
      apiKey: emulator.apiKey,
      budget: new RequestBudget({ requests: 1_000, windowMs: 60_000 }),
    });
    const shared = new AbortController();

    const requests = Array.from({ length: 20 }, () =>
      api.request({ method: 'GET', path: `/ip_policies/${POLICY}` }, { signal: shared.signal }).then(
        () => 'answered',
        (error: unknown) => error,
      ),
    );
    shared.abort(new Error('stopped by the test'));
    const outcomes = await Promise.all(requests);

    for (const outcome of outcomes) expect(outcome).toBeInstanceOf(RequestAbortedError);
  });
});
