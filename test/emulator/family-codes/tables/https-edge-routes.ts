import { ROUTES_SECTION } from '../../../../src/kinds/https-edges/emulator-errors.js';
import { type FamilyTable, fixedId } from '../family-table.js';

const EDGE = fixedId('edghts_', 'RouteTableEdge');
const ROUTE = fixedId('edghtsrt_', 'RouteTableApp');
const OTHER_EDGE = fixedId('edghts_', 'RouteTableOther');
const OTHER_ROUTE = fixedId('edghtsrt_', 'RouteTableOther');
/** An edge one of whose routes authenticates with OAuth; the other route has none. */
const OAUTH_EDGE = fixedId('edghts_', 'RouteTableOauth');
const PLAIN_ROUTE = fixedId('edghtsrt_', 'RouteTablePlain');
/** A route that authenticates with SAML, alone on its edge. */
const SAML_EDGE = fixedId('edghts_', 'RouteTableSaml');
const SAML_ROUTE = fixedId('edghtsrt_', 'RouteTableSaml');

const OIDC = { issuer: 'https://id.example.com', client_id: 'app', client_secret: 's3' };
const PUT = { method: 'PUT', path: `/edges/https/${EDGE}/routes/${ROUTE}/oidc` };
const CREATE = { method: 'POST', path: `/edges/https/${EDGE}/routes` };
const without = (field: keyof typeof OIDC): Record<string, string> =>
  Object.fromEntries(Object.entries(OIDC).filter(([key]) => key !== field));

/** An edge manifest whose one route (selected by /app) has an OIDC module with `lines` beside its three fields. */
const oidcManifest = (lines: readonly string[], fields: Readonly<Record<string, string>> = OIDC): string =>
  [
    'version: 1',
    'https_edges:',
    '  web:',
    '    hostports: [web.example.com:443]',
    '    routes:',
    '      - match_type: path_prefix',
    '        match: /app',
    '        oidc:',
    ...Object.entries(fields).map(([key, value]) => `          ${key}: ${value}`),
    ...lines.map((line) => `          ${line}`),
    '',
  ].join('\n');
const OIDC_AT = '10:11 https_edges.web.routes[0].oidc';

export const HTTPS_EDGE_ROUTES_TABLE: FamilyTable = {
  section: ROUTES_SECTION,
  seed: {
    https_edges: [
      {
        id: EDGE,
        hostports: ['routes.example.com:443'],
        routes: [{ id: ROUTE, match_type: 'path_prefix', match: '/app' }],
      },
      {
        id: OTHER_EDGE,
        hostports: ['other.example.com:443'],
        routes: [{ id: OTHER_ROUTE, match_type: 'path_prefix', match: '/app' }],
      },
      {
        id: OAUTH_EDGE,
        hostports: ['oauth.example.com:443'],
        routes: [
          { match_type: 'path_prefix', match: '/sso', oauth: { provider: { github: {} } } },
          { id: PLAIN_ROUTE, match_type: 'path_prefix', match: '/plain' },
        ],
      },
      {
        id: SAML_EDGE,
        hostports: ['saml.example.com:443'],
        routes: [{ id: SAML_ROUTE, match_type: 'path_prefix', match: '/', saml: { idp_metadata: '<x/>' } }],
      },
    ],
  },
  cases: [
    {
      code: 7124,
      name: 'a route the account does not have',
      request: { method: 'GET', path: `/edges/https/${EDGE}/routes/${fixedId('edghtsrt_', 'Missing')}/oidc` },
    },
    {
      code: 7110,
      name: "another edge's route",
      request: { method: 'GET', path: `/edges/https/${EDGE}/routes/${OTHER_ROUTE}/oidc` },
    },
    {
      code: 7123,
      name: 'a route without match',
      request: { ...CREATE, body: { match_type: 'path_prefix' } },
      field: 'match',
    },
    {
      code: 7130,
      name: 'a match_type that is no path type',
      request: { ...CREATE, body: { match_type: 'regex', match: '/x' } },
      field: 'match_type',
    },
    {
      code: 7131,
      name: 'a match without a leading slash',
      request: { ...CREATE, body: { match_type: 'path_prefix', match: 'example.com/x' } },
      field: 'match',
    },
    {
      code: 7126,
      name: 'a match another route of the edge has',
      request: { ...CREATE, body: { match_type: 'exact_path', match: '/app' } },
      field: 'match',
    },
    {
      code: 7155,
      name: 'OIDC on a route while another route has OAuth',
      request: { method: 'PUT', path: `/edges/https/${OAUTH_EDGE}/routes/${PLAIN_ROUTE}/oidc`, body: OIDC },
      field: 'oidc',
      validate: {
        yaml: `${oidcManifest([])}      - match_type: path_prefix\n        match: /admin\n        oidc: { issuer: "https://id.example.com", client_id: admin, client_secret: s4 }\n`,
        expected: 'one_auth_route 14:9 https_edges.web.routes[1].oidc',
      },
    },
    {
      code: 7079,
      name: 'OIDC on a route that has SAML',
      request: { method: 'PUT', path: `/edges/https/${SAML_EDGE}/routes/${SAML_ROUTE}/oidc`, body: OIDC },
      field: 'oidc',
    },
    {
      code: 7088,
      name: 'OIDC without issuer',
      request: { ...PUT, body: without('issuer') },
      field: 'issuer',
      validate: {
        yaml: oidcManifest([], without('issuer')),
        expected: `schema 8:9 https_edges.web.routes[0].oidc`,
      },
    },
    {
      code: 7087,
      name: 'an issuer over 255 bytes',
      request: { ...PUT, body: { ...OIDC, issuer: `https://id.example.com/${'a'.repeat(240)}` } },
      field: 'issuer',
      validate: {
        yaml: oidcManifest([], { ...OIDC, issuer: `https://id.example.com/${'a'.repeat(240)}` }),
        expected: 'schema 9:11 https_edges.web.routes[0].oidc.issuer',
      },
    },
    {
      code: 7089,
      name: 'OIDC without client_id',
      request: { ...PUT, body: without('client_id') },
      field: 'client_id',
      validate: {
        yaml: oidcManifest([], without('client_id')),
        expected: `schema 8:9 https_edges.web.routes[0].oidc`,
      },
    },
    {
      code: 7090,
      name: 'OIDC without client_secret',
      request: { ...PUT, body: without('client_secret') },
      field: 'client_secret',
      validate: {
        yaml: oidcManifest([], without('client_secret')),
        expected: `schema 8:9 https_edges.web.routes[0].oidc`,
      },
    },
    {
      code: 7042,
      name: 'a cookie_prefix with a hyphen',
      request: { ...PUT, body: { ...OIDC, cookie_prefix: 'my-app.' } },
      field: 'cookie_prefix',
      validate: {
        yaml: oidcManifest(['cookie_prefix: my-app.']),
        expected: `schema 12:11 ${OIDC_AT.slice(6)}.cookie_prefix`,
      },
    },
    {
      code: 7092,
      name: 'an inactivity_timeout over one year',
      request: { ...PUT, body: { ...OIDC, inactivity_timeout: 31_536_001 } },
      field: 'inactivity_timeout',
      validate: {
        yaml: oidcManifest(['inactivity_timeout: 31536001']),
        expected: `schema 12:11 ${OIDC_AT.slice(6)}.inactivity_timeout`,
      },
    },
    {
      code: 7162,
      name: 'a maximum_duration over one year',
      request: { ...PUT, body: { ...OIDC, maximum_duration: 31_536_001 } },
      field: 'maximum_duration',
      validate: {
        yaml: oidcManifest(['maximum_duration: 31536001']),
        expected: `schema 12:11 ${OIDC_AT.slice(6)}.maximum_duration`,
      },
    },
  ],
};
