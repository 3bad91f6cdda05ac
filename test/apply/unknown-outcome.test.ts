import { describe, expect, it } from 'vitest';
import { holdsWhatWasSent } from '../../src/apply/unknown-outcome.js';

describe('holdsWhatWasSent', () => {
  it.each([
    [
      'equal scalars',
      { enabled: true, min_version: '1.2' },
      { enabled: true, min_version: '1.2', terminate_at: 'edge' },
      true,
    ],
    ['a changed scalar', { enabled: true }, { enabled: false }, false],
    ['a field the read lacks', { issuer: 'https://a' }, { enabled: true }, false],
    [
      'IDs sent, Refs read, same set',
      { certificate_authority_ids: ['ca_1', 'ca_2'] },
      {
        certificate_authorities: [
          { id: 'ca_2', uri: 'u' },
          { id: 'ca_1', uri: 'u' },
        ],
      },
      true,
    ],
    [
      'IDs sent, Refs read, different set',
      { ip_policy_ids: ['ipp_1'] },
      { ip_policies: [{ id: 'ipp_2', uri: 'u' }] },
      false,
    ],
    [
      'one ID sent, a Ref read',
      { endpoint_configuration_id: 'ec_1' },
      { endpoint_configuration: { id: 'ec_1' } },
      true,
    ],
    ['a null module and an absent one', { mutual_tls: null }, {}, true],
    ['lists in order', { scopes: ['openid', 'email'] }, { scopes: ['openid', 'email'] }, true],
    ['lists of different length', { scopes: ['openid'] }, { scopes: ['openid', 'email'] }, false],
    [
      'nested modules of a PATCH against the edge',
      { mutual_tls: { enabled: true, certificate_authority_ids: ['ca_1'] } },
      { id: 'edghts_1', mutual_tls: { enabled: true, certificate_authorities: [{ id: 'ca_1' }] } },
      true,
    ],
  ])('%s', (_name, sent, read, expected) => {
    expect(holdsWhatWasSent(sent, read)).toBe(expected);
  });
});
