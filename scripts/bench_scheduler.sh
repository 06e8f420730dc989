#!/usr/bin/env bash
# Scheduler dispatch throughput: URLs per second moved from the frontier (rc:seeds) into the
# workers' per-host queues by one redcrawl-scheduler (release build), with N fake workers that
# only heartbeat (nothing is fetched), H hosts and U URLs. A private redis-server on a unix
# socket; everything stopped by pid.
#   scripts/bench_scheduler.sh [URLS [HOSTS [WORKERS]]]     (default 200000 10000 8)
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

# One job (its hash makes the scheduler's checks pass), then the frontier written in bulk.
build/cli/redcrawl submit --crawlid bench --maxdepth -1 http://h0.bench.test/ >/dev/null
python3 - "$URLS" "$HOSTS" "$WORKERS" >"$WORK/load.resp" <<'PY'
import json, sys, time
urls, hosts, workers = map(int, sys.argv[1:4])
out = sys.stdout
def cmd(*a):
    out.write("*%d\r\n" % len(a) + "".join("$%d\r\n%s\r\n" % (len(x.encode()), x) for x in map(str, a)))
now = int(time.time() * 1000)
for w in range(workers):  # fake workers: a heartbeat and the fields the scheduler reads
    cmd("ZADD", "rc:workers", now, "fw%d" % w)
    cmd("HSET", "rc:worker:fw%d" % w, "hb", now, "started_ms", now, "slots", 64)
for i in range(urls):
    rec = {"url": "http://h%d.bench.test/p/%d" % (i % hosts, i), "crawlid": "bench", "depth": 0,
           "priority": 1, "attempt": 0}
    cmd("ZADD", "rc:seeds", 1000000000 + i, json.dumps(rec, separators=(",", ":")))
PY
redis-cli -s "$SOCK" --pipe <"$WORK/load.resp" >/dev/null
redis-cli -s "$SOCK" hincrby rc:job:bench pending "$URLS" >/dev/null
queued0=$(redis-cli -s "$SOCK" zcard rc:seeds)
echo "bench: $queued0 URLs over $HOSTS hosts in the frontier, $WORKERS fake workers"

# Heartbeats for the fake workers while the scheduler runs (it reaps silent ones).
( while :; do
    now=$(($(date +%s%N) / 1000000))
    for w in $(seq 0 $((WORKERS - 1))); do echo "ZADD rc:workers $now fw$w"; done | redis-cli -s "$SOCK" >/dev/null
    sleep 1
  done ) &
pids+=($!)

t0=$(date +%s.%N)
build/scheduler/redcrawl-scheduler --worker-timeout 30 --backlog-floor 10000000 --log-level warn \
  >"$WORK/scheduler.log" 2>&1 &
pids+=($!)
deadline=$(($(date +%s) + 120))
left=$queued0
while ((left > 0 && $(date +%s) < deadline)); do
  sleep 0.1
  left=$(redis-cli -s "$SOCK" zcard rc:seeds)
done
t1=$(date +%s.%N)
queues=$(redis-cli -s "$SOCK" --scan --pattern 'rc:q:*' | wc -l)
python3 - "$queued0" "$left" "$t0" "$t1" "$queues" <<'PY'
import json, sys
n, left, t0, t1, queues = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
moved = n - left
secs = t1 - t0
print(json.dumps({"urls_moved": moved, "left": left, "seconds": round(secs, 2),
                  "urls_per_s": round(moved / secs) if secs else None, "host_queues": queues}))
PY
