import type { CommandSpec, FlagSpec } from './command-spec.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/**
 * The completion script of `shell` for `commands`: the commands, each
 * command's flags, the values of flags that take one of a few (`--format`),
 * files and directories where a flag or an operand takes one. Everything is
 * written into the script, so completing runs no edgesync.
 */
export function completionScript(shell: Shell, commands: readonly CommandSpec[]): string {
  switch (shell) {
    case 'bash':
      return bashScript(commands);
    case 'zsh':
      return zshScript(commands);
    case 'fish':
      return fishScript(commands);
  }
}

/** Program-level flags, before any command. */
const PROGRAM_FLAGS = ['--help', '-h', '--version', '-V'];

function flagWords(flag: FlagSpec): string[] {
  return flag.short === undefined ? [flag.long] : [flag.long, flag.short];
}

/** A word list for bash's `compgen -W`, single-quoted (names and choices hold no quote). */
function words(list: readonly string[]): string {
  return `'${list.join(' ')}'`;
}

function bashScript(commands: readonly CommandSpec[]): string {
  const cases = commands.map((command) => {
    const valueCases = command.flags
      .filter((flag) => flag.value !== undefined)
      .map((flag) => {
        const patterns = flagWords(flag).join('|');
        switch (flag.value) {
          case 'choice':
            return `        ${patterns}) COMPREPLY=($(compgen -W ${words(flag.choices ?? [])} -- "$cur")); return ;;`;
          case 'file':
            return `        ${patterns}) COMPREPLY=($(compgen -f -- "$cur")); return ;;`;
          case 'directory':
            return `        ${patterns}) COMPREPLY=($(compgen -d -- "$cur")); return ;;`;
          default:
            return `        ${patterns}) COMPREPLY=(); return ;;`;
        }
      });
    const operands =
      command.operands === 'paths'
        ? 'COMPREPLY=($(compgen -f -- "$cur"))'
        : command.operands === 'choice'
          ? `COMPREPLY=($(compgen -W ${words(command.operandChoices ?? [])} -- "$cur"))`
          : 'COMPREPLY=()';
    return [
      `    ${command.name})`,
      '      case $prev in',
      ...valueCases,
      '      esac',
      `      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W ${words(command.flags.flatMap(flagWords))} -- "$cur")); else ${operands}; fi`,
      '      ;;',
    ].join('\n');
  });
  return `# edgesync completion for bash (edgesync completion bash).
# Install: edgesync completion bash > ~/.local/share/bash-completion/completions/edgesync
# or add to ~/.bashrc: source <(edgesync completion bash)
_edgesync() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} command= i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case \${COMP_WORDS[i]} in
      -*) ;;
      *) command=\${COMP_WORDS[i]}; break ;;
    esac
  done
  if [[ -z $command ]]; then
    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W ${words(PROGRAM_FLAGS)} -- "$cur"));
    else COMPREPLY=($(compgen -W ${words([...commands.map((command) => command.name), 'help'])} -- "$cur")); fi
    return
  fi
  case $command in
${cases.join('\n')}
    help) COMPREPLY=($(compgen -W ${words(commands.map((command) => command.name))} -- "$cur")) ;;
  esac
}
complete -o filenames -o bashdefault -F _edgesync edgesync
`;
}

/** Text inside a zsh `_arguments` spec's brackets, or a `_describe` item: `[`, `]`, `:` and `\` escaped, one line. */
function zshText(text: string): string {
  return text.replace(/[\\[\]:]/g, '\\$&').replace(/'/g, "'\\''");
}

function zshFlagSpec(flag: FlagSpec): string {
  const names = flag.short === undefined ? flag.long : `{${flag.short},${flag.long}}`;
  const help = `[${zshText(flag.description)}]`;
  const action =
    flag.value === undefined
      ? ''
      : flag.value === 'choice'
        ? `:${flag.long.slice(2)}:(${(flag.choices ?? []).join(' ')})`
        : flag.value === 'file'
          ? `:${flag.long.slice(2)}:_files`
          : flag.value === 'directory'
            ? `:${flag.long.slice(2)}:_files -/`
            : `:${flag.long.slice(2)}: `;
  // A short and a long name are quoted apart so that zsh's brace expansion makes one spec of each.
  return flag.short === undefined ? `'${names}${help}${action}'` : `${names}'${help}${action}'`;
}

function zshScript(commands: readonly CommandSpec[]): string {
  const described = commands.map((command) => `    '${command.name}:${zshText(command.description)}'`);
  const cases = commands.map((command) => {
    const operands =
      command.operands === 'paths'
        ? " '*:path:_files'"
        : command.operands === 'choice'
          ? ` '1:${command.name}:(${(command.operandChoices ?? []).join(' ')})'`
          : '';
    return `    ${command.name}) _arguments -S ${command.flags.map(zshFlagSpec).join(' ')}${operands} ;;`;
  });
  return `#compdef edgesync
# edgesync completion for zsh (edgesync completion zsh).
# Install: edgesync completion zsh > "\${fpath[1]}/_edgesync", then start a new shell (compinit loads it);
# or add to ~/.zshrc, after compinit: source <(edgesync completion zsh)
_edgesync() {
  local -a commands
  commands=(
${described.join('\n')}
    'help:display help for command'
  )
  if (( CURRENT == 2 )); then
    if [[ $PREFIX == -* ]]; then _arguments '(- *)'{-h,--help}'[display help]' '(- *)'{-V,--version}'[output the version number]'
    else _describe -t commands 'edgesync command' commands; fi
    return
  fi
  local command=\${words[2]}
  shift words
  (( CURRENT-- ))
  case $command in
${cases.join('\n')}
    help) _describe -t commands 'edgesync command' commands ;;
  esac
}
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _edgesync "$@"
else
  compdef _edgesync edgesync
fi
`;
}

/** A fish single-quoted string. */
function fishText(text: string): string {
  return `'${text.replace(/[\\']/g, '\\$&')}'`;
}

function fishScript(commands: readonly CommandSpec[]): string {
  const names = commands.map((command) => command.name);
  const lines = [
    '# edgesync completion for fish (edgesync completion fish).',
    '# Install: edgesync completion fish > ~/.config/fish/completions/edgesync.fish',
    'complete -c edgesync -f',
    "complete -c edgesync -n __fish_use_subcommand -s h -l help -d 'display help'",
    "complete -c edgesync -n __fish_use_subcommand -s V -l version -d 'output the version number'",
    ...commands.map(
      (command) =>
        `complete -c edgesync -n __fish_use_subcommand -a ${command.name} -d ${fishText(command.description)}`,
    ),
    "complete -c edgesync -n __fish_use_subcommand -a help -d 'display help for command'",
    `complete -c edgesync -n '__fish_seen_subcommand_from help' -a ${fishText(names.join(' '))}`,
  ];
  for (const command of commands) {
    const when = `-n '__fish_seen_subcommand_from ${command.name}'`;
    for (const flag of command.flags) {
      const short = flag.short === undefined ? '' : ` -s ${flag.short.slice(1)}`;
      const value =
        flag.value === undefined
          ? ''
          : flag.value === 'choice'
            ? ` -x -a ${fishText((flag.choices ?? []).join(' '))}`
            : flag.value === 'file'
              ? ' -r -F'
              : flag.value === 'directory'
                ? " -x -a '(__fish_complete_directories)'"
                : ' -x';
      lines.push(
        `complete -c edgesync ${when}${short} -l ${flag.long.slice(2)}${value} -d ${fishText(flag.description)}`,
      );
    }
    if (command.operands === 'paths') lines.push(`complete -c edgesync ${when} -F`);
    if (command.operands === 'choice') {
      lines.push(`complete -c edgesync ${when} -x -a ${fishText((command.operandChoices ?? []).join(' '))}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
