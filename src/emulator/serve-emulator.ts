import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EmulatedCollection, EmulatorPart } from './emulated-collection.js';
import { checkEmulatorOptions, type EmulatorOptions, generateApiKey } from './emulator-options.js';
import { resolveVariants } from './emulator-variants.js';
import type { HandlerEnv } from './handler.js';
import { MAX_PAGE_SIZE } from './pagination.js';
import { DataFile } from './persistence.js';
import { createClientErrorListener, createRequestListener } from './request-pipeline.js';
import { RequestStats } from './request-stats.js';
import { OPERATION_ID_PREFIX, ResourceIds } from './resource-id.js';
import { RollingWindowLimiter } from './rolling-window-limiter.js';
import { createRouter } from './router.js';
import { serveParts } from './routes.js';
import { applySeed } from './seed.js';
import { EmulatorStore } from './store.js';

export interface RunningEmulator {
  /** Base URL, no trailing slash: `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly apiKey: string;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The account: loaded from the data file when it exists, else seeded. */
async function openAccount(
  options: EmulatorOptions,
  env: HandlerEnv,
  collections: readonly EmulatedCollection[],
): Promise<{ readonly dataFile: DataFile | undefined }> {
  const { store } = env;
  const loaded = options.dataFile ? await DataFile.load(options.dataFile, store) : false;
  if (!loaded && options.seed) applySeed(env, collections, options.seed);
  const dataFile = options.dataFile ? new DataFile(options.dataFile, store) : undefined;
  if (dataFile && !loaded) store.changed();
  return { dataFile };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Starts the emulator on `host:port`, serving `parts` (the emulator parts of
 * a registry's kinds, src/emulator/server.ts), and resolves once it listens.
 */
export async function serveEmulator(
  parts: readonly EmulatorPart[],
  options: EmulatorOptions = {},
): Promise<RunningEmulator> {
  checkEmulatorOptions(options);
  const served = serveParts(parts);
  const host = options.host ?? '127.0.0.1';
  const apiKey = options.apiKey ?? generateApiKey();
  const now = options.now ?? Date.now;
  const ids = new ResourceIds(now);
  const env: { -readonly [K in keyof HandlerEnv]: HandlerEnv[K] } = {
    store: new EmulatorStore(served.collections),
    ids,
    baseUrl: '',
    now,
    pageSizeMax: options.pageSizeMax ?? MAX_PAGE_SIZE,
    variants: resolveVariants(options.variants),
  };
  const { dataFile } = await openAccount(options, env, served.collections);
  const settings = {
    apiKey,
    env,
    route: createRouter(served.routes),
    stats: new RequestStats(),
    limiter: options.rateLimit
      ? new RollingWindowLimiter(options.rateLimit.requests, options.rateLimit.windowMs, now)
      : undefined,
    faults: {
      faultRate: options.faultRate ?? 0,
      dropRate: options.dropRate ?? 0,
      random: options.random ?? Math.random,
    },
    latencyMs: options.latencyMs ?? 0,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    notFoundCode: options.notFoundCode,
    errorCodes: options.errorCodes ?? 'words',
    onWriteApplied: options.onWriteApplied,
    newOperationId: () => ids.next(OPERATION_ID_PREFIX),
  };
  const server = createServer(createRequestListener(settings));
  server.on('clientError', createClientErrorListener(settings));
  const port = await listen(server, options.port ?? 0, host);
  env.baseUrl = `http://${formatHost(host)}:${port}`;

  let closing: Promise<void> | undefined;
  return {
    url: env.baseUrl,
    apiKey,
    close: () => {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await dataFile?.close();
      })();
      return closing;
    },
  };
}
