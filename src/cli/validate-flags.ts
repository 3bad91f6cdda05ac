import { Option } from 'commander';
import { NO_COLOR_ACCEPTED } from './color-choice.js';
import type { AddCommandFlags } from './command-context.js';
import { LOG_LEVELS } from './log-flags.js';

export const VALIDATE_FORMATS = ['text', 'json', 'sarif'] as const;
export type ValidateFormat = (typeof VALIDATE_FORMATS)[number];

export interface ValidateFlags {
  readonly format: ValidateFormat;
  readonly owner: string;
  readonly allowOutsideRoot?: boolean;
  readonly requireSecrets?: boolean;
  readonly repoRoot?: string;
  readonly caExpiryWarning: string;
  readonly logLevel: string;
}

export const addValidateFlags: AddCommandFlags<[paths: string[], flags: ValidateFlags]> = (command) =>
  command
    .description('load and validate manifests without touching the network (exit 0 valid, 1 invalid)')
    .argument(
      '[paths...]',
      'manifest files or directories (recursive; default ".", without node_modules and hidden directories)',
    )
    .addOption(
      new Option('--format <format>', 'output: text lines, a JSON array, or SARIF 2.1.0 for code scanning')
        .choices(VALIDATE_FORMATS)
        .default('text'),
    )
    .option(
      '--owner <owner>',
      'owner written into the metadata marker (counts toward the metadata limit)',
      'default',
    )
    .option('--allow-outside-root', 'let { file } and ca_pem_file references leave the manifest root')
    .option(
      '--repo-root <dir>',
      'sarif: name files from this directory (default: the git top level above the current directory)',
    )
    .option(
      '--ca-expiry-warning <duration>',
      'warn when a certificate authority expires within this long, e.g. 30d',
      '30d',
    )
    .option(
      '--require-secrets',
      "also resolve every { env } and read every { file } secret, as plan and apply do (by default only their form and the file's presence inside the root are checked)",
    )
    .addOption(
      new Option(
        '--log-level <level>',
        "debug (or trace) also prints the YAML parser's own messages below a syntax error",
      )
        .choices([...LOG_LEVELS])
        .default('warn'),
    )
    .option(...NO_COLOR_ACCEPTED);
