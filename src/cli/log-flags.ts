import { type Command, Option } from 'commander';

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** `--log-format` and `--log-level` of the one-shot commands. */
export interface LogFlags {
  /** Unset: pretty on a TTY, json otherwise. */
  readonly logFormat?: LogFormat;
  readonly logLevel: string;
}

/** Adds `--log-format` and `--log-level`; each command picks how chatty it is by default. */
export function addLogOptions(command: Command, defaultLevel: string): Command {
  return command
    .addOption(new Option('--log-format <format>', 'log format on stderr').choices([...LOG_FORMATS]))
    .option('--log-level <level>', 'pino log level', defaultLevel);
}
