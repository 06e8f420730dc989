#!/usr/bin/env bash
# Scheduler dispatch over the masters of a Redis Cluster, K = 1, 2, 3 masters in turn, ROUNDS
# times, in one of two modes (BENCH_MODE):
#   job (default): ONE job of URLS records over HOSTS hosts in a sharded keyspace (--shards K,
#     ARCHITECTURE.md "Shards"): each shard's frontier holds its hosts' share of the job, each
#     shard has WORKERS fake workers (heartbeats only) and its own redcrawl-scheduler (--shards
#     K --shard I, release build), all dispatching at once; K = 1 is the unsharded keyspace
#     ({rc:}) on one master.
#   forward: the same job's links crossing shards, K = 2, 3: each shard's outboxes hold URLS
#     links in all (as its workers would have found them on its pages) for the hosts of the
#     others; the K schedulers forward them (submit.lua there, forward.lua here) until every
#     outbox is empty: the cost of a link whose host another shard holds.
#   keyspaces: K independent keyspaces under their own hash tags (rc:{s0}:, ...) chosen so that
#     each lives on a different master, each with its own whole frontier of URLS records (K x
#     URLS in all) and its own scheduler: the piece a sharded keyspace rests on.
# Prints one JSON object per K and round: URLs moved, wall seconds, URLs/s summed over the
# shards or keyspaces, and the CPU the schedulers and the cluster's nodes spent. The cluster is
# scripts/services.sh's on 127.0.0.1, 3 masters without replicas (BENCH_REPLICAS=1: with one
# each, which apply every write again and so share the cores), stopped by pid at the end.
#   scripts/bench_shards.sh [URLS [HOSTS [WORKERS [ROUNDS]]]]   (default 200000 5000 4 2)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ -n "${NO_BUILD:-}" ] || scripts/setup.sh --release >/dev/null

URLS=${1:-200000}
HOSTS=${2:-5000}
WORKERS=${3:-4}
ROUNDS=${4:-2}
WORK=$(mktemp -d /tmp/redcrawl-bench-shards-XXXXXX)

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  scripts/services.sh stop cluster --dir "$WORK/svc" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

eval "$(REDCRAWL_CLUSTER_REPLICAS=${BENCH_REPLICAS:-0} scripts/services.sh start cluster --dir "$WORK/svc" 2>"$WORK/services.log")"
SEED=${REDCRAWL_REDIS_CLUSTER##*:}
NODES=$WORK/svc/cluster

# "PREFIX PORT" for the first tag rc:{sN} found on each master, masters in port order.
pick_tags() {
  redis-cli -p "$SEED" cluster nodes | python3 -c '
import subprocess, sys
masters = []
for line in sys.stdin:
    f = line.split()
    if "master" in f[2].split(","):
        port = int(f[1].split("@")[0].rsplit(":", 1)[1])
        ranges = [tuple(map(int, r.split("-"))) if "-" in r else (int(r), int(r)) for r in f[8:] if r[0] != "["]
        masters.append((port, ranges))
masters.sort()
seed = sys.argv[1]
for port, ranges in masters:
    for n in range(1000):
        slot = int(subprocess.check_output(["redis-cli", "-p", seed, "cluster", "keyslot", "{s%d}" % n]))
        if any(a <= slot <= b for a, b in ranges):
            print("rc:{s%d}: %d" % (n, port))
            break
' "$SEED"
}
MODE=${BENCH_MODE:-job}
[[ $MODE =~ ^(job|forward|keyspaces)$ ]] ||
  { echo "bench_shards.sh: BENCH_MODE is job, forward or keyspaces, not '$MODE'" >&2; exit 2; }
mapfile -t TAGS < <(pick_tags)
if [ "$MODE" = keyspaces ]; then
  echo "bench: ${#TAGS[@]} masters, keyspaces ${TAGS[*]}; $URLS URLs over $HOSTS hosts and $WORKERS fake workers each" >&2
else
  echo "bench: ${#TAGS[@]} masters, one job of $URLS URLs over $HOSTS hosts in K shards, $WORKERS fake workers a shard" >&2
fi

# The port of the master serving a prefix's slot.
master_of() {
  local slot
  slot=$(redis-cli -p "$SEED" cluster keyslot "$1")
  redis-cli -p "$SEED" cluster nodes | python3 -c '
import sys
slot = int(sys.argv[1])
for line in sys.stdin:
    f = line.split()
    if "master" in f[2].split(","):
        for r in f[8:]:
            a, _, b = r.partition("-")
            if r[0] != "[" and int(a) <= slot <= int(b or a):
                print(f[1].split("@")[0].rsplit(":", 1)[1])
' "$slot"
}

# UNITS: "PREFIX PORT SCHEDULER-ARGS" for each keyspace (keyspaces) or shard (job) of a K round,
# and, for the job, its frontier loaded: each shard's hosts (redcrawl shard), its job made by
# submitting a seed of its own, then its share of the URLs.
units_for() {
  local k=$1 i prefix port
  UNITS=()
  if [ "$MODE" = keyspaces ]; then
    for ((i = 0; i < k; i++)); do
      read -r prefix port <<<"${TAGS[i]}"
      REDCRAWL_REDIS=$REDCRAWL_REDIS_CLUSTER REDCRAWL_PREFIX=$prefix build/cli/redcrawl submit --crawlid bench \
        --maxdepth -1 http://h0.bench.test/ >/dev/null 2>&1
      scripts/bench_frontier_load.py "$prefix" "$URLS" "$HOSTS" "$WORKERS" | redis-cli -p "$port" --pipe >/dev/null
      UNITS+=("$prefix $port --prefix $prefix")
    done
    return
  fi
  seq 0 $((HOSTS - 1)) | sed 's/.*/h&.bench.test/' | build/cli/redcrawl shard --shards "$k" >"$WORK/hosts"
  for ((i = 0; i < k; i++)); do
    prefix=$(awk -v i="$i" '$1 == i { print $2; exit }' "$WORK/hosts")
    awk -v i="$i" '$1 == i { print $3 }' "$WORK/hosts" >"$WORK/hosts$i"
    ((k > 1)) || prefix="{$prefix}" # one keyspace: the tag rc_redis_new gives it on a cluster
    port=$(master_of "$prefix")
    REDCRAWL_REDIS=$REDCRAWL_REDIS_CLUSTER REDCRAWL_SHARDS=$k build/cli/redcrawl submit --crawlid bench \
      --maxdepth -1 "http://$(head -1 "$WORK/hosts$i")/" >/dev/null 2>&1
    if [ "$MODE" = forward ]; then
      scripts/bench_outbox_load.py "$prefix" "$i" "$k" "$URLS" "$HOSTS" "$WORK/hosts" | redis-cli -p "$port" --pipe >/dev/null
    else
      BENCH_ONLY_HOSTS=$WORK/hosts$i scripts/bench_frontier_load.py "$prefix" "$URLS" "$HOSTS" "$WORKERS" |
        redis-cli -p "$port" --pipe >/dev/null
    fi
    UNITS+=("$prefix $port --shards $k --shard $i")
  done
}

# CPU seconds (user + system) of processes so far.
cpu_s() {
  local t=0 p
  for p in "$@"; do t=$(awk -v t="$t" -v hz="$(getconf CLK_TCK)" '{ printf "%.3f", t + ($14 + $15) / hz }' "/proc/$p/stat"); done
  echo "$t"
}
node_pids() { cat "$NODES"/node-*/pid; }
# What is left to move in a unit: its frontier (job, keyspaces) or its outboxes (forward).
left_in() {
  if [ "$MODE" != forward ]; then
    redis-cli -p "$2" llen "${1}seeds:bench:1:0"
    return
  fi
  local t n=0
  for ((t = 0; t < ${#UNITS[@]}; t++)); do n=$((n + $(redis-cli -p "$2" llen "${1}out:$t"))); done
  echo "$n"
}

# One round with K masters: load, then K schedulers at once until every frontier is empty (at
# most 120 s).
run() {
  local k=$1 r=$2 i prefix port args hb sched=() left t0 t1 c0 c1 s total
  for p in $(redis-cli -p "$SEED" cluster nodes | awk '/master/ { split($2, a, "[:@]"); print a[2] }'); do
    redis-cli -p "$p" flushall >/dev/null
  done
  units_for "$k"
  total=0
  for ((i = 0; i < k; i++)); do
    read -r prefix port args <<<"${UNITS[i]}"
    total=$((total + $(left_in "$prefix" "$port")))
  done
  ( while :; do # the fake workers' heartbeats: the schedulers reap silent ones
      now=$(($(date +%s%N) / 1000000))
      for ((i = 0; i < k; i++)); do
        read -r prefix port args <<<"${UNITS[i]}"
        for w in $(seq 0 $((WORKERS - 1))); do echo "ZADD ${prefix}workers $now fw$w"; done | redis-cli -p "$port" >/dev/null
      done
      sleep 1
    done ) &
  hb=$!
  pids+=("$hb")
  c0=$(cpu_s $(node_pids))
  t0=$(date +%s.%N)
  for ((i = 0; i < k; i++)); do
    read -r prefix port args <<<"${UNITS[i]}"
    # shellcheck disable=SC2086 # the scheduler's arguments, split on purpose
    build/scheduler/redcrawl-scheduler --redis "$REDCRAWL_REDIS_CLUSTER" $args --worker-timeout 30 \
      --backlog-floor 10000000 --log-level warn >"$WORK/sched$i.log" 2>&1 &
    sched+=($!)
    pids+=($!)
  done
  local deadline=$(($(date +%s) + 120))
  while :; do
    left=0
    for ((i = 0; i < k; i++)); do
      read -r prefix port args <<<"${UNITS[i]}"
      left=$((left + $(left_in "$prefix" "$port")))
    done
    ((left > 0 && $(date +%s) < deadline)) || break
    sleep 0.05
  done
  t1=$(date +%s.%N)
  s=$(cpu_s "${sched[@]}")
  c1=$(cpu_s $(node_pids))
  kill "${sched[@]}" "$hb" 2>/dev/null || true
  wait "${sched[@]}" "$hb" 2>/dev/null || true
  python3 -c '
import json, sys
mode, k, r, total, left, t0, t1, s, c0, c1 = sys.argv[1:]
moved = int(total) - int(left)
wall = float(t1) - float(t0)
print(json.dumps({"mode": mode, "masters": int(k), "round": int(r), "urls_moved": moved, "left": int(left),
                  "seconds": round(wall, 2), "urls_per_s": round(moved / wall),
                  "scheduler_cpu_s": round(float(s), 2), "cluster_cpu_s": round(float(c1) - float(c0), 2)}))
' "$MODE" "$k" "$r" "$total" "$left" "$t0" "$t1" "$s" "$c0" "$c1"
}

for r in $(seq 1 "$ROUNDS"); do
  for k in $(seq "$([ "$MODE" = forward ] && echo 2 || echo 1)" "${#TAGS[@]}"); do run "$k" "$r"; done
done
