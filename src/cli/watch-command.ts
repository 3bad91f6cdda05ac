import { Option } from 'commander';
import { EdgesyncError } from '../errors.js';
import { compileManifestSchema } from '../manifest/manifest-schema.js';
import { systemClock } from '../watch/daemon-clock.js';
import { WATCH_MODES, type WatchMode } from '../watch/daemon-status.js';
import { parseListenAddress } from '../watch/listen-address.js';
import { runDaemon } from '../watch/run-daemon.js';
import { WatchMetrics } from '../watch/watch-metrics.js';
import type { CommandContext, CommandRegistrar } from './command-context.js';
import { addConnectionOptions, type ConnectionFlags, openConnection } from './connection.js';
import { parseDuration, parsePercentage, parsePositiveInteger } from './duration-option.js';
import { createLogger, LOG_FORMATS, type LogFormat } from './logger.js';
import { addPlanOptions, type PlanFlags, parsePlanOptions } from './plan-options.js';

interface WatchFlags extends ConnectionFlags, PlanFlags {
  readonly mode: WatchMode;
  readonly interval: string;
  readonly debounce: string;
  readonly listen: string;
  readonly shutdownTimeout: string;
  readonly concurrency: string;
  readonly readShare: string;
  readonly logFormat: LogFormat;
  readonly logLevel: string;
}

export const registerWatchCommand: CommandRegistrar = (program, ctx) => {
  const command = program
    .command('watch')
    .description('run as a daemon: apply every manifest change and correct drift on a timer')
    .argument('[paths...]', 'manifest files and directories', ['.'])
    .addOption(
      new Option('--mode <mode>', 'enforce applies plans; observe only reports drift')
        .choices(WATCH_MODES)
        .default('enforce'),
    )
    .option(
      '--interval <duration>',
      'how often a background full read starts, to catch drift made outside Git (a read slower than this runs back to back)',
      '5m',
    )
    .option(
      '--read-share <percent>',
      'share of --rate-limit that background full reads may use; changes and writes always go first',
      '25%',
    )
    .option('--debounce <duration>', 'quiet time after a file change before reconciling', '500ms')
    .option('--listen <host:port>', 'address of /healthz, /readyz, /metrics and /status', '127.0.0.1:9090')
    .option('--shutdown-timeout <duration>', 'how long a reconcile in flight may finish after SIGTERM', '20s')
    .option('--concurrency <n>', 'actions applied at once', '4')
    .addOption(
      new Option('--log-format <format>', 'json for machines, pretty for people')
        .choices(LOG_FORMATS)
        .default('json'),
    )
    .option('--log-level <level>', 'pino level', 'info');
  addConnectionOptions(command);
  addPlanOptions(command);
  // Shared with plan/apply, but the daemon refuses them: keep them out of its help.
  for (const option of command.options) {
    if (option.long === '--force' || option.long === '--allow-empty') option.hideHelp();
  }
  command.action((paths: string[], flags: WatchFlags) => runWatch(paths, flags, ctx));
};

async function runWatch(paths: readonly string[], flags: WatchFlags, ctx: CommandContext): Promise<void> {
  if (flags.force || flags.allowEmpty) {
    throw new EdgesyncError(
      'invalid_option',
      'watch never forces and never prunes from an empty manifest set: drop --force and --allow-empty',
    );
  }
  const plan = parsePlanOptions(flags);
  const listen = parseListenAddress(flags.listen);
  const intervalMs = parseDuration('--interval', flags.interval);
  const debounceMs = parseDuration('--debounce', flags.debounce);
  const shutdownTimeoutMs = parseDuration('--shutdown-timeout', flags.shutdownTimeout);
  const concurrency = parsePositiveInteger('--concurrency', flags.concurrency);
  const readShare = parsePercentage('--read-share', flags.readShare);
  if (intervalMs < 1000) {
    throw new EdgesyncError('invalid_option', `--interval: expected at least 1s (found "${flags.interval}")`);
  }
  const logger = createLogger({ format: flags.logFormat, level: flags.logLevel });
  const metrics = new WatchMetrics();
  const connection = await openConnection(flags, {
    logger,
    onRequest: (event) => metrics.recordRequest(event),
  });
  try {
    await runDaemon({
      paths,
      cwd: ctx.cwd,
      mode: flags.mode,
      load: {
        env: ctx.env,
        owner: plan.owner,
        allowOutsideRoot: flags.allowOutsideRoot ?? false,
        cwd: ctx.cwd,
        validator: compileManifestSchema(),
      },
      plan,
      api: connection.api,
      budget: connection.budget,
      readShare,
      metrics,
      logger,
      clock: systemClock(),
      random: Math.random,
      listen,
      debounceMs,
      intervalMs,
      shutdownTimeoutMs,
      concurrency,
      signal: ctx.shutdown,
      onListening: (url) => ctx.stdout.write(`listening on ${url}\n`),
    });
  } finally {
    await connection.close();
  }
  ctx.setOutcome('ok');
}
