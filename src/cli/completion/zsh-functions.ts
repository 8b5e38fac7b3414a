/**
 * The zsh functions of `docextract completion zsh`: they read the data that shell-scripts.ts puts before them
 * (the program's commands, flags and value kinds, from completion-table.ts) and the document types file, and start no
 * process on a Tab. Written as zsh in a template literal, so every backslash, backtick and dollar-brace is escaped.
 */
export const ZSH_FUNCTIONS = `# Each of the candidates ($3...) that starts with the word ($2), after the prefix ($1), with its description if it has one.
_docextract_offer() {
  local prefix=$1 want=$2 candidate description
  shift 2
  for candidate; do
    [[ $candidate == "$want"* ]] || continue
    description=\${_docextract_descriptions[$command $candidate]}
    _docextract_values+=("$prefix$candidate")
    if [[ -n $description ]]; then _docextract_shown+=("$prefix$candidate  -- $description"); else _docextract_shown+=("$prefix$candidate"); fi
  done
}

# The document types kept by the last \`models\` answer, after $1 and followed by $3, that start with $2. The file is read
# with \`read\`, never evaluated: a name is only ever compared and added, and one that is not a plain word is dropped.
_docextract_types() {
  local head=$1 want=$2 tail=$3 file=\${DOCEXTRACT_STATE_DIR:-$_docextract_state_dir}/$_docextract_types_file line name description
  local plain='^[A-Za-z0-9_@%+=:,./-]+$'
  [[ -f $file && -r $file ]] || return 0
  while IFS= read -r line || [[ -n $line ]]; do
    name=\${line%%$'\\t'*}
    [[ $name =~ $plain && $name$tail == "$want"* ]] || continue
    description=''
    [[ $line == *$'\\t'* ]] && description=\${line#*$'\\t'}
    _docextract_values+=("$head$name$tail")
    if [[ -n $description ]]; then _docextract_shown+=("$head$name$tail  -- $description"); else _docextract_shown+=("$head$name$tail"); fi
  done <"$file"
}

# The ids of the jobs the journal holds open (a manifest, not finalized, not closed, not expired), after $1, that start
# with $2: what \`docextract jobs\` lists, of every key (a shell cannot tell the account without starting a process). The
# journal is read with \`read\` and matched, never evaluated; an id is only ever a plain token (api/job-id.ts). In a JSON
# string every quote is escaped, so \`"parentJobId":"\` can only be a record's own field, never part of a file name.
_docextract_jobs() {
  local prefix=$1 want=$2 file=\${DOCEXTRACT_STATE_DIR:-$_docextract_state_dir}/$_docextract_journal_file line id now
  local id_field='"parentJobId":"([A-Za-z0-9_-]+)"' expiry_field='"expiresAt":([0-9]+)'
  local -A open
  local -a match mbegin mend
  [[ -f $file && -r $file ]] || return 0
  zmodload -F zsh/datetime p:EPOCHSECONDS 2>/dev/null
  now=\${EPOCHSECONDS:-0}
  while IFS= read -r line || [[ -n $line ]]; do
    [[ $line =~ $id_field ]] || continue
    id=$match[1]
    case $line in
      (*'"type":"manifest"'*)
        if [[ $line =~ $expiry_field ]] && (( \${match[1][1,15]} > now * 1000 )); then open[$id]=1; fi ;;
      (*'"type":"finalized"'*|*'"type":"job-closed"'*) unset "open[$id]" ;;
    esac
  done <"$file"
  _docextract_offer "$prefix" "$want" \${(k)open}
}

# The profiles of config.json, after $1, that start with $2: \`default\`, then each key of its \`"profiles"\` object, read
# as the CLI writes the file (a key a line, tab-indented: config-store.ts pins it); a file laid out otherwise offers only
# \`default\`. Read with \`read\`, never evaluated; a name is only a plain word (profiles.ts).
_docextract_profiles() {
  local prefix=$1 want=$2 file=\${DOCEXTRACT_CONFIG_DIR:-$_docextract_config_dir}/config.json line inside=''
  local name_line=$'^\t\t"([A-Za-z0-9][A-Za-z0-9_-]*)": [{]'
  local -a names match mbegin mend
  names=(default)
  if [[ -f $file && -r $file ]]; then
    while IFS= read -r line || [[ -n $line ]]; do
      if [[ $line == $'\t"profiles": {' ]]; then inside=1
      elif [[ -n $inside && $line == $'\t}'* ]]; then inside=''
      elif [[ -n $inside && $line =~ $name_line ]]; then names+=("$match[1]")
      fi
    done <"$file"
  fi
  _docextract_offer "$prefix" "$want" "\${names[@]}"
}

# A value of the kind $1 (see completion-table.ts): the word $2, after the prefix $3 (\`--out=\`).
_docextract_value() {
  local kind=$1 word=$2 prefix=$3 rest
  case $kind in
    (choices:*) _docextract_offer "$prefix" "$word" \${(s:,:)kind#choices:} ;;
    (files|dirs) directive=$kind path_prefix=$prefix ;;
    (setting) local command=setting; _docextract_offer "$prefix" "$word" \${=_docextract_settings} ;;
    (open-job) _docextract_jobs "$prefix" "$word" ;;
    (profile) _docextract_profiles "$prefix" "$word" ;;
    (document-type) _docextract_types "$prefix" "$word" '' ;;
    (model-rule|model-rules)
      # GLOB=TYPE: the glob is the user's; what follows its \`=\` is a document type (after the last \`;\` of a list).
      if [[ $kind == model-rule ]]; then rest=\${word##*=}; else rest=\${word##*[=;]}; fi
      _docextract_types "$prefix\${word[1,\${#word}-\${#rest}]}" "$rest" '' ;;
    (type=file|types=files)
      if [[ $kind == types=files ]]; then rest=\${word##*;}; else rest=$word; fi
      if [[ $rest == *=* ]]; then
        directive=files path_prefix=$prefix\${word[1,\${#word}-\${#rest}]}\${rest%%=*}=
      else
        _docextract_types "$prefix\${word[1,\${#word}-\${#rest}]}" "$rest" '='
        directive=nospace
      fi ;;
  esac
}

# One Tab: walk the words before the cursor as Commander would (subcommands, flags and their values, positionals), then
# complete the last one. Runs no command: everything it needs is in the arrays above and the document types file.
_docextract() {
  # No emulate -L zsh here: it would reset the options the completion system set, which _files needs.
  local command=docextract pending='' dashes='' first='' count=0 word kind current=\${(Q)PREFIX} directive=none path_prefix=''
  local -a _docextract_values _docextract_shown args
  for word in "\${(@Q)words[2,CURRENT-1]}"; do
    if [[ -n $pending ]]; then
      pending=''
    elif [[ -n $dashes || $word == - || $word != -* ]]; then
      if (( count == 0 )) && [[ -z $dashes && -n \${_docextract_enters[$command $word]} ]]; then
        command=\${_docextract_enters[$command $word]}
      else
        (( count == 0 )) && first=$word
        (( ++count ))
      fi
    elif [[ $word == -- ]]; then
      dashes=1
    elif [[ $word != --?*=* ]]; then
      pending=\${_docextract_kinds[$command $word]}
    fi
  done
  if [[ -n $pending ]]; then
    _docextract_value "$pending" "$current" ''
  elif [[ -z $dashes && $current == -* ]]; then
    if [[ $current == --?*=* ]]; then
      kind=\${_docextract_kinds[$command \${current%%=*}]}
      [[ -n $kind ]] && _docextract_value "$kind" "\${current#*=}" "\${current%%=*}="
    else
      _docextract_offer '' "$current" \${=_docextract_flags[$command]}
    fi
  elif [[ -n \${_docextract_subcommands[$command]} ]] && (( count == 0 )); then
    _docextract_offer '' "$current" \${=_docextract_subcommands[$command]}
  else
    args=(\${=_docextract_args[$command]})
    kind=\${args[count+1]}
    [[ -z $kind && \${args[-1]} == *... ]] && kind=\${args[-1]}
    kind=\${kind%...}
    [[ $kind == setting-value ]] && kind=\${_docextract_setting_kinds[$first]}
    [[ -n $kind ]] && _docextract_value "$kind" "$current" ''
  fi
  case $directive in
    (files|dirs)
      [[ -n $path_prefix ]] && compset -P "\${(b)path_prefix}"
      if [[ $directive == dirs ]]; then _files -/; else _files; fi ;;
    (nospace) compadd -S '' -d _docextract_shown -a _docextract_values ;;
    (*) compadd -d _docextract_shown -a _docextract_values ;;
  esac
}
`;
