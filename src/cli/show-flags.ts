import { Option } from 'commander';
import { DEFAULT_MARKDOWN_MAX_CHARS } from '../plan/markdown-budget.js';
import type { AddCommandFlags } from './command-context.js';
import { PLAN_FORMATS, type PlanFormat } from './plan-flags.js';

export interface ShowFlags {
  readonly format: PlanFormat;
  readonly maxChars: string;
  readonly repoRoot?: string;
  /** commander's `--no-color`: false when given. */
  readonly color: boolean;
}

/**
 * `edgesync show PLAN_FILE`: renders a plan saved by `plan --out` without
 * touching the network, so a workflow can comment on (or a person read)
 * exactly the plan `apply --plan` will carry out.
 */
export const addShowFlags: AddCommandFlags<[file: string, flags: ShowFlags]> = (command) =>
  command
    .description('render a plan saved by `plan --out` (no network; secrets stay hidden)')
    .argument('<plan-file>', 'a file written by `edgesync plan --out`')
    .addOption(new Option('--format <format>', 'output on stdout').choices(PLAN_FORMATS).default('text'))
    .option(
      '--max-chars <n>',
      'markdown: at most this many characters (GitHub takes 65,536 in a comment)',
      String(DEFAULT_MARKDOWN_MAX_CHARS),
    )
    .option('--repo-root <dir>', 'markdown: name manifests from this directory (default: the git top level)')
    .option('--no-color', 'no ANSI colours in text output (NO_COLOR is honoured too)');
