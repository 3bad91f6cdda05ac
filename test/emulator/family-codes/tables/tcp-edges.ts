import { TCP_EDGES_SECTION } from '../../../../src/kinds/edge-modules/emulator-errors.js';
import { type FamilyTable, fixedId } from '../family-table.js';

const TCP = fixedId('edgtcp_', 'TcpTableEdge');
const POLICY = fixedId('ipp_', 'TcpTablePolicy');
const PUT = { method: 'PUT', path: `/edges/tcp/${TCP}/ip_restriction` };
const manifest = (line: string): string =>
  `version: 1\ntcp_edges:\n  ssh:\n    id: ${TCP}\n    ip_restriction: ${line}\n`;

export const TCP_EDGES_TABLE: FamilyTable = {
  section: TCP_EDGES_SECTION,
  seed: { ip_policies: [{ id: POLICY }], tcp_edges: [{ id: TCP }] },
  cases: [
    {
      code: 7000,
      name: 'an IP restriction of an edge the account does not have',
      request: { method: 'GET', path: `/edges/tcp/${fixedId('edgtcp_', 'Missing')}/ip_restriction` },
    },
    {
      code: 7025,
      name: 'an IP restriction with no IP policy',
      request: { ...PUT, body: { ip_policy_ids: [] } },
      field: 'ip_policy_ids',
      validate: {
        yaml: manifest('{ ip_policies: [] }'),
        expected: 'schema 5:23 tcp_edges.ssh.ip_restriction.ip_policies',
      },
    },
    {
      code: 7007,
      name: 'an IP policy the account does not have',
      request: { ...PUT, body: { ip_policy_ids: [fixedId('ipp_', 'Missing')] } },
      field: 'ip_policy_ids',
    },
    {
      code: 229,
      name: 'a malformed IP policy ID',
      request: { ...PUT, body: { ip_policy_ids: ['ipp_not-an-id'] } },
      field: 'ip_policy_ids',
      validate: {
        yaml: manifest('{ ip_policies: [ipp_not-an-id] }'),
        expected: 'schema 5:37 tcp_edges.ssh.ip_restriction.ip_policies[0]',
      },
    },
  ],
};
