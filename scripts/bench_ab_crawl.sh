#!/usr/bin/env bash
# Crawl throughput of two builds of redcrawl, A and B, in alternating pairs on one test web
# server (the machine is shared: a pair's two runs see about the same load; the order flips each
# pair). Each run is `redcrawl crawl` at delay 0 of HOSTS x PAGES pages of 30 KB, as
# scripts/bench_crawl.sh; prints pages/s of each run and the B/A ratio of each pair.
# Everything on loopback, bounded in time, stopped by pid.
#   scripts/bench_ab_crawl.sh BUILD_A BUILD_B [PAIRS [HOSTS [PAGES [WORKERS [CRAWL OPTIONS...]]]]]
#   (default 3 pairs, 100 hosts x 200 pages, 2 workers), e.g. a build of another commit:
#   git archive COMMIT | tar -x -C /tmp/base && (cd /tmp/base && meson setup build --buildtype=release && ninja -C build)
#   scripts/bench_ab_crawl.sh /tmp/base/build build
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
A=$1
B=$2
PAIRS=${3:-3}
HOSTS=${4:-100}
PAGES=${5:-200}
WORKERS=${6:-2}
EXTRA=("${@:7}")
WORK=$(mktemp -d /tmp/redcrawl-bench-ab-XXXXXX)
# shellcheck source=scripts/testweb.sh
. scripts/testweb.sh
testweb_start --sites "$HOSTS" --pages "$PAGES" --page-size 30000
seeds=()
for i in $(seq 0 $((HOSTS - 1))); do seeds+=("http://s$i.site.test/"); done
echo "bench_ab: $HOSTS hosts x $PAGES pages of 30 KB, $WORKERS workers, delay 0, $PAIRS pairs; A=$A B=$B"

# One crawl with build $1: prints its pages/s.
run() {
  local out="$WORK/out-$2"
  local t0 t1
  t0=$(date +%s.%N)
  "$1/cli/redcrawl" crawl --quiet --web-port -1 --delay 0 --maxdepth -1 --workers "$WORKERS" --out "$out" \
    --connect-to "::127.0.0.1:$PORT" --allow-net 127.0.0.0/8 ${EXTRA[@]+"${EXTRA[@]}"} "${seeds[@]}" >/dev/null 2>"$WORK/stderr-$2"
  t1=$(date +%s.%N)
  python3 -c "import sys; print('%.0f' % (int(sys.argv[1]) / (float(sys.argv[3]) - float(sys.argv[2]))))" \
    "$(wc -l <"$out/pages.jsonl")" "$t0" "$t1"
  rm -rf "$out"
}

ratios=()
for p in $(seq "$PAIRS"); do
  if [ $((p % 2)) -eq 1 ]; then
    a=$(run "$A" "a$p")
    b=$(run "$B" "b$p")
  else
    b=$(run "$B" "b$p")
    a=$(run "$A" "a$p")
  fi
  python3 -c "import sys; a, b = map(float, sys.argv[2:]); print('pair %s: A %.0f pages/s, B %.0f pages/s, B/A %.3f' % (sys.argv[1], a, b, b / a))" \
    "$p" "$a" "$b"
  ratios+=("$(python3 -c "import sys; print(float(sys.argv[2]) / float(sys.argv[1]))" "$a" "$b")")
done
python3 -c "import statistics, sys; r = sorted(map(float, sys.argv[1:])); print('B/A median %.3f (min %.3f, max %.3f) over %d pairs' % (statistics.median(r), r[0], r[-1], len(r)))" "${ratios[@]}"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
