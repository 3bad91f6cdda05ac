import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/edgesync-cli.js';

interface LockedPackage {
  readonly version?: string;
  readonly engines?: { readonly node?: string } | readonly string[];
}

async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(join(ROOT, file), 'utf8')) as T;
}

describe('npm ci on the oldest Node that package.json allows', () => {
  it('installs no package whose engines refuse that Node (npm would print EBADENGINE)', async () => {
    const manifest = await readJson<{ engines: { node: string } }>('package.json');
    const lock = await readJson<{ packages: Record<string, LockedPackage> }>('package-lock.json');
    const oldest = semver.minVersion(manifest.engines.node);
    if (oldest === null)
      throw new Error(`package.json engines.node: no version satisfies ${manifest.engines.node}`);

    const refusing = Object.entries(lock.packages).flatMap(([path, locked]) => {
      const range = Array.isArray(locked.engines) ? undefined : (locked.engines as { node?: string })?.node;
      if (path === '' || range === undefined) return [];
      return semver.satisfies(oldest, range) ? [] : [`${path}@${locked.version}: node ${range}`];
    });

    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`Node >= ${oldest.major}.${oldest.minor}`);
    expect(refusing).toEqual([]);
  });
});
