import { RESERVED_ADDRS_SECTION } from '../../../../src/kinds/reserved-addrs/emulator-errors.js';
import { type FamilyTable, fixedId } from '../family-table.js';

const EC = fixedId('ec_', 'AddrTableConfig');
const CREATE = { method: 'POST', path: '/reserved_addrs' };
const PATCH = { method: 'PATCH', path: '/reserved_addrs/{addr}' };
const manifest = (line: string): string => `version: 1\nreserved_addrs:\n  bastion:\n    ${line}\n`;

export const RESERVED_ADDRS_TABLE: FamilyTable = {
  section: RESERVED_ADDRS_SECTION,
  seed: { endpoint_configurations: [{ id: EC }] },
  prepare: async (call) => ({
    addr: (await call('POST', '/reserved_addrs', { description: 'table' })).body.id,
  }),
  cases: [
    {
      code: 500,
      name: 'a region that is none of the seven',
      request: { ...CREATE, body: { region: 'mars' } },
      field: 'region',
      validate: { yaml: manifest('region: mars'), expected: 'schema 4:5 reserved_addrs.bastion.region' },
    },
    {
      code: 504,
      name: 'a description of 256 bytes',
      request: { ...CREATE, body: { description: 'é'.repeat(128) } },
      field: 'description',
      validate: {
        yaml: manifest(`description: "${'é'.repeat(128)}"`),
        expected: 'too_long 4:5 reserved_addrs.bastion.description',
      },
    },
    {
      code: 505,
      name: 'metadata over 4096 bytes',
      request: { ...PATCH, body: { metadata: 'm'.repeat(4097) } },
      field: 'metadata',
      validate: {
        yaml: manifest(`metadata: { notes: "${'m'.repeat(4097)}" }`),
        expected: 'too_long 4:5 reserved_addrs.bastion.metadata',
      },
    },
    {
      code: 506,
      name: 'an update whose one value is a null endpoint configuration',
      request: { ...PATCH, body: { endpoint_configuration_id: null } },
    },
    {
      code: 1601,
      name: 'a malformed endpoint_configuration_id',
      request: { ...PATCH, body: { endpoint_configuration_id: 'ec_not-an-id' } },
      field: 'endpoint_configuration_id',
      validate: {
        yaml: manifest('endpoint_configuration_id: ec_not-an-id'),
        expected: 'schema 4:5 reserved_addrs.bastion.endpoint_configuration_id',
      },
    },
    {
      code: 1600,
      name: 'an endpoint configuration the account does not have',
      request: { ...PATCH, body: { endpoint_configuration_id: fixedId('ec_', 'Missing') } },
      field: 'endpoint_configuration_id',
    },
  ],
};
