import { describe, expect, it } from 'vitest';
import { assignEntryNames, nameCheckFrom, slugify } from '../../src/export/entry-names.js';
import { idPrefixTitles } from '../../src/kinds/id-titles.js';
import { KINDS } from '../../src/kinds/registry.js';
import { readManifestSchema } from '../../src/manifest/manifest-schema.js';

const definitions = readManifestSchema().definitions as { name: { pattern: string } };
const isValidName = nameCheckFrom(definitions.name.pattern, idPrefixTitles(KINDS).keys());

describe('slugify', () => {
  it.each([
    ['Office VPN', 'office-vpn'],
    ['  Café  (egress) ', 'cafe-egress'],
    ['web.example.com/app', 'web.example.com-app'],
    ['--__x__--', 'x'],
    ['!!!', ''],
    ['a'.repeat(80), 'a'.repeat(64)],
  ])('%j → %j', (text, slug) => {
    expect(slugify(text)).toBe(slug);
  });
});

describe('assignEntryNames', () => {
  it('keeps marker names, uses a unique hint, and falls back to the ID when hints collide or are invalid', () => {
    const names = assignEntryNames(
      [
        { id: 'ipr_B', hints: ['Twin'] },
        { id: 'ipr_A', hints: ['Twin'] },
        { id: 'ipr_C', markerName: 'office', hints: [] },
        { id: 'ipr_D', hints: ['Office'] },
        { id: 'ipr_E', hints: [undefined, 'From Metadata'] },
        { id: 'ipr_F', hints: ['ca_looks like an id'] },
      ],
      isValidName,
    );

    expect(Object.fromEntries(names)).toEqual({
      ipr_A: 'ipr-a',
      ipr_B: 'ipr-b',
      ipr_C: 'office',
      ipr_D: 'ipr-d',
      ipr_E: 'from-metadata',
      ipr_F: 'ipr-f',
    });
  });

  it('does not depend on the order the objects come in', () => {
    const candidates = [
      { id: 'ca_x', hints: ['Root'] },
      { id: 'ca_y', hints: ['Root'] },
      { id: 'ca_z', hints: ['Partner'] },
      { id: 'ca_X', hints: [] },
    ];

    const forward = assignEntryNames(candidates, isValidName);
    const backward = assignEntryNames([...candidates].reverse(), isValidName);

    expect(Object.fromEntries(backward)).toEqual(Object.fromEntries(forward));
    // ca_x and ca_X differ only in case: the second gets a suffix.
    expect(new Set(forward.values()).size).toBe(4);
  });
});
