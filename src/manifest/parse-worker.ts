import { parentPort } from 'node:worker_threads';
import { type ParseRequest, transferOutcome, WORKER_READY } from './parse-in-worker.js';
import { parseManifestBytes } from './parse-manifest-file.js';

/**
 * A worker of parse-in-worker.ts's pool: says it is ready (its modules
 * loaded), then parses each file it is sent and answers with the outcome.
 */
parentPort?.postMessage(WORKER_READY);
parentPort?.on('message', ({ file, bytes }: ParseRequest) => {
  parentPort?.postMessage(transferOutcome(parseManifestBytes(file, bytes)));
});
