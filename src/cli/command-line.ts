import { Command } from 'commander';
import { OptionError } from '../errors.js';
import type { Kind } from '../kinds/kind.js';
import { VERSION } from '../version.js';
import type { CommandContext } from './command-context.js';
import type { CommandSpec } from './command-spec.js';
import { COMMANDS, type CommandEntry } from './command-table.js';
import { flagsFromEnvironment } from './environment-flags.js';
import type { JsonUi } from './json-ui.js';

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
      outputError: (text, write) => write(usageErrorLine(text)),
    })
    .showHelpAfterError(helpPointer());
  flagsFromEnvironment(program);
  const named = argv[2] === undefined ? undefined : COMMANDS.get(argv[2]);
  const every = named === undefined || named.describesCommands;
  const selected = every ? [...COMMANDS] : [[argv[2] as string, named] as const];
  const shown = argv[2] === 'help' && argv[3] !== undefined ? COMMANDS.get(argv[3]) : named;
  const kinds =
    shown?.flagsFromKinds === true || shown?.describesCommands === true
      ? (await import('../kinds/registry.js')).KINDS
      : [];
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
  const command = entry.addFlags(program.command(name), kinds).showHelpAfterError(helpPointer(name));
  command.action(async (...args: unknown[]) => {
    // commander passes the operands, the flags, then the command itself, which no run needs.
    const given = args.slice(0, -1);
    const flags = given.at(-1) as { readonly format?: unknown };
    const jsonUi = entry.jsonLines && flags.format === 'json' ? await openJsonUi(name, ctx) : undefined;
    const commands = entry.describesCommands
      ? (await import('./command-spec.js')).describeCommands(program)
      : undefined;
    try {
      const run = await entry.load();
      const commandCtx =
        jsonUi === undefined && commands === undefined ? ctx : withExtras(ctx, { jsonUi, commands });
      ctx.setOutcome(await run(...given, commandCtx));
    } catch (thrown) {
      const error = namedBySource(thrown, command);
      if (jsonUi !== undefined) jsonUi.fail(error);
      else if (entry.jsonDiagnostics && flags.format === 'json') {
        const { renderDiagnostics } = await import('./json-diagnostics.js');
        ctx.stdout.write(renderDiagnostics([error]));
      }
      throw error;
    }
  });
}

/** The machine-readable UI of command `name` on stdout (its `version` line written), ended with the run's exit code. */
async function openJsonUi(name: string, ctx: CommandContext): Promise<JsonUi> {
  const { JsonUi } = await import('./json-ui.js');
  const ui = new JsonUi(name, ctx.stdout);
  ctx.onExit((exitCode) => ui.end(exitCode));
  return ui;
}

/** `ctx` with what the command line gives some commands; its stdin stays a getter (touching process.stdin sets up a stream). */
function withExtras(
  ctx: CommandContext,
  extras: { readonly jsonUi: JsonUi | undefined; readonly commands: readonly CommandSpec[] | undefined },
): CommandContext {
  return {
    stdout: ctx.stdout,
    stderr: ctx.stderr,
    get stdin() {
      return ctx.stdin;
    },
    env: ctx.env,
    cwd: ctx.cwd,
    setOutcome: (outcome) => ctx.setOutcome(outcome),
    shutdown: ctx.shutdown,
    ...(extras.jsonUi === undefined ? {} : { jsonUi: extras.jsonUi }),
    ...(extras.commands === undefined ? {} : { commands: extras.commands }),
    onExit: (listener) => ctx.onExit(listener),
  };
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

/**
 * What follows a usage error instead of the whole help (35 to 100 lines,
 * which buried the one that said what was wrong): where the help is.
 */
export function helpPointer(command?: string): string {
  return `see \`edgesync ${command === undefined ? '' : `${command} `}--help\``;
}

/**
 * Commander's usage error as edgesync writes every error: `edgesync: `
 * first, and its suggestion on the same line (`unknown option '--formt';
 * did you mean --format?`).
 */
function usageErrorLine(text: string): string {
  return text
    .replace(
      CHOICE_ERROR,
      (_, flag: string, typed: string | undefined, fromEnv: string, variable: string, choices: string) =>
        `error: ${typed === undefined ? variable : flag}: expected one of ${choices} (found ${JSON.stringify(typed ?? fromEnv)})`,
    )
    .replace(
      OPERAND_CHOICE_ERROR,
      (_, value: string, name: string, choices: string) =>
        `error: <${name}>: expected one of ${choices} (found ${JSON.stringify(value)})`,
    )
    .replace(/^error: /, 'edgesync: ')
    .replace(/\n\(Did you mean (.+)\?\)\n$/, '; did you mean $1?\n');
}

/**
 * Commander's refusal of a value outside a flag's choices, from the command
 * line or its variable: said the way edgesync's own flag checks say it
 * (`--log-level: expected one of … (found "loud")`), naming the variable
 * when the value came from one.
 */
/** The same for an operand: `completion tcsh` reads `<shell>: expected one of bash, zsh, fish (found "tcsh")`. */
const OPERAND_CHOICE_ERROR =
  /^error: command-argument value '(.*)' is invalid for argument '([a-z-]+)'\. Allowed choices are (.*)\.$/m;

const CHOICE_ERROR =
  /^error: option '(--[a-z-]+)[^']*' (?:argument '(.*)'|value '(.*)' from env '([A-Z_]+)') is invalid\. Allowed choices are (.*)\.$/m;

/** The command `argv` (as process.argv) runs, or undefined when it names none. */
export function commandNamed(argv: readonly string[]): string | undefined {
  const name = argv[2];
  return name !== undefined && COMMANDS.has(name) ? name : undefined;
}
