/**
 * The bash functions of `docextract completion bash`: they read the data that shell-scripts.ts puts before them
 * (the program's commands, flags and value kinds, from completion-table.ts) and the document types file, and start no
 * process on a Tab. Written as bash in a template literal, so every backslash, backtick and dollar-brace is escaped.
 */
export const BASH_FUNCTIONS = `# The words of the line up to the cursor, as the shell will read them (quotes, backslashes), of its last command only
# (\`cd x && docextract ex\`); a line ending in a blank ends with an empty word, the one being completed.
_docextract_split() {
  local line=$1 ch next word='' quote='' inword='' i
  _docextract_words=()
  for (( i = 0; i < \${#line}; i++ )); do
    ch=\${line:i:1}
    next=\${line:i+1:1}
    if [[ $quote == "'" ]]; then
      if [[ $ch == "'" ]]; then quote=''; else word+=$ch; fi
    elif [[ $quote == '"' ]]; then
      if [[ $ch == '"' ]]; then quote=''
      elif [[ $ch == '\\' && -n $next && '"\\$\`' == *"$next"* ]]; then word+=$next; (( ++i ))
      else word+=$ch; fi
    elif [[ $ch == [\\"\\'] ]]; then quote=$ch inword=1
    elif [[ $ch == '\\' ]]; then word+=$next inword=1; (( ++i ))
    elif [[ $ch == [[:space:]] ]]; then
      [[ -n $inword ]] && _docextract_words+=("$word")
      word='' inword=''
    else word+=$ch inword=1
    fi
    if [[ -z $quote && -n $inword && ( -z $next || $next == [[:space:]] ) ]]; then
      case $word in '&&' | '||' | ';' | '|' | '&') _docextract_words=() word='' inword='' ;; esac
    fi
  done
  _docextract_words+=("$word")
}

# The text readline will replace: what follows the last blank or COMP_WORDBREAKS character (\`=\` and \`:\` among them) outside quotes.
_docextract_readline_word() {
  local line=$1 ch quote='' start=0 i
  for (( i = 0; i < \${#line}; i++ )); do
    ch=\${line:i:1}
    if [[ -n $quote ]]; then
      if [[ $ch == "$quote" ]]; then quote=''; fi
    elif [[ $ch == '\\' ]]; then (( ++i ))
    elif [[ $ch == [\\"\\'] ]]; then quote=$ch start=$(( i + 1 ))
    elif [[ $ch == [[:space:]] || $COMP_WORDBREAKS == *"$ch"* ]]; then start=$(( i + 1 ))
    fi
  done
  _docextract_replaced=\${line:start}
}

# Each of the candidates ($3...) that starts with the word ($2), after the prefix ($1).
_docextract_offer() {
  local prefix=$1 want=$2 candidate
  shift 2
  for candidate; do
    if [[ $candidate == "$want"* ]]; then _docextract_candidates+=("$prefix$candidate"); fi
  done
}

# The document types kept by the last \`models\` answer, after $1 and followed by $3, that start with $2. The file is read
# with \`read\`, never evaluated: a name is only ever compared and added, and one that is not a plain word is dropped.
_docextract_types() {
  local head=$1 want=$2 tail=$3 file=\${DOCEXTRACT_STATE_DIR:-$_docextract_state_dir}/$_docextract_types_file line name
  local plain='^[A-Za-z0-9_@%+=:,./-]+$'
  [[ -f $file && -r $file ]] || return 0
  while IFS= read -r line || [[ -n $line ]]; do
    name=\${line%%$'\\t'*}
    if [[ $name =~ $plain && $name$tail == "$want"* ]]; then _docextract_candidates+=("$head$name$tail"); fi
  done <"$file"
}

# The ids of the jobs the journal holds open (a manifest, not finalized, not closed, not expired), after $1, that start
# with $2: what \`docextract jobs\` lists, of every key (a shell cannot tell the account without starting a process). The
# journal is read with \`read\` and matched, never evaluated; an id is only ever a plain token (api/job-id.ts). In a JSON
# string every quote is escaped, so \`"parentJobId":"\` can only be a record's own field, never part of a file name.
_docextract_jobs() {
  local prefix=$1 want=$2 file=\${DOCEXTRACT_STATE_DIR:-$_docextract_state_dir}/$_docextract_journal_file line id now
  local id_field='"parentJobId":"([A-Za-z0-9_-]+)"' expiry_field='"expiresAt":([0-9]+)'
  local -A open=()
  [[ -f $file && -r $file ]] || return 0
  printf -v now '%(%s)T' -1
  while IFS= read -r line || [[ -n $line ]]; do
    [[ $line =~ $id_field ]] || continue
    id=\${BASH_REMATCH[1]}
    case $line in
      *'"type":"manifest"'*)
        if [[ $line =~ $expiry_field ]] && (( \${BASH_REMATCH[1]:0:15} > now * 1000 )); then open[$id]=1; fi ;;
      *'"type":"finalized"'* | *'"type":"job-closed"'*) unset "open[$id]" ;;
    esac
  done <"$file"
  _docextract_offer "$prefix" "$want" "\${!open[@]}"
}

# The profiles of config.json, after $1, that start with $2: \`default\`, then each key of its \`"profiles"\` object, read
# as the CLI writes the file (a key a line, tab-indented: config-store.ts pins it); a file laid out otherwise offers only
# \`default\`. Read with \`read\`, never evaluated; a name is only a plain word (profiles.ts).
_docextract_profiles() {
  local prefix=$1 want=$2 file=\${DOCEXTRACT_CONFIG_DIR:-$_docextract_config_dir}/config.json line inside=''
  local name_line=$'^\t\t"([A-Za-z0-9][A-Za-z0-9_-]*)": [{]'
  local -a names=(default)
  if [[ -f $file && -r $file ]]; then
    while IFS= read -r line || [[ -n $line ]]; do
      if [[ $line == $'\t"profiles": {' ]]; then inside=1
      elif [[ -n $inside && $line == $'\t}'* ]]; then inside=''
      elif [[ -n $inside && $line =~ $name_line ]]; then names+=("\${BASH_REMATCH[1]}")
      fi
    done <"$file"
  fi
  _docextract_offer "$prefix" "$want" "\${names[@]}"
}

# A value of the kind $1 (see completion-table.ts): the word $2, after the prefix $3 (\`--out=\`).
_docextract_value() {
  local kind=$1 word=$2 prefix=$3 rest
  case $kind in
    choices:*)
      local IFS=,
      _docextract_offer "$prefix" "$word" \${kind#choices:} ;;
    files | dirs) _docextract_directive=$kind _docextract_prefix=$prefix ;;
    setting) _docextract_offer "$prefix" "$word" $_docextract_settings ;;
    open-job) _docextract_jobs "$prefix" "$word" ;;
    profile) _docextract_profiles "$prefix" "$word" ;;
    document-type) _docextract_types "$prefix" "$word" '' ;;
    model-rule | model-rules)
      # GLOB=TYPE: the glob is the user's; what follows its \`=\` is a document type (after the last \`;\` of a list).
      if [[ $kind == model-rule ]]; then rest=\${word##*=}; else rest=\${word##*[=;]}; fi
      _docextract_types "$prefix\${word:0:\${#word}-\${#rest}}" "$rest" '' ;;
    type=file | types=files)
      if [[ $kind == types=files ]]; then rest=\${word##*;}; else rest=$word; fi
      if [[ $rest == *=* ]]; then
        _docextract_directive=files _docextract_prefix=$prefix\${word:0:\${#word}-\${#rest}}\${rest%%=*}=
      else
        _docextract_types "$prefix\${word:0:\${#word}-\${#rest}}" "$rest" '='
        _docextract_directive=nospace
      fi ;;
  esac
}

# One Tab: walk the words before the cursor as Commander would (subcommands, flags and their values, positionals), then
# complete the last one. Runs no command: everything it needs is in the arrays above and the document types file.
_docextract_complete() {
  # The lists below are split on blanks, never expanded as globs; both settings end with the function (local -).
  local -
  set -f
  local IFS=$' \\t\\n' line=\${COMP_LINE:0:COMP_POINT} command=docextract pending='' dashes='' first='' count=0 word kind current
  local _docextract_replaced='' _docextract_directive=none _docextract_prefix=''
  local -a _docextract_words=() _docextract_candidates=() args
  _docextract_split "$line"
  _docextract_readline_word "$line"
  (( \${#_docextract_words[@]} > 1 )) || return 0
  current=\${_docextract_words[\${#_docextract_words[@]}-1]}
  for word in "\${_docextract_words[@]:1:\${#_docextract_words[@]}-2}"; do
    if [[ -n $pending ]]; then
      pending=''
    elif [[ -n $dashes || $word == - || $word != -* ]]; then
      if (( count == 0 )) && [[ -z $dashes && -n \${_docextract_enters["$command $word"]} ]]; then
        command=\${_docextract_enters["$command $word"]}
      else
        if (( count == 0 )); then first=$word; fi
        (( ++count ))
      fi
    elif [[ $word == -- ]]; then
      dashes=1
    elif [[ $word != --?*=* ]]; then
      pending=\${_docextract_kinds["$command $word"]}
    fi
  done
  if [[ -n $pending ]]; then
    _docextract_value "$pending" "$current" ''
  elif [[ -z $dashes && $current == -* ]]; then
    if [[ $current == --?*=* ]]; then
      kind=\${_docextract_kinds["$command \${current%%=*}"]}
      if [[ -n $kind ]]; then _docextract_value "$kind" "\${current#*=}" "\${current%%=*}="; fi
    else
      _docextract_offer '' "$current" \${_docextract_flags["$command"]}
    fi
  elif [[ -n \${_docextract_subcommands["$command"]} ]] && (( count == 0 )); then
    _docextract_offer '' "$current" \${_docextract_subcommands["$command"]}
  else
    args=(\${_docextract_args["$command"]})
    kind=\${args[count]}
    if [[ -z $kind ]] && (( \${#args[@]} > 0 )) && [[ \${args[\${#args[@]}-1]} == *... ]]; then kind=\${args[\${#args[@]}-1]}; fi
    kind=\${kind%...}
    if [[ $kind == setting-value ]]; then kind=\${_docextract_setting_kinds["$first"]}; fi
    if [[ -n $kind ]]; then _docextract_value "$kind" "$current" ''; fi
  fi
  COMPREPLY=()
  case $_docextract_directive in
    files | dirs)
      local path='' found
      if (( \${#_docextract_prefix} <= \${#current} )); then path=\${current:\${#_docextract_prefix}}; fi
      if [[ $path == "$_docextract_replaced" ]]; then
        # What readline replaces is the path itself (the \`=\` of \`--out=\` is a word break): its own file or folder
        # completion does it, without even a subshell.
        if [[ $_docextract_directive == files ]]; then compopt -o default 2>/dev/null; else compopt -o dirnames 2>/dev/null; fi
      else
        compopt -o filenames 2>/dev/null
        while IFS= read -r found; do COMPREPLY+=("$found"); done < <(compgen "-\${_docextract_directive:0:1}" -- "$path")
      fi
      ;;
    *)
      # Readline replaces only the text after the last word-break character: \`--model=inv\` is completed as \`inv\`.
      local cut=0 candidate
      if [[ $current == *"$_docextract_replaced" ]]; then cut=$(( \${#current} - \${#_docextract_replaced} )); fi
      for candidate in "\${_docextract_candidates[@]}"; do COMPREPLY+=("\${candidate:cut}"); done
      if [[ $_docextract_directive == nospace ]]; then compopt -o nospace 2>/dev/null; fi
      ;;
  esac
  return 0
}
complete -F _docextract_complete docextract
`;
