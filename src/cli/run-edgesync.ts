import type { ServiceErrorCode } from '../emulator/service-error.js';
import { CORE_ERROR_CODES, type CoreErrorCode, EdgesyncError, OptionError } from '../errors.js';
import type { ExportErrorCode } from '../export/export-error.js';
import { KIND_ERROR_CODES, type KindErrorCode } from '../kinds/kind-error.js';
import { MANIFEST_ERROR_CODES, type ManifestErrorCode } from '../manifest/manifest-error.js';
import { visibleText } from '../visible-text.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { EXIT, type ExitCode } from './exit-codes.js';

export { EXIT } from './exit-codes.js';

/** Every error code edgesync raises, of every family. */
type ErrorCode =
  | CoreErrorCode
  | ManifestErrorCode
  | KindErrorCode
  | ExportErrorCode
  | `emulator_${ServiceErrorCode}`;

/**
 * The emulator's and the exporter's codes: their modules are not loaded for
 * every command (`validate` never loads them: start time, docs/performance.md), so their lists are
 * not spread into the table; every one of them exits 1 unless it has a row.
 */
type UnlistedFamilyCode = `emulator_${ServiceErrorCode}` | ExportErrorCode;

/**
 * The one table from how a command ended to the exit code. Exhaustive for the
 * listed families: a new code in one fails to compile until it has its row.
 */
const EXIT_CODES: Readonly<
  Record<'ok' | 'changes' | Exclude<ErrorCode, UnlistedFamilyCode>, ExitCode> &
    Partial<Record<UnlistedFamilyCode, ExitCode>>
> = {
  ...every(MANIFEST_ERROR_CODES, EXIT.error),
  ...every(KIND_ERROR_CODES, EXIT.error),
  ...every(CORE_ERROR_CODES, EXIT.error),
  ok: EXIT.ok,
  changes: EXIT.changes,
  plan_stale: EXIT.stalePlan,
  plan_refused: EXIT.refused,
  // A CI apply that a daemon enforcing the same owner would fight is refused before it reads anything.
  daemon_enforces: EXIT.refused,
};

function every<C extends string>(codes: readonly C[], exit: ExitCode): Record<C, ExitCode> {
  return Object.fromEntries(codes.map((code) => [code, exit])) as Record<C, ExitCode>;
}

function exitCodeOf(outcome: CommandOutcome | ErrorCode): ExitCode {
  return EXIT_CODES[outcome] ?? EXIT.error;
}

/** What a run of edgesync is given of the process: all of CommandContext but what the run keeps itself (the outcome, the exit listeners, the JSON UI). */
export type EdgesyncProcess = Omit<CommandContext, 'setOutcome' | 'onExit' | 'jsonUi'>;

/**
 * One run of the command line (`argv` as process.argv: node, script, args) to
 * its exit code: the commands, their outcome and every error mapped by the
 * one table above. main.ts runs it for the process (signals, streams);
 * tests about a command's logic run it in the test's own process.
 */
export async function runEdgesync(argv: readonly string[], io: EdgesyncProcess): Promise<ExitCode> {
  const { CommanderError, commandLine, commandNamed, helpPointer } = await import('./command-line.js');
  let outcome: CommandOutcome = 'ok';
  const exitListeners: ((exitCode: number) => void)[] = [];
  const ctx: CommandContext = {
    stdout: io.stdout,
    stderr: io.stderr,
    // A getter: touching process.stdin sets up a stream, which only apply's confirmation needs.
    get stdin() {
      return io.stdin;
    },
    env: io.env,
    cwd: io.cwd,
    setOutcome: (ended) => {
      outcome = ended;
    },
    shutdown: io.shutdown,
    onExit: (listener) => {
      exitListeners.push(listener);
    },
  };
  const exit = (code: ExitCode): ExitCode => {
    for (const listener of exitListeners.splice(0)) listener(code);
    return code;
  };
  const program = await commandLine(ctx, argv);
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) return exit(error.exitCode === 0 ? EXIT.ok : EXIT.error);
    const { messageForPerson } = await import('./error-hints.js');
    io.stderr.write(`edgesync: ${visibleText(await messageForPerson(error))}\n`);
    // A flag's bad value is a usage error like commander's own: where the help is follows it.
    if (error instanceof OptionError) io.stderr.write(`${helpPointer(commandNamed(argv))}\n`);
    return exit(
      error instanceof EdgesyncError ? exitCodeOf((error as EdgesyncError<ErrorCode>).code) : EXIT.error,
    );
  }
  return exit(exitCodeOf(outcome));
}
