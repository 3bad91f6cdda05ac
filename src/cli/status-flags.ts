import { Option } from 'commander';
import { NO_COLOR_ACCEPTED } from './color-choice.js';
import type { AddCommandFlags } from './command-context.js';

export const STATUS_FORMATS = ['text', 'json'] as const;
export type StatusFormat = (typeof STATUS_FORMATS)[number];

export interface StatusFlags {
  readonly daemonUrl: string;
  readonly format: StatusFormat;
  readonly waitCommit?: string;
  readonly waitTimeout: string;
  readonly readTimeout: string;
}

/**
 * `edgesync status`: a running daemon's `/status` on one screen, and, with
 * `--wait-commit`, the wait a merge job does until the daemon reports the
 * merged commit live.
 */
export const addStatusFlags: AddCommandFlags<[flags: StatusFlags]> = (command) =>
  command
    .description("show a running daemon's status (`edgesync watch`), or wait until a commit is live on it")
    .requiredOption(
      '--daemon-url <url>',
      "the daemon's address, as its --listen serves it, e.g. http://127.0.0.1:9090",
    )
    .addOption(new Option('--format <format>', 'output on stdout').choices(STATUS_FORMATS).default('text'))
    .option(
      '--wait-commit <sha>',
      'wait until the daemon reports this commit (or a descendant, judged by git in this checkout) live, in sync and with no entry skipped; exit 1 at --wait-timeout or at once when the daemon reports it failed',
    )
    .option('--wait-timeout <duration>', 'how long --wait-commit waits, its reads included, e.g. 10m', '5m')
    .option(
      '--read-timeout <duration>',
      "deadline of one read of the daemon's /status: connecting, the headers and the whole body",
      '10s',
    )
    .option(...NO_COLOR_ACCEPTED);
