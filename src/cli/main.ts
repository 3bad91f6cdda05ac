#!/usr/bin/env node
import nodeModule from 'node:module';
import type { ServiceErrorCode } from '../emulator/service-error.js';
import { CORE_ERROR_CODES, type CoreErrorCode, EdgesyncError } from '../errors.js';
import type { ExportErrorCode } from '../export/export-error.js';
import { KIND_ERROR_CODES, type KindErrorCode } from '../kinds/kind-error.js';
import { MANIFEST_ERROR_CODES, type ManifestErrorCode } from '../manifest/manifest-error.js';
import { VERSION } from '../version.js';
import { visibleText } from '../visible-text.js';
import type { CommandContext, CommandOutcome } from './command-context.js';

// Node 22.1+ keeps V8's compiled code of the modules loaded from here on (the
// command's chunks, yaml, the manifest validator) in the OS temp directory, so
// the next run skips compiling them (issue 18: start time). Node 20 has no such
// cache: the feature test makes this a no-op there. A cache directory that
// cannot be written is reported by the return value, never thrown, and
// NODE_DISABLE_COMPILE_CACHE=1 turns it off.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

/** The documented exit codes (DESIGN.md, "Commands"). */
const EXIT = {
  ok: 0,
  error: 1,
  changes: 2,
  stalePlan: 3,
  refused: 4,
} as const;
type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Every error code edgesync raises, of every family. */
type ErrorCode =
  | CoreErrorCode
  | ManifestErrorCode
  | KindErrorCode
  | ExportErrorCode
  | `emulator_${ServiceErrorCode}`;

/**
 * The emulator's and the exporter's codes: their modules are not loaded for
 * every command (issue 18: `validate` never loads them), so their lists are
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
};

function every<C extends string>(codes: readonly C[], exit: ExitCode): Record<C, ExitCode> {
  return Object.fromEntries(codes.map((code) => [code, exit])) as Record<C, ExitCode>;
}

function exitCodeOf(outcome: CommandOutcome | ErrorCode): ExitCode {
  return EXIT_CODES[outcome] ?? EXIT.error;
}

async function main(argv: readonly string[]): Promise<number> {
  // `edgesync --version` alone answers before commander and the commands load (issue 18: start time).
  if (argv.length === 3 && (argv[2] === '--version' || argv[2] === '-V')) {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  const { CommanderError, commandLine } = await import('./command-line.js');
  let outcome: CommandOutcome = 'ok';
  const shutdown = new AbortController();
  // The first signal asks the command to stop cleanly (an apply settles what it sent and
  // reports); a second one means "now": say that the summary will be missing and die of it.
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!shutdown.signal.aborted) {
      shutdown.abort();
      return;
    }
    process.stderr.write(
      `\nedgesync: second ${signal}: exiting now; the summary is incomplete (\`edgesync plan\` shows what is applied)\n`,
    );
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.kill(process.pid, signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const ctx: CommandContext = {
    stdout: process.stdout,
    stderr: process.stderr,
    // A getter: touching process.stdin sets up a stream, which only apply's confirmation needs.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    setOutcome: (ended) => {
      outcome = ended;
    },
    shutdown: shutdown.signal,
  };
  const program = commandLine(ctx);
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.error;
    const { messageForPerson } = await import('./error-hints.js');
    process.stderr.write(`edgesync: ${visibleText(messageForPerson(error))}\n`);
    return error instanceof EdgesyncError ? exitCodeOf((error as EdgesyncError<ErrorCode>).code) : EXIT.error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return exitCodeOf(outcome);
}

process.exitCode = await main(process.argv);
