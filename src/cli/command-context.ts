import type { Readable, Writable } from 'node:stream';
import type { Command } from 'commander';
import type { CoreErrorCode } from '../errors.js';
import type { Kind } from '../kinds/kind.js';
import type { CommandSpec } from './command-spec.js';
import type { JsonUi } from './json-ui.js';

/** What a command may touch of the process; main.ts fills it from the real one, tests from their own streams. */
export interface CommandContext {
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly stdin: Readable & { isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /**
   * How the command ended, once its action resolves; run-edgesync.ts maps it to the
   * exit code. An error code here means the command already reported it.
   */
  setOutcome(outcome: CommandOutcome): void;
  /** Resolves when SIGINT or SIGTERM arrives; long-running commands stop on it. */
  readonly shutdown: AbortSignal;
  /**
   * The machine-readable UI on stdout, when the command writes one
   * (`--format json` of a command whose row says `jsonLines`): everything the
   * command says for machines goes through it, and run-edgesync.ts ends it
   * with the exit code.
   */
  readonly jsonUi?: JsonUi;
  /**
   * Every command of the command line as plain data, for a command that
   * describes them (`completion`; its row says `describesCommands`).
   */
  readonly commands?: readonly CommandSpec[];
  /** Calls `listener` once with the exit code the run ends with, after the command and its error handling. */
  onExit(listener: (exitCode: number) => void): void;
}

/**
 * `ok`, `changes` (plan with --detailed-exitcode), or the code of an error the
 * command has already reported (manifest errors, plan errors, a refusal).
 */
export type CommandOutcome = 'ok' | 'changes' | CoreErrorCode;

/**
 * Marks what a command's action receives, for the type checker only: no
 * value ever holds this key.
 */
declare const ACTION_ARGUMENTS: unique symbol;

/**
 * A command whose action receives `A`: commander's operands (`[paths...]`,
 * `<plan-file>`), then the parsed flags. A flags file returns one, and the
 * command table only accepts a run that takes the same `A`.
 */
export type CommandWithFlags<A extends readonly unknown[]> = Command & { readonly [ACTION_ARGUMENTS]?: A };

/**
 * What a `*-flags.ts` file exports: given its command, already named by the
 * command table, it adds the description, arguments and options. It imports
 * no command implementation, so registering every command stays cheap.
 * `kinds` is the registry, for flags that depend on its kinds (export's ID
 * flags); it is empty unless the command's row asks for it
 * (CommandEntry.flagsFromKinds).
 */
export type AddCommandFlags<A extends readonly unknown[]> = (
  command: Command,
  kinds: readonly Kind[],
) => CommandWithFlags<A>;

/**
 * What a `*-command.ts` file exports: the command itself, given what its
 * flags file declared (`A`) and the process it may touch.
 */
export type CommandRun<A extends readonly unknown[]> = (
  ...args: [...A, CommandContext]
) => Promise<CommandOutcome>;
