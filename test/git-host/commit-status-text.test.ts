import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMMIT_STATUS_PROVIDER_CHOICES } from '../../src/cli/commit-status-flags.js';
import { COMMIT_STATUS_PROVIDERS } from '../../src/git-host/commit-status-providers.js';
import {
  DESCRIPTION_MAX,
  fitDescription,
  liveThroughCommit,
  liveThroughStatus,
  SUSPENDED_DESCRIPTION,
  saysSuspended,
  statusContext,
  supersededStatus,
  supersedingCommit,
} from '../../src/git-host/commit-status-text.js';
import { propertyRuns } from '../support/property-runs.js';

const NEWER = '0123456789abcdef0123456789abcdef01234567';

describe('what a commit status says', () => {
  it('offers every provider as a flag choice, and no other', () => {
    expect([...COMMIT_STATUS_PROVIDER_CHOICES]).toEqual([...COMMIT_STATUS_PROVIDERS]);
  });

  it('fits any text into GitHub’s 140 characters, on one line, never splitting a character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), (text) => {
        const fitted = fitDescription(text);
        const chars = [...fitted];

        expect(chars.length).toBeLessThanOrEqual(DESCRIPTION_MAX);
        expect(fitted).not.toMatch(/[\n\r\t]/);
        expect(fitted).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
        if ([...text.replace(/\s+/g, ' ').trim()].length > DESCRIPTION_MAX)
          expect(fitted.endsWith('…')).toBe(true);
      }),
      { numRuns: propertyRuns({ small: 100, large: 1000 }) },
    );
  });

  it('names the context edgesync/<owner>, with /<instance> when one is set', () => {
    expect(statusContext('platform-prod', undefined)).toBe('edgesync/platform-prod');
    expect(statusContext('platform-prod', 'eu-west')).toBe('edgesync/platform-prod/eu-west');
  });

  it('writes and reads back the superseded, live-through and suspended descriptions', () => {
    const superseded = supersededStatus(NEWER);
    const through = liveThroughStatus(NEWER);

    expect(superseded.state).toBe('error');
    expect(superseded.description.startsWith('superseded by 0123456789ab ')).toBe(true);
    expect([...superseded.description].length).toBeLessThanOrEqual(DESCRIPTION_MAX);
    expect(supersedingCommit(superseded.description)).toBe('0123456789ab');
    expect(through).toEqual({ state: 'success', description: 'live through 0123456789ab' });
    expect(liveThroughCommit(through.description)).toBe('0123456789ab');
    expect(supersedingCommit('a failure: superseded by 0123456789ab')).toBeNull();
    expect(saysSuspended({ state: 'pending', description: SUSPENDED_DESCRIPTION })).toBe(true);
    expect(saysSuspended({ state: 'failure', description: SUSPENDED_DESCRIPTION })).toBe(false);
  });
});
