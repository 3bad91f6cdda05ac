import { describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../src/api/edge-api.js';
import type { Kind } from '../../src/kinds/kind.js';
import { KINDS, kindByName } from '../../src/kinds/registry.js';

const META = '{"edgesync":{"name":"n","owner":"o"}}';
const pending = { $createdBy: 'create:certificate_authorities.corp' };

describe('request builders', () => {
  it.each<[string, () => ApiRequest, ApiRequest]>([
    [
      'ip rule create',
      () =>
        kindByName('ip_policy_rules').createRequest(
          { cidr: '10.0.0.0/8', ip_policy_id: 'ipp_1', action: 'deny' },
          META,
        ),
      {
        method: 'POST',
        path: '/ip_policy_rules',
        body: { cidr: '10.0.0.0/8', ip_policy_id: 'ipp_1', action: 'deny', metadata: META },
      },
    ],
    [
      'ip rule update sends only updatable changed fields, a removed description as ""',
      () =>
        kindByName('ip_policy_rules').updateRequest('ipr_1', {
          cidr: '10.0.0.0/16',
          description: undefined,
          action: 'allow',
        }),
      { method: 'PATCH', path: '/ip_policy_rules/ipr_1', body: { cidr: '10.0.0.0/16', description: '' } },
    ],
    [
      'reserved addr create has no endpoint_configuration_id and the default region',
      () =>
        kindByName('reserved_addrs').createRequest(
          { description: 'ssh', endpoint_configuration_id: 'ec_1' },
          META,
        ),
      { method: 'POST', path: '/reserved_addrs', body: { description: 'ssh', metadata: META, region: 'us' } },
    ],
    [
      'reserved addr update attaches an endpoint configuration',
      () => kindByName('reserved_addrs').updateRequest('ra_1', { endpoint_configuration_id: 'ec_1' }),
      { method: 'PATCH', path: '/reserved_addrs/ra_1', body: { endpoint_configuration_id: 'ec_1' } },
    ],
    [
      'CA create',
      () => kindByName('certificate_authorities').createRequest({ ca_pem: 'PEM\n' }, META),
      { method: 'POST', path: '/certificate_authorities', body: { ca_pem: 'PEM\n', metadata: META } },
    ],
    [
      'CA delete',
      () => kindByName('certificate_authorities').deleteRequest('ca_1'),
      { method: 'DELETE', path: '/certificate_authorities/ca_1' },
    ],
    [
      'HTTPS edge create carries its modules in mutate shape, pending IDs untouched',
      () =>
        kindByName('https_edges').createRequest(
          {
            hostports: ['w:443'],
            mutual_tls: { enabled: true, certificate_authorities: ['ca_1', pending] },
            tls_termination: { enabled: true, min_version: '1.3' },
          },
          META,
        ),
      {
        method: 'POST',
        path: '/edges/https',
        body: {
          hostports: ['w:443'],
          metadata: META,
          mutual_tls: { enabled: true, certificate_authority_ids: ['ca_1', pending] },
          tls_termination: { enabled: true, min_version: '1.3' },
        },
      },
    ],
    [
      'HTTPS edge module put is the edge PATCH',
      () =>
        kindByName('https_edges').moduleRequest({ id: 'edghts_1' }, 'mutual_tls', {
          enabled: true,
          certificate_authorities: ['ca_1'],
        }),
      {
        method: 'PATCH',
        path: '/edges/https/edghts_1',
        body: { mutual_tls: { enabled: true, certificate_authority_ids: ['ca_1'] } },
      },
    ],
    [
      'HTTPS edge module removal is the module DELETE',
      () => kindByName('https_edges').moduleRequest({ id: 'edghts_1' }, 'tls_termination', null),
      { method: 'DELETE', path: '/edges/https/edghts_1/tls_termination' },
    ],
    [
      'route OIDC put sends every field',
      () =>
        kindByName('https_edges').moduleRequest({ id: 'edghts_1', routeId: 'edghtsrt_1' }, 'oidc', {
          issuer: 'https://i',
          client_id: 'c',
          client_secret: 's',
        }),
      {
        method: 'PUT',
        path: '/edges/https/edghts_1/routes/edghtsrt_1/oidc',
        body: {
          enabled: true,
          options_passthrough: false,
          cookie_prefix: '',
          inactivity_timeout: 0,
          maximum_duration: 0,
          issuer: 'https://i',
          client_id: 'c',
          client_secret: 's',
          scopes: [],
        },
      },
    ],
    [
      'route OIDC read',
      () => kindByName('https_edges').moduleReadRequest({ id: 'edghts_1', routeId: 'edghtsrt_1' }, 'oidc'),
      { method: 'GET', path: '/edges/https/edghts_1/routes/edghtsrt_1/oidc' },
    ],
    [
      'TCP ip restriction put',
      () =>
        kindByName('tcp_edges').moduleRequest({ id: 'edgtcp_1' }, 'ip_restriction', {
          ip_policies: ['ipp_1'],
        }),
      {
        method: 'PUT',
        path: '/edges/tcp/edgtcp_1/ip_restriction',
        body: { enabled: true, ip_policy_ids: ['ipp_1'] },
      },
    ],
    [
      'TLS termination put',
      () =>
        kindByName('tls_edges').moduleRequest({ id: 'edgtls_1' }, 'tls_termination', {
          terminate_at: 'upstream',
        }),
      {
        method: 'PUT',
        path: '/edges/tls/edgtls_1/tls_termination',
        body: { enabled: true, terminate_at: 'upstream', min_version: null },
      },
    ],
    [
      'TLS mutual TLS delete',
      () => kindByName('tls_edges').moduleRequest({ id: 'edgtls_1' }, 'mutual_tls', null),
      { method: 'DELETE', path: '/edges/tls/edgtls_1/mutual_tls' },
    ],
  ])('%s', (_label, build, expected) => {
    expect(build()).toEqual(expected);
  });

  it.each([
    ['creating a TCP edge', () => kindByName('tcp_edges').createRequest({}, META), 'unsupported_operation'],
    ['deleting a TLS edge', () => kindByName('tls_edges').deleteRequest('edgtls_1'), 'unsupported_operation'],
    [
      'an unknown module',
      () => kindByName('tcp_edges').moduleRequest({ id: 'edgtcp_1' }, 'oidc', null),
      'unknown_module',
    ],
    [
      'a module of a kind without modules',
      () => kindByName('ip_policy_rules').moduleReadRequest({ id: 'ipr_1' }, 'x'),
      'unknown_module',
    ],
    [
      'a route module without route ID',
      () => kindByName('https_edges').moduleRequest({ id: 'edghts_1' }, 'oidc', null),
      'unknown_module',
    ],
  ])('%s is refused with a typed error', (_label, build, code) => {
    expect(build).toThrow(expect.objectContaining({ code }));
  });
});

describe('request builders of every metadata-owned kind', () => {
  const owned = KINDS.filter((kind) => kind.ownership === 'metadata');
  const everyField = (kind: Kind): Record<string, unknown> =>
    Object.fromEntries(kind.fields.map((field) => [field.name, `new-${field.name}`]));

  it.each(owned.map((kind) => [kind.name, kind] as const))(
    '%s: a PATCH carries exactly the changed fields that can be updated',
    (_name, kind) => {
      const updatable = kind.fields.filter((field) => field.onChange === 'update').map((field) => field.name);

      const request = kind.updateRequest(`${kind.idPrefix}1`, everyField(kind));

      expect(request.method).toBe('PATCH');
      expect(Object.keys(request.body as object).sort()).toEqual(updatable.sort());
    },
  );

  it.each(owned.map((kind) => [kind.name, kind] as const))(
    '%s: a create carries the final metadata and no field that is set after the create',
    (_name, kind) => {
      const later = kind.fields.filter((field) => field.setAfterCreate === true).map((field) => field.name);

      const request = kind.createRequest(everyField(kind), META);
      const body = request.body as Record<string, unknown>;

      expect(request.method).toBe('POST');
      expect(body.metadata).toBe(META);
      for (const name of later) expect(body).not.toHaveProperty(name);
    },
  );
});

/** Values of a JSON body that are null, by JSON Pointer. */
function nullsIn(value: unknown, at = ''): string[] {
  if (value === null) return [at];
  if (typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) =>
    nullsIn(item, `${at}/${key}`),
  );
}

describe('no request sends null: the service family reads it as "not sent" or refuses it', () => {
  const owned = KINDS.filter((kind) => kind.ownership === 'metadata');
  const clearedFields = (kind: Kind): Record<string, unknown> =>
    Object.fromEntries(kind.fields.map((field) => [field.name, undefined]));

  it.each(owned.map((kind) => [kind.name, kind] as const))(
    '%s: a PATCH that clears every field holds no null; a field no PATCH clears has a request of its own',
    (_name, kind) => {
      const request = kind.updateRequest(`${kind.idPrefix}1`, clearedFields(kind));
      const body = request.body as Record<string, unknown>;
      const ownClears = kind.fields.flatMap((field) => {
        const clear = kind.clearRequest?.(`${kind.idPrefix}1`, field.name);
        return clear === undefined ? [] : [[field.name, clear] as const];
      });

      expect(nullsIn(body)).toEqual([]);
      for (const [field, clear] of ownClears) {
        expect(body).not.toHaveProperty(field);
        expect(clear.method).not.toBe('PATCH');
      }
    },
  );

  it('a reserved address detaches its endpoint configuration with the family DELETE', () => {
    const kind = kindByName('reserved_addrs');

    const patch = kind.updateRequest('ra_1', { endpoint_configuration_id: undefined, description: 'd' });
    const detach = kind.clearRequest?.('ra_1', 'endpoint_configuration_id');

    expect(patch).toEqual({ method: 'PATCH', path: '/reserved_addrs/ra_1', body: { description: 'd' } });
    expect(detach).toEqual({ method: 'DELETE', path: '/reserved_addrs/ra_1/endpoint_configuration' });
    expect(kind.clearRequest?.('ra_1', 'description')).toBeUndefined();
  });

  it.each(
    KINDS.flatMap((kind) =>
      kind.modules.map((module) => [`${kind.name} ${module.name}`, kind, module.name] as const),
    ),
  )('%s: removing the module is its own DELETE, never a PATCH with null', (_label, kind, module) => {
    const request = kind.moduleRequest({ id: `${kind.idPrefix}1`, routeId: 'edghtsrt_1' }, module, null);

    expect(request.method).toBe('DELETE');
    expect(nullsIn(request.body)).toEqual([]);
  });
});
