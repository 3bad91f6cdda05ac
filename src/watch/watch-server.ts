import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { visibleJson, visibleText } from '../visible-text.js';
import { type DaemonStatus, statusToJson } from './daemon-status.js';
import type { InventoryAnswer } from './inventory-endpoint.js';
import { formatHttpUrl, type ListenAddress } from './listen-address.js';
import { handleReconcileRequest, type ReconcileEndpointOptions } from './reconcile-endpoint.js';
import type { LoopHealth } from './reconcile-loop.js';
import { sendStatusPage } from './status-page/status-page-endpoint.js';
import { STATUS_TOKEN_PATHS, type StatusTokenOptions, statusTokenAllows } from './status-token.js';
import { handleSuspendRequest, type SuspendEndpointOptions } from './suspend-endpoint.js';

export interface WatchServerOptions {
  readonly listen: ListenAddress;
  readonly registry: Registry;
  /** The daemon's current status; called per request. */
  readonly status: () => DaemonStatus;
  readonly logger: Logger;
  /** The reconcile loop's heartbeat, per `/healthz` request. @default always alive */
  readonly health?: () => LoopHealth;
  /** `POST /reconcile`, when --reconcile-token-file enables it (reconcile-endpoint.ts). */
  readonly reconcile?: ReconcileEndpointOptions;
  /** The status page's HTML, per `/` request, from its query string (the table's filter). @default none: `/` is not found */
  readonly statusPage?: (query: URLSearchParams) => string;
  /** A page of `/inventory`, from its query string (inventory-endpoint.ts). @default none: `/inventory` is not found */
  readonly inventory?: (query: URLSearchParams) => InventoryAnswer;
  /** `POST /suspend` and `POST /resume`, when --suspend-token-file enables them (suspend-endpoint.ts). */
  readonly suspend?: SuspendEndpointOptions;
  /** --status-token-file: `/`, `/status` and `/inventory` answer only requests bearing its token (status-token.ts). */
  readonly statusToken?: StatusTokenOptions;
}

export interface RunningWatchServer {
  /** `http://host:port` as bound (the real port when 0 was asked for). */
  readonly url: string;
  close(): Promise<void>;
}

/** `/` (the status page), `/healthz`, `/readyz`, `/metrics` and `/status` of the daemon. */
export async function startWatchServer(options: WatchServerOptions): Promise<RunningWatchServer> {
  const log = options.logger.child({ component: 'watch-server' });
  const server = createServer((req, res) => {
    handle(req, res, options).catch((err: unknown) => {
      log.error({ err, path: req.url }, 'endpoint failed');
      if (!res.headersSent) sendText(res, 500, 'internal error\n');
      else res.end();
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listen.port, options.listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const url = formatHttpUrl({ host: options.listen.host, port: address.port });
  log.info({ url }, 'listening');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, options: WatchServerOptions): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const path = url.pathname;
  if (path === '/reconcile') {
    await handleReconcileRequest(req, res, options.reconcile);
    return;
  }
  if (path === '/suspend' || path === '/resume') {
    await handleSuspendRequest(req, res, path === '/suspend' ? 'suspend' : 'resume', options.suspend);
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    sendText(res, 405, 'method not allowed\n');
    return;
  }
  if (options.statusToken !== undefined && STATUS_TOKEN_PATHS.has(path)) {
    if (!(await statusTokenAllows(req, res, options.statusToken))) return;
  }
  switch (path) {
    case '/':
      if (options.statusPage) sendStatusPage(res, options.statusPage(url.searchParams));
      else sendText(res, 404, 'not found\n');
      return;
    case '/healthz': {
      const health = options.health?.() ?? { alive: true, detail: 'ok' };
      if (health.alive) sendText(res, 200, `ok: ${health.detail}\n`);
      else sendText(res, 503, `${health.detail}\n`);
      return;
    }
    case '/readyz': {
      const status = options.status();
      if (status.ready) sendText(res, 200, 'ready\n');
      else sendText(res, 503, `not ready: ${visibleText(status.notReadyReason ?? 'starting')}\n`);
      return;
    }
    case '/metrics': {
      const body = await options.registry.metrics();
      res.writeHead(200, { 'Content-Type': options.registry.contentType });
      res.end(body);
      return;
    }
    case '/status': {
      const body = `${visibleJson(statusToJson(options.status()), 2)}\n`;
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(body);
      return;
    }
    case '/inventory': {
      if (options.inventory === undefined) {
        sendText(res, 404, 'not found\n');
        return;
      }
      const answer = options.inventory(url.searchParams);
      res.writeHead(answer.status, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(`${visibleJson(answer.body)}\n`);
      return;
    }
    default:
      sendText(res, 404, 'not found\n');
  }
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}
