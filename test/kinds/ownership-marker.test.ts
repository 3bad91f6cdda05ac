import { describe, expect, it } from 'vitest';
import { encodeMetadata, parseMetadata } from '../../src/kinds/ownership-marker.js';

describe('encodeMetadata', () => {
  it('writes compact JSON with keys sorted recursively and the marker under "edgesync"', () => {
    const encoded = encodeMetadata({ team: 'net', a: { z: 1, b: 2 } }, { owner: 'ci', name: 'office' });

    expect(encoded).toBe('{"a":{"b":2,"z":1},"edgesync":{"name":"office","owner":"ci"},"team":"net"}');
  });

  it('writes the marker alone when there is no user metadata', () => {
    expect(encodeMetadata(undefined, { owner: 'default', name: 'x' })).toBe(
      '{"edgesync":{"name":"x","owner":"default"}}',
    );
  });

  it('round-trips through parseMetadata', () => {
    const user = { team: 'net', tags: ['a', 'b'] };

    const parsed = parseMetadata(encodeMetadata(user, { owner: 'o', name: 'n' }));

    expect(parsed).toEqual({ marker: { owner: 'o', name: 'n' }, user });
  });
});

describe('parseMetadata', () => {
  it.each([
    ['undefined', undefined, null, undefined],
    ['null', null, null, undefined],
    ['empty string', '', null, undefined],
    ['not JSON', 'hello', null, 'hello'],
    ['broken JSON', '{"edgesync":', null, '{"edgesync":'],
    ['a JSON array', '[1,2]', null, '[1,2]'],
    ['a JSON string', '"x"', null, '"x"'],
    ['a JSON number', '42', null, '42'],
    ['object without marker', '{"team":"net"}', null, { team: 'net' }],
    ['marker not an object', '{"edgesync":"x","team":"net"}', null, { edgesync: 'x', team: 'net' }],
    ['marker without name', '{"edgesync":{"owner":"o"}}', null, { edgesync: { owner: 'o' } }],
    [
      'marker with non-string owner',
      '{"edgesync":{"owner":1,"name":"n"}}',
      null,
      { edgesync: { owner: 1, name: 'n' } },
    ],
    ['valid marker alone', '{"edgesync":{"owner":"o","name":"n"}}', { owner: 'o', name: 'n' }, undefined],
    [
      'valid marker and user keys',
      '{"edgesync":{"name":"n","owner":"o"},"team":"net"}',
      { owner: 'o', name: 'n' },
      { team: 'net' },
    ],
    ['empty object', '{}', null, undefined],
  ])('%s', (_label, raw, marker, user) => {
    expect(parseMetadata(raw)).toEqual({ marker, user });
  });
});
