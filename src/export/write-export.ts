import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { ExportError } from './export-error.js';
import { GENERATED_MARK } from './render-manifests.js';

/** A file to write, path relative to the output directory (`certs/corp-root.pem`). */
export interface ExportFile {
  readonly path: string;
  readonly content: string;
}

export interface WriteExportOptions {
  /** Overwrite files that an earlier export did not write. @default false */
  readonly force?: boolean;
  /** Tells temp files of concurrent writers apart. @default process.pid */
  readonly writerId?: number;
}

export interface WriteExportResult {
  readonly written: readonly string[];
  /** Files an earlier export wrote that this one no longer has (a kind now empty, a CA gone). */
  readonly removed: readonly string[];
}

const MANIFEST_EXTENSIONS = ['.yaml', '.yml'];
const SIDE_FILE_REFERENCE = /^\s*ca_pem_file:\s*(\S+)\s*$/gm;

/**
 * Writes an export into `directory`: each file to a hidden temp file beside
 * it, then renamed over the target, so a reader (the watcher, a concurrent
 * plan) sees either the old file or the new one, never half of one. A
 * non-empty file that an earlier export did not write is never replaced
 * without `force`; manifests an earlier export wrote that this one does not
 * (and the side files they referenced) are removed, so the directory holds
 * exactly the account.
 */
export async function writeExport(
  directory: string,
  files: readonly ExportFile[],
  options: WriteExportOptions = {},
): Promise<WriteExportResult> {
  const previous = await previousExport(directory);
  const targets = new Set(files.map((file) => file.path));
  if (!options.force) {
    for (const file of files) {
      if (previous.has(file.path)) continue;
      const existing = await existingSize(join(directory, file.path));
      if (existing !== undefined && existing > 0) {
        throw new ExportError(
          'export_would_overwrite',
          `${join(directory, file.path)} exists and was not written by edgesync export; move it away or pass --force`,
          { path: join(directory, file.path) },
        );
      }
    }
  }
  const writerId = options.writerId ?? process.pid;
  const written: string[] = [];
  for (const file of files) {
    const target = join(directory, file.path);
    const temp = join(dirname(target), `.${file.path.split('/').pop() ?? 'export'}.${writerId}.tmp`);
    try {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(temp, file.content, { mode: 0o644 });
      await rename(temp, target);
    } catch (cause) {
      await rm(temp, { force: true });
      throw new ExportError('export_write_failed', `cannot write ${target}`, { path: target, cause });
    }
    written.push(file.path);
  }
  const removed: string[] = [];
  for (const path of [...previous].sort()) {
    if (targets.has(path)) continue;
    await rm(join(directory, path), { force: true });
    removed.push(path);
  }
  return { written, removed };
}

/**
 * Files an earlier export wrote: manifests with the generated mark in their
 * header, and the side files those reference. Relative paths with `/`.
 */
async function previousExport(directory: string): Promise<Set<string>> {
  const owned = new Set<string>();
  for (const path of await listFiles(directory)) {
    if (!MANIFEST_EXTENSIONS.some((extension) => path.toLowerCase().endsWith(extension))) continue;
    const text = await readFile(join(directory, path), 'utf8').catch(() => '');
    const head = text.split('\n', 4);
    if (!head.some((line) => line.startsWith(GENERATED_MARK))) continue;
    owned.add(path);
    for (const match of text.matchAll(SIDE_FILE_REFERENCE)) {
      const reference = match[1];
      if (reference === undefined) continue;
      const resolved = relative(directory, join(directory, dirname(path), reference))
        .split(sep)
        .join('/');
      // Only files inside the directory: an edited manifest must not make an export delete files elsewhere.
      if (!resolved.startsWith('..') && (await existingSize(join(directory, resolved))) !== undefined) {
        owned.add(resolved);
      }
    }
  }
  return owned;
}

async function listFiles(directory: string, prefix = ''): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(join(directory, prefix), { withFileTypes: true });
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const entry of entries) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) found.push(...(await listFiles(directory, path)));
    else if (entry.isFile()) found.push(path);
  }
  return found;
}

async function existingSize(path: string): Promise<number | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? info.size : 1;
  } catch {
    return undefined;
  }
}
