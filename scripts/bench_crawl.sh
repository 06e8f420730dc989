#!/usr/bin/env bash
# Crawl throughput on this machine: the test web server with many hosts (30 KB pages, no
# latency) crawled by `redcrawl crawl` at delay 0 (still one request per host at a time), from
# the optimised build. Prints pages/s and CPU per page of the workers. Everything on loopback,
# bounded in time, stopped by pid.
#   scripts/bench_crawl.sh [HOSTS [PAGES_PER_HOST [WORKERS [CRAWL OPTIONS...]]]]  (default 100 200 2)
# e.g. `scripts/bench_crawl.sh 30 100 2 --warc` for the cost of keeping bodies (prints the WARC size).
# Environment:
#   CRAWL_ARGS="--dedup-content=0"  extra `redcrawl crawl` options; that one makes the crawl
#                                   link-only (no rules, no text, no digest: the tokenizer path)
#   PERF=1                          also profile the crawl tree with perf (Debian's linux-perf)
#                                   and print the top symbols (the timing then includes perf)
#   PERF_OUT=FILE                   keep perf's data there (for perf report -i FILE)
#   PERF_F=HZ, PERF_G=OPTS          perf's sampling rate (default 499) and call-graph options
#                                   (e.g. PERF_G="--call-graph dwarf")
#   GAPS=1                          also print the host cycle from the test server's request log:
#                                   per host, the time from a response's end to its next request
#                                   (at delay 0 what bounds pages/s on few hosts: hosts / gap)
#   NO_BUILD=1                      use build/ as it is (to compare builds of other commits)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ -n "${NO_BUILD:-}" ] || scripts/setup.sh --release
if [ -n "${PERF:-}" ] && ! command -v perf >/dev/null; then
  echo "bench_crawl: PERF=1 needs perf: apt-get install linux-perf" >&2
  exit 2
fi

HOSTS=${1:-100}
PAGES=${2:-200}
WORKERS=${3:-2}
EXTRA=("${@:4}")
WORK=$(mktemp -d /tmp/redcrawl-bench-XXXXXX)
# shellcheck source=scripts/testweb.sh
. scripts/testweb.sh
log=()
[ -z "${GAPS:-}" ] || log=(--log "$WORK/requests.tsv")
testweb_start --sites "$HOSTS" --pages "$PAGES" --page-size 30000 "${log[@]}"

seeds=()
for i in $(seq 0 $((HOSTS - 1))); do seeds+=("http://s$i.site.test/"); done

read -r -a extra <<<"${CRAWL_ARGS:-}"
echo "bench: $HOSTS hosts x $PAGES pages of 30 KB on 127.0.0.1:$PORT, $WORKERS workers, delay 0 ${CRAWL_ARGS:-}"
perf=()
[ -z "${PERF:-}" ] || perf=(perf record -q -F ${PERF_F:-499} ${PERF_G:-} -o "$WORK/perf.data" --)
# CPU of the crawl's process tree (redcrawl, scheduler, workers, redis) from /proc, before/after.
t0=$(date +%s.%N)
/usr/bin/env time -f "%U %S" -o "$WORK/time" "${perf[@]}" build/cli/redcrawl crawl --quiet --delay 0 --maxdepth -1 \
  "${extra[@]}" --workers "$WORKERS" --out "$WORK/out" --connect-to "::127.0.0.1:$PORT" --allow-net 127.0.0.0/8 \
  ${EXTRA[@]+"${EXTRA[@]}"} "${seeds[@]}" >"$WORK/summary"
t1=$(date +%s.%N)
pages=$(wc -l <"$WORK/out/pages.jsonl")
read -r user sys <"$WORK/time"
python3 - "$pages" "$t0" "$t1" "$user" "$sys" <<'PY'
import sys
pages, t0, t1, user, sys_ = int(sys.argv[1]), *map(float, sys.argv[2:])
wall = t1 - t0
print("pages        %d" % pages)
print("wall         %.1f s  ->  %.0f pages/s" % (wall, pages / wall))
print("cpu          %.1f s user + %.1f s sys (crawl tree, incl. redis)  ->  %.2f ms of CPU per page" %
      (user, sys_, (user + sys_) * 1000 / max(pages, 1)))
PY
if [ -n "${PERF:-}" ]; then
  set +o pipefail # head closes the pipe early
  echo "profile (whole crawl tree; share of samples by process and symbol):"
  perf report -q -i "$WORK/perf.data" --no-children --sort comm,dso,symbol --stdio 2>/dev/null |
    grep -v '^$' | sed 's/ *- *- *$//' | head -20
  echo "by process:"
  perf report -q -i "$WORK/perf.data" --no-children --sort comm --stdio 2>/dev/null | grep -v '^$' | sed 's/ *- *- *$//' | head -6
  [ -z "${PERF_OUT:-}" ] || cp "$WORK/perf.data" "$PERF_OUT"
fi
if [ -n "${GAPS:-}" ]; then
  python3 - "$WORK/requests.tsv" "$HOSTS" <<'PY'
import collections, sys
by = collections.defaultdict(list)
with open(sys.argv[1]) as f:
    for line in f:
        start, end, host = line.split("\t")[:3]
        by[host].append((int(start), int(end)))
gaps, resp = [], []
for v in by.values():
    v.sort()
    gaps += [(b[0] - a[1]) / 1000 for a, b in zip(v, v[1:])]
    resp += [(e - s) / 1000 for s, e in v]
gaps.sort()
resp.sort()
q = lambda x, p: x[int(p * (len(x) - 1))] if x else 0
mean = sum(gaps) / max(len(gaps), 1)
print("host cycle   response %.2f ms (median); gap to the host's next request: median %.2f, p90 %.2f, "
      "p99 %.2f, mean %.2f ms  ->  at most %.0f pages/s over %s hosts" %
      (q(resp, .5), q(gaps, .5), q(gaps, .9), q(gaps, .99), mean, int(sys.argv[2]) * 1000 / max(mean + q(resp, .5), 1e-3),
       sys.argv[2]))
PY
fi
if [ -d "$WORK/out/warc" ]; then
  echo "warc         $(du -sb "$WORK/out/warc" | cut -f1) bytes in $(ls "$WORK/out/warc" | wc -l) file(s); pages.jsonl $(stat -c %s "$WORK/out/pages.jsonl") bytes"
fi
