import { Command, type Option } from 'commander';
import { EdgesyncError } from '../errors.js';

/** Prefix of the environment variable that can set each flag (DESIGN.md, "Commands"). */
export const FLAG_ENV_PREFIX = 'EDGESYNC_';

/** `--log-level` → `EDGESYNC_LOG_LEVEL`, `--no-color` → `EDGESYNC_NO_COLOR`. */
export function flagEnvName(option: Option): string {
  return `${FLAG_ENV_PREFIX}${option.long?.replace(/^--/, '').replace(/-/g, '_').toUpperCase()}`;
}

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off', '']);

/** A subcommand whose every flag reads `EDGESYNC_<FLAG>` unless it names its own variable. */
class EnvironmentFlagsCommand extends Command {
  override addOption(option: Option): this {
    // Before registering: commander listens for an option's variable only if it has one by then.
    if (option.envVar === undefined && option.long !== undefined) option.env(flagEnvName(option));
    return super.addOption(option);
  }

  override createCommand(name?: string): Command {
    return new EnvironmentFlagsCommand(name);
  }
}

/**
 * Lets every flag of every subcommand come from the environment as
 * `EDGESYNC_<FLAG>`, as decK and Terraform do; the command line wins over
 * the environment, which wins over the default. Commander shows each
 * variable in `--help` ("env: EDGESYNC_OWNER"). A flag that already names its
 * own variable (`--api-url`: EDGE_API_URL) keeps it. Call before any command
 * is registered.
 */
export function flagsFromEnvironment(program: Command): void {
  program.createCommand = (name?: string): Command => new EnvironmentFlagsCommand(name);
  // Commander sets a switch when its variable merely exists; read the value instead,
  // so that EDGESYNC_YES=false does not approve an apply.
  program.hook('preAction', (_program, command) => {
    for (const option of command.options) {
      if (option.required || option.optional || option.envVar === undefined) continue;
      const key = option.attributeName();
      if (command.getOptionValueSource(key) !== 'env') continue;
      const raw = process.env[option.envVar] ?? '';
      const word = raw.trim().toLowerCase();
      if (!TRUE_WORDS.has(word) && !FALSE_WORDS.has(word)) {
        throw new EdgesyncError(
          'invalid_option',
          `${option.envVar}: expected true or false, 1 or 0 (found "${raw}")`,
        );
      }
      const on = TRUE_WORDS.has(word);
      // A negated switch (--no-color) is false when its variable says true.
      command.setOptionValueWithSource(key, option.negate ? !on : on ? true : undefined, 'env');
    }
  });
}
