import { describe, expect, it } from 'vitest';
import { cidrCovers } from '../../../src/kinds/ip-policy-rules/cidr-covers.js';
import { kindByName } from '../../../src/kinds/registry.js';

describe('cidrCovers (the access hook that holds a deny rule’s target)', () => {
  it('offers the CIDR itself, each CIDR around it smallest first, then its two halves', () => {
    const covers = cidrCovers('10.0.0.0/8');

    expect(covers.slice(0, 3)).toEqual([['10.0.0.0/8'], ['10.0.0.0/7'], ['8.0.0.0/6']]);
    expect(covers.at(-2)).toEqual(['0.0.0.0/0']);
    expect(covers.at(-1)).toEqual(['10.0.0.0/9', '10.128.0.0/9']);
    expect(covers).toHaveLength(1 + 8 + 1);
  });

  it('covers the whole address space of a family by its halves, and a single address by nothing smaller', () => {
    expect(cidrCovers('::/0')).toEqual([['::/0'], ['::/1', '8000::/1']]);
    expect(cidrCovers('192.0.2.7/32').at(-1)).toEqual(['0.0.0.0/0']);
  });

  it('offers nothing for a value that is no CIDR', () => {
    expect(cidrCovers('10.0.0.0')).toEqual([]);
    expect(cidrCovers('not an address')).toEqual([]);
  });

  it('is the IP policy rules kind’s hook', () => {
    expect(kindByName('ip_policy_rules').accessDecision?.guardCovers).toBe(cidrCovers);
  });
});
