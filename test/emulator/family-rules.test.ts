import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorOptions } from '../../src/emulator/server.js';
import { type EmulatorHandle, openEmulator } from './emulator-client.js';

/**
 * The rows of docs/emulator.md's tables beyond the catalogue that the HTTP
 * answer shows (the catalogue's own rows are test/emulator/family-codes/),
 * and the variants of what the family does not document.
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

describe('the family rules beyond the catalogue', () => {
  let words: EmulatorHandle;

  beforeAll(async () => {
    words = await open();
  });
  afterAll(async () => {
    await words.emulator.close();
  });

  it('takes a domain on port 443, a wildcard domain too, on create and on PATCH', async () => {
    const created = await words.call('POST', '/edges/https', { hostports: ['ok.example.com:443'] });
    const patched = await words.call('PATCH', `/edges/https/${created.body.id}`, {
      hostports: ['*.ok.example.com:443'],
    });

    expect(created.status).toBe(201);
    expect([patched.status, patched.body.hostports]).toEqual([200, ['*.ok.example.com:443']]);
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

  it('allows in a preflight the headers a browser asks for, when they are a list of names', async () => {
    const url = `${words.emulator.url}/ip_policy_rules`;
    const preflight = (asked?: string) =>
      fetch(url, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example.com',
          'access-control-request-method': 'POST',
          ...(asked === undefined ? {} : { 'access-control-request-headers': asked }),
        },
      });

    const asked = await preflight('authorization, content-type, service-version, x-request-id');
    const plain = await preflight();
    const hostile = await preflight('x-a, <script>alert(1)</script>');

    expect(asked.headers.get('access-control-allow-headers')).toBe(
      'authorization, content-type, service-version, x-request-id',
    );
    expect(plain.headers.get('access-control-allow-headers')).toBe(
      'Authorization, Content-Type, Service-Version',
    );
    expect(hostile.headers.get('access-control-allow-headers')).toBe(
      'Authorization, Content-Type, Service-Version',
    );
  });

  it('lists no routes, as the family has no route list: 405, and the routes come with their edge', async () => {
    const edge = (await words.call('POST', '/edges/https', { hostports: ['list.example.com:443'] })).body.id;
    await words.call('POST', `/edges/https/${edge}/routes`, { match_type: 'path_prefix', match: '/a' });

    const listed = await words.call('GET', `/edges/https/${edge}/routes`);
    const read = await words.call('GET', `/edges/https/${edge}`);

    expect([listed.status, listed.headers.get('allow')]).toEqual([405, 'POST']);
    expect(read.body.routes.map((route: { match: string }) => route.match)).toEqual(['/a']);
  });

  it('counts only enabled authenticating modules: a disabled one takes no route of the edge', async () => {
    const edge = (await words.call('POST', '/edges/https', { hostports: ['auth.example.com:443'] })).body.id;
    const oidc = { issuer: 'https://id.example.com', client_id: 'a', client_secret: 's' };
    const first = (
      await words.call('POST', `/edges/https/${edge}/routes`, { match_type: 'path_prefix', match: '/a' })
    ).body.id;
    const second = (
      await words.call('POST', `/edges/https/${edge}/routes`, {
        match_type: 'path_prefix',
        match: '/b',
        saml: { enabled: false, idp_metadata: '<x/>' },
      })
    ).body.id;

    const disabled = await words.call('PUT', `/edges/https/${edge}/routes/${first}/oidc`, {
      ...oidc,
      enabled: false,
    });
    const beside = await words.call('PUT', `/edges/https/${edge}/routes/${second}/oidc`, oidc);
    const enabled = await words.call('PUT', `/edges/https/${edge}/routes/${first}/oidc`, oidc);

    expect(disabled.status).toBe(200);
    expect(beside.status).toBe(200);
    expect([enabled.status, enabled.body.error_code, enabled.body.details.field]).toEqual([
      400,
      'conflict',
      'oidc',
    ]);
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

  it.each([
    ['coded', 'words', 'not_found'],
    ['coded', 'family', undefined],
    ['bare', 'words', undefined],
  ] as const)(
    'not-found-body=%s, %s codes: a missing CA answers 404 with error_code %s',
    async (variant, style, code) => {
      const h = await open({ variants: { 'not-found-body': variant }, errorCodes: style });
      try {
        const missing = await h.call('GET', '/certificate_authorities/ca_Missing0000000000000000000001');
        const missingRule = await h.call('GET', '/ip_policy_rules/ipr_Missing000000000000000000001');

        expect([missing.status, missing.body.error_code, missing.body.msg]).toEqual([
          404,
          code,
          expect.any(String),
        ]);
        expect(missingRule.body.error_code).toBe(
          variant === 'bare' ? undefined : style === 'family' ? 'ERR_NGROK_1404' : 'not_found',
        );
      } finally {
        await h.emulator.close();
      }
    },
  );

  it.each([
    ['absent', undefined],
    ['empty', ''],
  ] as const)(
    'unset-description=%s: a rule without one answers description %j',
    async (variant, description) => {
      const h = await open({ variants: { 'unset-description': variant } });
      try {
        const created = await h.call('POST', '/ip_policy_rules', {
          cidr: '10.40.0.0/16',
          ip_policy_id: POLICY,
          action: 'deny',
        });
        const listed = await h.call('GET', '/ip_policy_rules');

        expect(created.body.description).toBe(description);
        expect(Object.hasOwn(created.body, 'description')).toBe(description !== undefined);
        expect(listed.body.ip_policy_rules[0].description).toBe(description);
      } finally {
        await h.emulator.close();
      }
    },
  );

  it.each([
    ['refused', 400, undefined],
    ['default', 201, 'us'],
  ] as const)('empty-region=%s: region "" answers %i', async (variant, status, region) => {
    const h = await open({ variants: { 'empty-region': variant }, errorCodes: 'family' });
    try {
      const created = await h.call('POST', '/reserved_addrs', { region: '' });

      expect([created.status, created.body.region ?? created.body.error_code]).toEqual([
        status,
        region ?? 'ERR_NGROK_500',
      ]);
    } finally {
      await h.emulator.close();
    }
  });

  it.each(['held', 'any'] as const)('before-id=%s: a cursor the list never held', async (variant) => {
    const h = await open({ variants: { 'before-id': variant } });
    try {
      const made: string[] = [];
      for (let i = 0; i < 3; i += 1)
        made.push((await h.call('POST', '/reserved_addrs', { description: `${i}` })).body.id);
      const deleted = made[2] as string;
      await h.call('DELETE', `/reserved_addrs/${deleted}`);
      // An ID sorting after every address made: what any would read as "before the newest".
      const never = 'ra_zzzzzzzz000000000000000000000';

      const afterDeleted = await h.call('GET', `/reserved_addrs?before_id=${deleted}`);
      const afterNever = await h.call('GET', `/reserved_addrs?before_id=${never}`);
      const notAnId = await h.call('GET', '/reserved_addrs?before_id=ipr_Other0000000000000000000001');

      expect(afterDeleted.body.reserved_addrs.map((addr: { id: string }) => addr.id)).toEqual([
        made[1],
        made[0],
      ]);
      if (variant === 'held')
        expect([afterNever.status, afterNever.body.details.field]).toEqual([400, 'before_id']);
      else
        expect(afterNever.body.reserved_addrs.map((addr: { id: string }) => addr.id)).toEqual([
          made[1],
          made[0],
        ]);
      expect(notAnId.status).toBe(400);
    } finally {
      await h.emulator.close();
    }
  });

  it.each([
    [
      'route-match',
      'path',
      'any',
      'POST',
      'routes',
      { match_type: 'path_prefix', match: 'app.example.com/x' },
    ],
    [
      'openid-cookie-prefix',
      'checked',
      'any',
      'PUT',
      'oidc',
      { issuer: 'https://id.example.com', client_id: 'a', client_secret: 's', cookie_prefix: 'my-app' },
    ],
    ['tls-min-version', '1.2-up', 'any', 'PATCH', 'edge', { tls_termination: { min_version: '1.1' } }],
  ] as const)('%s: %s refuses what %s takes', async (name, refusing, taking, method, target, body) => {
    const answers: number[] = [];
    for (const value of [refusing, taking]) {
      const h = await open({ variants: { [name]: value } });
      try {
        const edge = (await h.call('POST', '/edges/https', { hostports: ['v.example.com:443'] })).body.id;
        const route = (
          await h.call('POST', `/edges/https/${edge}/routes`, { match_type: 'path_prefix', match: '/r' })
        ).body.id;
        const path =
          target === 'routes'
            ? `/edges/https/${edge}/routes`
            : target === 'oidc'
              ? `/edges/https/${edge}/routes/${route}/oidc`
              : `/edges/https/${edge}`;
        answers.push((await h.call(method, path, body)).status);
      } finally {
        await h.emulator.close();
      }
    }

    expect(answers[0]).toBe(400);
    expect([200, 201]).toContain(answers[1]);
  });

  it('refuses an unknown variant or value at start, naming it', async () => {
    await expect(openEmulator({ variants: { 'unset-module': 'maybe' as 'null-ok' } })).rejects.toThrow(
      /variant unset-module must be not-found or null-ok \(found "maybe"\)/,
    );
  });
});
