#!/usr/bin/env bash
# Static analysis of the C sources with cppcheck (Debian's): warnings, portability and errors
# fail. Run by the test suite (meson test "cppcheck"). Suppressed, and why:
#   varFuncNullUB       NULL ends hiredis' and our variadic argument lists; glibc's NULL is
#                       (void *)0, which is what the callee reads.
#   missingIncludeSystem  system headers are not analysed.
# A false positive in one place is suppressed there, with a comment saying why.
# scripts/cppcheck.h gives the system macros our code needs parsed (jansson's foreach): given as
# -D they made every file fail to parse, silently, and the check passed having checked nothing;
# so every run first checks a planted bug, written with those macros, is found.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v cppcheck >/dev/null || { echo "analyse.sh: cppcheck is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
check() {
  cppcheck --enable=warning,portability --inline-suppr --std=c11 --error-exitcode=1 -q \
    -I shared -I worker -I cli -I scheduler -I web -D_GNU_SOURCE \
    --include=scripts/cppcheck.h \
    --suppress=missingIncludeSystem --suppress=varFuncNullUB "$@"
}
planted=$(mktemp -d)
trap 'rm -rf "$planted"' EXIT
cat >"$planted/planted.c" <<'C'
#include <jansson.h>
int planted(json_t *a);
int planted(json_t *a)
{
    size_t i;
    json_t *v;
    int n[4] = {0};
    json_array_foreach(a, i, v) n[10] = 1;
    return n[0];
}
C
found=$(check "$planted" 2>&1 || true)
if [[ $found != *arrayIndexOutOfBounds* ]]; then
  echo "analyse.sh: cppcheck did not find the planted out-of-bounds write: it is not checking" >&2
  exit 1
fi
check shared worker cli scheduler web
