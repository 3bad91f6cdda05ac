import { parseVariant, resolveVariants } from '../emulator/emulator-variants.js';
import { loadSeedFile } from '../emulator/seed.js';
import { type EmulatorOptions, startEmulator } from '../emulator/server.js';
import { ERROR_CODE_STYLES, type ErrorCodeStyle } from '../emulator/service-error.js';
import { OptionError } from '../errors.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { parseDuration, parseRate } from './duration-option.js';
import type { EmulatorFlags } from './emulator-flags.js';

function invalidOption(flag: string, expected: string, value: string): OptionError {
  return new OptionError(flag, `expected ${expected} (found "${value}")`);
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
  if (flags.variant !== undefined && flags.variant.length > 0) {
    const given: Record<string, string> = {};
    try {
      for (const text of flags.variant) {
        const { name, value } = parseVariant(text);
        given[name] = value;
      }
      options.variants = resolveVariants(given);
    } catch (error) {
      throw new OptionError('--variant', error instanceof Error ? error.message : String(error));
    }
  }
  if (flags.errorCodes !== undefined) {
    if (!(ERROR_CODE_STYLES as readonly string[]).includes(flags.errorCodes))
      throw invalidOption('--error-codes', ERROR_CODE_STYLES.join(' or '), flags.errorCodes);
    options.errorCodes = flags.errorCodes as ErrorCodeStyle;
  }
  return options;
}

export async function runEmulator(flags: EmulatorFlags, ctx: CommandContext): Promise<CommandOutcome> {
  const options = await emulatorOptions(flags);
  const emulator = await startEmulator(options);
  // The URL is the first stdout line so scripts can read it; a generated key
  // follows. It is a local development key, and printing it is the
  // documented way to learn it (docs/emulator.md).
  ctx.stdout.write(`${emulator.url}\n`);
  if (flags.apiKey === undefined) ctx.stdout.write(`${emulator.apiKey}\n`);
  ctx.stderr.write(`edgesync emulator: listening on ${emulator.url} (Ctrl-C or SIGTERM stops it)\n`);
  const orphaned = new AbortController();
  const watchParent = watchForOrphaning(() => orphaned.abort());
  try {
    const stop = AbortSignal.any([ctx.shutdown, orphaned.signal]);
    if (!stop.aborted) {
      await new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }));
    }
  } finally {
    clearInterval(watchParent);
  }
  if (orphaned.signal.aborted && !ctx.shutdown.aborted) {
    ctx.stderr.write('edgesync emulator: the process that started it has exited; stopping\n');
  }
  await emulator.close();
  ctx.stderr.write('edgesync emulator: stopped\n');
  return 'ok';
}

/** How often the emulator checks that the process that started it is still there. */
const PARENT_CHECK_MS = 500;

/**
 * Under npm (`npx edgesync emulator &`, `npm exec`, an npm script), calls
 * `onOrphaned` once the process that started the emulator has exited (its
 * parent PID changes: it was re-parented to init or a subreaper). npm runs
 * `sh -c edgesync …`, which runs node, and forwards no signal: `kill %1` in a
 * shell without job control (a script) stops npm alone, and node was left
 * serving the port (as the README tour starts it). Started directly (`node …`,
 * a container, a service manager, `nohup … &`), the emulator is left alone:
 * there the signal reaches it, and detaching it on purpose must keep working.
 */
function watchForOrphaning(onOrphaned: () => void): NodeJS.Timeout | undefined {
  if (process.env.npm_command === undefined) return undefined;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) onOrphaned();
  }, PARENT_CHECK_MS);
  timer.unref();
  return timer;
}
