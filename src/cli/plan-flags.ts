import { Option } from 'commander';
import { DEFAULT_MARKDOWN_MAX_CHARS } from '../plan/markdown-budget.js';
import type { AddCommandFlags } from './command-context.js';
import { addConnectionOptions, type ConnectionFlags } from './connection-flags.js';
import { addLogOptions, type LogFlags } from './log-flags.js';
import { addPlanOptions, type PlanFlags } from './plan-options.js';

export const PLAN_FORMATS = ['text', 'json', 'markdown'] as const;
export type PlanFormat = (typeof PLAN_FORMATS)[number];

export interface PlanCommandFlags extends ConnectionFlags, PlanFlags, LogFlags {
  readonly format: PlanFormat;
  readonly out?: string;
  /** With --out: the key the saved secrets are digested with. */
  readonly planKeyFile?: string;
  readonly maxChars: string;
  readonly repoRoot?: string;
  readonly detailedExitcode?: boolean;
  readonly caExpiryWarning: string;
  /** commander's `--no-color`: false when given. */
  readonly color: boolean;
}

export const addPlanFlags: AddCommandFlags<[paths: string[], flags: PlanCommandFlags]> = (command) => {
  command
    .description(
      'show what apply would change (exit 0 no changes, 2 changes with --detailed-exitcode, 1 error, 4 refused)',
    )
    .argument(
      '[paths...]',
      'manifest files or directories (recursive; default ".", without node_modules and hidden directories)',
    )
    .addOption(new Option('--format <format>', 'output on stdout').choices(PLAN_FORMATS).default('text'))
    .option(
      '--out <file>',
      'save the plan for `edgesync apply --plan FILE` (secrets as keyed digests, or withheld)',
    )
    .option(
      '--plan-key-file <file>',
      'with --out: the key (at least 32 bytes) the saved secrets are digested with; give apply --plan the same',
    )
    .option(
      '--max-chars <n>',
      `markdown: at most this many characters (GitHub takes 65,536 in a comment); deletes, replaces and refusals first, the rest folded or cut`,
      String(DEFAULT_MARKDOWN_MAX_CHARS),
    )
    .option(
      '--repo-root <dir>',
      'markdown: name manifests from this directory (default: the git top level above the current directory)',
    )
    .option('--detailed-exitcode', 'exit 2 when there are changes')
    .option(
      '--ca-expiry-warning <duration>',
      'warn when a certificate authority expires within this long, e.g. 30d',
      '30d',
    )
    .option('--no-color', 'no ANSI colours in text output (NO_COLOR is honoured too)');
  addLogOptions(command, 'warn');
  addConnectionOptions(command);
  addPlanOptions(command);
  return command;
};
