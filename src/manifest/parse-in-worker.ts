import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ManifestError, type ManifestErrorCode } from './manifest-error.js';
import type { ManifestFile } from './manifest-files.js';
import type { ParsedManifest, ParseOutcome } from './parsed-manifest.js';
import type { SourceLocation } from './source-location.js';

/** Files up to this size are parsed on the calling thread: a few milliseconds. */
export const INLINE_PARSE_BYTES = 256 * 1024;

/** Heap of the parsing worker, MB: a 5 MB manifest parses in far less; a pathological one is refused. */
const WORKER_HEAP_MB = 96;

/** A ManifestError as it crosses the thread boundary (structured clone keeps no class). */
export interface TransferredError {
  readonly code: ManifestErrorCode;
  readonly location: SourceLocation;
  readonly path: string;
  readonly detail: string;
}

export type TransferredOutcome =
  | { readonly ok: true; readonly manifest: Omit<ParsedManifest, 'file'> }
  | { readonly ok: false; readonly errors: readonly TransferredError[] };

export function transferOutcome(outcome: ParseOutcome): TransferredOutcome {
  if (outcome.ok)
    return { ok: true, manifest: { data: outcome.manifest.data, positions: outcome.manifest.positions } };
  return {
    ok: false,
    errors: outcome.errors.map((error) => ({
      code: error.code,
      location: { file: error.file, line: error.line, column: error.column },
      path: error.path,
      detail: error.detail,
    })),
  };
}

const WORKER_SCRIPT = new URL('./parse-worker.js', import.meta.url);

/**
 * Parses a large manifest in a short-lived worker thread, so the caller's
 * event loop stays free (the daemon answers /healthz while a 5 MB file
 * parses) and the parse's memory is bounded by the worker's heap and given
 * back when it ends. From TypeScript sources (tests without a build) the
 * compiled worker script does not exist, and the parse runs inline.
 */
export async function parseInWorker(file: ManifestFile, bytes: Buffer): Promise<ParseOutcome> {
  if (!existsSync(fileURLToPath(WORKER_SCRIPT))) {
    const { parseManifestBytes } = await import('./parse-manifest-file.js');
    return parseManifestBytes(file, bytes);
  }
  // Imported here: a run whose files are all small never loads the worker machinery (issue 18: start time).
  const { Worker } = await import('node:worker_threads');
  const transferred = await new Promise<TransferredOutcome | Error>((resolve) => {
    const worker = new Worker(WORKER_SCRIPT, {
      workerData: { file, bytes },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    worker.once('message', (message: TransferredOutcome) => resolve(message));
    worker.once('error', (error) => resolve(error));
    worker.once('exit', () => resolve(new Error('the parsing worker exited without an answer')));
  });
  if (transferred instanceof Error) {
    const tooComplex = (transferred as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
    return {
      ok: false,
      errors: [
        new ManifestError(
          'file_too_large',
          { file: file.display, line: 1, column: 1 },
          '',
          tooComplex
            ? `parsing needs more than ${WORKER_HEAP_MB} MB; split the file or write it out more simply`
            : 'cannot parse the file',
          { cause: transferred },
        ),
      ],
    };
  }
  if (transferred.ok) return { ok: true, manifest: { file, ...transferred.manifest } };
  return {
    ok: false,
    errors: transferred.errors.map(
      (error) => new ManifestError(error.code, error.location, error.path, error.detail),
    ),
  };
}
