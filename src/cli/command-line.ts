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
 * Every command's registration, by name: its options only. Each registrar
 * imports its command's implementation when that command runs, so
 * registering all of them stays cheap (issue 18: start time).
 */
const COMMANDS: ReadonlyMap<string, CommandRegistrar> = new Map([
  ['apply', registerApplyCommand],
  ['validate', registerValidateCommand],
  ['plan', registerPlanCommand],
  ['show', registerShowCommand],
  ['watch', registerWatchCommand],
  ['emulator', registerEmulatorCommand],
  ['export', registerExportCommand],
]);

/**
 * The program run-edgesync.ts parses `argv` with. When `argv` starts with a
 * command's name, only that command is registered: the others' options
 * would be built for nothing, which was about 3 ms of `validate`'s start on
 * Node 26 (issue 18). A command's parse, help and errors do not look at its
 * siblings; anything else (`help`, a typo, options first) gets them all.
 */
export function commandLine(ctx: CommandContext, argv: readonly string[]): Command {
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
  const named = argv[2] === undefined ? undefined : COMMANDS.get(argv[2]);
  for (const register of named === undefined ? COMMANDS.values() : [named]) register(program, ctx);
  return program;
}
