#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import { registerApplyCommand } from './apply-command.js';
import type { CommandContext, CommandRegistrar } from './command-context.js';
import { registerEmulatorCommand } from './emulator-command.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { registerExportCommand } from './export-command.js';
import { registerPlanCommand } from './plan-command.js';
import { registerValidateCommand } from './validate-command.js';
import { registerWatchCommand } from './watch-command.js';

const COMMANDS: readonly CommandRegistrar[] = [
  registerApplyCommand,
  registerValidateCommand,
  registerPlanCommand,
  registerWatchCommand,
  registerEmulatorCommand,
  registerExportCommand,
];

async function main(argv: readonly string[]): Promise<number> {
  let exitCode: number = EXIT.ok;
  const shutdown = new AbortController();
  const onSignal = (): void => shutdown.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const ctx: CommandContext = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    setExitCode: (code) => {
      exitCode = code;
    },
    shutdown: shutdown.signal,
  };
  const program = new Command('edgesync')
    .description('Keep an Edge Configuration Service account equal to YAML manifests in Git.')
    .version(VERSION, '-V, --version')
    .exitOverride()
    .showHelpAfterError();
  for (const register of COMMANDS) register(program, ctx);
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.error;
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`edgesync: ${message}\n`);
    return exitCodeFor(error);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return exitCode;
}

process.exitCode = await main(process.argv);
