import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import { KINDS } from '../../src/kinds/registry.js';
import type { CacheSurprise } from '../../src/watch/cache-writing-api.js';
import { systemClock } from '../../src/watch/daemon-clock.js';
import { LiveCacheWriter } from '../../src/watch/live-cache-writer.js';
import { connectEmulator, type EmulatorConnection } from '../kinds/emulator-connection.js';
import { readObjects } from '../support/read-objects.js';

const POLICY = 'ipp_CacheWriterTestPolicy000001';
const RULES_ONLY = KINDS.filter((kind) => kind.name === 'ip_policy_rules');

function writerOf(connection: EmulatorConnection, kinds = KINDS): LiveCacheWriter {
  return new LiveCacheWriter({
    kinds,
    api: connection.api,
    clock: systemClock(),
    logger: pino({ level: 'silent' }),
  });
}

const ruleBody = (cidr: string, name: string) => ({
  ip_policy_id: POLICY,
  cidr,
  action: 'deny',
  metadata: encodeMetadata(undefined, { owner: 'team', name }),
});

describe('LiveCacheWriter (the daemon cache’s one writer, against the emulator over HTTP)', () => {
  let connection: EmulatorConnection | undefined;
  afterEach(async () => {
    await connection?.close();
    connection = undefined;
  });

  it('reads and holds the kinds of the registry it is given, and no other', async () => {
    connection = await connectEmulator({
      seed: {
        ip_policies: [{ id: POLICY }],
        ip_policy_rules: [{ ip_policy_id: POLICY, cidr: '192.0.2.0/24', action: 'deny' }],
        reserved_addrs: [{ description: 'not in this registry', region: 'eu' }],
      },
    });
    const writer = writerOf(connection, RULES_ONLY);
    await connection.resetStats();

    const toRead = writer.view.kindsToRead();
    await writer.readInFull(toRead, new Map(), new AbortController().signal);
    const snapshot = writer.view.snapshot();
    const { byRoute } = await connection.stats();

    expect(toRead).toEqual(['ip_policy_rules']);
    expect(Object.keys(snapshot.objects)).toEqual(['ip_policy_rules']);
    expect(readObjects(snapshot, 'ip_policy_rules').map((rule) => rule.spec.cidr)).toEqual(['192.0.2.0/24']);
    expect(snapshot.complete).toBe(true);
    expect(Object.keys(byRoute)).toEqual(['GET /ip_policy_rules']);
  });

  it('takes in each write’s answer: a POST’s and a PATCH’s object, a DELETE’s absence; a refused write drops the kind', async () => {
    connection = await connectEmulator({ seed: { ip_policies: [{ id: POLICY }] } });
    const writer = writerOf(connection);
    await writer.readInFull(writer.view.kindsToRead(), new Map(), new AbortController().signal);
    const surprises: CacheSurprise[] = [];
    const api = writer.writesApi((surprise) => surprises.push(surprise));
    const options = { kind: 'ip_policy_rules' };

    const created = await api.request<{ id: string }>(
      { method: 'POST', path: '/ip_policy_rules', body: ruleBody('192.0.2.0/24', 'a') },
      options,
    );
    const id = created.body.id;
    const afterPost = writer.view.get('ip_policy_rules', id)?.spec.cidr;
    await api.request(
      { method: 'PATCH', path: `/ip_policy_rules/${id}`, body: { cidr: '198.51.100.0/24' } },
      options,
    );
    const afterPatch = writer.view.get('ip_policy_rules', id)?.spec.cidr;
    await api.request({ method: 'DELETE', path: `/ip_policy_rules/${id}` }, options);
    const afterDelete = writer.view.knows('ip_policy_rules', id);
    const taken = await api.request<{ id: string }>(
      { method: 'POST', path: '/ip_policy_rules', body: ruleBody('203.0.113.0/24', 'b') },
      options,
    );
    const refused = await api
      .request({ method: 'POST', path: '/ip_policy_rules', body: ruleBody('203.0.113.0/24', 'c') }, options)
      .catch((error: unknown) => error);

    expect(afterPost).toBe('192.0.2.0/24');
    expect(afterPatch).toBe('198.51.100.0/24');
    expect(afterDelete).toBe(false);
    expect(taken.body.id).toMatch(/^ipr_/);
    expect(refused).toBeInstanceOf(ApiError);
    expect(surprises).toEqual([
      {
        kind: 'ip_policy_rules',
        method: 'POST',
        path: '/ip_policy_rules',
        status: (refused as ApiError).status,
      },
    ]);
    expect(writer.view.kindsToRead()).toEqual(['ip_policy_rules']);
    expect(writer.view.snapshot().complete).toBe(false);
  });

  it('is the only module of the daemon that holds the cache as more than its view', async () => {
    const dir = join(import.meta.dirname, '..', '..', 'src', 'watch');
    const files = (await readdir(dir)).filter((file) => file.endsWith('.ts'));

    const holders: string[] = [];
    for (const file of files) {
      const text = await readFile(join(dir, file), 'utf8');
      if (/import \{[^}]*\bLiveStateCache\b[^}]*\} from '\.\/live-state-cache\.js'/.test(text))
        holders.push(file);
    }

    expect(holders).toEqual(['live-cache-writer.ts']);
  });
});
