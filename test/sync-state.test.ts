import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DIFFERENCES,
  differenceState,
  formatDifferences,
  isSyncState,
  SYNC_STATE_MEANINGS,
  SYNC_STATES,
} from '../src/sync-state.js';

const GLOSSARY = readFileSync(join(import.meta.dirname, '../docs/glossary.md'), 'utf8');

describe('the vocabulary', () => {
  it.each(SYNC_STATES)('docs/glossary.md gives %s the meaning the code gives it', (state) => {
    expect(GLOSSARY).toContain(`| \`${state}\` | ${SYNC_STATE_MEANINGS[state]} |`);
  });

  it('names nothing in docs/glossary.md that the code lacks', () => {
    const documented = [...GLOSSARY.matchAll(/^\| `([a-z_]+)` \|/gm)].map((match) => match[1]);

    expect(documented).toEqual([...SYNC_STATES]);
  });

  it.each([
    [
      { skippedBecause: 'unique_key_taken', heldForSettle: true, desiredUnchangedSinceInSync: true },
      'skipped',
    ],
    [{ heldForSettle: true, desiredUnchangedSinceInSync: true }, 'held'],
    [{ desiredUnchangedSinceInSync: true }, 'drift'],
    [{ desiredUnchangedSinceInSync: false }, 'pending'],
    [{}, 'pending'],
  ] as const)('names the difference %j %s', (facts, state) => {
    expect(differenceState(facts)).toBe(state);
  });

  it('counts what is left to do in the vocabulary order, and says "in sync" when nothing is', () => {
    expect(formatDifferences({ held: 1, pending: 2, in_sync: 7, drift: 1 })).toBe(
      '2 pending, 1 drift, 1 held',
    );
    expect(formatDifferences({ in_sync: 7, skipped: 0 })).toBe('in sync');
    expect(formatDifferences({})).toBe('in sync');
  });

  it('knows its own names and nothing else', () => {
    expect(SYNC_STATES.every(isSyncState)).toBe(true);
    expect([...DIFFERENCES, 'in_sync'].sort()).toEqual([...SYNC_STATES].sort());
    expect(['in-sync', 'Drift', 'not_applied', 3, undefined].some(isSyncState)).toBe(false);
  });
});
