import { OptionError } from '../errors.js';
/** pino's level names, as `--log-level` takes them. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** `--log-level`'s value, or an error naming the valid ones (not pino's internal message). */
export function parseLogLevel(level: string): string {
  if ((LOG_LEVELS as readonly string[]).includes(level)) return level;
  throw new OptionError('--log-level', `expected one of ${LOG_LEVELS.join(', ')} (found "${level}")`);
}

/** Whether a person asked for detail beyond the one line of each problem (`debug`, `trace`). */
export function wantsDetail(level: string): boolean {
  return level === 'debug' || level === 'trace';
}
