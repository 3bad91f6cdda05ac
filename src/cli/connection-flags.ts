import { type Command, Option } from 'commander';

/**
 * DEFAULT_MAX_LIST_OBJECTS of src/api/list-pages.ts, written out: registering
 * the flags loads no module of the client (test/cli/lazy-commands.test.ts);
 * test/api/paginate.test.ts checks that the two agree.
 */
export const MAX_LIST_OBJECTS_DEFAULT = '1000000';

/** The connection flags as commander parses them. */
export interface ConnectionFlags {
  readonly apiUrl?: string;
  readonly apiKey?: string;
  readonly emulator?: boolean;
  readonly emulatorSeed?: string;
  readonly rateLimit: string;
  readonly timeout: string;
  readonly maxListObjects?: string;
}

export function addConnectionOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--api-url <url>', 'base URL of the Edge Configuration Service').env('EDGE_API_URL'),
    )
    .addOption(
      new Option(
        '--api-key <key>',
        'API key (prefer the environment variable: flags show in process lists)',
      ).env('EDGE_API_KEY'),
    )
    .option('--emulator', 'start the built-in emulator in this process and use it (for trying edgesync)')
    .option('--emulator-seed <file>', 'YAML seed for --emulator (IP policies, edges and routes to preload)')
    .option(
      '--rate-limit <n/duration|off>',
      "request budget shared by reads and writes: requests per window, e.g. 120/60s (a bare window is seconds); off only with --emulator (it lifts the embedded emulator's budget too)",
      '120/60s',
    )
    .option(
      '--timeout <duration>',
      'deadline of one request, its retries included, e.g. 30s (a bare number is milliseconds)',
      '30s',
    )
    .option(
      '--max-list-objects <n>',
      'objects one list of the service may hold: a longer list fails the read (nothing is pruned) instead of being read forever',
      MAX_LIST_OBJECTS_DEFAULT,
    );
}
