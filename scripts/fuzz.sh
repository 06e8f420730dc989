#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time each, seeded by its committed corpus
# (tests/fuzz/corpus/<target>; new inputs go to build-fuzz/corpus/<target>), in a clang build with
# AddressSanitizer + UBSan (build-fuzz/). Prints, per target, the seconds run, executions and
# the corpus size; a crash stops with the reproducer saved under build-fuzz/crashes/.
#   scripts/fuzz.sh [SECONDS] [TARGET...]     default 300 s each, every target
# Targets: url robots msg rules charset html htmltok decode. Needs clang (installed here if missing).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
secs=${1:-300}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(url robots msg rules charset html htmltok decode)

if ! command -v clang >/dev/null || [ ! -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null
fi
if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang meson setup build-fuzz -Dfuzz=true --buildtype=debugoptimized \
    -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
ninja -C build-fuzz $(printf 'tests/fuzz/fuzz_%s ' "${targets[@]}") >/dev/null
mkdir -p build-fuzz/crashes
printf '%-8s %8s %12s %8s %s\n' target seconds execs corpus result
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$t
  mkdir -p "$corpus"
  log=build-fuzz/fuzz_$t.log
  status=ok
  ASAN_OPTIONS=detect_leaks=1 build-fuzz/tests/fuzz/fuzz_$t -max_total_time="$secs" -rss_limit_mb=2048 \
    -timeout=10 -artifact_prefix=build-fuzz/crashes/$t- -print_final_stats=1 "$corpus" tests/fuzz/corpus/$t >"$log" 2>&1 || status=CRASH
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  printf '%-8s %8s %12s %8s %s\n' "$t" "$secs" "${execs:-?}" "$(ls "$corpus" | wc -l)" "$status"
  if [ "$status" != ok ]; then
    grep -m5 -E "ERROR|SUMMARY|Test unit written" "$log" || tail -20 "$log"
    echo "fix it, then keep the reproducer: cp build-fuzz/crashes/$t-* tests/fuzz/corpus/$t/"
    exit 1
  fi
done
