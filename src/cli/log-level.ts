import { OptionError } from '../errors.js';
// The list lives with the flags, in the chunk every command line loads; this parser is a command's.
import { LOG_LEVELS } from './log-flags.js';

export { LOG_LEVELS } from './log-flags.js';

/** `--log-level`'s value, or an error naming the valid ones (not pino's internal message). */
export function parseLogLevel(level: string): string {
  if ((LOG_LEVELS as readonly string[]).includes(level)) return level;
  throw new OptionError('--log-level', `expected one of ${LOG_LEVELS.join(', ')} (found "${level}")`);
}

/** Whether a person asked for detail beyond the one line of each problem (`debug`, `trace`). */
export function wantsDetail(level: string): boolean {
  return level === 'debug' || level === 'trace';
}
