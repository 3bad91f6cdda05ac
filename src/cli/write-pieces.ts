import { open } from 'node:fs/promises';
import type { Writable } from 'node:stream';

/** About what a pipe takes in one write: fewer, larger writes than one per piece. */
const BATCH_CHARS = 64 * 1024;

function* batches(pieces: Iterable<string>): Generator<string> {
  let batch = '';
  for (const piece of pieces) {
    batch += piece;
    if (batch.length >= BATCH_CHARS) {
      yield batch;
      batch = '';
    }
  }
  if (batch !== '') yield batch;
}

/**
 * Writes text made piece by piece (a plan's renderers yield one object at a
 * time) in batches, waiting when the stream asks to: the output of a plan of
 * 100,000 changes (33 MB of text, 190 MB of JSON) is never held whole
 * (docs/performance.md).
 */
export async function writePieces(stream: Writable, pieces: Iterable<string>): Promise<void> {
  for (const batch of batches(pieces)) {
    // A stream that failed while we made the next batch (EPIPE: the reader has gone) emits no second 'error'.
    if (stream.errored) throw stream.errored;
    if (stream.destroyed) throw new Error('the output was closed before the plan was written');
    if (!stream.write(batch)) await drained(stream);
  }
}

/** Resolves on 'drain'; rejects on 'error' or 'close', either of which means no 'drain' will come. */
function drained(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (error?: Error): void => {
      stream.off('drain', onDrain);
      stream.off('error', onError);
      stream.off('close', onClose);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onDrain = (): void => settle();
    const onError = (error: Error): void => settle(error);
    const onClose = (): void =>
      settle(stream.errored ?? new Error('the output was closed before the plan was written'));
    stream.on('drain', onDrain);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}

/** The same into a new file (replacing one that is there) created with `mode`. */
export async function writeFilePieces(path: string, pieces: Iterable<string>, mode: number): Promise<void> {
  const file = await open(path, 'w', mode);
  try {
    for (const batch of batches(pieces)) await file.write(batch);
  } finally {
    await file.close();
  }
}
