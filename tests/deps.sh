#!/usr/bin/env bash
# deps.sh [ROOT] - the layout's dependency rule (README "Layout"), checked: a file may include
# headers of its own folder and of the folders its folder may use, and a folder's CMake files
# build only that folder's sources. Prints one line per violation (FILE:LINE: what) and exits 1
# if there is any, 0 otherwise. `deps.sh --self-test` checks that the checker catches both kinds
# of violation in a small made-up tree. Run by ctest (tests deps, deps_self_test).
set -euo pipefail

# Folder -> the folders it may use, lowest first. Keep in step with the README's table.
declare -A MAY_USE=(
    [common]=""
    [traces]="common"
    [params]="common"
    [models]="common traces params"
    [platforms]="common params models"
    [sim]="common traces params models platforms"
    [calibration]="common params models"
    [validation]="common traces"
    [commands]="common traces params models platforms sim calibration validation"
    [bench]="common traces"
)

# norm PATH: PATH with its . and .. components resolved, in REPLY (leading ..s kept).
norm() {
    local -a out=()
    local part parts
    IFS=/ read -ra parts <<<"$1"
    for part in "${parts[@]}"; do
        case $part in
        "" | .) ;;
        ..)
            if [ ${#out[@]} -gt 0 ] && [ "${out[-1]}" != .. ]; then
                unset 'out[-1]'
            else
                out+=(..)
            fi
            ;;
        *) out+=("$part") ;;
        esac
    done
    local IFS=/
    REPLY="${out[*]}"
}

# check ROOT: print the violations under ROOT, return 1 if there are any.
check() {
    local root=$1 bad=0 folder file rel dir line inc target tfolder n tok
    for folder in "${!MAY_USE[@]}"; do
        [ -d "$root/$folder" ] || continue
        # 1. #include "..." lines of the folder's C files (subfolders included).
        while IFS= read -r -d '' file; do
            rel=${file#"$root"/}
            dir=${rel%/*}
            while IFS=: read -r n line; do
                [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]] || continue
                inc=${BASH_REMATCH[1]}
                if [[ $inc == ../* || $inc == ./* ]]; then
                    norm "$dir/$inc"
                    target=$REPLY
                elif [[ -n ${MAY_USE[${inc%%/*}]+x} && -e $root/$inc && $inc == */* ]]; then
                    target=$inc # from the repository root ("traces/trace.h")
                else
                    target=$dir/$inc # beside the file
                fi
                tfolder=${target%%/*}
                [ "$tfolder" = "$folder" ] && continue
                if [[ $target == ../* ]]; then
                    echo "$rel:$n: includes \"$inc\", outside the repository"
                    bad=1
                elif [[ " ${MAY_USE[$folder]} " != *" $tfolder "* ]]; then
                    echo "$rel:$n: includes \"$inc\": $folder/ may not use $tfolder/" \
                        "(may use: ${MAY_USE[$folder]:-nothing})"
                    bad=1
                fi
            done < <(grep -nE '^[[:space:]]*#[[:space:]]*include' "$file" || true)
        done < <(find "$root/$folder" -type f \( -name '*.c' -o -name '*.h' \) -print0)
        # 2. Sources named in the folder's CMake files: its own only. A path's first folder,
        # after any ${..._SOURCE_DIR}/ or ../, names whose source it is.
        while IFS= read -r -d '' file; do
            rel=${file#"$root"/}
            n=0
            while IFS= read -r line; do
                n=$((n + 1))
                line=${line%%#*}
                [[ $line == *.[ch]* ]] || continue
                for tok in $(grep -oE '[^[:space:]()"]+\.[ch]\b' <<<"$line" || true); do
                    tok=${tok#\$\{*_DIR\}/}
                    while [[ $tok == ../* ]]; do tok=${tok#../}; done
                    [[ $tok == */* ]] || continue
                    tfolder=${tok%%/*}
                    [[ -n ${MAY_USE[$tfolder]+x} && $tfolder != "$folder" ]] || continue
                    echo "$rel:$n: builds $tok, a source of $tfolder/; only $folder/'s own belong here"
                    bad=1
                done
            done <"$file"
        done < <(find "$root/$folder" -type f \( -name CMakeLists.txt -o -name '*.cmake' \) -print0)
    done
    return $bad
}

# check_readme ROOT: README.md's Layout table says, for every folder of MAY_USE, exactly the
# folders MAY_USE lets it use (one source for both: this table). Prints a line per difference.
check_readme() {
    local root=$1 bad=0 folder line n uses want got
    for folder in "${!MAY_USE[@]}"; do
        line=$(grep -n "^| \`$folder/\` |" "$root/README.md" | head -1 || true)
        if [ -z "$line" ]; then
            echo "README.md: the Layout table has no row for $folder/"
            bad=1
            continue
        fi
        n=${line%%:*}
        uses=${line%|}
        uses=${uses##*|}
        uses=$(echo "$uses" | tr -d ' ')
        [ "$uses" = nothing ] && uses=
        got=$(tr ',' '\n' <<<"$uses" | sed '/^$/d' | sort | tr '\n' ' ')
        want=$(tr ' ' '\n' <<<"${MAY_USE[$folder]}" | sed '/^$/d' | sort | tr '\n' ' ')
        if [ "$got" != "$want" ]; then
            echo "README.md:$n: $folder/ may use '${got% }' in the Layout table, '${want% }' in tests/deps.sh"
            bad=1
        fi
    done
    return $bad
}

self_test() {
    local t out
    t=$(mktemp -d)
    trap 'rm -rf "$t"' RETURN
    mkdir -p "$t/models" "$t/sim" "$t/common" "$t/commands"
    printf '#include "../sim/engine.h"\n#include "protocol.h"\n#include "../common/status.h"\n' \
        >"$t/models/bad.c"
    printf 'add_library(m STATIC protocol.c ${CMAKE_SOURCE_DIR}/sim/engine.c) # sim/x.c\n' \
        >"$t/models/CMakeLists.txt"
    printf '#include "../models/protocol.h"\n#include "../sim/engine.h"\n' >"$t/commands/ok.c"
    touch "$t/sim/engine.h" "$t/models/protocol.h" "$t/common/status.h"
    if out=$(check "$t"); then
        echo "deps.sh --self-test: the made-up violations were not found"
        return 1
    fi
    if [ "$(printf '%s\n' "$out" | wc -l)" -ne 2 ] ||
        ! grep -q '^models/bad.c:1: .*models/ may not use sim/' <<<"$out" ||
        ! grep -q '^models/CMakeLists.txt:1: builds sim/engine.c, a source of sim/' <<<"$out"; then
        printf 'deps.sh --self-test: expected exactly two violations, got:\n%s\n' "$out"
        return 1
    fi
    echo "deps.sh --self-test: both made-up violations found, nothing else"
}

if [ "${1:-}" = "--self-test" ]; then
    self_test
    exit
fi
root=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}" && pwd)
ok=1
check "$root" || ok=0
check_readme "$root" || ok=0
if [ $ok = 1 ]; then
    echo "deps.sh: every include and every CMake source follows the layout's rule, and README's"
    echo "deps.sh: Layout table states the same rule"
else
    exit 1
fi
