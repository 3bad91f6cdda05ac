import { Option } from 'commander';
import { NO_COLOR_ACCEPTED } from './color-choice.js';
import type { AddCommandFlags } from './command-context.js';
import { addConnectionOptions, type ConnectionFlags } from './connection-flags.js';
import { addLogOptions, type LogFlags } from './log-flags.js';
import { STATUS_TOKEN_OPTION } from './status-token-flag.js';

export const GET_FORMATS = ['text', 'json'] as const;
export type GetFormat = (typeof GET_FORMATS)[number];

export interface GetFlags extends ConnectionFlags, LogFlags {
  readonly owner: string;
  readonly format: GetFormat;
  /** Kinds to list, comma-separated (`ip_policy_rules,reserved_addrs`). */
  readonly kind?: string;
  /** States to list, comma-separated (`pending,skipped`). */
  readonly state?: string;
  readonly allowOutsideRoot?: boolean;
  /** Read a daemon's `/inventory` instead of the account and the manifests. */
  readonly daemonUrl?: string;
  /** The file of the token the daemon's /status (and /inventory) asks for (watch --status-token-file). */
  readonly statusTokenFile?: string;
  /** Deadline of one page's read from the daemon. */
  readonly readTimeout: string;
}

/**
 * `edgesync get`: what the owner manages and how each object stands against
 * the manifests, as `flux get` and `terraform state list` answer it.
 */
export const addGetFlags: AddCommandFlags<[paths: string[], flags: GetFlags]> = (command) => {
  command
    .description(
      'list what the owner manages: kind, name, id and state against the manifests (in_sync, pending, skipped), read from the account; with --daemon-url, as a daemon knows it (drift and held too), with no request to the service',
    )
    .argument(
      '[paths...]',
      'manifest files or directories (recursive; default ".", without node_modules and hidden directories)',
    )
    .option('--owner <owner>', 'the ownership marker whose objects are listed', 'default')
    .option('--kind <kinds>', 'only these kinds, comma-separated (collection keys of the manifests)')
    .option('--state <states>', 'only objects in these states, comma-separated (e.g. pending,skipped)')
    .addOption(new Option('--format <format>', 'output on stdout').choices(GET_FORMATS).default('text'))
    .option('--allow-outside-root', 'let { file: } references leave the manifest directory')
    .option(
      '--daemon-url <url>',
      "read a running daemon's /inventory (its --listen address, e.g. http://127.0.0.1:9090) instead of the account: no manifest is read and no request goes to the service",
    )
    .option(...STATUS_TOKEN_OPTION)
    .option(
      '--read-timeout <duration>',
      "with --daemon-url: deadline of the read of one page of the daemon's /inventory (connecting, the headers and the whole body)",
      '10s',
    )
    .option(...NO_COLOR_ACCEPTED);
  addLogOptions(command, 'warn');
  addConnectionOptions(command);
  return command;
};
