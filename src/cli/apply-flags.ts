import { Option } from 'commander';
import type { AddCommandFlags } from './command-context.js';
import { addConnectionOptions, type ConnectionFlags } from './connection-flags.js';
import { addLogOptions, type LogFlags } from './log-flags.js';
import { addPlanOptions, type PlanFlags } from './plan-options.js';
import { STATUS_TOKEN_OPTION } from './status-token-flag.js';

export const APPLY_FORMATS = ['text', 'json'] as const;
export type ApplyFormat = (typeof APPLY_FORMATS)[number];

export interface ApplyFlags extends ConnectionFlags, PlanFlags, LogFlags {
  /** `json`: the machine-readable UI on stdout (json-ui.ts); needs --yes or --plan, since it cannot ask. */
  readonly format: ApplyFormat;
  readonly plan?: string;
  /** The key the saved plan's secrets were digested with (`plan --plan-key-file`). */
  readonly planKeyFile?: string;
  /** With --plan: refuse (exit 3) instead of warning when objects around the plan changed. */
  readonly refuseContextChanges?: boolean;
  readonly yes?: boolean;
  readonly dryRun?: boolean;
  readonly concurrency: string;
  readonly graceTimeout: string;
  /** A daemon's address: the apply is refused when that daemon enforces the same owner. */
  readonly daemonUrl?: string;
  /** With --daemon-url: the file of the token its /status asks for (watch --status-token-file). */
  readonly statusTokenFile?: string;
  /** false with --no-color. */
  readonly color: boolean;
}

export const addApplyFlags: AddCommandFlags<[paths: string[], flags: ApplyFlags]> = (command) => {
  command
    .description('plan and apply: make the account what the manifests say (asks on a TTY unless --yes)')
    .argument(
      '[paths...]',
      'manifest files or directories (recursive; default ".", without node_modules and hidden directories)',
    )
    .option(
      '--plan <file>',
      'apply a plan saved by `edgesync plan --out`, refusing if the account or manifests changed',
    )
    .option(
      '--plan-key-file <file>',
      "with --plan: the key `plan --out` digested the plan's secrets with (at least 32 bytes)",
    )
    .option(
      '--refuse-context-changes',
      'with --plan: refuse (exit 3) when objects edgesync does not manage changed since the plan, in the IP policies it writes to (default: warn and apply)',
    )
    .option('-y, --yes', 'apply without asking')
    .addOption(
      new Option(
        '--format <format>',
        'stdout: the plan and summary as text, or one JSON object a line for tools (schemas/ui.schema.json; needs --yes or --plan)',
      )
        .choices(APPLY_FORMATS)
        .default('text'),
    )
    .option(
      '--no-color',
      'no ANSI colours in the plan shown (NO_COLOR is honoured too; FORCE_COLOR forces them)',
    )
    .option('--dry-run', 'print the requests that would be sent and send no write')
    .option('--concurrency <n>', 'actions in flight at once', '4')
    .option(
      '--grace-timeout <duration>',
      'after SIGINT/SIGTERM, how long requests on the wire may finish and their outcomes be settled, e.g. 10s (a bare number is milliseconds)',
      '10s',
    )
    .option(
      '--daemon-url <url>',
      'a daemon (edgesync watch) managing this account: refuse to apply when it enforces the same --owner, since it applies the merge itself',
    )
    .option(...STATUS_TOKEN_OPTION);
  addLogOptions(command, 'info');
  addConnectionOptions(command);
  addPlanOptions(command);
  return command;
};
