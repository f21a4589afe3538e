# bash completion for cordon(1)                              -*- shell-script -*-
#
# Options and their values come from the cordon being completed
# (`cordon --help`), so they never drift from the code; policy names from
# the directories cordon reads them from. Installed by `make install` into
# $(PREFIX)/share/bash-completion/completions/cordon.

_cordon_help()
{
    # One `cordon --help` per binary and shell.
    local bin=$1
    if [[ $_cordon_help_bin != "$bin" ]]; then
        _cordon_help_text=$("$bin" --help 2>/dev/null)
        _cordon_help_bin=$bin
    fi
    printf '%s\n' "$_cordon_help_text"
}

_cordon_policies()
{
    local bin=$1 dir d
    local -a dirs=(/etc/cordon/policy.d /usr/local/share/cordon/policy.d /usr/share/cordon/policy.d)
    # An uninstalled build/cordon reads policy.d/ beside build/, and so does
    # build/san/cordon (SANITIZE=1): launcher/main.c, search_dirs().
    if [[ $bin == */* ]]; then
        dir=$(cd "${bin%/*}" 2>/dev/null && pwd -P)
        [[ $dir == */build/san ]] && dir=${dir%/san}
        [[ -n $dir ]] && dir=$(cd "$dir/.." && pwd)
        [[ -n $dir ]] && dirs=("$dir/policy.d" "${dirs[@]}")
    fi
    for d in "${dirs[@]}"; do
        [[ -d $d ]] && (cd "$d" && ls -1 2>/dev/null)
    done
}

_cordon()
{
    local cur prev bin cmd i
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    bin=${COMP_WORDS[0]}

    if ((COMP_CWORD == 1)); then
        COMPREPLY=($(compgen -W "run explain learn status selftest seatbelt --help --version" -- "$cur"))
        return
    fi
    cmd=${COMP_WORDS[1]}

    # After `run ... --`: the program and its arguments.
    for ((i = 2; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} == -- ]]; then
            if [[ $cmd == run || $cmd == learn ]] && declare -F _command_offset >/dev/null; then
                _command_offset $((i + 1))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            return
        fi
    done

    case $prev in
    --policy)
        COMPREPLY=($(compgen -W "$(_cordon_policies "$bin")" -- "$cur") $(compgen -f -- "$cur"))
        return ;;
    --workspace)
        COMPREPLY=($(compgen -d -- "$cur"))
        return ;;
    -o|--output)
        COMPREPLY=($(compgen -f -- "$cur"))
        return ;;
    --*)
        # The option's metavariable in --help: "yes|no", "none|isolated|all"
        # are its values; PATH, DIR, FILE take a file name.
        local meta
        meta=$(_cordon_help "$bin" | sed -n "s/^  $prev \([^ ]*\) .*/\1/p" | head -n 1)
        if [[ $meta == *'|'* && $meta != *PATH* ]]; then
            COMPREPLY=($(compgen -W "${meta//|/ }" -- "$cur"))
            return
        elif [[ $meta == *PATH* || $meta == *FILE* || $meta == *DIR* ]]; then
            COMPREPLY=($(compgen -f -- "$cur"))
            return
        elif [[ -n $meta ]]; then
            return  # a number, a duration, a pattern: nothing to offer
        fi ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_cordon_help "$bin" | grep -o -- '--[a-z][a-z-]*' | sort -u) --" -- "$cur"))
    elif [[ $cmd == explain ]]; then
        COMPREPLY=($(compgen -W "read write connect bind" -- "$cur") $(compgen -f -- "$cur"))
    fi
}

complete -F _cordon cordon
