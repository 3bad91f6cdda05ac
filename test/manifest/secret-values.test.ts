import { describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/manifest/load-desired-state.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';

describe('loadDesiredState: onSecret', () => {
  it('is told every resolved secret of the manifests, and nothing else', async () => {
    const told: string[] = [];

    const result = await loadDesiredState(['examples/manifests'], {
      ...BUILT_IN_LOAD,
      env: {},
      onSecret: (value) => told.push(value),
    });

    expect(result.ok).toBe(true);
    expect(told).toEqual(['dev-only-not-a-real-secret']);
  });
});
