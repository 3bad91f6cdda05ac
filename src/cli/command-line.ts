import { Command } from 'commander';
import { OptionError } from '../errors.js';
import type { Kind } from '../kinds/kind.js';
import { VERSION } from '../version.js';
import type { CommandContext } from './command-context.js';
import { COMMANDS, type CommandEntry } from './command-table.js';
import { flagsFromEnvironment } from './environment-flags.js';

export { CommanderError } from 'commander';

/**
 * The program run-edgesync.ts parses `argv` with. When `argv` starts with a
 * command's name, only that command is registered: the others' options
 * would be built for nothing, which was about 3 ms of `validate`'s start on
 * Node 26. A command's parse, help and errors do not look at its siblings;
 * anything else (`help`, a typo, options first) gets them all.
 *
 * The registry is loaded only when `argv` names a command whose flags come
 * from its kinds (`export`, or `help export`): the list of every command
 * shows no flags, so there they are declared from no kinds, and `--help`
 * loads no kind.
 */
export async function commandLine(ctx: CommandContext, argv: readonly string[]): Promise<Command> {
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
  const selected = named === undefined ? [...COMMANDS] : [[argv[2] as string, named] as const];
  const shown = argv[2] === 'help' && argv[3] !== undefined ? COMMANDS.get(argv[3]) : named;
  const kinds = shown?.flagsFromKinds === true ? (await import('../kinds/registry.js')).KINDS : [];
  for (const [name, entry] of selected) registerCommand(program, name, entry, ctx, kinds);
  return program;
}

/**
 * Declares the command `name` on `program` with its flags, and an action
 * that loads the implementation and records how it ended.
 */
function registerCommand(
  program: Command,
  name: string,
  entry: CommandEntry,
  ctx: CommandContext,
  kinds: readonly Kind[],
): void {
  const command = entry.addFlags(program.command(name), kinds);
  command.action(async (...args: unknown[]) => {
    // commander passes the operands, the flags, then the command itself, which no run needs.
    const given = args.slice(0, -1);
    const flags = given.at(-1) as { readonly format?: unknown };
    try {
      const run = await entry.load();
      ctx.setOutcome(await run(...given, ctx));
    } catch (thrown) {
      const error = namedBySource(thrown, command);
      if (entry.jsonDiagnostics && flags.format === 'json') {
        const { renderDiagnostics } = await import('./json-diagnostics.js');
        ctx.stdout.write(renderDiagnostics([error]));
      }
      throw error;
    }
  });
}

/**
 * A bad value of a flag that was set by its environment variable is
 * reported as that variable's (`EDGESYNC_CONCURRENCY: expected …`): a person
 * who never typed `--concurrency` looks for what they did set.
 */
function namedBySource(error: unknown, command: Command): unknown {
  if (!(error instanceof OptionError)) return error;
  const option = command.options.find((candidate) => candidate.long === error.flag);
  if (option?.envVar === undefined) return error;
  return command.getOptionValueSource(option.attributeName()) === 'env'
    ? error.namedBy(option.envVar)
    : error;
}
