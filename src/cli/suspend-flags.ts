import { Option } from 'commander';
import { NO_COLOR_ACCEPTED } from './color-choice.js';
import type { AddCommandFlags } from './command-context.js';

export const SUSPEND_FORMATS = ['text', 'json'] as const;
export type SuspendFormat = (typeof SUSPEND_FORMATS)[number];

/** The flags of `edgesync suspend` and `edgesync resume`: the same for both. */
export interface SuspendFlags {
  readonly format: SuspendFormat;
  readonly daemonUrl: string;
  readonly suspendTokenFile?: string;
  readonly readTimeout: string;
}

/** Declares `suspend` or `resume`: one daemon, its suspend token, how long to wait for its answer. */
function addSuspendOrResumeFlags(description: string): AddCommandFlags<[flags: SuspendFlags]> {
  return (command) =>
    command
      .description(description)
      .option('--daemon-url <url>', 'the daemon’s listener (watch --listen)', 'http://127.0.0.1:9090')
      .option(
        '--suspend-token-file <file>',
        'the file holding the token the daemon was started with (watch --suspend-token-file); the reconcile token is refused',
      )
      .addOption(
        new Option('--format <format>', 'stdout: a line for people, or one JSON object for tools')
          .choices(SUSPEND_FORMATS)
          .default('text'),
      )
      .option(
        '--read-timeout <duration>',
        'deadline of the request to the daemon: connecting, the headers and the whole answer',
        '10s',
      )
      .option(...NO_COLOR_ACCEPTED);
}

/** `edgesync suspend`: the daemon goes on reading and reporting drift, and sends no write. */
export const addSuspendFlags = addSuspendOrResumeFlags(
  'hold a running daemon’s writes: it still reads and reports drift, and applies nothing until edgesync resume',
);

/** `edgesync resume`: the daemon applies again, what waited first. */
export const addResumeFlags = addSuspendOrResumeFlags(
  'let a suspended daemon apply again: it reconciles at once, what waited included',
);
