import { Option } from 'commander';
import { NO_COLOR_ACCEPTED } from './color-choice.js';
import type { AddCommandFlags } from './command-context.js';
import { addConnectionOptions, type ConnectionFlags } from './connection-flags.js';
import { addLogOptions, type LogFlags } from './log-flags.js';

export const DOCTOR_FORMATS = ['text', 'json'] as const;
export type DoctorFormat = (typeof DOCTOR_FORMATS)[number];

export interface DoctorFlags extends ConnectionFlags, LogFlags {
  readonly probeWrites?: boolean;
  readonly probeEdge?: string;
  readonly format: DoctorFormat;
}

/**
 * `edgesync doctor`: the service checked against what edgesync assumes,
 * before a first apply. Read-only unless `--probe-writes`.
 */
export const addDoctorFlags: AddCommandFlags<[flags: DoctorFlags]> = (command) =>
  addLogOptions(
    addConnectionOptions(
      command
        .description(
          'check the service against every assumption edgesync makes (exit 0 all hold, 1 a mismatch or error); read-only unless --probe-writes',
        )
        .option(
          '--probe-writes',
          'also create, read, update and delete one throwaway object of each kind (marked as the probe’s own), and remove all of them, even when interrupted',
        )
        .option(
          '--probe-edge <id>',
          'with --probe-writes: also put, read and delete each module of this TCP or TLS edge, then put back what was there (use an edge that serves no traffic)',
        )
        .addOption(
          new Option('--format <format>', 'stdout: one line per assumption, or JSON for tools')
            .choices(DOCTOR_FORMATS)
            .default('text'),
        )
        .option(...NO_COLOR_ACCEPTED),
    ),
    'warn',
  );
