import { describe, expect, it } from 'vitest';
import type { Kind } from '../../src/kinds/kind.js';
import { expiryWarnings } from '../../src/manifest/expiry-warnings.js';
import { entry } from '../plan/builders.js';
import { sampleKind } from '../support/sample-kind/index.js';

const DAY_MS = 86_400_000;
const NOW = Date.parse('2030-01-01T00:00:00.000Z');

/** The sample kind with an expiry hook that reads `expires_at` (ISO), as a test registry would declare it. */
const expiring: Kind = {
  ...sampleKind,
  expiry: {
    metric: 'sample',
    subject: 'the domain',
    advice: 'renew it before it lapses',
    notAfter: (spec) => (typeof spec.expires_at === 'string' ? Date.parse(spec.expires_at) : undefined),
  },
};

describe('expiry warnings, from the expiry hook of the kinds given', () => {
  const soon = entry(expiring.name, 'soon', { expires_at: new Date(NOW + 3 * DAY_MS).toISOString() });
  const gone = entry(expiring.name, 'gone', { expires_at: new Date(NOW - 2 * DAY_MS).toISOString() });
  const later = entry(expiring.name, 'later', { expires_at: new Date(NOW + 90 * DAY_MS).toISOString() });
  const unreadable = entry(expiring.name, 'unreadable', {});

  it('warns, in entry order, of each entry of a kind with the hook that expires within the window', () => {
    expect(expiryWarnings([soon, later, gone, unreadable], [expiring], NOW, 30 * DAY_MS)).toEqual([
      `manifests/main.yaml:${soon.location.line}:3: ${expiring.name}.soon: the domain expires in 3 day(s) (2030-01-04T00:00:00.000Z); renew it before it lapses`,
      `manifests/main.yaml:${gone.location.line}:3: ${expiring.name}.gone: the domain expired 2 day(s) ago (2029-12-30T00:00:00.000Z); renew it before it lapses`,
    ]);
  });

  it('says nothing of a kind the registry in use gives no expiry hook', () => {
    expect(expiryWarnings([soon, gone], [sampleKind], NOW, 30 * DAY_MS)).toEqual([]);
  });
});
