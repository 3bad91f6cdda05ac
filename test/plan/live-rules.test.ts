import { describe, expect, it } from 'vitest';
import type { LiveObject } from '../../src/kinds/live-state.js';
import { KINDS } from '../../src/kinds/registry.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import type { PlanOptions } from '../../src/plan/planner-options.js';
import { CORP_PEM, desiredState, entry, liveCa, liveEdge, liveState, marked } from './builders.js';

/**
 * The family's rules an entry can break only together with what the
 * account holds (Kind.checkWithLive): one authenticating route per HTTPS
 * edge (7155) and one authenticating module per route (7079); mutual TLS
 * and upstream termination on a TLS edge (7062). `validate` cannot see
 * them; `plan` refuses them before any request, at the entry's line.
 */
const options: PlanOptions = { kinds: KINDS, owner: 'team-a' };
const OIDC = { issuer: 'https://id.example.com', client_id: 'app', client_secret: 's3' };
const OAUTH = { enabled: true, provider: { github: {} } };

/** The web edge edgesync created, with these live routes. */
function web(routes: Record<string, unknown>[]): LiveObject {
  return liveEdge('edghts_1', { hostports: ['web.example.com:443'], metadata: marked('web'), routes });
}

function planWeb(routes: Record<string, unknown>[], live: Record<string, unknown>[]) {
  const desired = desiredState([entry('https_edges', 'web', { hostports: ['web.example.com:443'], routes })]);
  return planChanges(desired, liveState([web(live)]), options);
}

const route = (id: string, match: string, modules: Record<string, unknown> = {}) => ({
  id,
  match_type: 'path_prefix',
  match,
  oidc: null,
  ...modules,
});

function tlsEdge(modules: { mutualTls?: boolean; terminateAt?: 'edge' | 'upstream' }): LiveObject {
  const kind = KINDS.find((candidate) => candidate.name === 'tls_edges');
  if (kind === undefined) throw new Error('no tls_edges kind');
  return kind.fromApi({
    id: 'edgtls_1',
    mutual_tls: modules.mutualTls
      ? { enabled: true, certificate_authorities: [{ id: 'ca_1', uri: 'https://x/ca_1' }] }
      : null,
    tls_termination:
      modules.terminateAt === undefined
        ? null
        : { enabled: true, terminate_at: modules.terminateAt, min_version: null },
  });
}

function planDb(spec: Record<string, unknown>, live: LiveObject) {
  const desired = desiredState([
    entry('certificate_authorities', 'corp', { ca_pem: CORP_PEM }),
    entry('tls_edges', 'db', spec, { id: 'edgtls_1' }),
  ]);
  return planChanges(
    desired,
    liveState([liveCa('ca_1', { pem: CORP_PEM, metadata: marked('corp') }), live]),
    options,
  );
}

describe('plan: an HTTPS edge authenticates on one route, with one module', () => {
  it.each([
    [
      'OIDC on a route while another route has OAuth',
      [{ match_type: 'path_prefix', match: '/app', oidc: OIDC }],
      [route('edghtsrt_app', '/app'), route('edghtsrt_sso', '/sso', { oauth: OAUTH })],
      'one_auth_route',
      /route edghtsrt_sso \(path_prefix "\/sso"\) of this edge keeps oauth/,
    ],
    [
      'OIDC on a route that has SAML',
      [{ match_type: 'path_prefix', match: '/app', oidc: OIDC }],
      [route('edghtsrt_app', '/app', { saml: { enabled: true, idp_metadata: '<x/>' } })],
      'one_auth_module',
      /has saml; the service lets a route carry one of oauth, oidc and saml/,
    ],
    [
      'OIDC moving from one route to another',
      [
        { match_type: 'path_prefix', match: '/old', oidc: null },
        { match_type: 'path_prefix', match: '/new', oidc: OIDC },
      ],
      [route('edghtsrt_old', '/old', { oidc: { ...OIDC, enabled: true } }), route('edghtsrt_new', '/new')],
      'module_order',
      /oidc moves here from route edghtsrt_old .* Apply in two steps/,
    ],
  ])('refuses %s, at the route that gains it', (_label, desired, live, code, message) => {
    const plan = planWeb(desired, live);

    expect(plan.errors.map((error) => error.code)).toEqual([code]);
    expect(plan.errors[0]?.message).toMatch(message);
    expect(plan.errors[0]?.source?.line).toBeGreaterThan(0);
    expect(plan.actions).toEqual([]);
  });

  it.each([
    [
      'OIDC beside a disabled OAuth route',
      [{ match_type: 'path_prefix', match: '/app', oidc: OIDC }],
      [route('edghtsrt_app', '/app'), route('edghtsrt_sso', '/sso', { oauth: { ...OAUTH, enabled: false } })],
    ],
    [
      'OIDC kept on its route, changed',
      [{ match_type: 'path_prefix', match: '/app', oidc: { ...OIDC, client_id: 'app2' } }],
      [route('edghtsrt_app', '/app', { oidc: { ...OIDC, enabled: true } })],
    ],
    [
      'OIDC removed from one route, none added',
      [{ match_type: 'path_prefix', match: '/app', oidc: null }],
      [route('edghtsrt_app', '/app', { oidc: { ...OIDC, enabled: true } }), route('edghtsrt_sso', '/sso')],
    ],
  ])('plans %s', (_label, desired, live) => {
    const plan = planWeb(desired, live);

    expect(plan.errors).toEqual([]);
    expect(plan.actions.map((action) => action.op)).toEqual([expect.stringMatching(/^(put|delete)-module$/)]);
  });
});

describe('plan: mutual TLS needs a TLS edge that terminates TLS', () => {
  it.each([
    [
      'mutual TLS on an edge that passes TLS through, left as it is',
      { mutual_tls: { certificate_authorities: ['corp'] } },
      tlsEdge({ terminateAt: 'upstream' }),
      'mutual_tls_with_upstream',
    ],
    [
      'upstream termination on an edge whose mutual TLS is left as it is',
      { tls_termination: { terminate_at: 'upstream' } },
      tlsEdge({ mutualTls: true, terminateAt: 'edge' }),
      'mutual_tls_with_upstream',
    ],
    [
      'a switch to upstream while mutual TLS goes',
      { mutual_tls: null, tls_termination: { terminate_at: 'upstream' } },
      tlsEdge({ mutualTls: true, terminateAt: 'edge' }),
      'module_order',
    ],
    [
      'a switch from upstream while mutual TLS comes',
      { mutual_tls: { certificate_authorities: ['corp'] }, tls_termination: { terminate_at: 'edge' } },
      tlsEdge({ terminateAt: 'upstream' }),
      'module_order',
    ],
  ])('refuses %s', (_label, spec, live, code) => {
    const plan = planDb(spec, live);

    expect(plan.errors.map((error) => error.code)).toEqual([code]);
    expect(plan.actions.filter((action) => action.kind === 'tls_edges')).toEqual([]);
  });

  it('plans mutual TLS on an edge that terminates TLS, and upstream once mutual TLS is gone', () => {
    const adding = planDb(
      { mutual_tls: { certificate_authorities: ['corp'] } },
      tlsEdge({ terminateAt: 'edge' }),
    );
    const passing = planDb(
      { tls_termination: { terminate_at: 'upstream' } },
      tlsEdge({ terminateAt: 'edge' }),
    );

    expect([adding.errors, passing.errors]).toEqual([[], []]);
    expect(adding.actions.map((action) => action.op)).toContain('put-module');
    expect(passing.actions.map((action) => action.op)).toContain('put-module');
  });
});
