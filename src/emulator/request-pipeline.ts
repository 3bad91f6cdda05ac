import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { BODY_CUT_SHORT, RATE_LIMITED } from './api-errors.js';
import type { AppliedWrite } from './emulator-options.js';
import { drawDrop, drawFault, type FaultSettings } from './fault-injection.js';
import type { HandlerEnv, HandlerResult } from './handler.js';
import { OPERATION_ID_HEADER, parseJsonBody, type RawBody, readBody, sendJson } from './http-io.js';
import {
  checkAuthorization,
  checkBody,
  checkQueryConsumed,
  checkQueryShape,
  checkServiceVersion,
  TrackedQuery,
} from './request-gate.js';
import type { RequestStats } from './request-stats.js';
import type { RollingWindowLimiter } from './rolling-window-limiter.js';
import type { RouteResolution } from './router.js';
import { type ErrorCodeStyle, ServiceError, serviceErrorBody } from './service-error.js';

/** Everything one request is served with; built once by startEmulator. */
export interface PipelineSettings {
  readonly apiKey: string;
  readonly env: HandlerEnv;
  readonly route: (method: string, path: string) => RouteResolution;
  readonly stats: RequestStats;
  readonly limiter: RollingWindowLimiter | undefined;
  readonly faults: FaultSettings;
  /** Milliseconds. */
  readonly latencyMs: number;
  readonly maxBodyBytes: number;
  /** See EmulatorOptions.notFoundCode. */
  readonly notFoundCode: string | undefined;
  /** See EmulatorOptions.errorCodes. */
  readonly errorCodes: ErrorCodeStyle;
  readonly newOperationId: () => string;
  /** See EmulatorOptions.onWriteApplied. */
  readonly onWriteApplied: ((write: AppliedWrite) => void) | undefined;
}

const STATS_PATH = '/_emulator/stats';

/** Headers every answer carries, so browser clients can read the operation ID and Retry-After. */
const CORS_HEADERS = {
  'access-control-expose-headers': `${OPERATION_ID_HEADER}, retry-after`,
  vary: 'Origin',
};

/** `scheme://host[:port]` and nothing else: what a browser sends, and all that is ever echoed. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[A-Za-z0-9.[\]:-]+$/;

/**
 * The family echoes the request's Origin with credentials allowed, where a
 * `*` would forbid credentials. Echoing is safe here: the emulator reads no
 * cookie, so a page can only call it with the key it already holds, and the
 * key is a header no browser adds by itself. Only a well-formed origin is
 * echoed (never a header value with anything else in it); without one, no
 * CORS origin header is sent at all.
 */
function setCorsHeaders(request: IncomingMessage, response: ServerResponse): void {
  for (const [name, value] of Object.entries(CORS_HEADERS)) response.setHeader(name, value);
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || !ORIGIN.test(origin)) return;
  response.setHeader('access-control-allow-origin', origin);
  response.setHeader('access-control-allow-credentials', 'true');
}

/** One request on its way to an answer. */
interface Exchange {
  readonly method: string;
  readonly url: URL;
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly raw: RawBody;
  readonly operationId: string;
}

function routeKeyOf(method: string, resolution: RouteResolution): string {
  if (resolution.kind === 'match') return `${method} ${resolution.route.template}`;
  if (resolution.kind === 'method_not_allowed') return `${method} ${resolution.template}`;
  return `${method} (unmatched)`;
}

function errorBody(settings: PipelineSettings, error: ServiceError, operationId: string) {
  return serviceErrorBody(error, operationId, {
    notFoundCode: settings.notFoundCode,
    style: settings.errorCodes,
    variants: settings.env.variants,
  });
}

function sendError(settings: PipelineSettings, exchange: Exchange, error: ServiceError): void {
  sendJson(exchange.response, error.status, errorBody(settings, error, exchange.operationId), {
    ...error.headers,
  });
}

/** `GET /_emulator/stats` (and `DELETE` to reset): needs the key, not the version; not counted. */
function answerStats(settings: PipelineSettings, exchange: Exchange): void {
  const { request, response, method } = exchange;
  try {
    checkAuthorization(request.headers, settings.apiKey);
  } catch (error) {
    sendError(settings, exchange, error as ServiceError);
    return;
  }
  if (method === 'GET') {
    sendJson(response, 200, settings.stats.snapshot());
  } else if (method === 'DELETE') {
    settings.stats.reset();
    sendJson(response, 204, undefined);
  } else {
    const error = new ServiceError(405, 'method_not_allowed', `${method} is not allowed on ${STATS_PATH}`);
    error.headers = { allow: 'GET, DELETE' };
    sendError(settings, exchange, error);
  }
}

/** A header list as browsers send it in Access-Control-Request-Headers: names and commas only. */
const HEADER_NAMES = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+( *, *[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;

const ALLOWED_HEADERS = 'Authorization, Content-Type, Service-Version';

/**
 * A CORS preflight is answered without the key: browsers send it without
 * credentials. It is not counted against the budget, like the family's.
 * The headers the browser asks to send are allowed as asked, as the family
 * answers (only a well-formed list of names is echoed); without a request
 * for headers, the API's own are named.
 */
function answerPreflight(settings: PipelineSettings, exchange: Exchange): void {
  const resolution = settings.route('OPTIONS', exchange.url.pathname);
  settings.stats.record(routeKeyOf('OPTIONS', resolution), resolution.kind === 'not_found' ? 404 : 204);
  if (resolution.kind !== 'method_not_allowed') {
    sendError(
      settings,
      exchange,
      new ServiceError(404, 'not_found', `no resource at ${exchange.url.pathname}`),
    );
    return;
  }
  sendJson(exchange.response, 204, undefined, {
    'access-control-allow-methods': [...resolution.allow, 'OPTIONS'].join(', '),
    'access-control-allow-headers': requestedHeaders(exchange.request) ?? ALLOWED_HEADERS,
    'access-control-max-age': '600',
  });
}

function requestedHeaders(request: IncomingMessage): string | undefined {
  const asked = request.headers['access-control-request-headers'];
  return typeof asked === 'string' && HEADER_NAMES.test(asked.trim()) ? asked.trim() : undefined;
}

function takeBudget(settings: PipelineSettings): void {
  const waitMs = settings.limiter?.tryAcquire() ?? null;
  if (waitMs === null) return;
  const error = RATE_LIMITED.refuse('too many requests; retry after the Retry-After seconds');
  error.headers = { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) };
  throw error;
}

function routed(
  exchange: Exchange,
  resolution: RouteResolution,
): Extract<RouteResolution, { kind: 'match' }> {
  if (resolution.kind === 'not_found') {
    throw new ServiceError(404, 'not_found', `no resource at ${exchange.url.pathname}`);
  }
  if (resolution.kind === 'method_not_allowed') {
    const error = new ServiceError(
      405,
      'method_not_allowed',
      `${exchange.method} is not allowed on ${exchange.url.pathname}`,
    );
    error.headers = { allow: resolution.allow.join(', ') };
    throw error;
  }
  return resolution;
}

/** The API proper: the gate's checks in the family's order, then the handler. Throws ServiceError. */
function serveApi(
  settings: PipelineSettings,
  exchange: Exchange,
  resolution: RouteResolution,
): HandlerResult {
  const { request, method, url, raw } = exchange;
  checkAuthorization(request.headers, settings.apiKey);
  checkServiceVersion(request.headers);
  takeBudget(settings);
  const fault = drawFault(settings.faults);
  if (fault) throw fault;
  const match = routed(exchange, resolution);
  const query = new TrackedQuery(url.search);
  checkQueryShape(method, url.search, query);
  checkBody(method, request.headers, raw);
  const body = parseJsonBody(raw);
  const result = match.route.handler({ params: match.params, query, body, path: url.pathname }, settings.env);
  if (method === 'GET') checkQueryConsumed(query);
  return result;
}

async function handle(settings: PipelineSettings, request: IncomingMessage, response: ServerResponse) {
  const method = request.method ?? 'GET';
  const url = new URL(request.url ?? '/', 'http://emulator.invalid');
  const operationId = settings.newOperationId();
  setCorsHeaders(request, response);
  response.setHeader(OPERATION_ID_HEADER, operationId);
  const raw = await readBody(request, settings.maxBodyBytes).catch(() => undefined);
  // A body cut short: the server's clientError listener answers it, on the socket itself.
  if (raw === undefined) return;
  if (raw.tooLarge) response.setHeader('connection', 'close');
  const exchange: Exchange = { method, url, request, response, raw, operationId };
  if (url.pathname === STATS_PATH) return answerStats(settings, exchange);
  if (method === 'OPTIONS') return answerPreflight(settings, exchange);
  const resolution = settings.route(method, url.pathname);
  const routeKey = routeKeyOf(method, resolution);
  if (settings.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, settings.latencyMs));
  let result: HandlerResult;
  try {
    result = serveApi(settings, exchange, resolution);
  } catch (error) {
    const answer =
      error instanceof ServiceError ? error : new ServiceError(500, 'internal_error', 'internal error');
    settings.stats.record(routeKey, answer.status);
    sendError(settings, exchange, answer);
    return;
  }
  const dropped = drawDrop(settings.faults, method);
  if (method !== 'GET' && result.status < 300) {
    const write = { method, path: url.pathname, status: result.status, body: result.body, dropped };
    settings.onWriteApplied?.(write);
  }
  if (dropped) {
    settings.stats.record(routeKey, 'dropped');
    response.socket?.destroy();
    return;
  }
  settings.stats.record(routeKey, result.status);
  sendJson(response, result.status, result.body);
}

/** The server's request listener: never rejects; an unexpected failure ends the connection. */
export function createRequestListener(
  settings: PipelineSettings,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    handle(settings, request, response).catch(() => {
      if (!response.headersSent) sendJson(response, 500, undefined);
      response.destroy();
    });
  };
}

/** The status lines of the answers written on a socket the parser gave up on. */
const STATUS_LINES: Readonly<Record<number, string>> = {
  400: 'HTTP/1.1 400 Bad Request',
  408: 'HTTP/1.1 408 Request Timeout',
  431: 'HTTP/1.1 431 Request Header Fields Too Large',
};

/** What Node answers a request it could not parse (its default, kept for every case but a cut body). */
function parserFailureStatus(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

/**
 * The server's `clientError` listener. A body that ends before its
 * Content-Length (the peer closed its side) is the family's error 212: it
 * is answered as an error body on the socket, which Node's parser has
 * taken from the request. Any other parser failure gets Node's own answer.
 */
export function createClientErrorListener(
  settings: PipelineSettings,
): (error: Error & { code?: string }, socket: Duplex) => void {
  return (error, socket) => {
    if (error.code === 'HPE_INVALID_EOF_STATE' && socket.writable) {
      const operationId = settings.newOperationId();
      const refusal = BODY_CUT_SHORT.refuse('the request body ended before its Content-Length');
      const text = JSON.stringify(errorBody(settings, refusal, operationId));
      settings.stats.record('(body cut short)', refusal.status);
      socket.end(
        `${STATUS_LINES[refusal.status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${OPERATION_ID_HEADER}: ${operationId}\r\nconnection: close\r\n\r\n${text}`,
      );
      return;
    }
    if (socket.writable && (socket as Duplex & { bytesWritten?: number }).bytesWritten === 0) {
      const status = parserFailureStatus(error.code);
      socket.write(`${STATUS_LINES[status]}\r\nConnection: close\r\n\r\n`);
    }
    socket.destroy(error);
  };
}
