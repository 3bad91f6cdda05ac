import { lstat, mkdir, readdir, readlink, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Writes a ConfigMap volume the way the kubelet's atomic writer does, so that
 * tests see what a pod sees:
 *
 *   mount/..2026_11_23_13_00_00.000000001/x.yaml   the files of one version
 *   mount/..2026_11_23_13_00_00.000000001/certs/ca.pem
 *   mount/..data -> ..2026_11_23_13_00_00.000000001
 *   mount/x.yaml -> ..data/x.yaml                  one symlink per top-level entry
 *   mount/certs  -> ..data/certs
 *
 * An update writes a new timestamped directory, points a `..data_tmp`
 * symlink at it and renames that over `..data` (the one atomic step), then
 * adds the visible symlinks of new entries, removes those of entries that
 * are gone, and deletes the old directory.
 *
 * @param files path under the mount (as `items[].path` gives it) → content
 */
export async function writeConfigMapVolume(mount: string, files: ReadonlyMap<string, string>): Promise<void> {
  await mkdir(mount, { recursive: true });
  const previous = await readDataLink(mount);
  const version = `..${timestamp()}`;
  for (const [path, content] of files) {
    const target = join(mount, version, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  await symlink(version, join(mount, '..data_tmp'));
  await rename(join(mount, '..data_tmp'), join(mount, '..data'));

  const visible = new Set([...files.keys()].map((path) => path.split('/')[0] ?? path));
  for (const entry of visible) {
    const link = join(mount, entry);
    if (!(await exists(link))) await symlink(join('..data', entry), link);
  }
  for (const entry of await readdir(mount)) {
    if (!entry.startsWith('..') && !visible.has(entry)) await unlink(join(mount, entry));
  }
  if (previous !== undefined) await rm(join(mount, previous), { recursive: true, force: true });
}

let sequence = 0;
/** `2026_11_23_13_00_00.000000001`: the kubelet's format; the sequence keeps names unique within a millisecond. */
function timestamp(): string {
  sequence += 1;
  const iso = new Date().toISOString();
  return `${iso.slice(0, 19).replace(/[-T:]/g, '_')}.${String(sequence).padStart(9, '0')}`;
}

async function readDataLink(mount: string): Promise<string | undefined> {
  return readlink(join(mount, '..data')).catch(() => undefined);
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}
