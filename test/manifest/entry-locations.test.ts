import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/manifest/load-desired-state.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';

const POLICY = 'ipp_OfficeVpnPolicy000000000001';

describe('where loaded entries are written', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-locations-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // The loader keeps lines and columns in 16 bits while they fit: past 65,535 they must not wrap.
  it.each([
    ['a line past 65,535', '#\n'.repeat(70_000), ''],
    ['a column past 65,535', '', ' '.repeat(70_000)],
  ])('names the entry and its fields at %s', async (_case, comments, spaces) => {
    const text = `version: 1\n${comments}ip_policy_rules:\n  office-vpn: {ip_policy_id: ${POLICY},${spaces} cidr: 203.0.113.0/24, action: allow}\n`;
    await writeFile(join(dir, 'rules.yaml'), text);
    const line = 3 + comments.length / 2;
    const cidrColumn = (text.split('\n')[line - 1] ?? '').indexOf('cidr') + 1;

    const result = await loadDesiredState(['.'], { ...BUILT_IN_LOAD, cwd: dir });

    if (!result.ok) throw new Error(result.errors.map((error) => error.format()).join('\n'));
    const [entry] = result.value.entries;
    expect(entry?.location).toEqual({ file: 'rules.yaml', line, column: 3 });
    expect(entry?.fieldLocations['/cidr']).toEqual({
      file: 'rules.yaml',
      line,
      column: cidrColumn,
    });
  });
});
