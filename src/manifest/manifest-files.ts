import { readdir, realpath, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ManifestError } from './manifest-error.js';

/** One manifest file to read, and the root its `{ file }` references may not leave. */
export interface ManifestFile {
  /** As given on the command line, or joined onto the directory given: what messages show. */
  readonly display: string;
  readonly absolute: string;
  /** Real path of the directory given, or of the file's directory when a file was given. */
  readonly root: string;
}

const MANIFEST_EXTENSIONS = ['.yaml', '.yml'];

/** Hidden files, and what editors leave beside the files they edit (`.#x`, `x~`, `x.swp`, `#x#`). */
function isIgnoredName(name: string): boolean {
  return (
    name.startsWith('.') ||
    name.startsWith('#') ||
    name.endsWith('~') ||
    /\.(swp|swo|swx|bak|orig|tmp)$/i.test(name)
  );
}

function isManifestName(name: string): boolean {
  const lower = name.toLowerCase();
  return MANIFEST_EXTENSIONS.some((ext) => lower.endsWith(ext));
}

/**
 * Expands the paths given into manifest files: files as given (whatever
 * their extension, since the user named them), directories recursively,
 * sorted by name so the merge order never depends on the file system.
 */
export async function collectManifestFiles(
  paths: readonly string[],
  cwd: string,
): Promise<{ files: ManifestFile[]; errors: ManifestError[] }> {
  const files: ManifestFile[] = [];
  const errors: ManifestError[] = [];
  const seen = new Set<string>();
  for (const given of paths) {
    const absolute = resolve(cwd, given);
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(absolute);
    } catch (error) {
      errors.push(
        new ManifestError(
          'file_not_found',
          { file: given, line: 1, column: 1 },
          '',
          'no such file or directory',
          {
            cause: error,
          },
        ),
      );
      continue;
    }
    if (info.isDirectory()) {
      const root = await realpath(absolute);
      for (const relative of await listManifestsUnder(absolute)) {
        const file = join(absolute, relative);
        if (seen.has(file)) continue;
        seen.add(file);
        files.push({ display: join(given, relative), absolute: file, root });
      }
    } else {
      if (seen.has(absolute)) continue;
      seen.add(absolute);
      files.push({ display: given, absolute, root: await realpath(dirname(absolute)) });
    }
  }
  return { files, errors };
}

async function listManifestsUnder(directory: string): Promise<string[]> {
  const found: string[] = [];
  const entries = await readdir(directory, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (isIgnoredName(entry.name)) continue;
    if (entry.isDirectory()) {
      for (const nested of await listManifestsUnder(join(directory, entry.name))) {
        found.push(join(entry.name, nested));
      }
    } else if ((entry.isFile() || entry.isSymbolicLink()) && isManifestName(entry.name)) {
      found.push(entry.name);
    }
  }
  return found;
}
