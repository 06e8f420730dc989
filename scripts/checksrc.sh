#!/usr/bin/env bash
# Source checks that the compiler does not make (curl's checksrc, git's banned.h): banned
# functions that overflow buffers or hide errors, and files that forgot their header comment.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
status=0
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find shared worker scheduler cli tests -name '*.[ch]')
if grep -nE '(^|[^_[:alnum:]])(strcpy|strcat|sprintf|vsprintf|strtok|atoi|atol|atoll|gets)[[:space:]]*\(' $files; then
  echo "checksrc: banned function above: use snprintf, rc_buf, strtok_r or rc_parse_i64" >&2
  status=1
fi
for f in $files; do
  head -n 3 "$f" | grep -q '/\*' || { echo "checksrc: $f: starts without a comment saying what it is" >&2; status=1; }
done
[ $status -eq 0 ] && echo "checksrc: $(echo "$files" | wc -w) files clean"
exit $status
