# bash completion for rooftop. Subcommands and options are read from
# `rooftop --help` and `rooftop SUBCOMMAND --help`, so they never fall out
# of step with the binary.
_rooftop_words() {
  "$1" "${@:2}" --help 2>/dev/null | awk '
    /^[A-Za-z ]*[Ss][Uu][Bb][Cc][Oo][Mm][Mm][Aa][Nn][Dd][Ss]:/ { insub = 1; next }
    /^[A-Za-z][A-Za-z ]*:/ { insub = 0 }
    insub && /^  [a-z]/ { print $1 }
    { for (i = 1; i <= NF; i++) if ($i ~ /^--?[a-zA-Z]/) { w = $i; sub(/[,=].*/, "", w); print w } }'  | sort -u
}

_rooftop() {
  local cur=${COMP_WORDS[COMP_CWORD]} prog=${COMP_WORDS[0]} path=() i w
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    [[ $w == -* ]] && continue
    if _rooftop_words "$prog" "${path[@]}" | grep -qx -- "$w"; then path+=("$w"); fi
  done
  if [[ $cur == -* || ${#path[@]} -gt 0 ]]; then
    local words
    words=$(_rooftop_words "$prog" "${path[@]}")
    if [[ $cur != -* ]]; then
      mapfile -t COMPREPLY < <(compgen -f -- "$cur"; compgen -W "$words" -- "$cur" | grep -v '^-')
    else
      mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
    fi
  else
    mapfile -t COMPREPLY < <(compgen -W "$(_rooftop_words "$prog" | grep -v '^-')" -- "$cur")
  fi
}
complete -o filenames -F _rooftop rooftop
