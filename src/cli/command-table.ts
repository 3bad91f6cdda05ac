import type { Command } from 'commander';
import type { Kind } from '../kinds/kind.js';
import { addApplyFlags } from './apply-flags.js';
import type { AddCommandFlags, CommandOutcome, CommandRun } from './command-context.js';
import { addCompletionFlags } from './completion-flags.js';
import { addDoctorFlags } from './doctor-flags.js';
import { addEmulatorFlags } from './emulator-flags.js';
import { addExportFlags } from './export-flags.js';
import { addGetFlags } from './get-flags.js';
import { addPlanFlags } from './plan-flags.js';
import { addReconcileFlags } from './reconcile-flags.js';
import { addShowFlags } from './show-flags.js';
import { addStatusFlags } from './status-flags.js';
import { addResumeFlags, addSuspendFlags } from './suspend-flags.js';
import { addValidateFlags } from './validate-flags.js';
import { addVersionFlags } from './version-flags.js';
import { addWatchFlags } from './watch-flags.js';

/** One row of the command table: how to declare the command's flags, and how to load and run it. */
export interface CommandEntry {
  readonly addFlags: (command: Command, kinds: readonly Kind[]) => Command;
  /** Loads the command's implementation (its own chunk of the bundle) only when it runs. */
  readonly load: () => Promise<(...args: readonly unknown[]) => Promise<CommandOutcome>>;
  /**
   * With `--format json`, an error that ends the command is also written to
   * stdout as a JSON diagnostic (json-diagnostics.ts), so that a tool reading
   * stdout always gets JSON.
   */
  readonly jsonDiagnostics: boolean;
  /**
   * With `--format json`, the command writes the machine-readable UI
   * (json-ui.ts): one JSON object a line, a failure as a `diagnostic` line,
   * the last line the summary with the exit code.
   */
  readonly jsonLines: boolean;
  /**
   * Its flags depend on the registry's kinds (export names the IDs of each
   * kind the API cannot list), so the registry is loaded to declare them
   * when the command line names this command, to run it or to show its help.
   */
  readonly flagsFromKinds: boolean;
  /**
   * It describes the whole command line (`completion`): every command is
   * registered, their flags from the kinds included, and given to it as
   * plain data (CommandContext.commands).
   */
  readonly describesCommands: boolean;
}

/**
 * A row whose flags and implementation agree: `load` must give a run that
 * takes what `addFlags` declared, or the row does not compile.
 */
function lazyCommand<A extends readonly unknown[]>(
  addFlags: AddCommandFlags<A>,
  load: () => Promise<CommandRun<A>>,
  options: {
    readonly jsonDiagnostics?: boolean;
    readonly jsonLines?: boolean;
    readonly flagsFromKinds?: boolean;
    readonly describesCommands?: boolean;
  } = {},
): CommandEntry {
  return {
    addFlags,
    load: load as unknown as CommandEntry['load'],
    jsonDiagnostics: options.jsonDiagnostics ?? false,
    jsonLines: options.jsonLines ?? false,
    flagsFromKinds: options.flagsFromKinds ?? false,
    describesCommands: options.describesCommands ?? false,
  };
}

/**
 * Every command, by name: the one place a command is added. Each row is a
 * flags file (options only, imported here) and a dynamic import of its
 * implementation, so `--help` builds every command's options and loads no
 * implementation, and `validate` never loads the emulator, the daemon or the
 * exporter (docs/performance.md, start time).
 */
export const COMMANDS: ReadonlyMap<string, CommandEntry> = new Map([
  [
    'apply',
    lazyCommand(addApplyFlags, async () => (await import('./apply-command.js')).runApply, {
      jsonLines: true,
    }),
  ],
  [
    'validate',
    lazyCommand(addValidateFlags, async () => (await import('./validate-command.js')).runValidate),
  ],
  [
    'plan',
    lazyCommand(addPlanFlags, async () => (await import('./plan-command.js')).runPlan, {
      jsonDiagnostics: true,
    }),
  ],
  [
    'show',
    lazyCommand(addShowFlags, async () => (await import('./show-command.js')).runShow, {
      jsonDiagnostics: true,
    }),
  ],
  [
    'get',
    lazyCommand(addGetFlags, async () => (await import('./get-command.js')).runGet, {
      jsonDiagnostics: true,
    }),
  ],
  ['status', lazyCommand(addStatusFlags, async () => (await import('./status-command.js')).runStatus)],
  [
    'doctor',
    lazyCommand(addDoctorFlags, async () => (await import('./doctor-command.js')).runDoctor, {
      jsonDiagnostics: true,
    }),
  ],
  ['watch', lazyCommand(addWatchFlags, async () => (await import('./watch-command.js')).runWatch)],
  [
    'reconcile',
    lazyCommand(addReconcileFlags, async () => (await import('./reconcile-command.js')).runReconcile, {
      jsonLines: true,
    }),
  ],
  [
    'suspend',
    lazyCommand(addSuspendFlags, async () => (await import('./suspend-command.js')).runSuspend, {
      jsonDiagnostics: true,
    }),
  ],
  [
    'resume',
    lazyCommand(addResumeFlags, async () => (await import('./suspend-command.js')).runResume, {
      jsonDiagnostics: true,
    }),
  ],
  [
    'emulator',
    lazyCommand(addEmulatorFlags, async () => (await import('./emulator-command.js')).runEmulator),
  ],
  ['version', lazyCommand(addVersionFlags, async () => (await import('./version-command.js')).runVersion)],
  [
    'completion',
    lazyCommand(addCompletionFlags, async () => (await import('./completion-command.js')).runCompletion, {
      describesCommands: true,
    }),
  ],
  [
    'export',
    lazyCommand(addExportFlags, async () => (await import('./export-command.js')).runExport, {
      jsonDiagnostics: true,
      flagsFromKinds: true,
    }),
  ],
]);
