import { NO_COLOR_ACCEPTED } from './color-choice.js';
import type { AddCommandFlags } from './command-context.js';

export interface EmulatorFlags {
  readonly host: string;
  readonly port: string;
  readonly apiKey?: string;
  readonly seed?: string;
  readonly data?: string;
  readonly rateLimit: string;
  readonly latency?: string;
  readonly faultRate?: string;
  readonly dropRate?: string;
  readonly pageSizeMax?: string;
  readonly notFoundCode?: string;
  /** `unset-module=null-ok`, each as given; repeatable, or comma-separated. */
  readonly variant?: readonly string[];
  readonly errorCodes?: string;
}

/** Every `--variant` given, in order; one flag (or EDGESYNC_VARIANT) may hold several, comma-separated. */
function collectVariants(value: string, previous: readonly string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  ];
}

export const addEmulatorFlags: AddCommandFlags<[flags: EmulatorFlags]> = (command) =>
  command
    .description('serve the local Edge Configuration Service emulator until SIGTERM (prints its URL first)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on; 0 picks a free one', '0')
    .option('--api-key <key>', 'accepted Bearer key; a random key is generated and printed when absent')
    .option('--seed <file>', 'YAML seed of resources to preload (ignored when --data already exists)')
    .option('--data <file>', 'persist the account to this JSON file (atomic writes; reloaded on start)')
    .option(
      '--rate-limit <n/duration|off>',
      "rolling-window rate limit such as 120/60s (a bare window is seconds), or off; the service family's 120/60s by default",
      '120/60s',
    )
    .option(
      '--latency <duration>',
      'delay every request by this long, e.g. 50ms (a bare number is milliseconds)',
    )
    .option('--fault-rate <p>', 'share (0-1) of requests answered 500/503 without being applied')
    .option('--drop-rate <p>', 'share (0-1) of writes applied and then dropped without a response')
    .option('--page-size-max <n>', 'largest list page (1-100), for pagination tests')
    .option('--not-found-code <code>', 'answer every 404 with this one error_code (a terser service)')
    .option(
      '--variant <name=value>',
      'answer an undocumented behaviour one way (docs/emulator.md), the first value the default: ' +
        'unset-module=not-found|null-ok, empty-list=clears|ignored, not-found-body=coded|bare, ' +
        'unset-description=absent|empty, empty-region=refused|default, before-id=held|any, ' +
        'page-size-error=233|244, policy-id-error=1414|229, ca-length-errors=1914|1916, route-match=path|any, ' +
        'openid-cookie-prefix=checked|any, tls-min-version=any|1.2-up; repeatable',
      collectVariants,
    )
    .option(
      '--error-codes <style>',
      "error_code style: words (invalid_field) or family (ERR_NGROK_1408: the service family's number from its error catalogue)",
    )
    .option(...NO_COLOR_ACCEPTED);
