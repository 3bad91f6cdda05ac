import type { Readable, Writable } from 'node:stream';
import type { Command } from 'commander';

/** What a command may touch of the process; main.ts fills it from the real one. */
export interface CommandContext {
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly stdin: Readable & { isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** The exit code the process ends with once the command's action resolves. */
  setExitCode(code: number): void;
  /** Resolves when SIGINT or SIGTERM arrives; long-running commands stop on it. */
  readonly shutdown: AbortSignal;
}

/** Each command file exports one of these; main.ts registers them all. */
export type CommandRegistrar = (program: Command, ctx: CommandContext) => void;
