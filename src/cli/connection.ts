import type { Logger } from 'pino';
import { createApiClient, type RequestObserver } from '../api/client.js';
import type { EdgeApi } from '../api/edge-api.js';
import { RequestBudget } from '../api/request-budget.js';
import { SecretScrubber } from '../api/secret-scrubber.js';
import { EdgesyncError, OptionError } from '../errors.js';
import type { ConnectionFlags } from './connection-flags.js';
import { parseDuration, parsePositiveInteger, parseRate } from './duration-option.js';

export type { ConnectionFlags } from './connection-flags.js';

export interface Connection {
  readonly api: EdgeApi;
  readonly budget: RequestBudget;
  /**
   * The secrets every message from the service is scrubbed of: the API key,
   * and what the manifests' loads add (`loadOptions.onSecret`).
   */
  readonly secrets: SecretScrubber;
  /** Where requests go; for messages. Never includes the key. */
  readonly baseUrl: string;
  /** The key requests carry: for `doctor`'s own reads, which see headers the client hides. Never printed. */
  readonly apiKey: string;
  /** Stops the in-process emulator when `--emulator` started one. */
  close(): Promise<void>;
}

/**
 * `--rate-limit off`: a budget no run reaches (a million requests a second),
 * so that the client and the daemon's read share keep their one shape of budget.
 */
const UNLIMITED_RATE = { requests: 1_000_000, windowMs: 1000 } as const;

export interface OpenConnectionHooks {
  readonly logger?: Logger;
  readonly onRequest?: RequestObserver;
}

export async function openConnection(
  flags: ConnectionFlags,
  hooks: OpenConnectionHooks = {},
): Promise<Connection> {
  const rate = parseRate('--rate-limit', flags.rateLimit, { allowOff: true });
  if (rate === 'off' && flags.emulator !== true) {
    throw new OptionError(
      '--rate-limit',
      'off would disable edgesync\'s budget against the service, which allows 120 requests a minute and answers 429 beyond them; off is for the built-in emulator (--emulator). Give a rate like 120/60s (found "off")',
      { code: 'invalid_rate_limit' },
    );
  }
  const budget = new RequestBudget(rate === 'off' ? UNLIMITED_RATE : rate);
  const secrets = new SecretScrubber();
  const timeoutMs = parseDuration('--timeout', flags.timeout);
  const maxListObjects =
    flags.maxListObjects === undefined
      ? undefined
      : parsePositiveInteger('--max-list-objects', flags.maxListObjects);
  if (timeoutMs < 1) throw new OptionError('--timeout', `expected at least 1ms (found "${flags.timeout}")`);
  if (flags.emulator) {
    // Loaded only for --emulator: a command talking to the real service never loads the emulator.
    const [{ FAMILY_RATE_LIMIT }, { loadSeedFile }, { startEmulator }] = await Promise.all([
      import('../emulator/emulator-options.js'),
      import('../emulator/seed.js'),
      import('../emulator/server.js'),
    ]);
    const seed = flags.emulatorSeed ? await loadSeedFile(flags.emulatorSeed) : undefined;
    // The family's budget, as `edgesync emulator` applies it: trying edgesync shows how it really paces.
    // `--rate-limit off` lifts both, as `edgesync emulator --rate-limit off` does the emulator's.
    const emulator = await startEmulator({
      ...(rate === 'off' ? {} : { rateLimit: FAMILY_RATE_LIMIT }),
      ...(seed ? { seed } : {}),
    });
    hooks.logger?.info({ url: emulator.url }, 'embedded emulator started');
    const api = createApiClient({
      baseUrl: emulator.url,
      apiKey: emulator.apiKey,
      budget,
      timeoutMs,
      secrets,
      ...(maxListObjects === undefined ? {} : { maxListObjects }),
      ...hooks,
    });
    return {
      api,
      budget,
      secrets,
      baseUrl: emulator.url,
      apiKey: emulator.apiKey,
      close: () => emulator.close(),
    };
  }
  if (flags.emulatorSeed) {
    throw new OptionError('--emulator-seed', 'needs --emulator');
  }
  if (!flags.apiUrl) {
    throw new EdgesyncError(
      'config_missing',
      'no service to talk to: set EDGE_API_URL (or --api-url), or pass --emulator to use the built-in emulator',
    );
  }
  if (!flags.apiKey) {
    throw new EdgesyncError('config_missing', 'no API key: set EDGE_API_KEY (or --api-key)');
  }
  const baseUrl = parseApiUrl(flags.apiUrl);
  const url = baseUrl.toString().replace(/\/$/, '');
  const api = createApiClient({
    baseUrl: url,
    apiKey: flags.apiKey,
    budget,
    timeoutMs,
    secrets,
    ...(maxListObjects === undefined ? {} : { maxListObjects }),
    ...hooks,
  });
  return { api, budget, secrets, baseUrl: url, apiKey: flags.apiKey, close: async () => {} };
}

/**
 * `--api-url`/`EDGE_API_URL` as a base URL, or an error that quotes it as
 * typed (so a stray quote or space shows), credentials masked.
 */
function parseApiUrl(typed: string): URL {
  const quoted = JSON.stringify(typed.replace(/\/\/[^/@]*@/, '//***@'));
  let url: URL;
  try {
    url = new URL(typed);
  } catch (cause) {
    throw new EdgesyncError(
      'invalid_option',
      `EDGE_API_URL (--api-url) is not a URL: ${quoted}; expected e.g. https://api.example.com`,
      { cause },
    );
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username) {
    throw new EdgesyncError(
      'invalid_option',
      `EDGE_API_URL (--api-url) must be an http(s) URL without query, fragment or credentials: ${quoted}`,
    );
  }
  return url;
}
