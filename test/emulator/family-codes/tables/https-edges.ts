import { HTTPS_EDGES_SECTION } from '../../../../src/kinds/edge-modules/emulator-errors.js';
import { type FamilyTable, fixedId } from '../family-table.js';

const EDGE = fixedId('edghts_', 'HttpsTableEdge');
/** A reserved TCP address the seed fixes, so a request can name it. */
const TCP_ADDRESS = '7.tcp.us.edge.example:20007';
const CREATE = { method: 'POST', path: '/edges/https' };
const PATCH = { method: 'PATCH', path: `/edges/https/${EDGE}` };

/** An HTTPS edge manifest with `lines` under the entry (4 spaces in). */
const manifest = (lines: readonly string[]): string =>
  `version: 1\nhttps_edges:\n  web:\n${lines.map((line) => `    ${line}\n`).join('')}`;
const hostport = (value: string): string => manifest(['hostports:', `  - "${value}"`]);
const HOSTPORT_AT = '5:9 https_edges.web.hostports[0]';
const WEB = 'hostports: [web.example.com:443]';

export const HTTPS_EDGES_TABLE: FamilyTable = {
  section: HTTPS_EDGES_SECTION,
  seed: {
    https_edges: [{ id: EDGE, hostports: ['table.example.com:443'] }],
    reserved_addrs: [{ description: 'tcp', addr: TCP_ADDRESS }],
  },
  cases: [
    {
      code: 7000,
      name: 'an edge the account does not have',
      request: { method: 'GET', path: `/edges/https/${fixedId('edghts_', 'Missing')}` },
    },
    {
      code: 7001,
      name: 'a malformed edge ID',
      request: { method: 'GET', path: '/edges/https/edghts_not-an-id' },
    },
    {
      code: 7002,
      name: 'an update that sets a module to null',
      request: { ...PATCH, body: { mutual_tls: null } },
      field: 'mutual_tls',
    },
    {
      code: 7028,
      name: 'a create with two bad hostports',
      request: { ...CREATE, body: { hostports: ['203.0.113.7:443', 'web.example.com:80'] } },
    },
    {
      code: 7073,
      name: 'a description of 256 bytes',
      request: { ...PATCH, body: { description: 'é'.repeat(128) } },
      field: 'description',
      validate: {
        yaml: manifest([WEB, `description: "${'é'.repeat(128)}"`]),
        expected: 'too_long 5:5 https_edges.web.description',
      },
    },
    {
      code: 7074,
      name: 'metadata over 4096 bytes',
      request: { ...PATCH, body: { metadata: 'm'.repeat(4097) } },
      field: 'metadata',
      validate: {
        yaml: manifest([WEB, `metadata: { notes: "${'m'.repeat(4097)}" }`]),
        expected: 'too_long 5:5 https_edges.web.metadata',
      },
    },
    {
      code: 7104,
      name: 'a hostport without a port',
      request: { ...CREATE, body: { hostports: ['web.example.com'] } },
      field: 'hostports',
      validate: { yaml: hostport('web.example.com'), expected: `schema ${HOSTPORT_AT}` },
    },
    {
      code: 7112,
      name: 'a hostport on port 70000',
      request: { ...CREATE, body: { hostports: ['web.example.com:70000'] } },
      field: 'hostports',
      validate: { yaml: hostport('web.example.com:70000'), expected: `invalid_hostport ${HOSTPORT_AT}` },
    },
    {
      code: 7116,
      name: 'a domain on port 80',
      request: { ...CREATE, body: { hostports: ['web.example.com:80'] } },
      field: 'hostports',
      validate: { yaml: hostport('web.example.com:80'), expected: `invalid_hostport ${HOSTPORT_AT}` },
    },
    {
      code: 7117,
      name: 'a hostport on an IP address',
      request: { ...CREATE, body: { hostports: ['203.0.113.7:443'] } },
      field: 'hostports',
      validate: { yaml: hostport('203.0.113.7:443'), expected: `invalid_hostport ${HOSTPORT_AT}` },
    },
    {
      code: 7121,
      name: 'a reserved TCP address',
      request: { ...CREATE, body: { hostports: [TCP_ADDRESS] } },
      field: 'hostports',
    },
    {
      code: 7122,
      name: 'a hostport another edge serves',
      request: { ...CREATE, body: { hostports: ['table.example.com:443'] } },
      field: 'hostports',
      validate: {
        yaml: `${manifest([WEB])}  www:\n    hostports: [web.example.com:443]\n`,
        expected: 'duplicate_hostport 6:17 https_edges.www.hostports[0]',
      },
    },
    {
      code: 7072,
      name: 'mutual TLS naming a CA the account does not have',
      request: { ...PATCH, body: { mutual_tls: { certificate_authority_ids: [fixedId('ca_', 'Missing')] } } },
      field: 'mutual_tls.certificate_authority_ids',
    },
    {
      code: 228,
      name: 'mutual TLS naming a malformed CA ID',
      request: { ...PATCH, body: { mutual_tls: { certificate_authority_ids: ['ca_not-an-id'] } } },
      field: 'mutual_tls.certificate_authority_ids',
      validate: {
        yaml: manifest([WEB, 'mutual_tls: { certificate_authorities: [ca_not-an-id] }']),
        expected: 'malformed_id 5:45 https_edges.web.mutual_tls.certificate_authorities[0]',
      },
    },
    {
      code: 7109,
      name: 'terminate_at on an HTTPS edge',
      request: { ...PATCH, body: { tls_termination: { terminate_at: 'edge' } } },
      field: 'tls_termination.terminate_at',
      validate: {
        yaml: manifest([WEB, 'tls_termination: { terminate_at: edge }']),
        expected: 'schema 5:24 https_edges.web.tls_termination.terminate_at',
      },
    },
    {
      code: 219,
      name: 'a min_version the service does not support',
      request: { ...PATCH, body: { tls_termination: { min_version: '0.9' } } },
      field: 'tls_termination.min_version',
      validate: {
        yaml: manifest([WEB, 'tls_termination: { min_version: "0.9" }']),
        expected: 'schema 5:24 https_edges.web.tls_termination.min_version',
      },
    },
    {
      code: 219,
      name: 'min_version 1.0 (tls-min-version=1.2-up)',
      variants: { 'tls-min-version': '1.2-up' },
      request: { ...PATCH, body: { tls_termination: { min_version: '1.0' } } },
      field: 'tls_termination.min_version',
    },
  ],
};
