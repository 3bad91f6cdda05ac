import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorOptions } from '../../src/emulator/server.js';
import { type EmulatorHandle, openEmulator } from './emulator-client.js';

/**
 * The rows of docs/emulator.md's family table that the HTTP answer shows:
 * what the service family refuses where the spec is silent, each with the
 * family's number (in `ERR_NGROK_n` form when the emulator speaks it) and
 * the family's kind of message.
 */
const POLICY = 'ipp_FamilyRulesPolicy0000000001';
const EC = 'ec_FamilyRulesConfig0000000001';
const TCP = 'edgtcp_FamilyRulesTcp0000000000001';
const SEED = {
  ip_policies: [{ id: POLICY }],
  endpoint_configurations: [{ id: EC }],
  tcp_edges: [{ id: TCP }],
};

async function open(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  return openEmulator({ seed: SEED, ...options });
}

interface Row {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly status: number;
  readonly word: string;
  /** The family's number, where a family source names it. */
  readonly family?: number;
  readonly message: RegExp;
}

const ROWS: readonly Row[] = [
  {
    name: 'an HTTPS hostport that is not host:port',
    method: 'POST',
    path: '/edges/https',
    body: { hostports: ['example.org'] },
    status: 400,
    word: 'invalid_field',
    family: 7116,
    message: /^The hostport 'example.org' is invalid\./,
  },
  {
    name: 'an HTTPS hostport whose host is no DNS name',
    method: 'POST',
    path: '/edges/https',
    body: { hostports: ['exa_mple.org:443'] },
    status: 400,
    word: 'invalid_field',
    family: 7116,
    message: /is invalid/,
  },
  {
    name: 'an HTTPS hostport on an IPv4 address',
    method: 'POST',
    path: '/edges/https',
    body: { hostports: ['1.2.3.4:443'] },
    status: 400,
    word: 'invalid_field',
    family: 7117,
    message: /^The domain '1\.2\.3\.4:443' is not reserved\./,
  },
  {
    name: 'an HTTPS hostport on an IPv6 address',
    method: 'POST',
    path: '/edges/https',
    body: { hostports: ['[2001:db8::1]:443'] },
    status: 400,
    word: 'invalid_field',
    family: 7117,
    message: /is not reserved/,
  },
  {
    name: 'an HTTPS hostport on port 80',
    method: 'POST',
    path: '/edges/https',
    body: { hostports: ['example.org:80'] },
    status: 400,
    word: 'invalid_field',
    family: 7118,
    message: /^The hostport 'example.org:80' is invalid\. HTTPS edges serve port 443 only\./,
  },
  {
    name: 'a path ID of another kind',
    method: 'GET',
    path: `/edges/tcp/${POLICY}/ip_restriction`,
    status: 400,
    word: 'invalid_id',
    family: 227,
    message: new RegExp(`^The ID ${POLICY} is invalid\\. Expected an ID with a prefix of edgtcp_$`),
  },
  {
    name: 'a malformed path ID',
    method: 'GET',
    path: '/reserved_addrs/ra_not-an-id',
    status: 400,
    word: 'invalid_id',
    family: 227,
    message: /^The ID ra_not-an-id is invalid\. Expected an ID with a prefix of ra_$/,
  },
  {
    name: 'a body reference of another kind',
    method: 'PATCH',
    path: '/reserved_addrs/{addr}',
    body: { endpoint_configuration_id: POLICY },
    status: 400,
    word: 'invalid_id',
    family: 227,
    message: /Expected an ID with a prefix of ec_/,
  },
  {
    name: 'a reserved address description of 256 bytes',
    method: 'POST',
    path: '/reserved_addrs',
    body: { description: 'd'.repeat(256) },
    status: 400,
    word: 'invalid_field',
    family: 504,
    message: /^description: A description is limited to 255 characters/,
  },
  {
    name: 'a reserved address description of 128 two-byte characters',
    method: 'PATCH',
    path: '/reserved_addrs/{addr}',
    body: { description: 'é'.repeat(128) },
    status: 400,
    word: 'invalid_field',
    family: 504,
    message: /limited to 255 characters/,
  },
  {
    name: 'an HTTPS edge PATCH that sets a module to null',
    method: 'PATCH',
    path: '/edges/https/{edge}',
    body: { mutual_tls: null },
    status: 400,
    word: 'invalid_field',
    message: /use the delete module API/,
  },
  {
    name: 'a PATCH whose only field is a null endpoint configuration',
    method: 'PATCH',
    path: '/reserved_addrs/{addr}',
    body: { endpoint_configuration_id: null },
    status: 400,
    word: 'invalid_body',
    message: /endpoint_configuration_id null is not sent/,
  },
  {
    name: 'a filter on a list',
    method: 'GET',
    path: '/reserved_addrs?filter=obj.region%3D%3D%22eu%22',
    status: 400,
    word: 'invalid_query',
    message: /filter/,
  },
];

/** Creates what the rows' paths name and fills them in. */
async function pathsOf(h: EmulatorHandle): Promise<(path: string) => string> {
  const addr = (await h.call('POST', '/reserved_addrs', { description: 'rules' })).body.id as string;
  const edge = (await h.call('POST', '/edges/https', { hostports: ['rules.example.com:443'] })).body
    .id as string;
  return (path) => path.replace('{addr}', addr).replace('{edge}', edge);
}

describe('the family rules the spec leaves open', () => {
  let words: EmulatorHandle;
  let family: EmulatorHandle;
  let wordPaths: (path: string) => string;
  let familyPaths: (path: string) => string;

  beforeAll(async () => {
    words = await open();
    family = await open({ errorCodes: 'family' });
    wordPaths = await pathsOf(words);
    familyPaths = await pathsOf(family);
  });
  afterAll(async () => {
    await words.emulator.close();
    await family.emulator.close();
  });

  it.each(ROWS)('$name: $status, the family message, its code in both styles', async (row) => {
    const inWords = await words.call(row.method, wordPaths(row.path), row.body);
    const inFamily = await family.call(row.method, familyPaths(row.path), row.body);

    expect([inWords.status, inWords.body.error_code]).toEqual([row.status, row.word]);
    expect(inWords.body.msg).toMatch(row.message);
    expect([inFamily.status, inFamily.body.error_code]).toEqual([
      row.status,
      expect.stringMatching(/^ERR_NGROK_\d+$/),
    ]);
    if (row.family !== undefined) expect(inFamily.body.error_code).toBe(`ERR_NGROK_${row.family}`);
    expect(inFamily.body.msg).toMatch(row.message);
  });

  it('takes a domain on port 443, a wildcard domain too, on create and on PATCH', async () => {
    const created = await words.call('POST', '/edges/https', { hostports: ['ok.example.com:443'] });
    const patched = await words.call('PATCH', `/edges/https/${created.body.id}`, {
      hostports: ['*.ok.example.com:443'],
    });

    expect(created.status).toBe(201);
    expect([patched.status, patched.body.hostports]).toEqual([200, ['*.ok.example.com:443']]);
  });

  it('answers a hostport another edge serves with the family number 7132', async () => {
    await family.call('POST', '/edges/https', { hostports: ['taken.example.com:443'] });

    const second = await family.call('POST', '/edges/https', { hostports: ['taken.example.com:443'] });

    expect([second.status, second.body.error_code]).toEqual([400, 'ERR_NGROK_7132']);
  });

  it('detaches an endpoint configuration only by its DELETE, never by a PATCH with null', async () => {
    const addr = (await words.call('POST', '/reserved_addrs', { description: 'a' })).body.id as string;
    await words.call('PATCH', `/reserved_addrs/${addr}`, { endpoint_configuration_id: EC });

    const nullWithMore = await words.call('PATCH', `/reserved_addrs/${addr}`, {
      endpoint_configuration_id: null,
      description: 'b',
    });
    const emptyString = await words.call('PATCH', `/reserved_addrs/${addr}`, {
      endpoint_configuration_id: '',
      description: 'c',
    });
    const detach = await words.call('DELETE', `/reserved_addrs/${addr}/endpoint_configuration`);
    const again = await words.call('DELETE', `/reserved_addrs/${addr}/endpoint_configuration`);
    const read = await words.call('GET', `/reserved_addrs/${addr}`);

    expect([nullWithMore.status, nullWithMore.body.endpoint_configuration?.id]).toEqual([200, EC]);
    expect([emptyString.status, emptyString.body.endpoint_configuration?.id]).toEqual([200, EC]);
    expect(detach.status).toBe(204);
    expect([again.status, again.body?.error_code]).toEqual([404, 'module_not_set']);
    expect([read.body.description, read.body.endpoint_configuration]).toEqual(['c', null]);
  });

  it('echoes a well-formed Origin with credentials, and sends no origin without one or for a bad one', async () => {
    const url = `${words.emulator.url}/reserved_addrs`;
    const headers = { authorization: `Bearer ${words.emulator.apiKey}`, 'service-version': '2' };

    const withOrigin = await fetch(url, { headers: { ...headers, origin: 'http://localhost:5173' } });
    const without = await fetch(url, { headers });
    const hostile = await fetch(url, {
      headers: { ...headers, origin: 'https://a.example, https://b.example' },
    });

    expect(withOrigin.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(withOrigin.headers.get('access-control-allow-credentials')).toBe('true');
    expect(without.headers.get('access-control-allow-origin')).toBeNull();
    expect(without.headers.get('access-control-allow-credentials')).toBeNull();
    expect(hostile.headers.get('access-control-allow-origin')).toBeNull();
    expect(withOrigin.headers.get('vary')).toContain('Origin');
  });
});

describe('the variants of what the family does not document', () => {
  it.each([
    ['not-found', 404, 404],
    ['null-ok', 200, 204],
  ] as const)(
    'unset-module=%s: GET of an unset module answers %i, its DELETE %i',
    async (variant, get, del) => {
      const h = await open({ variants: { 'unset-module': variant } });
      try {
        const read = await h.call('GET', `/edges/tcp/${TCP}/ip_restriction`);
        const removed = await h.call('DELETE', `/edges/tcp/${TCP}/ip_restriction`);
        const missingEdge = await h.call(
          'GET',
          '/edges/tcp/edgtcp_Missing0000000000000000000001/ip_restriction',
        );

        expect(read.status).toBe(get);
        if (get === 200) expect(read.body).toBeNull();
        expect(removed.status).toBe(del);
        expect(missingEdge.status).toBe(404);
      } finally {
        await h.emulator.close();
      }
    },
  );

  it.each([
    ['clears', []],
    ['ignored', ['keep.example.com:443']],
  ] as const)('empty-list=%s: a PATCH of hostports: [] leaves %j', async (variant, left) => {
    const h = await open({ variants: { 'empty-list': variant } });
    try {
      const edge = await h.call('POST', '/edges/https', { hostports: ['keep.example.com:443'] });

      const patched = await h.call('PATCH', `/edges/https/${edge.body.id}`, { hostports: [] });

      expect([patched.status, patched.body.hostports]).toEqual([200, left]);
    } finally {
      await h.emulator.close();
    }
  });

  it('refuses an unknown variant or value at start, naming it', async () => {
    await expect(openEmulator({ variants: { 'unset-module': 'maybe' as 'null-ok' } })).rejects.toThrow(
      /variant unset-module must be not-found or null-ok \(found "maybe"\)/,
    );
  });
});
