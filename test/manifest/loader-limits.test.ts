import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/manifest/load-desired-state.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';

const HEADER = 'version: 1\n';
const OIDC_EDGE = (secret: string): string => `${HEADER}https_edges:
  web:
    hostports: [web.example.com:443]
    routes:
      - match_type: path_prefix
        match: /app
        oidc:
          issuer: https://accounts.example.com
          client_id: edge-app
          client_secret: ${secret}
`;

describe('loadDesiredState on real files', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-manifest-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a 6 MB file before reading it', async () => {
    await writeFile(join(dir, 'big.yaml'), `${HEADER}# ${'x'.repeat(6 * 1024 * 1024)}\n`);

    const result = await loadDesiredState(['.'], { ...BUILT_IN_LOAD, cwd: dir });

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => [error.code, error.file, error.line, error.column])).toEqual([
      ['file_too_large', 'big.yaml', undefined, undefined],
    ]);
  });

  it('refuses a billion-laughs file without expanding it', async () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let level = 1; level < 12; level += 1) {
      const previous = String.fromCharCode(96 + level);
      const name = String.fromCharCode(97 + level);
      levels.push(`${name}: &${name} [${Array(10).fill(`*${previous}`).join(',')}]`);
    }
    await writeFile(join(dir, 'lol.yaml'), `${HEADER}${levels.join('\n')}\n`);

    const result = await loadDesiredState(['.'], { ...BUILT_IN_LOAD, cwd: dir });

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => error.code)).toEqual(['too_many_aliases']);
  });

  it('reports a path that does not exist', async () => {
    const result = await loadDesiredState(['missing.yaml'], { ...BUILT_IN_LOAD, cwd: dir });

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]?.format()).toBe('missing.yaml: no such file or directory');
  });

  it('refuses { file: ../../etc/passwd } and a symlink that leaves the root', async () => {
    const root = join(dir, 'manifests');
    await mkdir(root);
    await writeFile(join(dir, 'outside-secret.txt'), 'outside-value\n');
    await symlink(join(dir, 'outside-secret.txt'), join(root, 'link.txt'));
    await writeFile(join(root, 'a.yaml'), OIDC_EDGE('{ file: ../../etc/passwd }'));
    await writeFile(
      join(root, 'b.yaml'),
      OIDC_EDGE('{ file: link.txt }').replace('web:', 'web2:').replace('web.example.com', 'web2.example.com'),
    );

    const result = await loadDesiredState(['manifests'], { ...BUILT_IN_LOAD, cwd: dir });

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => [error.code, error.file])).toEqual([
      ['path_outside_root', join('manifests', 'a.yaml')],
      ['path_outside_root', join('manifests', 'b.yaml')],
    ]);
    expect(result.errors.map((error) => error.message).join('\n')).not.toContain('outside-value');
  });

  it('follows a reference outside the root with allowOutsideRoot', async () => {
    const root = join(dir, 'manifests');
    await mkdir(root);
    await writeFile(join(dir, 'secret.txt'), 'shared-value\n');
    await writeFile(join(root, 'a.yaml'), OIDC_EDGE('{ file: ../secret.txt }'));

    const result = await loadDesiredState(['manifests'], {
      ...BUILT_IN_LOAD,
      cwd: dir,
      allowOutsideRoot: true,
    });

    if (!result.ok) throw new Error(result.errors.map((error) => error.format()).join('\n'));
    const routes = result.value.entries[0]?.spec.routes as { oidc: { client_secret: string } }[];
    expect(routes[0]?.oidc.client_secret).toBe('shared-value');
  });

  it('reads { env } from the env option and never puts the value in a message', async () => {
    await writeFile(
      join(dir, 'cas.yaml'),
      `${HEADER}certificate_authorities:\n  corp:\n    ca_pem: { env: CA_PEM }\n`,
    );

    const result = await loadDesiredState(['.'], {
      ...BUILT_IN_LOAD,
      cwd: dir,
      env: { CA_PEM: 'very-secret-not-a-pem' },
    });

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => error.code)).toEqual(['invalid_pem']);
    expect(JSON.stringify(result.errors.map((error) => [error.message, error.toJSON()]))).not.toContain(
      'very-secret',
    );
  });

  it('reads directories recursively and sorted, skipping hidden, backup and swap files', async () => {
    await mkdir(join(dir, 'nested'));
    const rule = (name: string, cidr: string): string =>
      `${HEADER}ip_policy_rules:\n  ${name}:\n    ip_policy_id: ipp_A1\n    cidr: ${cidr}\n    action: deny\n`;
    await writeFile(join(dir, 'b.yml'), rule('b', '10.0.2.0/24'));
    await writeFile(join(dir, 'nested', 'a.yaml'), rule('a', '10.0.1.0/24'));
    for (const ignored of ['.hidden.yaml', '.#b.yaml', 'b.yaml~', 'b.yaml.swp', 'notes.txt', '#b.yaml#']) {
      await writeFile(join(dir, ignored), 'this: [is not valid');
    }

    const result = await loadDesiredState(['.'], { ...BUILT_IN_LOAD, cwd: dir });

    if (!result.ok) throw new Error(result.errors.map((error) => error.format()).join('\n'));
    expect(result.value.files).toEqual(['b.yml', join('nested', 'a.yaml')]);
    expect(result.value.entries.map((entry) => entry.name)).toEqual(['a', 'b']);
  });

  it('reads YAML 1.2 core: no/on are strings, 0777 is decimal', async () => {
    await writeFile(
      join(dir, 'r.yaml'),
      `${HEADER}ip_policy_rules:\n  r:\n    ip_policy_id: ipp_A1\n    cidr: 10.0.0.0/8\n    action: deny\n    description: no\n    metadata: { flag: on, mode: 0777 }\n`,
    );

    const result = await loadDesiredState(['.'], { ...BUILT_IN_LOAD, cwd: dir });

    if (!result.ok) throw new Error(result.errors.map((error) => error.format()).join('\n'));
    expect(result.value.entries[0]?.spec).toMatchObject({
      description: 'no',
      metadata: { flag: 'on', mode: 777 },
    });
  });

  it('gives the same hash for the same state and another for a changed one', async () => {
    await writeFile(join(dir, 'r.yaml'), `${HEADER}reserved_addrs:\n  x: { description: one, region: eu }\n`);
    const first = await loadDesiredState(['.'], { ...BUILT_IN_LOAD, cwd: dir });
    await writeFile(join(dir, 'r.yaml'), `${HEADER}reserved_addrs:\n  x: { region: eu, description: one }\n`);
    const reordered = await loadDesiredState(['.'], { ...BUILT_IN_LOAD, cwd: dir });
    await writeFile(join(dir, 'r.yaml'), `${HEADER}reserved_addrs:\n  x: { region: eu, description: two }\n`);

    const changed = await loadDesiredState(['.'], { ...BUILT_IN_LOAD, cwd: dir });

    if (!first.ok || !reordered.ok || !changed.ok) throw new Error('expected valid manifests');
    expect(reordered.value.hash).toBe(first.value.hash);
    expect(changed.value.hash).not.toBe(first.value.hash);
  });
});
