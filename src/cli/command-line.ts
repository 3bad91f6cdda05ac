import { Command } from 'commander';
import { VERSION } from '../version.js';
import { registerApplyCommand } from './apply-flags.js';
import type { CommandContext, CommandRegistrar } from './command-context.js';
import { registerEmulatorCommand } from './emulator-flags.js';
import { flagsFromEnvironment } from './environment-flags.js';
import { registerExportCommand } from './export-flags.js';
import { registerPlanCommand } from './plan-flags.js';
import { registerShowCommand } from './show-flags.js';
import { registerValidateCommand } from './validate-flags.js';
import { registerWatchCommand } from './watch-flags.js';

export { CommanderError } from 'commander';

/**
 * Every command's registration: its options only. Each registrar imports its
 * command's implementation when that command runs, so registering all of
 * them stays cheap (issue 18: start time).
 */
const COMMANDS: readonly CommandRegistrar[] = [
  registerApplyCommand,
  registerValidateCommand,
  registerPlanCommand,
  registerShowCommand,
  registerWatchCommand,
  registerEmulatorCommand,
  registerExportCommand,
];

/** The program run-edgesync.ts parses the command line with. */
export function commandLine(ctx: CommandContext): Command {
  const program = new Command('edgesync')
    .description('Keep an Edge Configuration Service account equal to YAML manifests in Git.')
    .version(VERSION, '-V, --version')
    .exitOverride()
    // Help and usage errors go where the command's own output goes (the process's streams, or a test's).
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
    })
    .showHelpAfterError();
  flagsFromEnvironment(program);
  for (const register of COMMANDS) register(program, ctx);
  return program;
}
