# outputs.sh - sourced by the scripts that write files: their outputs are checked before any
# work starts, as tunesim's own commands check theirs (docs/bad-input.md), so that a run of
# minutes neither fails only at its end nor replaces one of its inputs.

# check_outputs WHO OUT... -- INPUT...: exit with one line on stderr unless every OUT has a name,
# is not a directory, lies in an existing directory this process can create files in (tried,
# not guessed from the mode bits: root may "write" to /proc), and is none of the INPUTs (the
# same file by any path or link). Empty INPUTs are skipped.
check_outputs() {
    local who=$1 o i d probe
    shift
    local outs=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        outs+=("$1")
        shift
    done
    [ $# -gt 0 ] && shift
    for o in "${outs[@]}"; do
        [ -n "$o" ] || { echo "$who: an output has an empty name (expected a file name)" >&2; exit 2; }
        [ ! -d "$o" ] || { echo "$who: $o is a directory (expected a file name)" >&2; exit 1; }
        d=$(dirname -- "$o")
        [ -d "$d" ] || { echo "$who: $o: no directory $d to write it in" >&2; exit 1; }
        probe=$(mktemp "$d/.tunesim-check.XXXXXX" 2>/dev/null) ||
            { echo "$who: $o: cannot create files in $d (expected a writable directory)" >&2; exit 1; }
        rm -f -- "$probe"
        for i in "$@"; do
            if [ -n "$i" ] && [ -e "$o" ] && [ "$o" -ef "$i" ]; then
                echo "$who: $o is also an input ($i): it would be overwritten (expected another name)" >&2
                exit 1
            fi
        done
    done
}
