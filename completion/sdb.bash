# bash completion for sdb(1), the Simple Disk Benchmark.     -*- shell-script -*-
# Installed as share/bash-completion/completions/sdb; bash-completion loads
# it the first time "sdb" is completed.  The option list follows "sdb --help".

_sdb()
{
    # shellcheck disable=SC2034  # words and cword are set by _init_completion
    local cur prev words cword split offer
    _init_completion -s || return

    case $prev in
        -f | --file)
            _filedir    # file names, and device nodes under /dev
            return
            ;;
        --html)
            _filedir html
            return
            ;;
        --journal | --restore)
            _filedir journal    # --probe's undo journals
            return
            ;;
        --hosts)
            _known_hosts_real -- "$cur"     # host names; HOST:PATH by hand
            return
            ;;
        -j | --threads | -t | --time | -q | --queue-depth | --runs | --start-at | --fsync | --ramp | --fanout | --host-timeout)
            return      # a number: nothing useful to offer
            ;;
        --rate) offer='1000 5k 200m/s' ;;
        -m | --mode) offer='seq rand' ;;
        -M | --mix) offer='30 50 70' ;;
        -b | --block-size) offer='4k 64k 1m' ;;
        -s | --size) offer='64m 1g 4g' ;;
        *)
            if $split; then     # --option=value: only --quick's profile
                [[ $prev == --quick ]] || return
                offer='default nvme real mix flash'
            elif [[ " ${words[*]} " =~ " --"(merge|compare)" " && $cur != -* ]]; then
                _filedir json   # --merge's and --compare's operands: saved --json documents
                return
            else                # no operands but --merge's: every word is an option
                offer='-w --write -r --read -M --mix -f --file -b --block-size -s --size
                    -j --threads -m --mode -t --time -D --direct -S --sync
                    -R --random-buffer -T --timing -q --queue-depth -v --verbose
                    --json --cached --force --quick --quick= --keep --runs --explain
                    --start-at --fsync --ramp --verify --rate --sweep
                    --hosts --merge --fanout --host-timeout --compare --html --probe --destructive --journal --restore
                    -V --version -h --help'
            fi
            ;;
    esac
    mapfile -t COMPREPLY < <(compgen -W "$offer" -- "$cur")
} &&
    complete -F _sdb sdb

# ex: filetype=sh
