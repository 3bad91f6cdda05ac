import { join, posix } from 'node:path';
import { parse } from 'yaml';
import { MAX_MANIFEST_BYTES } from '../manifest/parse-manifest-file.js';
import { ExportDirectory, type ExportDirectoryOptions } from './export-directory.js';
import { ExportError } from './export-error.js';
import { GENERATED_MARK } from './render-manifests.js';

/** A file to write, path relative to the output directory (`certs/corp-root.pem`). */
export interface ExportFile {
  readonly path: string;
  readonly content: string;
}

/**
 * What this export saw, so that it changes only what it knows about: a
 * file of an earlier export is removed, and an entry of one dropped, only
 * when its kind was read in full this time and its object is truly gone.
 */
export interface ExportScope {
  /** Kinds read in full this time (listed to the last page; not the module-only kinds, which are read by ID). */
  readonly complete: ReadonlySet<string>;
  /** Whether an entry of an earlier export still stands for an object in the account (its `id`, or its name as an owned marker). */
  readonly stillInAccount: (kind: string, name: string, id: string | undefined) => boolean;
}

export interface WriteExportOptions {
  /** Overwrite files that an earlier export did not write, and drop entries this export did not read. @default false */
  readonly force?: boolean;
  /**
   * What this export read. Without it every kind counts as read in full and
   * every earlier entry as gone (the directory then holds exactly `files`).
   */
  readonly scope?: ExportScope;
  /** How the directory is reached (ExportDirectory). @default descriptor paths where the system has them */
  readonly directory?: ExportDirectoryOptions;
}

export interface WriteExportResult {
  readonly written: readonly string[];
  /** Files an earlier export wrote that this one no longer has (a kind now empty, a CA gone). */
  readonly removed: readonly string[];
  /** Files an earlier export wrote that this one left alone: of kinds it did not read in full. */
  readonly kept: readonly string[];
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
 * exactly the account. Nothing outside `directory` is written or removed
 * (ExportDirectory): every refusal comes before the first file is written.
 */
export async function writeExport(
  directory: string,
  files: readonly ExportFile[],
  options: WriteExportOptions = {},
): Promise<WriteExportResult> {
  const out = await ExportDirectory.open(directory, options.directory);
  try {
    return await writeInto(out, files, options);
  } finally {
    await out.close();
  }
}

async function writeInto(
  out: ExportDirectory,
  files: readonly ExportFile[],
  options: WriteExportOptions,
): Promise<WriteExportResult> {
  const directory = out.path;
  const previous = await previousExport(out);
  const targets = new Set(files.map((file) => file.path));
  const scope = options.scope ?? EVERYTHING_READ;
  // Manifests (and the side files they name) of kinds this export did not read in full are not its to change.
  const untouchable = new Set<string>();
  for (const [path, manifest] of previous.manifests) {
    if (targets.has(path)) {
      if (!options.force) refuseDroppedEntries(directory, path, manifest, files, scope);
      continue;
    }
    const gone = manifest.entries.every(
      (entry) => scope.complete.has(entry.kind) && !scope.stillInAccount(entry.kind, entry.name, entry.id),
    );
    if (gone && manifest.kinds.every((kind) => scope.complete.has(kind))) continue;
    untouchable.add(path);
    for (const side of manifest.sideFiles) untouchable.add(side);
  }
  for (const file of files) {
    // Every directory on the way is checked before anything is written.
    const existing = await out.entry(file.path);
    if (!options.force && !previous.owned.has(file.path)) {
      if (existing !== undefined && (!existing.isFile() || existing.size > 0)) {
        throw new ExportError(
          'export_would_overwrite',
          `${join(directory, file.path)} exists and was not written by edgesync export; move it away or pass --force`,
          { path: join(directory, file.path) },
        );
      }
    }
  }
  const written: string[] = [];
  for (const file of files) {
    await out.writeAtomically(file.path, file.content);
    written.push(file.path);
  }
  const removed: string[] = [];
  const kept: string[] = [];
  for (const path of [...previous.owned].sort()) {
    if (targets.has(path)) continue;
    if (untouchable.has(path)) {
      kept.push(path);
      continue;
    }
    await out.remove(path);
    removed.push(path);
  }
  return { written, removed, kept };
}

const EVERYTHING_READ: ExportScope = {
  complete: { has: () => true } as unknown as ReadonlySet<string>,
  stillInAccount: () => false,
};

/** An earlier export's manifest: the kinds it holds, its entries, and the side files it names. */
interface PreviousManifest {
  readonly kinds: readonly string[];
  readonly entries: readonly { readonly kind: string; readonly name: string; readonly id?: string }[];
  readonly sideFiles: readonly string[];
}

/**
 * Rewriting `path` must not drop an entry whose object is still in the
 * account (an export without --include-unmanaged, or naming fewer edges
 * by ID, than the one before).
 */
function refuseDroppedEntries(
  directory: string,
  path: string,
  manifest: PreviousManifest,
  files: readonly ExportFile[],
  scope: ExportScope,
): void {
  const next = entriesOf(files.find((file) => file.path === path)?.content ?? '');
  const kept = new Set(next.map((entry) => `${entry.kind}.${entry.name}`));
  const dropped = manifest.entries.filter(
    (entry) =>
      !kept.has(`${entry.kind}.${entry.name}`) &&
      (!scope.complete.has(entry.kind) || scope.stillInAccount(entry.kind, entry.name, entry.id)),
  );
  if (dropped.length === 0) return;
  const names = dropped.map((entry) => `${entry.kind}.${entry.name}`).join(', ');
  throw new ExportError(
    'export_would_drop',
    `${join(directory, path)}: rewriting it would drop ${names}, which this export left out but the account still holds (export them again: --include-unmanaged, or --tcp-edge/--tls-edge with their IDs), or pass --force`,
    { path: join(directory, path) },
  );
}

/** The entries of a manifest's text, by top-level collection; nothing for text that is not a mapping. */
function entriesOf(text: string): { kind: string; name: string; id?: string }[] {
  let data: unknown;
  try {
    data = parse(text);
  } catch {
    return [];
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return [];
  const entries: { kind: string; name: string; id?: string }[] = [];
  for (const [kind, collection] of Object.entries(data)) {
    if (collection === null || typeof collection !== 'object' || Array.isArray(collection)) continue;
    for (const [name, value] of Object.entries(collection as Record<string, unknown>)) {
      const id = (value as { id?: unknown } | null)?.id;
      entries.push({ kind, name, ...(typeof id === 'string' ? { id } : {}) });
    }
  }
  return entries;
}

/**
 * Files an earlier export wrote: manifests with the generated mark in their
 * header, and the side files those reference. Relative paths with `/`. A
 * side file is reached as the export would remove it: a reference through a
 * linked directory is refused here, before anything is written.
 */
async function previousExport(
  out: ExportDirectory,
): Promise<{ owned: Set<string>; manifests: Map<string, PreviousManifest> }> {
  const owned = new Set<string>();
  const manifests = new Map<string, PreviousManifest>();
  for (const path of await out.listFiles()) {
    if (!MANIFEST_EXTENSIONS.some((extension) => path.toLowerCase().endsWith(extension))) continue;
    // Bounded like every manifest read: a huge file here is not one an export wrote.
    const read = await out.read(path, MAX_MANIFEST_BYTES).catch(() => undefined);
    const text = read?.ok ? read.bytes.toString('utf8') : '';
    const head = text.split('\n', 4);
    if (!head.some((line) => line.startsWith(GENERATED_MARK))) continue;
    owned.add(path);
    const entries = entriesOf(text);
    const sideFiles: string[] = [];
    manifests.set(path, { kinds: [...new Set(entries.map((entry) => entry.kind))], entries, sideFiles });
    for (const match of text.matchAll(SIDE_FILE_REFERENCE)) {
      const reference = match[1];
      if (reference === undefined) continue;
      const resolved = posix.normalize(posix.join(posix.dirname(path), reference));
      // Only files inside the directory: an edited manifest must not make an export delete files elsewhere.
      if (posix.isAbsolute(reference) || !resolved.split('/').every(isPlainName)) continue;
      const found = await out.entry(resolved);
      if (found !== undefined && !found.isDirectory()) {
        owned.add(resolved);
        sideFiles.push(resolved);
      }
    }
  }
  return { owned, manifests };
}

/** A path segment that names an entry of its directory ('..', '.' and '' do not). */
function isPlainName(segment: string): boolean {
  return segment !== '' && segment !== '.' && segment !== '..';
}
