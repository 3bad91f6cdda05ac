import { Option } from 'commander';
import { NO_COLOR_ACCEPTED } from './color-choice.js';
import type { AddCommandFlags } from './command-context.js';

export const VERSION_FORMATS = ['text', 'json'] as const;
export type VersionFormat = (typeof VERSION_FORMATS)[number];

export interface VersionFlags {
  readonly format: VersionFormat;
}

/** `edgesync version`: edgesync's version, Node's and the platform, for a person or a support ticket's script. */
export const addVersionFlags: AddCommandFlags<[flags: VersionFlags]> = (command) =>
  command
    .description("edgesync's version, Node's version and the platform (`-V` prints edgesync's alone)")
    .addOption(
      new Option('--format <format>', 'stdout: one line per fact, or one JSON object')
        .choices(VERSION_FORMATS)
        .default('text'),
    )
    .option(...NO_COLOR_ACCEPTED);
