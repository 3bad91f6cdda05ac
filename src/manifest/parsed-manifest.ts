import type { FilePositions } from './file-positions.js';
import type { ManifestError } from './manifest-error.js';
import type { ManifestFile } from './manifest-files.js';

/**
 * One manifest file parsed, in its own module so that the in-process parser
 * (parse-manifest-file.ts) and the worker that runs it for large files
 * (parse-in-worker.ts) can both name it without importing each other.
 */
export interface ParsedManifest {
  readonly file: ManifestFile;
  /** The document as plain data (YAML 1.2 core schema). */
  readonly data: unknown;
  /** Where every value is written (file-positions.ts). */
  readonly positions: FilePositions;
}

export type ParseOutcome =
  | { readonly ok: true; readonly manifest: ParsedManifest }
  | { readonly ok: false; readonly errors: readonly ManifestError[] };
