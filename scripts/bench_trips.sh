#!/usr/bin/env bash
# Redis round trips per page: the same crawl of the test web (many hosts, delay 0, the
# optimised build) twice against one private redis-server, first with a complete.lua call per
# page (--step-batch 1: take.lua and hb.lua on their own too), then with step.lua (completes
# batched, the take and the heartbeat along: the default --step-batch 64). Prints pages/s and,
# per page, the EVALSHA calls (INFO commandstats, reset before each run: the workers' and the
# scheduler's) and Redis' time in them (usec). Everything on loopback (the redis-server on a
# unix socket), bounded, stopped by pid.
#   scripts/bench_trips.sh [HOSTS [PAGES_PER_HOST [WORKERS]]]   (default 100 100 2)
# Environment: NO_BUILD=1 uses build/ as it is; CRAWL_ARGS adds `redcrawl crawl` options (e.g.
# --dedup-content=0, a link-only crawl); ROUNDS=N runs both modes N times, interleaved.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ -n "${NO_BUILD:-}" ] || scripts/setup.sh --release

HOSTS=${1:-100}
PAGES=${2:-100}
WORKERS=${3:-2}
WORK=$(mktemp -d /tmp/redcrawl-trips-XXXXXX)
SOCK="$WORK/redis.sock"
REDIS_PID=""
# shellcheck source=scripts/testweb.sh
. scripts/testweb.sh
cleanup() {
  if [ -n "$REDIS_PID" ]; then kill "$REDIS_PID" 2>/dev/null && wait "$REDIS_PID" 2>/dev/null || true; fi
  testweb_cleanup
}
trap cleanup EXIT
testweb_start --sites "$HOSTS" --pages "$PAGES" --page-size 10000
redis-server --port 0 --unixsocket "$SOCK" --save '' --appendonly no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
REDIS_PID=$!
for _ in $(seq 100); do redis-cli -s "$SOCK" ping >/dev/null 2>&1 && break; sleep 0.05; done

seeds=()
for i in $(seq 0 $((HOSTS - 1))); do seeds+=("http://s$i.site.test/"); done
read -r -a extra <<<"${CRAWL_ARGS:-}"

# cmdstat_<name>:calls=N,usec=U,... -> "N U" (0 0 when the command never ran)
stat_calls() {
  redis-cli -s "$SOCK" info commandstats | tr -d '\r' |
    awk -F'[:=,]' -v c="cmdstat_$1" '$1 == c {print $3, $5; f=1} END {if (!f) print 0, 0}'
}

echo "# bench_trips $(date -u +%Y-%m-%dT%H:%M:%SZ): $HOSTS hosts x $PAGES pages of 10 KB, $WORKERS workers, delay 0," \
  "$(redis-server --version | cut -d' ' -f3) on a unix socket ${CRAWL_ARGS:-}"
printf '%-31s %7s %7s %8s %13s %15s\n' mode pages "wall s" pages/s evalsha/page "evalsha us/page"
for round in $(seq "${ROUNDS:-1}"); do
for batch in 1 64; do
  redis-cli -s "$SOCK" flushall >/dev/null
  redis-cli -s "$SOCK" config resetstat >/dev/null
  rm -rf "$WORK/out"
  t0=$(date +%s.%N)
  REDCRAWL_STEP_BATCH=$batch build/cli/redcrawl crawl --quiet --redis "unix://$SOCK" --delay 0 --maxdepth -1 \
    ${extra[@]+"${extra[@]}"} --workers "$WORKERS" --out "$WORK/out" --connect-to "::127.0.0.1:$PORT" \
    --allow-net 127.0.0.0/8 "${seeds[@]}" >"$WORK/summary.$batch" 2>"$WORK/crawl.$batch.log"
  t1=$(date +%s.%N)
  pages=$(wc -l <"$WORK/out/pages.jsonl")
  read -r calls usec <<<"$(stat_calls evalsha)"
  label="--step-batch $batch"
  [ "$batch" = 1 ] && label="$label (complete/page)" || label="$label (step.lua)"
  python3 - "$label" "$pages" "$t0" "$t1" "$calls" "$usec" <<'PY'
import sys
label, pages, t0, t1, calls, usec = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:])
wall, n = t1 - t0, max(pages, 1)
print("%-31s %7d %7.1f %8.0f %13.2f %15.1f" % (label, pages, wall, pages / wall, calls / n, usec / n))
PY
done
done
