import { loadSeedFile } from '../emulator/seed.js';
import { type EmulatorOptions, startEmulator } from '../emulator/server.js';
import { EdgesyncError } from '../errors.js';
import type { CommandContext, CommandOutcome, CommandRegistrar } from './command-context.js';
import { parseDuration, parseRate } from './duration-option.js';

interface EmulatorFlags {
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
}

function invalidOption(flag: string, expected: string, value: string): EdgesyncError {
  return new EdgesyncError('invalid_option', `${flag}: expected ${expected} (found "${value}")`);
}

function integerFlag(flag: string, value: string, min: number, max: number): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || parsed < min || parsed > max) {
    throw invalidOption(flag, `a whole number from ${min} to ${max}`, value);
  }
  return parsed;
}

function shareFlag(flag: string, value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !(parsed >= 0 && parsed <= 1))
    throw invalidOption(flag, 'a share from 0 to 1', value);
  return parsed;
}

/** Turns the flags into EmulatorOptions, validating each once with a message that shows the bad value. */
async function emulatorOptions(flags: EmulatorFlags): Promise<EmulatorOptions> {
  const options: { -readonly [K in keyof EmulatorOptions]: EmulatorOptions[K] } = {
    host: flags.host,
    port: integerFlag('--port', flags.port, 0, 65_535),
  };
  if (flags.apiKey !== undefined) {
    if (flags.apiKey === '') throw invalidOption('--api-key', 'a non-empty key', flags.apiKey);
    options.apiKey = flags.apiKey;
  }
  if (flags.seed !== undefined) options.seed = await loadSeedFile(flags.seed);
  if (flags.data !== undefined) options.dataFile = flags.data;
  const rate = parseRate('--rate-limit', flags.rateLimit, { allowOff: true });
  if (rate !== 'off') options.rateLimit = rate;
  if (flags.latency !== undefined) {
    const latencyMs = parseDuration('--latency', flags.latency);
    if (latencyMs > 600_000) throw invalidOption('--latency', 'a duration of at most 10m', flags.latency);
    options.latencyMs = latencyMs;
  }
  if (flags.faultRate !== undefined) options.faultRate = shareFlag('--fault-rate', flags.faultRate);
  if (flags.dropRate !== undefined) options.dropRate = shareFlag('--drop-rate', flags.dropRate);
  if (flags.pageSizeMax !== undefined)
    options.pageSizeMax = integerFlag('--page-size-max', flags.pageSizeMax, 1, 100);
  if (flags.notFoundCode !== undefined) {
    if (!/^[A-Za-z0-9_]+$/.test(flags.notFoundCode)) {
      throw invalidOption('--not-found-code', 'letters, digits and underscores', flags.notFoundCode);
    }
    options.notFoundCode = flags.notFoundCode;
  }
  return options;
}

async function runEmulator(flags: EmulatorFlags, ctx: CommandContext): Promise<CommandOutcome> {
  const options = await emulatorOptions(flags);
  const emulator = await startEmulator(options);
  // The URL is the first stdout line so scripts can read it; a generated key
  // follows. It is a local development key, and printing it is the
  // documented way to learn it (docs/emulator.md).
  ctx.stdout.write(`${emulator.url}\n`);
  if (flags.apiKey === undefined) ctx.stdout.write(`${emulator.apiKey}\n`);
  ctx.stderr.write(`edgesync emulator: listening on ${emulator.url} (Ctrl-C or SIGTERM stops it)\n`);
  if (!ctx.shutdown.aborted) {
    await new Promise<void>((resolve) =>
      ctx.shutdown.addEventListener('abort', () => resolve(), { once: true }),
    );
  }
  await emulator.close();
  ctx.stderr.write('edgesync emulator: stopped\n');
  return 'ok';
}

export const registerEmulatorCommand: CommandRegistrar = (program, ctx) => {
  program
    .command('emulator')
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
    .action(async (flags: EmulatorFlags) => {
      ctx.setOutcome(await runEmulator(flags, ctx));
    });
};
