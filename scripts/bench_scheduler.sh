#!/usr/bin/env bash
# Scheduler dispatch throughput: URLs per second moved from the frontier (a job's lists
# rc:seeds:{crawlid}:{priority}:{depth}, shared/lua/common.lua) into the workers' per-host queues by one redcrawl-scheduler (release build), with N fake workers that
# only heartbeat (nothing is fetched), H hosts and U URLs. A private redis-server on a unix
# socket; everything stopped by pid.
#   scripts/bench_scheduler.sh [URLS [HOSTS [WORKERS]]]     (default 200000 10000 8)
# Records are written as the code writes them (the compact form, shared/record.h);
# BENCH_RECORD=json writes the JSON form instead (what they were before), for comparison;
# BENCH_FRONTIER=zset writes the frontier as one zset per job (rc:seeds:{crawlid}, what it was
# before: the scripts drain it first), for comparison.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh --release >/dev/null

URLS=${1:-200000}
HOSTS=${2:-10000}
WORKERS=${3:-8}
WORK=$(mktemp -d /tmp/redcrawl-bench-sched-XXXXXX)
SOCK=$WORK/redis.sock
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

redis-server --port 0 --unixsocket "$SOCK" --save '' --appendonly no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do redis-cli -s "$SOCK" ping >/dev/null 2>&1 && break; sleep 0.05; done
export REDCRAWL_REDIS="unix://$SOCK"

# CPU seconds (user + system) a process used so far.
cpu_s() { awk -v t="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / t }' "/proc/$1/stat"; }
used_memory() { redis-cli -s "$SOCK" info memory | awk -F: '/^used_memory:/ { print $2 + 0 }'; }

# One job (its hash makes the scheduler's checks pass), then the frontier written in bulk
# (and the job's pending count).
build/cli/redcrawl submit --crawlid bench --maxdepth -1 http://h0.bench.test/ >/dev/null
scripts/bench_frontier_load.py rc: "$URLS" "$HOSTS" "$WORKERS" "${BENCH_RECORD:-compact}" "${BENCH_FRONTIER:-lists}" \
  >"$WORK/load.resp"
mem0=$(used_memory)
redis-cli -s "$SOCK" --pipe <"$WORK/load.resp" >/dev/null
# URLs left in the frontier: the zset, or the list (one bucket: priority 1, depth 0).
frontier_left() {
  echo $(($(redis-cli -s "$SOCK" zcard rc:seeds:bench) + $(redis-cli -s "$SOCK" llen rc:seeds:bench:1:0)))
}
queued0=$(frontier_left)
echo "bench: $queued0 URLs over $HOSTS hosts in the frontier, $WORKERS fake workers"

# Heartbeats for the fake workers while the scheduler runs (it reaps silent ones).
( while :; do
    now=$(($(date +%s%N) / 1000000))
    for w in $(seq 0 $((WORKERS - 1))); do echo "ZADD rc:workers $now fw$w"; done | redis-cli -s "$SOCK" >/dev/null
    sleep 1
  done ) &
pids+=($!)

mem1=$(used_memory)
redis_pid=${pids[0]}
rcpu0=$(cpu_s "$redis_pid")
t0=$(date +%s.%N)
build/scheduler/redcrawl-scheduler --worker-timeout 30 --backlog-floor 10000000 --log-level warn \
  >"$WORK/scheduler.log" 2>&1 &
pids+=($!)
sched_pid=$!
deadline=$(($(date +%s) + 120))
left=$queued0
while ((left > 0 && $(date +%s) < deadline)); do
  sleep 0.1
  left=$(frontier_left)
done
t1=$(date +%s.%N)
scpu=$(cpu_s "$sched_pid")
rcpu1=$(cpu_s "$redis_pid")
mem2=$(used_memory)
queues=$(redis-cli -s "$SOCK" --scan --pattern 'rc:q:*' | wc -l)
# urls_per_s is wall time: on a loaded machine it counts the waits for a core. urls_per_cpu_s
# divides by the CPU the two spent (they work in turn, one round trip at a time): the rate with
# a core free for each. Bytes per pending URL: Redis' used_memory growth over the URLs, in the
# frontier (its lists, or zset) and then in the host queues (q:{crawlid}:{host}).
python3 - "$queued0" "$left" "$t0" "$t1" "$queues" "$scpu" "$rcpu0" "$rcpu1" "$mem0" "$mem1" "$mem2" <<'PY'
import json, sys
n, left, queues = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[5])
t0, t1, scpu, rcpu0, rcpu1 = map(float, sys.argv[3:4] + sys.argv[4:5] + sys.argv[6:9])
mem0, mem1, mem2 = map(int, sys.argv[9:12])
moved = n - left
secs = t1 - t0
cpu = scpu + rcpu1 - rcpu0
print(json.dumps({"urls_moved": moved, "left": left, "seconds": round(secs, 2),
                  "urls_per_s": round(moved / secs) if secs else None,
                  "scheduler_cpu_s": round(scpu, 2), "redis_cpu_s": round(rcpu1 - rcpu0, 2),
                  "urls_per_cpu_s": round(moved / cpu) if cpu else None, "host_queues": queues,
                  "bytes_per_url_frontier": round((mem1 - mem0) / n), "bytes_per_url_queued": round((mem2 - mem0) / n)}))
PY
