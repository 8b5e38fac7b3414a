/**
 * The fish functions of `docextract completion fish`: they read the data that shell-scripts.ts puts before them
 * (the program's commands, flags and value kinds, from completion-table.ts) and the document types file, and start no
 * process on a Tab. Written as fish in a template literal, so every backslash, backtick and dollar-brace is escaped.
 */
export const FISH_FUNCTIONS = `# Prints each candidate ($argv[4..]) that starts with $want, after $prefix, with its description from the list named $descriptions.
function __docextract_offer -a prefix want descriptions
    set -l texts
    test -n "$descriptions"; and set texts $$descriptions
    set -l start (string escape --style=regex -- "$want")
    set -l at 0
    for candidate in $argv[4..]
        set at (math $at + 1)
        string match -qr -- "^$start" "$candidate"; or continue
        if test -n "$texts[$at]"
            printf '%s\\t%s\\n' "$prefix$candidate" "$texts[$at]"
        else
            printf '%s\\n' "$prefix$candidate"
        end
    end
end

# The document types kept by the last \`models\` answer, after $head and followed by $tail, that start with $want. The file
# is read with \`read\`, never evaluated: a name is only ever compared and printed, and one that is not a plain word is dropped.
function __docextract_types -a head want tail
    set -l dir "$DOCEXTRACT_STATE_DIR"
    test -n "$dir"; or set dir $__docextract_state_dir
    set -l file "$dir/$__docextract_types_file"
    test -f "$file" -a -r "$file"; or return 0
    set -l start (string escape --style=regex -- "$want")
    while read -l line
        set -l parts (string split -m 1 \\t -- "$line")
        string match -qr -- '^[A-Za-z0-9_@%+=:,./-]+$' "$parts[1]"; or continue
        string match -qr -- "^$start" "$parts[1]$tail"; or continue
        if test -n "$parts[2]"
            printf '%s\\t%s\\n' "$head$parts[1]$tail" "$parts[2]"
        else
            printf '%s\\n' "$head$parts[1]$tail"
        end
    end <"$file"
end

# The ids of the jobs the journal holds open (a manifest, not finalized, not closed), after $prefix, that start with $want:
# what \`docextract jobs\` lists, of every key. Fish has no clock without a process: an expired job is offered too (collect
# then says so). The journal is read with \`read\` and matched, never evaluated; an id is only ever a plain token. In a
# JSON string every quote is escaped, so \`"parentJobId":"\` can only be a record's own field, never part of a file name.
function __docextract_jobs -a prefix want
    set -l dir "$DOCEXTRACT_STATE_DIR"
    test -n "$dir"; or set dir $__docextract_state_dir
    set -l file "$dir/$__docextract_journal_file"
    test -f "$file" -a -r "$file"; or return 0
    set -l open
    while read -l line
        set -l id (string match -r -g -- '"parentJobId":"([A-Za-z0-9_-]+)"' "$line"); or continue
        if string match -q -- '*"type":"manifest"*' "$line"
            contains -- "$id" $open; or set -a open "$id"
        else if string match -q -r -- '"type":"(finalized|job-closed)"' "$line"
            set -l at (contains -i -- "$id" $open); and set -e open[$at]
        end
    end <"$file"
    __docextract_offer "$prefix" "$want" '' $open
end

# The profiles of config.json, after $prefix, that start with $want: \`default\`, then each key of its \`"profiles"\` object, read
# as the CLI writes the file (a key a line, tab-indented: config-store.ts pins it); a file laid out otherwise offers only
# \`default\`. Read with \`read\`, never evaluated; a name is only a plain word (profiles.ts).
function __docextract_profiles -a prefix want
    set -l dir "$DOCEXTRACT_CONFIG_DIR"
    test -n "$dir"; or set dir $__docextract_config_dir
    set -l file "$dir/config.json"
    set -l names default
    if test -f "$file" -a -r "$file"
        set -l inside ''
        while read -l line
            if test "$line" = \\t'"profiles": {'
                set inside 1
            else if test -n "$inside"; and string match -q -- \\t'}*' "$line"
                set inside ''
            else if test -n "$inside"
                set -l name (string match -r -g -- '^\\t\\t"([A-Za-z0-9][A-Za-z0-9_-]*)": [{]' "$line"); and set -a names $name
            end
        end <"$file"
    end
    __docextract_offer "$prefix" "$want" '' $names
end

# The files or folders (by $kind) whose path starts with $path, after $prefix (\`--out=\`, \`invoice=\`).
function __docextract_paths -a kind prefix path
    if test "$kind" = dirs
        for found in (__fish_complete_directories "$path")
            printf '%s\\n' "$prefix$found"
        end
    else
        for found in (__fish_complete_path "$path")
            printf '%s\\n' "$prefix$found"
        end
    end
end

# How the value of $flag is completed in the command numbered $command (see completion-table.ts); nothing if it takes none.
function __docextract_kind -a command flag
    set -l flags __docextract_kind_flags_$command
    set -l kinds __docextract_kinds_$command
    set -l at (contains -i -- "$flag" $$flags); or return 0
    set -l all $$kinds
    printf '%s\\n' $all[$at]
end

# A value of the kind $kind: the word $word, after $prefix (\`--out=\`).
function __docextract_value -a kind word prefix
    switch $kind
        case 'choices:*'
            __docextract_offer "$prefix" "$word" '' (string split , -- (string replace -- choices: '' "$kind"))
        case files dirs
            __docextract_paths $kind "$prefix" "$word"
        case setting
            __docextract_offer "$prefix" "$word" __docextract_setting_descriptions $__docextract_settings
        case open-job
            __docextract_jobs "$prefix" "$word"
        case profile
            __docextract_profiles "$prefix" "$word"
        case document-type
            __docextract_types "$prefix" "$word" ''
        case model-rule model-rules
            # GLOB=TYPE: the glob is the user's; what follows its \`=\` is a document type (after the last \`;\` of a list).
            set -l breaks =
            test "$kind" = model-rules; and set breaks '=;'
            set -l before (string replace -r -- "[^$breaks]*\\$" '' "$word")
            set -l rest (string sub -s (math (string length -- "$before") + 1) -- "$word")
            __docextract_types "$prefix$before" "$rest" ''
        case type=file types=files
            set -l before ''
            test "$kind" = types=files; and set before (string replace -r -- '[^;]*$' '' "$word")
            set -l rest (string sub -s (math (string length -- "$before") + 1) -- "$word")
            if string match -q -- '*=*' "$rest"
                set -l type (string replace -r -- '=.*$' '' "$rest")
                set -l path (string replace -r -- '^[^=]*=' '' "$rest")
                __docextract_paths files "$prefix$before$type=" "$path"
            else
                __docextract_types "$prefix$before" "$rest" =
            end
    end
end

# One Tab: walk the words before the cursor as Commander would (subcommands, flags and their values, positionals), then
# complete the last one. Runs no command: everything it needs is in the lists above and the document types file.
function __docextract_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l command 1
    set -l pending ''
    set -l dashes ''
    set -l first ''
    set -l count 0
    for word in $tokens[2..]
        if test -n "$pending"
            set pending ''
        else if test -n "$dashes"; or test "x$word" = x-; or not string match -q -- '-*' "$word"
            set -l words __docextract_enter_words_$command
            set -l at (contains -i -- "$word" $$words)
            if test $count -eq 0 -a -z "$dashes" -a -n "$at"
                set -l paths __docextract_enter_paths_$command
                set -l all $$paths
                set command $all[$at]
            else
                test $count -eq 0; and set first "$word"
                set count (math $count + 1)
            end
        else if test "x$word" = x--
            set dashes 1
        else if not string match -q -- '--?*=*' "$word"
            set pending (__docextract_kind $command "$word")
        end
    end
    set -l subcommands __docextract_subcommands_$command
    if test -n "$pending"
        __docextract_value $pending "$current" ''
    else if test -z "$dashes"; and string match -q -- '-*' "$current"
        if string match -q -- '--?*=*' "$current"
            set -l parts (string split -m 1 = -- "$current")
            set -l kind (__docextract_kind $command "$parts[1]")
            test -n "$kind"; and __docextract_value $kind "$parts[2]" "$parts[1]="
        else
            set -l flags __docextract_flags_$command
            __docextract_offer '' "$current" __docextract_flag_descriptions_$command $$flags
        end
    else if test (count $$subcommands) -gt 0 -a $count -eq 0
        __docextract_offer '' "$current" __docextract_subcommand_descriptions_$command $$subcommands
    else
        set -l arguments __docextract_args_$command
        set -l args $$arguments
        set -l kind $args[(math $count + 1)]
        if test -z "$kind"; and test (count $args) -gt 0; and string match -q -- '*...' "$args[-1]"
            set kind $args[-1]
        end
        set kind (string replace -r -- '\\.\\.\\.$' '' "$kind")
        if test "$kind" = setting-value
            set -l at (contains -i -- "$first" $__docextract_setting_keys)
            set kind ''
            test -n "$at"; and set kind $__docextract_setting_kinds[$at]
        end
        test -n "$kind"; and __docextract_value $kind "$current" ''
    end
end
complete -c docextract -f -a '(__docextract_complete)'
`;
