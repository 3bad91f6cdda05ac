import { Option } from 'commander';
import { NO_COLOR_ACCEPTED } from './color-choice.js';
import type { AddCommandFlags } from './command-context.js';
import { addCommitStatusOptions, type CommitStatusFlags } from './commit-status-flags.js';
import { STATUS_TOKEN_OPTION } from './status-token-flag.js';

export const STATUS_FORMATS = ['text', 'json'] as const;
export type StatusFormat = (typeof STATUS_FORMATS)[number];

export interface StatusFlags extends CommitStatusFlags {
  /** Absent when the wait goes through the Git host (`--commit-status`). */
  readonly daemonUrl?: string;
  /** The file of the token the daemon's /status (and /inventory) asks for (watch --status-token-file). */
  readonly statusTokenFile?: string;
  /** The owner whose commit status `--commit-status` reads: edgesync/<owner>[/<instance>]. */
  readonly owner: string;
  readonly format: StatusFormat;
  readonly waitCommit?: string;
  readonly waitTimeout: string;
  readonly readTimeout: string;
}

/**
 * `edgesync status`: a running daemon's `/status` on one screen, and, with
 * `--wait-commit`, the wait a merge job does until the daemon reports the
 * merged commit live: from the daemon's `/status`, or, with
 * `--commit-status`, from the commit status it posts to the Git host (no
 * route to the daemon needed).
 */
export const addStatusFlags: AddCommandFlags<[flags: StatusFlags]> = (command) => {
  command
    .description(
      "show a running daemon's status (`edgesync watch`), or wait until a commit is live on it (through the daemon, or through the commit status it posts to the Git host)",
    )
    .option(
      '--daemon-url <url>',
      "the daemon's address, as its --listen serves it, e.g. http://127.0.0.1:9090 (or --commit-status with --wait-commit)",
    )
    .addOption(new Option('--format <format>', 'output on stdout').choices(STATUS_FORMATS).default('text'))
    .option(
      '--wait-commit <sha>',
      'wait until the daemon reports this commit (or a descendant, judged by git in this checkout or by the Git host) live, in sync and with no entry skipped; exit 1 at --wait-timeout, or at once when the daemon reports it failed or suspended',
    )
    .option('--wait-timeout <duration>', 'how long --wait-commit waits, its reads included, e.g. 10m', '5m')
    .option(...STATUS_TOKEN_OPTION)
    .option(
      '--read-timeout <duration>',
      "deadline of one read of the daemon's /status or of the Git host: connecting, the headers and the whole body",
      '10s',
    )
    .option(
      '--owner <owner>',
      'with --commit-status: the daemon’s --owner, whose status context is read',
      'default',
    )
    .option(...NO_COLOR_ACCEPTED);
  addCommitStatusOptions(command, 'read');
  return command;
};
