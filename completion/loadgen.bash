# bash completion for httpload, dnsload and loadstats (loadgen).
# Options come from each tool's --help at completion time, so options added
# later complete without a change here; installed once per command name, as
# bash-completion loads a completion by the name of the command.

# _loadgen_metavar HELP OPTION: the value name --help shows after OPTION
# ("FILE" for "--meta FILE", "1.1|2|3|auto" for "--http 1.1|2|3|auto", "N" for "-c"
# in "-c, --clients N"), or nothing when the option takes no value.
_loadgen_metavar()
{
    local line long='(^|[[:space:],])'"$2"'[[:space:]=]([^[:space:],]+)'
    local short='(^|[[:space:]])'"$2"',[[:space:]]+--[[:alnum:]-]+[[:space:]=]([^[:space:],]+)'
    while IFS= read -r line; do
        if [[ $line =~ $long || $line =~ $short ]]; then
            printf '%s\n' "${BASH_REMATCH[2]}"
            return 0
        fi
    done <<<"$1"
    return 1
}

# _loadgen_complete HELP: completes the current word from a --help text:
# options, an option's value (files, or the choices a|b|c it lists), else files.
_loadgen_complete()
{
    local help=$1 value
    if [[ $prev == -* ]] && value=$(_loadgen_metavar "$help" "$prev"); then
        case $value in
        *FILE* | OUT* | *PATH* | DIR*) _filedir ;;
        *[A-Z]*) ;; # a number, a name, a URL: nothing to offer
        *'|'*) COMPREPLY=($(compgen -W "${value//|/ }" -- "$cur")) ;;
        esac
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_parse_help - <<<"$help")" -- "$cur"))
        [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
        return
    fi
    _filedir
}

_loadgen_generator()
{
    local cur prev words cword split
    _init_completion -s || return
    local help
    help=$("$1" --help 2>/dev/null) || return
    _loadgen_complete "$help"
}

_loadgen_loadstats()
{
    local cur prev words cword split
    _init_completion -s || return
    local i command=
    for ((i = 1; i < cword; i++)); do
        if [[ ${words[i]} != -* ]]; then
            command=${words[i]}
            break
        fi
    done
    if [[ -z $command ]]; then
        # the commands are the indented first words of the "commands:" block of --help
        local commands
        commands=$("$1" --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    local help
    help=$("$1" "$command" --help 2>/dev/null) || return
    _loadgen_complete "$help"
}

complete -F _loadgen_generator httpload dnsload
complete -F _loadgen_loadstats loadstats
