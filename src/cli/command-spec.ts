import type { Command, Option } from 'commander';

/** What a flag's value is, for a shell that completes it. */
export type FlagValue = 'file' | 'directory' | 'choice' | 'other';

/** One flag of a command, as a shell's completion needs it. */
export interface FlagSpec {
  /** `--format`. */
  readonly long: string;
  /** `-y`, when it has one. */
  readonly short?: string;
  /** The help's description, to its first sentence. */
  readonly description: string;
  /** Absent for a switch (`--yes`). */
  readonly value?: FlagValue;
  /** For `choice`: the values it takes. */
  readonly choices?: readonly string[];
}

/** One command of the command line, as a shell's completion needs it. */
export interface CommandSpec {
  readonly name: string;
  readonly description: string;
  readonly flags: readonly FlagSpec[];
  /** What its operands are: paths (`[paths...]`, `<plan-file>`), one of `choices` (`<shell>`), or none. */
  readonly operands: 'paths' | 'choice' | 'none';
  readonly operandChoices?: readonly string[];
}

/** Placeholders of flags whose value is a file or a directory (`--plan <file>`, `--repo-root <dir>`). */
const FILE_PLACEHOLDER = /<(?:file|plan-file|path)>/;
const DIRECTORY_PLACEHOLDER = /<(?:dir|directory)>/;

/**
 * Every command of `program` as plain data (flags a person can see, with
 * `--help`), in the order the help lists them: what `edgesync completion`
 * writes its scripts from, so that a flag added to a command is completed
 * with no other change.
 */
export function describeCommands(program: Command): CommandSpec[] {
  return program.commands.map((command) => {
    const operand = command.registeredArguments[0];
    const operandChoices = operand?.argChoices;
    return {
      name: command.name(),
      description: firstSentence(command.description()),
      flags: [
        ...command.options.filter((option) => !option.hidden && option.long !== undefined).map(flagSpec),
        { long: '--help', short: '-h', description: 'display help for command' },
      ],
      operands: operand === undefined ? 'none' : operandChoices === undefined ? 'paths' : 'choice',
      ...(operandChoices === undefined ? {} : { operandChoices: [...operandChoices] }),
    };
  });
}

function flagSpec(option: Option): FlagSpec {
  const takesValue = option.required || option.optional;
  const choices = option.argChoices;
  const value: FlagValue | undefined = !takesValue
    ? undefined
    : choices !== undefined
      ? 'choice'
      : FILE_PLACEHOLDER.test(option.flags)
        ? 'file'
        : DIRECTORY_PLACEHOLDER.test(option.flags)
          ? 'directory'
          : 'other';
  return {
    long: option.long as string,
    ...(option.short === undefined ? {} : { short: option.short }),
    description: firstSentence(option.description),
    ...(value === undefined ? {} : { value }),
    ...(choices === undefined ? {} : { choices: [...choices] }),
  };
}

/** The longest description a completion menu shows, characters. */
const MAX_DESCRIPTION = 80;

/** A description to where its first clause ends, at most one short line: a completion menu shows it beside the word. */
function firstSentence(text: string): string {
  const clause = (/^(.*?)(?:;|\. | \()/.exec(text)?.[1] ?? text).trim();
  if (clause.length <= MAX_DESCRIPTION) return clause;
  const cut = clause.slice(0, MAX_DESCRIPTION - 1);
  return `${cut.slice(0, cut.lastIndexOf(' '))}…`;
}
