import { parentPort, workerData } from 'node:worker_threads';
import type { ManifestFile } from './manifest-files.js';
import { transferOutcome } from './parse-in-worker.js';
import { parseManifestBytes } from './parse-manifest-file.js';

/** The worker of parse-in-worker.ts: one parse, one answer, then it ends. */
const { file, bytes } = workerData as { file: ManifestFile; bytes: Uint8Array };
parentPort?.postMessage(transferOutcome(parseManifestBytes(file, bytes)));
