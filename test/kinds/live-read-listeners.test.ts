import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorSeed } from '../../src/emulator/seed.js';
import { readLiveState } from '../../src/kinds/read-live-state.js';
import { KINDS } from '../../src/kinds/registry.js';
import { readObjects } from '../support/read-objects.js';
import { connectEmulator, type EmulatorConnection } from './emulator-connection.js';

const POLICY = 'ipp_ListenerPolicy0000000000001';
const EDGES = 300;

function tcpId(index: number): string {
  return `edgtcp_ListenerTcp${String(index).padStart(16, '0')}`;
}

function tlsId(index: number): string {
  return `edgtls_ListenerTls${String(index).padStart(16, '0')}`;
}

const LARGE: EmulatorSeed = {
  ip_policies: [{ id: POLICY }],
  ip_policy_rules: Array.from({ length: 1_000 }, (_, i) => ({
    cidr: `10.${Math.floor(i / 256)}.${i % 256}.0/24`,
    ip_policy_id: POLICY,
    action: 'allow',
  })),
  https_edges: Array.from({ length: 150 }, (_, i) => ({ hostports: [`e${i}.example.com:443`] })),
  tcp_edges: Array.from({ length: EDGES }, (_, i) => ({
    id: tcpId(i),
    ip_restriction: { ip_policy_ids: [POLICY] },
  })),
  tls_edges: Array.from({ length: EDGES }, (_, i) => ({
    id: tlsId(i),
    tls_termination: { terminate_at: 'edge', min_version: '1.2' },
  })),
};

describe('reading a large account with one caller signal', () => {
  let conn: EmulatorConnection | undefined;
  const warnings: Error[] = [];
  const onWarning = (warning: Error): void => {
    warnings.push(warning);
  };

  afterEach(async () => {
    process.off('warning', onWarning);
    warnings.length = 0;
    await conn?.close();
    conn = undefined;
  });

  it('adds no listener that outlives the read and emits no MaxListenersExceededWarning', async () => {
    conn = await connectEmulator({ seed: LARGE });
    const caller = new AbortController();
    process.on('warning', onWarning);
    let peakListeners = 0;
    const sampler = setInterval(() => {
      peakListeners = Math.max(peakListeners, getEventListeners(caller.signal, 'abort').length);
    }, 1);

    const state = await readLiveState(conn.api, {
      kinds: KINDS,
      idsByKind: {
        tcp_edges: Array.from({ length: EDGES }, (_, i) => tcpId(i)),
        tls_edges: Array.from({ length: EDGES }, (_, i) => tlsId(i)),
      },
      signal: caller.signal,
    });
    clearInterval(sampler);
    // Process warnings are emitted on a later tick.
    await new Promise((resolve) => setImmediate(resolve));

    expect(readObjects(state, 'ip_policy_rules')).toHaveLength(1_000);
    expect(readObjects(state, 'tcp_edges')).toHaveLength(EDGES);
    expect(readObjects(state, 'tls_edges')).toHaveLength(EDGES);
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(peakListeners).toBeLessThanOrEqual(1);
  });

  it('still stops every request when the caller aborts mid-read', async () => {
    conn = await connectEmulator({ seed: LARGE });
    const caller = new AbortController();

    const read = readLiveState(conn.api, {
      kinds: KINDS,
      idsByKind: { tcp_edges: Array.from({ length: EDGES }, (_, i) => tcpId(i)) },
      signal: caller.signal,
    });
    setTimeout(() => caller.abort(new Error('stopped by the test')), 20);

    await expect(read).rejects.toMatchObject({ code: 'live_read_failed' });
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });
});
