#!/usr/bin/env bash
# format.sh ROOT - every C source and header of the repository formatted as .clang-format says
# (clang-format --dry-run --Werror): one line per file that differs, exit 1 if any. Exit 77
# (ctest: skipped) without clang-format; scripts/setup.sh installs it. Fix a failure with
#   clang-format -i FILE...
set -euo pipefail
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cd "$root"
if ! command -v clang-format >/dev/null; then
    echo "format: clang-format not installed: skipped"
    exit 77
fi
bad=0
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' -not -path './build*')
for f in $files; do
    if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
        echo "format: $f differs from .clang-format (clang-format -i $f)"
        bad=1
    fi
done
[ $bad = 0 ] && echo "format: $(echo "$files" | wc -w) files formatted"
exit $bad
