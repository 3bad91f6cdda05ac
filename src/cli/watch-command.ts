import { resolve } from 'node:path';
import { CREDENTIAL_FIX, readCredentialFile } from '../credential-file.js';
import { EdgesyncError, OptionError } from '../errors.js';
import { KINDS } from '../kinds/registry.js';
import { compileManifestSchema } from '../manifest/manifest-schema.js';
import { parseEventList, secretPartsOf, webhookTargets } from '../notify/webhook-target.js';
import { systemClock } from '../watch/daemon-clock.js';
import { type ListenAddress, parseListenAddress } from '../watch/listen-address.js';
import { readReconcileToken } from '../watch/reconcile-endpoint.js';
import { runDaemon } from '../watch/run-daemon.js';
import { readStatusToken } from '../watch/status-token.js';
import { readSuspendToken } from '../watch/suspend-endpoint.js';
import { WatchMetrics } from '../watch/watch-metrics.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { commitStatusTarget, parseInstance } from './commit-status-target.js';
import { openConnection } from './connection.js';
import { parseDuration, parsePercentage, parsePositiveInteger } from './duration-option.js';
import { limitHeapGrowth } from './heap-growth.js';
import { createLogger } from './logger.js';
import { parsePlanOptions } from './plan-options.js';
import type { WatchFlags } from './watch-flags.js';

export async function runWatch(
  paths: readonly string[],
  flags: WatchFlags,
  ctx: CommandContext,
): Promise<CommandOutcome> {
  if (flags.force || flags.allowEmpty) {
    throw new EdgesyncError(
      'invalid_option',
      'watch never forces and never prunes from an empty manifest set: drop --force and --allow-empty',
    );
  }
  const plan = parsePlanOptions(flags, KINDS);
  const listen = listenAddress(flags.listen);
  const intervalMs = parseDuration('--interval', flags.interval);
  const debounceMs = parseDuration('--debounce', flags.debounce);
  const settleMs = parseDuration('--settle', flags.settle);
  const settleMaxMs =
    flags.settleMax === undefined ? undefined : parseDuration('--settle-max', flags.settleMax);
  if (settleMaxMs !== undefined && settleMaxMs < settleMs) {
    throw new OptionError(
      '--settle-max',
      `expected at least --settle (${flags.settle}): a delete cannot go before its settle period (found "${flags.settleMax}")`,
    );
  }
  const shutdownTimeoutMs = parseDuration('--shutdown-timeout', flags.shutdownTimeout);
  const concurrency = parsePositiveInteger('--concurrency', flags.concurrency);
  const readShare = parsePercentage('--read-share', flags.readShare);
  if (intervalMs < 1000) {
    throw new OptionError('--interval', `expected at least 1s (found "${flags.interval}")`);
  }
  const notifyTimeoutMs = parseDuration('--notify-timeout', flags.notifyTimeout);
  const notifyRetries = parseCount('--notify-retries', flags.notifyRetries);
  const caExpiryWarningMs = parseDuration('--ca-expiry-warning', flags.caExpiryWarning);
  if (flags.notifyEvents !== undefined && flags.notify.length === 0) {
    // Said rather than ignored: set for a --notify-file alone, it would filter nothing.
    throw new OptionError(
      '--notify-events',
      'chooses the events of the --notify URLs, and none is given; a --notify-file line chooses its own with events=EVENT,…',
    );
  }
  // Credential files as the command line names them, from the command's directory.
  const notifyFilePath = flags.notifyFile === undefined ? undefined : resolve(ctx.cwd, flags.notifyFile);
  const reconcileTokenFile =
    flags.reconcileTokenFile === undefined ? undefined : resolve(ctx.cwd, flags.reconcileTokenFile);
  const notifyFile =
    notifyFilePath === undefined ? undefined : await readCredentialFile(notifyFilePath, '--notify-file');
  const targets = webhookTargets(
    flags.notify,
    flags.notifyFormat,
    notifyFile === undefined
      ? undefined
      : { name: flags.notifyFile as string, text: notifyFile.bytes.toString('utf8') },
    flags.notifyEvents === undefined ? null : parseEventList(flags.notifyEvents, '--notify-events'),
  );
  const reconcileToken =
    reconcileTokenFile === undefined ? undefined : await readReconcileToken(reconcileTokenFile);
  const suspendTokenFile =
    flags.suspendTokenFile === undefined ? undefined : resolve(ctx.cwd, flags.suspendTokenFile);
  const suspendToken = suspendTokenFile === undefined ? undefined : await readSuspendToken(suspendTokenFile);
  if (
    suspendToken !== undefined &&
    reconcileToken !== undefined &&
    suspendToken.token === reconcileToken.token
  ) {
    throw new OptionError(
      '--suspend-token-file',
      `${flags.suspendTokenFile} holds the same token as --reconcile-token-file: give suspend its own, since stopping correction is a stronger power than forcing a re-read`,
    );
  }
  const statusTokenFile =
    flags.statusTokenFile === undefined ? undefined : resolve(ctx.cwd, flags.statusTokenFile);
  const statusToken = statusTokenFile === undefined ? undefined : await readStatusToken(statusTokenFile);
  const sharedWith = [
    { flag: '--reconcile-token-file', token: reconcileToken },
    { flag: '--suspend-token-file', token: suspendToken },
  ].find(({ token }) => statusToken !== undefined && token?.token === statusToken.token);
  if (sharedWith !== undefined) {
    throw new OptionError(
      '--status-token-file',
      `${flags.statusTokenFile} holds the same token as ${sharedWith.flag}: give reading the status its own token, or whoever may read it may also act`,
    );
  }
  const statusPageUrl = parseStatusPageUrl(flags.statusPageUrl);
  const commitStatus = await commitStatusTarget(flags, {
    checkout: resolve(ctx.cwd, paths[0] ?? '.'),
    cwd: ctx.cwd,
  });
  const exposed = [
    { flag: '--notify-file', file: notifyFilePath, exposure: notifyFile?.exposure },
    { flag: '--reconcile-token-file', file: reconcileTokenFile, exposure: reconcileToken?.exposure },
    { flag: '--suspend-token-file', file: suspendTokenFile, exposure: suspendToken?.exposure },
    { flag: '--status-token-file', file: statusTokenFile, exposure: statusToken?.exposure },
    { flag: '--commit-status-token-file', file: commitStatus?.tokenFile, exposure: commitStatus?.exposure },
  ];
  const runtimeFlags = limitHeapGrowth();
  // Every line the daemon logs passes the run's scrubber: the API key, the manifests' secrets, the webhook URLs.
  let scrub = (line: string): string => line;
  const logger = createLogger({
    format: flags.logFormat,
    level: flags.logLevel,
    color: flags.color,
    scrub: (line) => scrub(line),
  });
  for (const { flag, file, exposure } of exposed) {
    if (exposure !== undefined) {
      logger.warn({ flag, file, exposure, fix: CREDENTIAL_FIX }, 'a credential file others can read');
    }
  }
  const metrics = new WatchMetrics(KINDS);
  const connection = await openConnection(flags, {
    logger,
    onRequest: (event) => metrics.recordRequest(event),
  });
  for (const target of targets) for (const part of secretPartsOf(target)) connection.secrets.add(part);
  scrub = (line) => connection.secrets.scrub(line);
  if (commitStatus !== null) {
    logger.info(
      {
        provider: commitStatus.provider.name,
        api: commitStatus.apiUrl.origin,
        repo: commitStatus.repo,
        context: commitStatus.context,
      },
      'commit statuses',
    );
    for (const note of commitStatus.notes) logger.info({ note }, 'commit statuses');
  }
  try {
    await runDaemon({
      kinds: KINDS,
      paths,
      cwd: ctx.cwd,
      mode: flags.mode,
      load: {
        env: ctx.env,
        owner: plan.owner,
        allowOutsideRoot: flags.allowOutsideRoot ?? false,
        cwd: ctx.cwd,
        kinds: KINDS,
        validator: compileManifestSchema(),
        onSecret: (value) => connection.secrets.add(value),
        parsing: { runtimeFlags },
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
      settleMs,
      ...(settleMaxMs === undefined ? {} : { settleMaxMs }),
      intervalMs,
      shutdownTimeoutMs,
      concurrency,
      signal: ctx.shutdown,
      // SIGHUP forces a full re-read (manifests and account) instead of ending the daemon (exit 129); flags stay as started.
      subscribeReload: (reload) => {
        const onHangup = (): void => reload();
        process.on('SIGHUP', onHangup);
        return () => process.off('SIGHUP', onHangup);
      },
      onListening: (url) => ctx.stdout.write(`listening on ${url}\n`),
      ...(targets.length === 0
        ? {}
        : {
            notify: {
              targets,
              timeoutMs: notifyTimeoutMs,
              retries: notifyRetries,
              expiryWindowMs: caExpiryWarningMs,
              scrub: (text: string) => connection.secrets.scrub(text),
              statusPageUrl,
              instance: parseInstance(flags.instance) ?? null,
              service: new URL(connection.baseUrl).host,
            },
          }),
      ...(reconcileTokenFile === undefined ? {} : { reconcileTokenFile }),
      ...(suspendTokenFile === undefined ? {} : { suspendTokenFile }),
      ...(statusTokenFile === undefined ? {} : { statusTokenFile }),
      suspended: flags.suspended === true,
      ...(commitStatus === null
        ? {}
        : {
            commitStatus: {
              provider: commitStatus.provider,
              apiUrl: commitStatus.apiUrl,
              repo: commitStatus.repo,
              tokenFile: commitStatus.tokenFile,
              context: commitStatus.context,
              targetUrl: statusPageUrl,
            },
          }),
    });
  } finally {
    await connection.close();
  }
  return 'ok';
}

/** `--status-page-url`: an http(s) address people open, without credentials (it is posted to the Git host and into notifications). */
function parseStatusPageUrl(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OptionError(
      '--status-page-url',
      `expected a URL like https://edgesync.example.com/ (found "${value}")`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new OptionError('--status-page-url', `expected https:// or http:// (found "${url.protocol}")`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new OptionError(
      '--status-page-url',
      'must not carry a user or password: it is shown on every commit and in every notification',
    );
  }
  return url.href;
}

/** A whole number of at least 0 (`--notify-retries 0`: one attempt only). */
function parseCount(flag: string, value: string): number {
  if (!/^\d+$/.test(value.trim()))
    throw new OptionError(flag, `expected a whole number of at least 0 (found "${value}")`);
  return Number(value.trim());
}

/** `--listen`, its error an OptionError so that a value from EDGESYNC_LISTEN is reported as the variable's. */
function listenAddress(value: string): ListenAddress {
  try {
    return parseListenAddress(value);
  } catch (cause) {
    throw new OptionError('--listen', `expected HOST:PORT like 127.0.0.1:9090 (found "${value}")`, { cause });
  }
}
