import type { Readable, Writable } from 'node:stream';
import type { Command } from 'commander';
import type { CoreErrorCode } from '../errors.js';

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
}

/**
 * `ok`, `changes` (plan with --detailed-exitcode), or the code of an error the
 * command has already reported (manifest errors, plan errors, a refusal).
 */
export type CommandOutcome = 'ok' | 'changes' | CoreErrorCode;

/** Each command file exports one of these; main.ts registers them all. */
export type CommandRegistrar = (program: Command, ctx: CommandContext) => void;
