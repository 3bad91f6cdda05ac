import { readFileSync } from 'node:fs';
import { TLS_EDGES_SECTION } from '../../../../src/kinds/edge-modules/emulator-errors.js';
import { type FamilyTable, fixedId } from '../family-table.js';

const CORP_ROOT = readFileSync(new URL('../../../fixtures/certs/corp-root.pem', import.meta.url), 'utf8');
const TLS = fixedId('edgtls_', 'TlsTableEdge');
/** A TLS edge with mutual TLS, on which upstream termination is refused. */
const MUTUAL = fixedId('edgtls_', 'TlsTableMutual');
const CA = fixedId('ca_', 'TlsTableCa');
const TERMINATION = { method: 'PUT', path: `/edges/tls/${TLS}/tls_termination` };
const MUTUAL_TLS = { method: 'PUT', path: `/edges/tls/${TLS}/mutual_tls` };
const manifest = (lines: readonly string[]): string =>
  `version: 1\ntls_edges:\n  db:\n    id: ${TLS}\n${lines.map((line) => `    ${line}\n`).join('')}`;

export const TLS_EDGES_TABLE: FamilyTable = {
  section: TLS_EDGES_SECTION,
  seed: {
    certificate_authorities: [{ id: CA, ca_pem: CORP_ROOT }],
    tls_edges: [{ id: TLS }, { id: MUTUAL, mutual_tls: { certificate_authority_ids: [CA] } }],
  },
  cases: [
    {
      code: 7000,
      name: 'mutual TLS of an edge the account does not have',
      request: { method: 'GET', path: `/edges/tls/${fixedId('edgtls_', 'Missing')}/mutual_tls` },
    },
    {
      code: 224,
      name: 'terminate_at agent',
      request: { ...TERMINATION, body: { terminate_at: 'agent' } },
      field: 'terminate_at',
      validate: {
        yaml: manifest(['tls_termination: { terminate_at: agent }']),
        expected: 'schema 5:24 tls_edges.db.tls_termination.terminate_at',
      },
    },
    {
      code: 219,
      name: 'a min_version the service does not support',
      request: { ...TERMINATION, body: { min_version: '0.9' } },
      field: 'min_version',
      validate: {
        yaml: manifest(['tls_termination: { min_version: "0.9" }']),
        expected: 'schema 5:24 tls_edges.db.tls_termination.min_version',
      },
    },
    {
      code: 7032,
      name: 'min_version with upstream termination',
      request: { ...TERMINATION, body: { terminate_at: 'upstream', min_version: '1.2' } },
      field: 'min_version',
      validate: {
        yaml: manifest(['tls_termination: { terminate_at: upstream, min_version: "1.2" }']),
        expected: 'min_version_with_upstream 5:48 tls_edges.db.tls_termination.min_version',
      },
    },
    {
      code: 7062,
      name: 'upstream termination on an edge with mutual TLS',
      request: {
        method: 'PUT',
        path: `/edges/tls/${MUTUAL}/tls_termination`,
        body: { terminate_at: 'upstream' },
      },
      field: 'terminate_at',
      validate: {
        yaml: manifest([
          `mutual_tls: { certificate_authorities: [${CA}] }`,
          'tls_termination: { terminate_at: upstream }',
        ]),
        expected: 'mutual_tls_with_upstream 5:5 tls_edges.db.mutual_tls',
      },
    },
    {
      code: 7072,
      name: 'a CA the account does not have',
      request: { ...MUTUAL_TLS, body: { certificate_authority_ids: [fixedId('ca_', 'Missing')] } },
      field: 'certificate_authority_ids',
    },
    {
      code: 228,
      name: 'a malformed CA ID',
      request: { ...MUTUAL_TLS, body: { certificate_authority_ids: ['ca_not-an-id'] } },
      field: 'certificate_authority_ids',
      validate: {
        yaml: manifest(['mutual_tls: { certificate_authorities: [ca_not-an-id] }']),
        expected: 'malformed_id 5:45 tls_edges.db.mutual_tls.certificate_authorities[0]',
      },
    },
  ],
};
