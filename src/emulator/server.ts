import { randomInt, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EdgesyncError } from '../errors.js';
import { drawDrop, drawFault, type FaultSettings } from './fault-injection.js';
import type { HandlerEnv } from './handler.js';
import { MAX_PAGE_SIZE } from './pagination.js';
import { DataFile } from './persistence.js';
import { RequestStats } from './request-stats.js';
import { newId } from './resource-id.js';
import { RollingWindowLimiter } from './rolling-window-limiter.js';
import { createRouter } from './router.js';
import { EMULATOR_ROUTES } from './routes.js';
import { applySeed, type EmulatorSeed } from './seed.js';
import { ServiceError, serviceErrorBody } from './service-error.js';
import { EmulatorStore } from './store.js';

export type { EmulatorSeed } from './seed.js';

export interface EmulatorOptions {
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** 0 picks a free port. @default 0 */
  readonly port?: number;
  /** The accepted Bearer key. @default a random key, returned in RunningEmulator.apiKey */
  readonly apiKey?: string;
  /** Resources to start with; ignored when `dataFile` already exists. */
  readonly seed?: EmulatorSeed;
  /** JSON file the store is loaded from and persisted to. */
  readonly dataFile?: string;
  /** Rolling-window rate limit; off when absent. `windowMs` in milliseconds. */
  readonly rateLimit?: { readonly requests: number; readonly windowMs: number };
  /** Delay before every request is handled, in milliseconds. @default 0 */
  readonly latencyMs?: number;
  /** Share (0–1) of requests answered 500 or 503 without being applied. @default 0 */
  readonly faultRate?: number;
  /** Share (0–1) of writes applied and then left without a response (socket destroyed). @default 0 */
  readonly dropRate?: number;
  /** Largest page a list answers with, 1–100. @default 100 */
  readonly pageSizeMax?: number;
  /** Source of randomness for faults and drops. @default Math.random */
  readonly random?: () => number;
  /** Milliseconds since the epoch, for timestamps and the rate limit window. @default Date.now */
  readonly now?: () => number;
  /** Largest accepted request body, in bytes. @default 1 MiB */
  readonly maxBodyBytes?: number;
  /**
   * Called, in the order the store applied them, with every write that
   * changed the account (2xx, dropped answers included): tests replay the
   * account's states from it.
   */
  readonly onWriteApplied?: (write: AppliedWrite) => void;
}

/** A write the emulator applied: what was asked, and what it answered (or would have, when dropped). */
export interface AppliedWrite {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body?: unknown;
  readonly dropped: boolean;
}

export interface RunningEmulator {
  /** Base URL, no trailing slash: `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly apiKey: string;
  close(): Promise<void>;
}

const STATS_PATH = '/_emulator/stats';
const SERVICE_VERSION = '2';
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const KEY_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function generateApiKey(): string {
  let key = 'edgesync_emulator_';
  for (let i = 0; i < 32; i += 1) key += KEY_ALPHABET[randomInt(KEY_ALPHABET.length)];
  return key;
}

function checkOptions(options: EmulatorOptions): void {
  const share = (name: string, value: number | undefined) => {
    if (value !== undefined && !(value >= 0 && value <= 1)) {
      throw new EdgesyncError('invalid_emulator_option', `${name} must be between 0 and 1, found ${value}`);
    }
  };
  share('faultRate', options.faultRate);
  share('dropRate', options.dropRate);
  const { pageSizeMax, latencyMs, rateLimit } = options;
  if (
    pageSizeMax !== undefined &&
    !(Number.isInteger(pageSizeMax) && pageSizeMax >= 1 && pageSizeMax <= MAX_PAGE_SIZE)
  ) {
    throw new EdgesyncError(
      'invalid_emulator_option',
      `pageSizeMax must be an integer from 1 to 100, found ${pageSizeMax}`,
    );
  }
  if (latencyMs !== undefined && !(latencyMs >= 0)) {
    throw new EdgesyncError('invalid_emulator_option', `latencyMs must be 0 or more, found ${latencyMs}`);
  }
  if (rateLimit !== undefined && !(rateLimit.requests >= 1 && rateLimit.windowMs >= 1)) {
    throw new EdgesyncError(
      'invalid_emulator_option',
      `rateLimit must allow at least 1 request in a window of at least 1 ms, found ${rateLimit.requests}/${rateLimit.windowMs}ms`,
    );
  }
  if (options.apiKey !== undefined && options.apiKey.length === 0) {
    throw new EdgesyncError('invalid_emulator_option', 'apiKey must not be empty');
  }
}

function keyMatches(header: string | undefined, apiKey: string): boolean {
  const match = /^Bearer (.+)$/.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1] as string);
  const expected = Buffer.from(apiKey);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

interface RawBody {
  readonly bytes: Buffer;
  readonly tooLarge: boolean;
}

/** Reads the whole body, keeping at most `limit` bytes; a larger body is drained and flagged. */
function readBody(request: IncomingMessage, limit: number): Promise<RawBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(request.headers['content-length'] ?? 0) > limit;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    request.on('end', () => resolve({ bytes: tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks), tooLarge }));
    request.on('error', reject);
  });
}

function parseJsonBody(raw: RawBody): unknown {
  if (raw.tooLarge) throw new ServiceError(413, 'payload_too_large', 'request body is larger than the limit');
  const text = raw.bytes.toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ServiceError(400, 'invalid_json', 'request body is not valid JSON');
  }
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (status === 204 || body === undefined) {
    response.writeHead(status, headers);
    response.end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Starts the emulator on `host:port` and resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  checkOptions(options);
  const host = options.host ?? '127.0.0.1';
  const apiKey = options.apiKey ?? generateApiKey();
  const now = options.now ?? Date.now;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const latencyMs = options.latencyMs ?? 0;
  const faults: FaultSettings = {
    faultRate: options.faultRate ?? 0,
    dropRate: options.dropRate ?? 0,
    random: options.random ?? Math.random,
  };
  const limiter = options.rateLimit
    ? new RollingWindowLimiter(options.rateLimit.requests, options.rateLimit.windowMs, now)
    : undefined;
  const route = createRouter(EMULATOR_ROUTES);
  const stats = new RequestStats();
  const store = new EmulatorStore();
  const env: { -readonly [K in keyof HandlerEnv]: HandlerEnv[K] } = {
    store,
    baseUrl: '',
    now,
    pageSizeMax: options.pageSizeMax ?? MAX_PAGE_SIZE,
  };

  const loaded = options.dataFile ? await DataFile.load(options.dataFile, store) : false;
  if (!loaded && options.seed) applySeed(env, options.seed);
  const dataFile = options.dataFile ? new DataFile(options.dataFile, store) : undefined;
  if (dataFile && !loaded) store.changed();

  const handleStats = (request: IncomingMessage, response: ServerResponse, operationId: string): void => {
    if (!keyMatches(request.headers.authorization, apiKey)) {
      const error = new ServiceError(401, 'unauthorized', 'missing or invalid Bearer API key');
      sendJson(response, 401, serviceErrorBody(error, operationId));
    } else if (request.method === 'GET') {
      sendJson(response, 200, stats.snapshot());
    } else if (request.method === 'DELETE') {
      stats.reset();
      sendJson(response, 204, undefined);
    } else {
      const error = new ServiceError(
        405,
        'method_not_allowed',
        `${request.method} is not allowed on ${STATS_PATH}`,
      );
      sendJson(response, 405, serviceErrorBody(error, operationId), { allow: 'GET, DELETE' });
    }
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://emulator.invalid');
    const operationId = newId('operation');
    const raw = await readBody(request, maxBodyBytes);
    if (raw.tooLarge) response.setHeader('connection', 'close');
    if (url.pathname === STATS_PATH) {
      handleStats(request, response, operationId);
      return;
    }
    const resolution = route(method, url.pathname);
    const template =
      resolution.kind === 'match'
        ? resolution.route.template
        : resolution.kind === 'method_not_allowed'
          ? resolution.template
          : '(unmatched)';
    const routeKey = `${method} ${template}`;
    const fail = (error: ServiceError, headers?: Record<string, string>): void => {
      stats.record(routeKey, error.status);
      sendJson(response, error.status, serviceErrorBody(error, operationId), headers);
    };
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    try {
      if (!keyMatches(request.headers.authorization, apiKey)) {
        throw new ServiceError(401, 'unauthorized', 'missing or invalid Bearer API key');
      }
      const version = request.headers['service-version'];
      if (version === undefined) {
        throw new ServiceError(
          400,
          'missing_service_version',
          'the Service-Version header is required (use 2)',
        );
      }
      if (version !== SERVICE_VERSION) {
        throw new ServiceError(
          400,
          'unsupported_service_version',
          `Service-Version "${version}" is not supported (use 2)`,
        );
      }
      const waitMs = limiter?.tryAcquire() ?? null;
      if (waitMs !== null) {
        fail(
          new ServiceError(429, 'rate_limited', 'too many requests; retry after the Retry-After seconds'),
          {
            'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))),
          },
        );
        return;
      }
      const fault = drawFault(faults);
      if (fault) throw fault;
      if (resolution.kind === 'not_found')
        throw new ServiceError(404, 'not_found', `no resource at ${url.pathname}`);
      if (resolution.kind === 'method_not_allowed') {
        fail(new ServiceError(405, 'method_not_allowed', `${method} is not allowed on ${url.pathname}`), {
          allow: resolution.allow.join(', '),
        });
        return;
      }
      const body = parseJsonBody(raw);
      const result = resolution.route.handler(
        { params: resolution.params, query: url.searchParams, body, path: url.pathname },
        env,
      );
      const dropped = drawDrop(faults, method);
      if (method !== 'GET' && result.status < 300) {
        options.onWriteApplied?.({
          method,
          path: url.pathname,
          status: result.status,
          body: result.body,
          dropped,
        });
      }
      if (dropped) {
        stats.record(routeKey, 'dropped');
        response.socket?.destroy();
        return;
      }
      stats.record(routeKey, result.status);
      sendJson(response, result.status, result.body);
    } catch (error) {
      if (error instanceof ServiceError) fail(error);
      else fail(new ServiceError(500, 'internal_error', 'internal error'));
    }
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) sendJson(response, 500, undefined);
      response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  env.baseUrl = `http://${formatHost(host)}:${address.port}`;

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
