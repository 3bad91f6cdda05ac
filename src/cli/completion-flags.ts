import { Argument } from 'commander';
import { NO_COLOR_ACCEPTED } from './color-choice.js';
import type { AddCommandFlags } from './command-context.js';

/** SHELLS of completion-scripts.ts, written out: registering the command loads no script writer. */
const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** The shell is the operand; `--no-color` is accepted like on every command. */
export interface CompletionFlags {
  readonly color?: boolean;
}

/**
 * `edgesync completion bash|zsh|fish`: the shell's completion script on
 * stdout (commands, flags, choice values, paths); the README says where each
 * shell looks for it.
 */
export const addCompletionFlags: AddCommandFlags<[shell: CompletionShell, flags: CompletionFlags]> = (
  command,
) =>
  command
    .description('print the shell completion script for bash, zsh or fish (commands, flags, values, paths)')
    .addArgument(new Argument('<shell>', 'the shell').choices(COMPLETION_SHELLS))
    .option(...NO_COLOR_ACCEPTED);
