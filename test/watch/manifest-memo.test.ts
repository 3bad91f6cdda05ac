import { cp, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalHash } from '../../src/canonical-json.js';
import { KINDS } from '../../src/kinds/registry.js';
import type { DesiredState } from '../../src/manifest/desired-state.js';
import { type LoadOptions, loadDesiredState } from '../../src/manifest/load-desired-state.js';
import { ManifestMemo } from '../../src/manifest/manifest-memo.js';
import { hasSecretField, withoutSecretValues } from '../../src/manifest/secret-values.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';

const POLICY = 'ipp_2a8bxxxxxxxxxxxxxxxxxxxxxxxxx';
/** Rules whose CIDRs are their own (one rule per CIDR and policy): from the name's first letter and the index. */
const rules = (...names: string[]): string =>
  `version: 1\nip_policy_rules:\n${names
    .map(
      (name, index) =>
        `  ${name}:\n    ip_policy_id: ${POLICY}\n    cidr: 10.${name.charCodeAt(0)}.${index}.0/24\n    action: deny\n    description: ${name}\n`,
    )
    .join('')}`;

/** The daemon's way of loading: one memo across loads. */
async function load(
  dir: string,
  memo: ManifestMemo,
  options: LoadOptions = { ...BUILT_IN_LOAD },
): Promise<DesiredState> {
  const result = await loadDesiredState(['m'], { cwd: dir, memo, ...options });
  if (!result.ok) throw new Error(result.errors.map((error) => error.format()).join('\n'));
  return result.value;
}

function entry(state: DesiredState, name: string) {
  return state.entries.find((candidate) => candidate.name === name);
}

describe('the manifest memo: a change re-reads only the files that changed', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-memo-'));
    await cp(join(import.meta.dirname, '..', '..', 'examples', 'manifests'), join(dir, 'm'), {
      recursive: true,
    });
    await writeFile(join(dir, 'm', 'a.yaml'), rules('a1', 'a2'));
    await writeFile(join(dir, 'm', 'b.yaml'), rules('b1'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the unchanged files’ entries, takes the edit, and hashes as a load without memo does', async () => {
    const memo = new ManifestMemo();
    const first = await load(dir, memo);
    await writeFile(
      join(dir, 'm', 'a.yaml'),
      rules('a1', 'a2').replace('description: a2', 'description: edited'),
    );

    const second = await load(dir, memo);
    const fresh = await loadDesiredState(['m'], { ...BUILT_IN_LOAD, cwd: dir });

    expect(entry(second, 'b1')).toBe(entry(first, 'b1'));
    expect(entry(second, 'a1')).not.toBe(entry(first, 'a1'));
    expect(entry(second, 'a2')?.spec.description).toBe('edited');
    if (!fresh.ok) throw new Error('the manifests are valid');
    expect(second.hash).toBe(fresh.value.hash);
    expect(second.hash).not.toBe(first.hash);
    // Each secret's value is masked in the hash, which /status and saved plans show.
    const kindOf = new Map(KINDS.filter(hasSecretField).map((kind) => [kind.name, kind]));
    expect(second.hash).toBe(
      canonicalHash(
        second.entries.map(({ kind, name, id, protect, spec }) => {
          const withSecrets = kindOf.get(kind);
          return {
            kind,
            name,
            id,
            protect,
            spec: withSecrets ? withoutSecretValues(withSecrets, spec) : spec,
          };
        }),
      ),
    );
  });

  it('re-runs the checks across files: a duplicate name in the changed file meets the unchanged one, and the fix mends it', async () => {
    const memo = new ManifestMemo();
    await load(dir, memo);
    await writeFile(join(dir, 'm', 'a.yaml'), rules('a1', 'b1'));

    const duplicated = await loadDesiredState(['m'], { ...BUILT_IN_LOAD, cwd: dir, memo });
    await writeFile(join(dir, 'm', 'a.yaml'), rules('a1', 'a3'));
    const mended = await load(dir, memo);

    expect(duplicated.ok).toBe(false);
    if (duplicated.ok) return;
    expect(duplicated.errors.map((error) => error.code)).toEqual(['duplicate_name']);
    expect(duplicated.errors[0]?.format()).toContain('also defined at m/a.yaml');
    expect(mended.entries.map((found) => found.name)).toEqual(expect.arrayContaining(['a1', 'a3', 'b1']));
  });

  it('re-checks references across files: an unchanged file naming a CA renamed in another file is an error', async () => {
    const memo = new ManifestMemo();
    const cas = join(dir, 'm', 'certificate-authorities.yaml');
    const original = await readFile(cas, 'utf8');
    await load(dir, memo);

    await writeFile(cas, original.replace('  corp-root:', '  corp-root-2:'));
    const renamed = await loadDesiredState(['m'], { ...BUILT_IN_LOAD, cwd: dir, memo });

    expect(renamed.ok).toBe(false);
    if (renamed.ok) return;
    expect(new Set(renamed.errors.map((error) => error.code))).toEqual(new Set(['unknown_reference']));
    expect(renamed.errors.map((error) => error.file).sort()).toEqual([
      join('m', 'https-edges.yaml'),
      join('m', 'tls-edges.yaml'),
    ]);
  });

  it('drops a deleted file’s entries and takes a renamed file under its new name', async () => {
    const memo = new ManifestMemo();
    await load(dir, memo);

    await rename(join(dir, 'm', 'a.yaml'), join(dir, 'm', 'c.yaml'));
    await rm(join(dir, 'm', 'b.yaml'));
    const after = await load(dir, memo);

    expect(entry(after, 'b1')).toBeUndefined();
    expect(entry(after, 'a1')?.location.file).toBe(join('m', 'c.yaml'));
    expect(memo.size).toBe(after.files.length);
  });

  it('reads a referenced file again only once the memo forgets the files that resolve references (a resync or SIGHUP), and keeps the others', async () => {
    const memo = new ManifestMemo();
    const secretPath = join(dir, 'm', 'secrets', 'oidc-client-secret.txt');
    const secretOf = (state: DesiredState): string =>
      JSON.stringify(
        state.entries.filter((found) => found.kind === 'https_edges').map((found) => found.spec),
      );
    const first = await load(dir, memo);
    const original = await readFile(secretPath, 'utf8');
    await writeFile(secretPath, `${original.trim()}-rotated\n`);

    const onChange = await load(dir, memo);
    memo.forgetResolvedReferences();
    const onResync = await load(dir, memo);

    expect(secretOf(onChange)).toBe(secretOf(first));
    expect(secretOf(onResync)).toContain('-rotated');
    // Rules read nothing but their file: the same bytes gave the same entries, not built again.
    expect(entry(onResync, 'a1')).toBe(entry(first, 'a1'));
  });
});
