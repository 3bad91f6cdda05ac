# What zsh completes for a command line, as a person pressing Tab would get it:
#   zsh zsh-complete.zsh FPATH_DIR 'edgesync ap'
# prints one candidate a line and exits 0 once the completion system has run.
# An interactive zsh runs on a pseudo-terminal (zsh/zpty) with FPATH_DIR first
# in $fpath, where compinit finds the `_edgesync` file; `compadd` is wrapped to
# print what each completion function adds, between markers that the terminal's
# echo of these definitions cannot hold (they are split in the text typed).
zmodload zsh/zpty
local dir=$1 typed=$2
zpty z zsh -f -i
zpty -w z "PROMPT= ; RPROMPT="
zpty -w z "fpath=($dir \$fpath); autoload -Uz compinit; compinit -u -d $dir/.zcompdump"
zpty -w z "bindkey '^I' complete-word"
zpty -w z "zstyle ':completion:*' list-grouped false; zstyle ':completion:*' insert-tab false"
zpty -w z 'compadd () { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi; typeset -a __hits; builtin compadd -A __hits "$@"; local h; for h in $__hits; do print -r -- "<comp""letion>$h</comp""letion>"; done }'
zpty -w z "comppostfuncs=(__done); __done () { print -r -- '<do''ne>' }"
zpty -w z "$typed"$'\t'
local out line tries=0
# At most 20 s without output: compinit and the first completion take a while on a loaded machine.
while (( tries < 400 )); do
  if zpty -r -t z line 2>/dev/null; then
    out+=$line
    [[ $out == *'<done>'* ]] && break
  else
    (( tries++ ))
    sleep 0.05
  fi
done
zpty -d z
print -r -- $out | grep -ao '<completion>[^<]*</completion>' | sed 's/<[/]*completion>//g'
[[ $out == *'<done>'* ]]
