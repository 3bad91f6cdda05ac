import { Option } from 'commander';
import type { NotifyFormat } from '../notify/chat-format.js';
import type { WatchMode } from '../watch/daemon-status.js';
import type { AddCommandFlags } from './command-context.js';
import { addCommitStatusOptions, type CommitStatusFlags } from './commit-status-flags.js';
import { addConnectionOptions, type ConnectionFlags } from './connection-flags.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat } from './log-flags.js';
import { addPlanOptions, type PlanFlags } from './plan-options.js';

/** WATCH_MODES of src/watch/daemon-status.ts, written out so that registering `watch` loads no daemon module. */
const WATCH_MODES = ['enforce', 'observe'] as const satisfies readonly WatchMode[];
// Both ways: a mode added to the daemon fails to compile here until it is listed.
const everyMode: readonly (typeof WATCH_MODES)[number][] = [] as WatchMode[];
void everyMode;

/** NOTIFY_FORMATS of src/notify/chat-format.ts, written out for the same reason, and checked both ways the same way. */
const NOTIFY_FORMATS = ['slack', 'discord', 'teams', 'json'] as const satisfies readonly NotifyFormat[];
const everyFormat: readonly (typeof NOTIFY_FORMATS)[number][] = [] as NotifyFormat[];
void everyFormat;

export interface WatchFlags extends ConnectionFlags, PlanFlags, CommitStatusFlags {
  readonly mode: WatchMode;
  readonly interval: string;
  readonly debounce: string;
  readonly settle: string;
  /** Absent: SETTLE_MAX_FACTOR × --settle. */
  readonly settleMax?: string;
  readonly listen: string;
  readonly shutdownTimeout: string;
  readonly concurrency: string;
  readonly readShare: string;
  /** --notify, repeatable (EDGESYNC_NOTIFY: URLs separated by spaces or lines). */
  readonly notify: readonly string[];
  readonly notifyFormat: NotifyFormat;
  readonly notifyFile?: string;
  /** --notify-events: the events the --notify targets get, comma-separated; all when absent. */
  readonly notifyEvents?: string;
  readonly notifyTimeout: string;
  readonly notifyRetries: string;
  readonly caExpiryWarning: string;
  readonly reconcileTokenFile?: string;
  readonly suspendTokenFile?: string;
  readonly statusTokenFile?: string;
  /** --suspended: start suspended; the durable form of `edgesync suspend`. */
  readonly suspended?: boolean;
  /** Where people see this daemon's status page: commit statuses and notifications link to it. */
  readonly statusPageUrl?: string;
  readonly logFormat: LogFormat;
  readonly logLevel: string;
  /** commander's `--no-color`: false when given. */
  readonly color: boolean;
}

/** Repeated --notify values, and EDGESYNC_NOTIFY's (URLs hold no whitespace, so it may list several). */
function collectUrls(value: string, previous: readonly string[] = []): string[] {
  return [...previous, ...value.split(/\s+/).filter((url) => url !== '')];
}

export const addWatchFlags: AddCommandFlags<[paths: string[], flags: WatchFlags]> = (command) => {
  command
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
    .option(
      '--settle <duration>',
      'how long a delete waits after the last change to the files that held its entry or could be receiving it (creates and updates go at once); 0s sends deletes at once',
      '10s',
    )
    .option(
      '--settle-max <duration>',
      'once an entry has been absent from every read this long, its delete goes however often such files keep changing (default: 6 times --settle); a delete held longer for another reason (invalid manifests) is reported',
    )
    .option('--listen <host:port>', 'address of /healthz, /readyz, /metrics and /status', '127.0.0.1:9090')
    .option('--shutdown-timeout <duration>', 'how long a reconcile in flight may finish after SIGTERM', '20s')
    .addOption(
      new Option(
        '--notify <url>',
        'post events (commit live, failed, refused, recovered, invalid manifests, drift, CA expiry, stuck) to this webhook; repeatable. The URL is a secret: prefer EDGESYNC_NOTIFY or --notify-file',
      )
        .argParser(collectUrls)
        .default([]),
    )
    .addOption(
      new Option(
        '--notify-format <format>',
        'how the --notify targets render text: each value from outside is escaped for it (Discord also gets allowed_mentions: none); json for receivers that render nothing',
      )
        .choices(NOTIFY_FORMATS)
        .default('slack'),
    )
    .option(
      '--notify-events <events>',
      'the events the --notify targets get, comma-separated (e.g. commit_live,reconcile_failed,daemon_stuck); default: every event',
    )
    .option(
      '--notify-file <file>',
      'webhook targets to post events to, one a line: URL, or FORMAT URL (slack, discord, teams, json), then events=EVENT,… to choose its events; # comments',
    )
    .option('--notify-timeout <duration>', 'how long one webhook post may take', '10s')
    .option('--notify-retries <n>', 'posts again after a failed one, with backoff from 1s', '3')
    .option(
      '--ca-expiry-warning <duration>',
      'notify when a certificate authority expires within this long, e.g. 30d',
      '30d',
    )
    .option(
      '--reconcile-token-file <file>',
      'enables POST /reconcile (a full re-read) for requests carrying this file’s token in "Authorization: Bearer"',
    )
    .option(
      '--suspend-token-file <file>',
      'enables POST /suspend and /resume (edgesync suspend, resume) for this file’s token in "Authorization: Bearer"; the reconcile token is refused',
    )
    .option(
      '--status-token-file <file>',
      'answer /, /status and /inventory only with this file’s token in "Authorization: Bearer" (they show names, IDs and CIDRs); /healthz, /readyz and /metrics stay open',
    )
    .option(
      '--suspended',
      'start suspended: read and report drift, send no write until edgesync resume (a suspension by edgesync suspend ends with a restart; this one does not)',
    )
    .option('--concurrency <n>', 'actions applied at once', '4')
    .addOption(
      new Option('--log-format <format>', 'json for machines, pretty for people')
        .choices(LOG_FORMATS)
        .default('json'),
    )
    .addOption(new Option('--log-level <level>', 'pino level').choices([...LOG_LEVELS]).default('info'))
    // Like plan and apply: --log-format pretty on a terminal is the only colour watch prints.
    .option('--no-color', 'no ANSI colours in --log-format pretty (NO_COLOR is honoured too)');
  command.option(
    '--status-page-url <url>',
    'where people reach this daemon’s status page (its / behind your ingress): commit statuses and notifications link to it',
  );
  addCommitStatusOptions(command, 'post');
  addConnectionOptions(command);
  addPlanOptions(command);
  // Shared with plan/apply, but the daemon refuses them: keep them out of its help.
  for (const option of command.options) {
    if (option.long === '--force' || option.long === '--allow-empty') option.hideHelp();
  }
  return command;
};
