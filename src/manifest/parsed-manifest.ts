import type { ManifestError } from './manifest-error.js';
import type { ManifestFile } from './manifest-files.js';
import type { SourceLocation } from './source-location.js';

/**
 * One manifest file parsed, in its own module so that the in-process parser
 * (parse-manifest-file.ts) and the worker that runs it for large files
 * (parse-in-worker.ts) can both name it without importing each other.
 */
export interface ParsedManifest {
  readonly file: ManifestFile;
  /** The document as plain data (YAML 1.2 core schema). */
  readonly data: unknown;
  /**
   * Where every value is written, keyed by JSON Pointer from the document
   * root: the key of a mapping member, the start of a sequence item.
   * Nothing below an alias is listed; look up the nearest ancestor.
   */
  readonly locations: ReadonlyMap<string, SourceLocation>;
}

export type ParseOutcome =
  | { readonly ok: true; readonly manifest: ParsedManifest }
  | { readonly ok: false; readonly errors: readonly ManifestError[] };
