import { realpath, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ManifestError } from './manifest-error.js';
import { isInside } from './manifest-files.js';
import { entryLocation, entryPath, type RawEntry } from './raw-entry.js';
import { readBoundedFile } from './read-bounded-file.js';

/** A PEM or a secret is small; a bigger file is the wrong file. */
export const MAX_REFERENCED_FILE_BYTES = 1024 * 1024;

export interface ReferenceOptions {
  /** Environment that `{ env: NAME }` reads; passed in, never read from `process.env` here. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Lets `{ file }` and `ca_pem_file` point outside the manifest root. @default false */
  readonly allowOutsideRoot: boolean;
  /**
   * Whether `{ env }` and `{ file }` are read. When false (what `validate` does
   * unless `--require-secrets`), an env reference is checked only for its form
   * (the schema does that) and a file reference only for being a regular file
   * of at most MAX_REFERENCED_FILE_BYTES inside the root, so a job without
   * secrets (a fork's pull request) can validate. The value is then
   * UNRESOLVED_SECRET.
   */
  readonly readSecrets: boolean;
}

/** What an unread secret reference resolves to; only `validate` ever sees it. */
export const UNRESOLVED_SECRET = '';

export type Resolved =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly error: ManifestError };

/**
 * Resolves a secret-capable value (a literal, `{ env: NAME }` or
 * `{ file: PATH }`) of `entry` at `pointer` (relative to the entry). The
 * value itself never reaches a message.
 */
export async function resolveSecretValue(
  entry: RawEntry,
  pointer: string,
  value: unknown,
  options: ReferenceOptions,
): Promise<Resolved> {
  if (typeof value === 'string') return { ok: true, value };
  const reference = value as { env?: string; file?: string };
  if (!options.readSecrets) {
    if (reference.env !== undefined) return { ok: true, value: UNRESOLVED_SECRET };
    const found = await findReferencedFile(
      entry,
      `${pointer}/file`,
      pointer,
      String(reference.file),
      options,
    );
    return found.ok ? { ok: true, value: UNRESOLVED_SECRET } : found;
  }
  if (reference.env !== undefined) {
    const found = options.env[reference.env];
    if (found === undefined || found === '') {
      return {
        ok: false,
        error: new ManifestError(
          'env_not_set',
          entryLocation(entry, `${pointer}/env`),
          entryPath(entry, pointer),
          `environment variable ${reference.env} is ${found === undefined ? 'not set' : 'empty'}`,
        ),
      };
    }
    return { ok: true, value: found };
  }
  const read = await readReferencedFile(entry, `${pointer}/file`, pointer, String(reference.file), options);
  // A secret file usually ends with the newline an editor adds; the secret does not.
  return read.ok ? { ok: true, value: read.value.replace(/\r?\n$/, '') } : read;
}

/**
 * Reads a file named relative to the entry's manifest, refusing one that
 * resolves (symlinks followed) outside the manifest root.
 */
export async function readReferencedFile(
  entry: RawEntry,
  locationPointer: string,
  pathPointer: string,
  path: string,
  options: ReferenceOptions,
): Promise<Resolved> {
  const found = await findReferencedFile(entry, locationPointer, pathPointer, path, options);
  if (!found.ok) return found;
  const refuse = (message: string, cause?: unknown): Resolved => ({
    ok: false,
    error: new ManifestError(
      'reference_file',
      entryLocation(entry, locationPointer),
      entryPath(entry, pathPointer),
      message,
      cause === undefined ? undefined : { cause },
    ),
  });
  try {
    // Bounded on the read itself: the file may have grown or been swapped since it was checked.
    const read = await readBoundedFile(found.value, MAX_REFERENCED_FILE_BYTES);
    if (read.ok) return { ok: true, value: read.bytes.toString('utf8') };
    if (read.reason === 'not_regular') return refuse(`"${path}" is ${read.type}, not a file`);
    return refuse(`file "${path}" is larger than ${MAX_REFERENCED_FILE_BYTES} bytes`);
  } catch (error) {
    return refuse(`cannot read file "${path}"`, error);
  }
}

/**
 * Checks that a file named relative to the entry's manifest is a regular file
 * of at most MAX_REFERENCED_FILE_BYTES inside the manifest root (symlinks
 * followed), without reading it; the value is its real path.
 */
async function findReferencedFile(
  entry: RawEntry,
  locationPointer: string,
  pathPointer: string,
  path: string,
  options: ReferenceOptions,
): Promise<Resolved> {
  const location = entryLocation(entry, locationPointer);
  const fieldPath = entryPath(entry, pathPointer);
  const fail = (
    code: 'reference_file' | 'path_outside_root',
    message: string,
    cause?: unknown,
  ): Resolved => ({
    ok: false,
    error: new ManifestError(code, location, fieldPath, message, cause === undefined ? undefined : { cause }),
  });
  const outside = (): Resolved =>
    fail(
      'path_outside_root',
      `file "${path}" is outside the manifest root (the directory given on the command line); pass --allow-outside-root to allow it`,
    );
  const { root } = entry.manifest.file;
  let lexical = path;
  let real: string;
  try {
    lexical = resolve(await realpath(dirname(entry.manifest.file.absolute)), path);
    real = await realpath(lexical);
  } catch (error) {
    if (!options.allowOutsideRoot && !isInside(root, lexical)) return outside();
    return fail('reference_file', `file "${path}" does not exist (relative to this manifest)`, error);
  }
  if (!options.allowOutsideRoot && !isInside(root, real)) return outside();
  try {
    const info = await stat(real);
    if (!info.isFile()) return fail('reference_file', `"${path}" is not a file`);
    if (info.size > MAX_REFERENCED_FILE_BYTES) {
      return fail(
        'reference_file',
        `file "${path}" is ${info.size} bytes; at most ${MAX_REFERENCED_FILE_BYTES}`,
      );
    }
    return { ok: true, value: real };
  } catch (error) {
    return fail('reference_file', `cannot read file "${path}"`, error);
  }
}
