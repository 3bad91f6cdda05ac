import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/registry.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import { propertyRuns } from '../support/property-runs.js';
import { desiredState, entry, liveState, OWNER } from './builders.js';

const POLICIES = ['A', 'B', 'C', 'D'].map((word) => `ipp_${`Prop${word}`.padEnd(27, '0')}`);
const CONFIGS = ['A', 'B'].map((word) => `ec_${`Prop${word}`.padEnd(27, '0')}`);

describe('the plan reports exactly the named IDs the account lacks', () => {
  it('one reference_not_found per place naming a missing ID, at that place; none for IDs the account holds', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...POLICIES), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(...CONFIGS),
        fc.subarray([...POLICIES, ...CONFIGS]),
        (rulePolicies, config, missing) => {
          const rules = rulePolicies.map((policy, index) =>
            entry(
              'ip_policy_rules',
              `r${index}`,
              { ip_policy_id: policy, cidr: `10.0.${index}.0/24`, action: 'deny' },
              { fieldLocations: { '/ip_policy_id': { file: 'm.yaml', line: 100 + index, column: 5 } } },
            ),
          );
          const addr = entry(
            'reserved_addrs',
            'bastion',
            { description: 'b', endpoint_configuration_id: config },
            { fieldLocations: { '/endpoint_configuration_id': { file: 'm.yaml', line: 200, column: 5 } } },
          );
          const edge = entry(
            'tcp_edges',
            'ssh',
            { ip_restriction: { ip_policies: rulePolicies.slice(0, 2) } },
            {
              id: 'edgtcp_PropEdge00000000000000000001',
              fieldLocations: {
                '/ip_restriction/ip_policies/0': { file: 'm.yaml', line: 300, column: 9 },
                '/ip_restriction/ip_policies/1': { file: 'm.yaml', line: 301, column: 9 },
              },
            },
          );

          const plan = planChanges(
            desiredState([...rules, addr, edge]),
            liveState([], { missingNamedIds: missing }),
            { owner: OWNER, kinds: KINDS },
          );

          const reported = plan.errors
            .filter((error) => error.code === 'reference_not_found')
            .map((error) => `${error.source?.line}`)
            .sort();
          const expected = [
            ...rulePolicies.flatMap((policy, index) => (missing.includes(policy) ? [`${100 + index}`] : [])),
            ...(missing.includes(config) ? ['200'] : []),
            ...rulePolicies
              .slice(0, 2)
              .flatMap((policy, index) => (missing.includes(policy) ? [`${300 + index}`] : [])),
          ].sort();
          expect(reported).toEqual(expected);
        },
      ),
      { seed: 30, numRuns: propertyRuns({ small: 50, large: 200 }) },
    );
  });
});
