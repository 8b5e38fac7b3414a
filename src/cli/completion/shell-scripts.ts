/**
 * The scripts `docextract completion <shell>` prints. Each asks the program
 * itself on every Tab (`docextract __complete <shell> -- ...`): the commands,
 * flags and document types come from the program and its state folder, never
 * from the script, so a new flag or a new `models` answer needs no new script.
 * The last line of an answer is the directive (`:files`, `:dirs`, `:nospace`,
 * `:none`), a tab, and for files the part of the word before the path.
 */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const BASH = `# docextract completion for bash.
# Load it now:      source <(docextract completion bash)
# Or for good:      docextract completion bash > ~/.local/share/bash-completion/completions/docextract
_docextract_complete() {
  local IFS=$'\\n' directive path
  local -a reply
  reply=($(docextract __complete bash -- "\${COMP_LINE:0:COMP_POINT}" "$COMP_WORDBREAKS" 2>/dev/null)) || return 0
  [[ \${#reply[@]} -gt 0 ]] || return 0
  directive=\${reply[\${#reply[@]}-1]}
  unset 'reply[\${#reply[@]}-1]'
  COMPREPLY=("\${reply[@]}")
  path=\${directive#*$'\\t'}
  case \${directive%%$'\\t'*} in
    :files) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$path")) ;;
    :dirs) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$path")) ;;
    :nospace) compopt -o nospace 2>/dev/null ;;
  esac
  return 0
}
complete -F _docextract_complete docextract
`;

const ZSH = `#compdef docextract
# docextract completion for zsh.
# Load it now:      source <(docextract completion zsh)    (after compinit)
# Or for good:      docextract completion zsh > "\${fpath[1]}/_docextract"
_docextract() {
  local -a reply values shown
  local entry directive prefix
  reply=("\${(@f)$(docextract __complete zsh -- "\${(@Q)words[1,CURRENT-1]}" "\${(Q)PREFIX}" 2>/dev/null)}")
  directive=\${reply[-1]}
  reply=("\${(@)reply[1,-2]}")
  for entry in "\${reply[@]}"; do
    [[ -n $entry ]] || continue
    values+=("\${entry%%$'\\t'*}")
    if [[ $entry == *$'\\t'* ]]; then shown+=("\${entry%%$'\\t'*}  -- \${entry#*$'\\t'}"); else shown+=("$entry"); fi
  done
  prefix=''
  [[ $directive == *$'\\t'* ]] && prefix=\${directive#*$'\\t'}
  case \${directive%%$'\\t'*} in
    :files|:dirs)
      [[ -n $prefix ]] && compset -P "\${(b)prefix}"
      if [[ $directive == :dirs* ]]; then _files -/; else _files; fi ;;
    :nospace) compadd -S '' -d shown -a values ;;
    *) compadd -d shown -a values ;;
  esac
}
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _docextract "$@"
else
  compdef _docextract docextract
fi
`;

const FISH = `# docextract completion for fish.
# Load it now:      docextract completion fish | source
# Or for good:      docextract completion fish > ~/.config/fish/completions/docextract.fish
function __docextract_complete
    set -l token (commandline -ct)
    set -l reply (docextract __complete fish -- (commandline -opc) $token 2>/dev/null)
    test (count $reply) -gt 0; or return
    set -l directive (string split -m 1 \\t -- $reply[-1])
    set -e reply[-1]
    switch $directive[1]
        case :files :dirs
            set -l prefix $directive[2]
            set -l rest (string sub -s (math (string length -- "$prefix") + 1) -- $token)
            if test $directive[1] = :dirs
                for path in (__fish_complete_directories $rest)
                    echo $prefix$path
                end
            else
                for path in (__fish_complete_path $rest)
                    echo $prefix$path
                end
            end
        case '*'
            printf '%s\\n' $reply
    end
end
complete -c docextract -f -a '(__docextract_complete)'
`;

export const COMPLETION_SCRIPTS: Record<Shell, string> = { bash: BASH, zsh: ZSH, fish: FISH };
