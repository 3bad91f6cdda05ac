import { Argument } from 'commander';
import type { AddCommandFlags } from './command-context.js';

/** SHELLS of completion-scripts.ts, written out: registering the command loads no script writer. */
const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** No flags of its own: the shell is the operand. */
export type CompletionFlags = Readonly<Record<string, never>>;

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
    .addArgument(new Argument('<shell>', 'the shell').choices(COMPLETION_SHELLS));
