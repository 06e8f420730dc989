#!/usr/bin/env bash
# The C sources against .clang-format (Debian's clang-format). Run by the test suite (meson test
# "format"), which fails on any difference.
#   scripts/format.sh          check: list what differs, exit 1 if anything does
#   scripts/format.sh --fix    reformat in place
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v clang-format >/dev/null || { echo "format.sh: clang-format is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
mapfile -t files < <(find cli scheduler shared tests web worker -name '*.[ch]' -not -path 'tests/fuzz/corpus/*' | sort)
if [ "${1:-}" = "--fix" ]; then
    clang-format -i "${files[@]}"
    exit 0
fi
if ! clang-format --dry-run --Werror "${files[@]}" 2>/tmp/format.$$; then
    grep -o '^[^:]*\.[ch]' /tmp/format.$$ | sort -u | sed 's/^/format.sh: differs from .clang-format: /' >&2
    rm -f /tmp/format.$$
    echo "format.sh: run scripts/format.sh --fix" >&2
    exit 1
fi
rm -f /tmp/format.$$
echo "format.sh: ${#files[@]} files as .clang-format says"
