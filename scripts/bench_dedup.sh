#!/usr/bin/env bash
# bench_dedup.sh - the URL dedup benchmark of issue 4 (thesis 4.2.3): builds the optimised
# binaries, starts a private Redis on a free loopback port (no persistence), runs
# tests/bench/bench_bloom and stops Redis by pid. Prints the tables:
#   1. 1,000,000 URLs (50,000 repeats) through the multi-group bloom, h = 1..4 groups at equal
#      memory: false positives against the exact set, Redis memory, check-and-set throughput by
#      batch size and pipeline depth, and the real submit.lua for comparison; then the same
#      false-positive count in process memory over 10 seeds, for tighter figures;
#   2. the counting variant (shared/lua/cbloom.lua): add, remove, re-add, throughput;
#   3. a filter sized for 100,000,000 URLs at 0.1 %: Redis memory against the computed size, and
#      the false-positive rate at the density 1e8 insertions leave.
#   4. growth: a job's bloom as the crawler keeps it now (shared/sbloom.h: from 1,024 bits, a
#      filter twice as large at half the error rate whenever the newest is full) against the old
#      fixed filter for 1,000,000 URLs at 1e-6: Redis bytes (MEMORY USAGE) for a 1-URL job and
#      for the whole stream, false positives, throughput and Redis CPU per URL.
# Takes about 4 minutes (--quick: 100,000 URLs, under a minute); Redis peaks near 200 MB.
#   scripts/bench_dedup.sh [--quick] [bench_bloom options, e.g. --pipeline 1,16 --seed 7]
# The build: build/ when it is the release build of scripts/setup.sh --release; when build/ is
# something else (e.g. a sanitizer build) a private optimised build-bench/ is made instead, so the
# throughputs mean something. BENCH_BUILD=DIR picks a build directory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

quick=0
extra=()
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    -h | --help)
      sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) extra+=("$a") ;;
  esac
done

# --- build ---
build_kind() { # dir -> "release" when optimised without sanitizers
  meson introspect "$1" --buildoptions 2>/dev/null | python3 -c '
import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
ok = o.get("buildtype") == "release" and o.get("b_sanitize") in ("none", "", None)
print("release" if ok else "%s/%s" % (o.get("buildtype"), o.get("b_sanitize")))' || echo missing
}
if [ -n "${BENCH_BUILD:-}" ]; then
  build=$BENCH_BUILD
else
  [ -f build/build.ninja ] || scripts/setup.sh --release
  build=build
  kind=$(build_kind build)
  if [ "$kind" != release ]; then
    echo "bench_dedup: build/ is $kind, not the release build: using build-bench/ (release)" >&2
    build="build-bench"
    [ -f build-bench/build.ninja ] || meson setup build-bench --buildtype=release >/dev/null
  fi
fi
ninja -C "$build" tests/bench/bench_bloom >/dev/null
bin=$build/tests/bench/bench_bloom

# --- a private Redis ---
tmp=$(mktemp -d /tmp/bench_dedup.XXXXXX)
redis_pid=""
cleanup() {
  if [ -n "$redis_pid" ]; then
    kill "$redis_pid" 2>/dev/null || true
    wait "$redis_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port=""
for _ in 1 2 3; do
  p=$(free_port)
  redis-server --bind 127.0.0.1 --port "$p" --dir "$tmp" --save '' --appendonly no \
    --daemonize no --logfile "$tmp/redis.log" &
  redis_pid=$!
  for _ in $(seq 50); do
    if redis-cli -p "$p" PING 2>/dev/null | grep -q PONG; then
      port=$p
      break
    fi
    kill -0 "$redis_pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$port" ] && break
  kill "$redis_pid" 2>/dev/null || true
  wait "$redis_pid" 2>/dev/null || true
  redis_pid=""
done
if [ -z "$port" ]; then
  echo "bench_dedup: redis-server did not start" >&2
  cat "$tmp/redis.log" >&2 || true
  exit 1
fi

args=(--redis "redis://127.0.0.1:$port")
if [ $quick -eq 1 ]; then
  args+=(--urls 100000 --dups 5000 --tp-seconds 0.5 --cn 20000 --cremove 2000 --sample 100000 --local-seeds 3)
fi
args+=("${extra[@]}")

echo "# redcrawl dedup benchmark $(date -u +%Y-%m-%dT%H:%M:%SZ)$([ $quick -eq 1 ] && echo ' (--quick)')"
echo "# load average at start: $(cut -d" " -f1-3 /proc/loadavg) (the machine may be shared: see the Redis CPU per URL)"
echo "# $(redis-server --version | cut -d' ' -f1-3), private instance on 127.0.0.1:$port (pid $redis_pid)," \
  "no persistence; $bin ($(build_kind "$build")); $(nproc) CPUs:" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
start=$(date +%s)
timeout 900 "$bin" "${args[@]}" growth
timeout 900 "$bin" "${args[@]}" main counting
timeout 300 "$bin" "${args[@]}" big
echo
echo "# done in $(($(date +%s) - start)) s; redis used_memory_peak" \
  "$(redis-cli -p "$port" INFO memory | tr -d '\r' | sed -n 's/^used_memory_peak_human://p')"
