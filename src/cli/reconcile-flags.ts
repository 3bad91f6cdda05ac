import { Option } from 'commander';
import { NO_COLOR_ACCEPTED } from './color-choice.js';
import type { AddCommandFlags } from './command-context.js';
import { STATUS_TOKEN_OPTION } from './status-token-flag.js';

export const RECONCILE_FORMATS = ['text', 'json'] as const;
export type ReconcileFormat = (typeof RECONCILE_FORMATS)[number];

export interface ReconcileFlags {
  /** `json`: the machine-readable UI on stdout (json-ui.ts), as `apply --format json`. */
  readonly format: ReconcileFormat;
  readonly daemonUrl: string;
  /** The file of the token the daemon's /status (and /inventory) asks for (watch --status-token-file). */
  readonly statusTokenFile?: string;
  readonly reconcileTokenFile?: string;
  readonly wait: boolean;
  readonly waitTimeout: string;
  readonly readTimeout: string;
}

/**
 * `edgesync reconcile`: asks a running daemon (`POST /reconcile`) for a full
 * re-read of the manifests and the whole account, then a reconcile, as
 * SIGHUP does; `--wait` follows it in `/status` to its result.
 */
export const addReconcileFlags: AddCommandFlags<[flags: ReconcileFlags]> = (command) =>
  command
    .description('ask a running daemon for a full re-read of manifests and account, then a reconcile')
    .option('--daemon-url <url>', 'the daemon’s listener (watch --listen)', 'http://127.0.0.1:9090')
    .addOption(
      new Option(
        '--format <format>',
        'stdout: lines for people, or one JSON object a line for tools (schemas/ui.schema.json)',
      )
        .choices(RECONCILE_FORMATS)
        .default('text'),
    )
    .option(
      '--reconcile-token-file <file>',
      'the file holding the token the daemon was started with (watch --reconcile-token-file)',
    )
    .option('--wait', 'wait until that reconcile has finished, and exit 1 unless it succeeded', false)
    .option(
      '--wait-timeout <duration>',
      'with --wait: give up after this long (a full re-read of 100,000 rules takes over 8 minutes)',
      '30m',
    )
    .option(...STATUS_TOKEN_OPTION)
    .option(
      '--read-timeout <duration>',
      'deadline of one request to the daemon: connecting, the headers and the whole answer',
      '10s',
    )
    .option(...NO_COLOR_ACCEPTED);
