#!/usr/bin/env bash
# scrapy-redis for scripts/bench.sh: a private redis-server (Debian's) on a free loopback port,
# the seeds pushed to bench:start_urls, PROCS Scrapy processes sharing the crawl through it;
# everything started here is stopped here, by pid.
#   run_scrapy_redis.sh PYTHON PROCS SEEDFILE WORKDIR
set -euo pipefail
PY=$1 PROCS=$2 SEEDS=$3 DIR=$4
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RPORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$DIR" >"$DIR/redis.log" 2>&1 &
RPID=$!
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  kill "$RPID" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 100); do redis-cli -p "$RPORT" ping >/dev/null 2>&1 && break; sleep 0.05; done
xargs redis-cli -p "$RPORT" rpush bench:start_urls <"$SEEDS" >/dev/null
for i in $(seq "$PROCS"); do
  PYTHONPATH="$HERE" "$PY" -m scrapy runspider "$HERE/benchspider_redis.py" \
    -s TWISTED_REACTOR=twisted.internet.epollreactor.EPollReactor \
    -s DNS_RESOLVER=benchresolver.LoopbackResolver -s REDIS_URL="redis://127.0.0.1:$RPORT" >"$DIR/scrapy-redis-$i.log" 2>&1 &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=$?; done
pids=()
exit $rc
