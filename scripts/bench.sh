#!/usr/bin/env bash
# redcrawl against the other crawlers, on the same synthetic web in one run, interleaved over
# rounds: Scrapy, scrapy-redis, Colly, spider-rs and redcrawl in its two modes (link-only fast
# path: --dedup-content=0 with no rules and no text; full pipeline: the default). Prints one
# JSON object per system, workload and round, then one summary object per system and workload
# (medians, and the ratios against redcrawl), and a Markdown table on stderr.
#
#   scripts/bench.sh [--quick] [--rounds N] [--timeout S] [--systems a,b,...] [--workloads NAME:HOSTS:PAGES,...]
#
#   default      3 rounds of 50 hosts x 200 pages and 1,000 hosts x 20 pages (about 30 minutes
#                on 2 cores: Scrapy is most of it)
#   --quick      1 round of 5 x 30 and 50 x 3 (under two minutes once the peers are built)
#   --timeout S  a run still going after S seconds (default 900; --quick 40) is killed and
#                reported with the pages it got (ok false)
#   --systems    any of scrapy,scrapy-redis,colly,spider-rs,redcrawl-links,redcrawl-full
#   NO_BUILD=1   use build/ and the built peers as they are
#   a system "redcrawl-links~X" (or -full~X) runs REDCRAWL_BIN_X (default build/cli/redcrawl)
#                with the options in REDCRAWL_ARGS_X and the variables in REDCRAWL_ENV_X ("K=V ..."):
#                before/after runs in one session
#   KEEP_WORK=1  keep the work directory (each run's output and logs, nginx's access log)
#
# The web: tests/bench/peers/benchweb.py writes ~31 KB pages with 170-245 links each (nested
# menus, scripts, Chinese and English text) and nginx (Debian's nginx-light) serves them on
# one 127.0.0.1 port for every host NAME<i>.bench.test. Each crawler resolves those names to
# 127.0.0.1 its own way (nothing touches /etc/hosts or DNS): Scrapy through a DNS_RESOLVER
# class, Colly through its transport's dialer, spider-rs through reqwest's resolve overrides,
# redcrawl through --resolve (one entry per host, into its workers' DNS cache). Robots.txt is on
# for all (it disallows /private/, which every page links to). nginx's access log gives the page set, the duplicates and the most
# requests any host had open at once; each run is `ok` only with the full page set, nothing
# disallowed fetched and one request per host at a time.
#
# Memory: peak_rss_mb is the largest sum of the RSS of the run's process tree (sampled every
# 0.2 s), which counts a shared library's pages once per process that maps it (redcrawl's tree
# is its CLI, running the scheduler on a thread, Redis and its workers (`redcrawl crawl`'s default
# count: 2 before 2026-11-27 10:00 UTC, 1 since; the driver passed --workers 2 until 10:15); with the scheduler a process
# of its own ~45 MB of its ~95 MB RSS were such pages);
# peak_pss_mb sums PSS instead, each page counted once over the processes sharing it: that is
# the figure that compares one process with several. redcrawl runs without its dashboard
# (--web-port -1), which the peers do not have either.
#
# Peers are built under ~/.cache/redcrawl/peers: a venv with Scrapy and scrapy-redis (pip),
# colly-bench (Go module proxy, tests/bench/peers/colly), spider-bench (crates.io, Cargo.lock
# in tests/bench/peers/spider-rs; the first build takes ~15 minutes on 2 busy cores).
# Everything stays on loopback, is bounded in time and is stopped by pid.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SRC=$PWD
PEERS=${REDCRAWL_PEERS:-$HOME/.cache/redcrawl/peers}
ROUNDS=3
WORKLOADS="a:50:200,b:1000:20"
SYSTEMS="scrapy,scrapy-redis,colly,spider-rs,redcrawl-links,redcrawl-full"
TIMEOUT=900
while [ $# -gt 0 ]; do
  case $1 in
  --quick) ROUNDS=1 WORKLOADS="q:5:30,r:50:3" TIMEOUT=40 ;;
  --timeout) TIMEOUT=$2 && shift ;;
  --rounds) ROUNDS=$2 && shift ;;
  --systems) SYSTEMS=$2 && shift ;;
  --workloads) WORKLOADS=$2 && shift ;;
  *) echo "usage: scripts/bench.sh [--quick] [--rounds N] [--timeout S] [--systems LIST] [--workloads NAME:HOSTS:PAGES,...]" >&2 && exit 2 ;;
  esac
  shift
done
command -v nginx >/dev/null || { echo "bench: needs nginx (apt-get install nginx-light)" >&2 && exit 2; }

build_peers() {
  mkdir -p "$PEERS"
  if [[ $SYSTEMS == *redcrawl* ]]; then nice -n 10 scripts/setup.sh --release >/dev/null; fi
  if [[ $SYSTEMS == *scrapy* ]] && ! "$PEERS/venv/bin/python" -c 'import scrapy, scrapy_redis' 2>/dev/null; then
    python3 -m venv "$PEERS/venv"
    "$PEERS/venv/bin/pip" install -q 'scrapy==2.19.*' 'scrapy-redis==0.9.*' redis
  fi
  if [[ $SYSTEMS == *colly* ]]; then
    (cd tests/bench/peers/colly && nice -n 10 go build -mod=mod -o "$PEERS/colly-bench" .)
  fi
  if [[ $SYSTEMS == *spider-rs* ]]; then
    (cd tests/bench/peers/spider-rs && CARGO_TARGET_DIR="$PEERS/spider-target" nice -n 10 cargo build -q --release --locked)
    cp "$PEERS/spider-target/release/spider-bench" "$PEERS/spider-bench"
  fi
}
[ -n "${NO_BUILD:-}" ] || build_peers

WORK=$(mktemp -d /tmp/redcrawl-peers-XXXXXX)
chmod 755 "$WORK" # nginx's worker runs as www-data
NGINX_PID=""
cleanup() {
  if [ -n "$NGINX_PID" ] && kill -0 "$NGINX_PID" 2>/dev/null; then kill "$NGINX_PID" && wait "$NGINX_PID" 2>/dev/null || true; fi
  if [ -n "${KEEP_WORK:-}" ]; then echo "bench: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
specs=${WORKLOADS//,/ }
# shellcheck disable=SC2086
python3 tests/bench/peers/benchweb.py "$WORK/www" "$PORT" $specs >&2
mkdir -p "$WORK/nginx-tmp"
cat >"$WORK/nginx.conf" <<EOF
worker_processes 1;
worker_rlimit_nofile 65536;
daemon off;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections 16384; multi_accept on; }
http {
  log_format bench '\$host \$msec \$request_time \$status \$request_uri \$bytes_sent';
  access_log off;
  sendfile on; tcp_nopush on; tcp_nodelay on;
  keepalive_timeout 120s; keepalive_requests 1000000;
  open_file_cache max=4096 inactive=600s; open_file_cache_valid 600s;
  types { text/html html; text/plain txt; }
  default_type application/octet-stream;
  client_body_temp_path $WORK/nginx-tmp/body; proxy_temp_path $WORK/nginx-tmp/proxy;
  fastcgi_temp_path $WORK/nginx-tmp/fastcgi; uwsgi_temp_path $WORK/nginx-tmp/uwsgi; scgi_temp_path $WORK/nginx-tmp/scgi;
  server {
    listen 127.0.0.1:$PORT default_server;
    access_log $WORK/access.log bench;
    return 404;
  }
  server {
    listen 127.0.0.1:$PORT;
    server_name ~^(?<w>[a-z]+)\d+\.bench\.test\$;
    access_log $WORK/access.log bench;
    root $WORK/www/\$w;
    index index.html;
  }
}
EOF
nginx -c "$WORK/nginx.conf" -p "$WORK" &
NGINX_PID=$!
for _ in $(seq 100); do
  curl -s -o /dev/null --connect-to "::127.0.0.1:$PORT" "http://${specs%%:*}0.bench.test:$PORT/robots.txt" && break
  sleep 0.05
done
: >"$WORK/access.log" # the readiness probe is not part of any run
MACHINE="$(nproc) cores $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(free -g | awk '/Mem:/{print $2}') GB"
echo "bench: $MACHINE; web on 127.0.0.1:$PORT ($WORKLOADS), $ROUNDS round(s): $SYSTEMS" >&2
# In the background so a SIGTERM to this script (timeout(1)) reaches the driver at once, which
# stops the crawler it runs; bash would otherwise wait for the driver to end first.
python3 tests/bench/peers/driver.py --src "$SRC" --peers "$PEERS" --work "$WORK" --port "$PORT" \
  --log "$WORK/access.log" --nginx-pid "$NGINX_PID" --rounds "$ROUNDS" --timeout "$TIMEOUT" \
  --workloads "$WORKLOADS" --systems "$SYSTEMS" --machine "$MACHINE" &
DRIVER_PID=$!
trap 'kill "$DRIVER_PID" 2>/dev/null; wait "$DRIVER_PID"; exit 143' TERM INT
wait "$DRIVER_PID"
