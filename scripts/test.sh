#!/usr/bin/env bash
# Builds redcrawl (scripts/setup.sh) and runs every test: the unit tests and the integration
# tests, which start their own real servers on loopback and stop them by pid. Runs against the
# sanitizer build. Ends with "N passed, N failed" and exits non-zero on any failure.
#   scripts/test.sh                 everything
#   scripts/test.sh --suite unit    one suite (unit, integration)
#   scripts/test.sh NAME...         named tests (see `meson test -C build-asan --list`)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh
# Leaks in a daemon surface in its log; the integration harness fails the test on them.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

status=0
meson test -C build-asan --print-errorlogs --num-processes 2 "$@" || status=$?

python3 - build-asan/meson-logs/testlog.json <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    res = r.get("result")
    if res in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif res == "SKIP":
        skipped += 1
    else:
        failed += 1
        print("failed: %s (%s)" % (r.get("name"), res))
print("%d passed, %d failed" % (passed, failed) + (", %d skipped" % skipped if skipped else ""))
PY
exit $status
