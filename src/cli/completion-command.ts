import { EdgesyncError } from '../errors.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import type { CompletionFlags, CompletionShell } from './completion-flags.js';
import { completionScript, SHELLS, type Shell } from './completion-scripts.js';

/** `edgesync completion SHELL`: the script, written from the command line as registered (CommandContext.commands). */
export async function runCompletion(
  shell: CompletionShell,
  _flags: CompletionFlags,
  ctx: CommandContext,
): Promise<CommandOutcome> {
  if (ctx.commands === undefined) {
    throw new EdgesyncError('invalid_option', 'completion: the command line was not described to it');
  }
  ctx.stdout.write(completionScript(shell satisfies Shell, ctx.commands));
  return 'ok';
}

// Both ways: a shell the scripts know is one the flags offer, and no other.
const everyShell: readonly CompletionShell[] = SHELLS;
void everyShell;
