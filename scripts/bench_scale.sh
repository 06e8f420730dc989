#!/usr/bin/env bash
# bench_scale.sh - the scale curve (issue 14, point 4): `redcrawl crawl` of the test web at a
# growing number of hosts, few pages each, seeds from a file (--seeds), delay 0 (still one request
# per host at a time), the optimised build. Prints per point: pages, wall time, pages/s, CPU of
# the whole crawl tree (redcrawl, scheduler, workers, Redis) per page, its ratio to the first
# point (the target: within 20 % at 100,000 hosts), the CPU per fetch (a page or a host's one
# robots.txt: with few pages per host, half the requests are robots.txt) and its ratio, the peak
# RSS of the largest process, and whether every page was fetched. Everything on loopback (--connect-to), bounded in time (each
# point under --timeout seconds), stopped by pid.
#   scripts/bench_scale.sh [--points HOSTSxPAGES,...] [--workers N] [--timeout S]
#   (--workers: default `redcrawl crawl`'s own, one worker; runs before 2026-11-27 13:00 used 2)
#   (default points 50x200,1000x10,10000x2,100000x1)
# Environment: NO_BUILD=1 uses build/ as it is; BUILD=DIR runs another build's binaries (to compare
# commits in one run; implies NO_BUILD); CRAWL_ARGS adds `redcrawl crawl` options.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
POINTS=50x200,1000x10,10000x2,100000x1
WORKERS=
TIMEOUT=1800
while [ $# -gt 0 ]; do
  case $1 in
  --points) POINTS=$2; shift 2 ;;
  --workers) WORKERS=$2; shift 2 ;;
  --timeout) TIMEOUT=$2; shift 2 ;;
  *) echo "bench_scale: unknown option $1 (see the head of $0)" >&2; exit 2 ;;
  esac
done
BUILD=${BUILD:-build}
[ -n "${NO_BUILD:-}" ] || [ "$BUILD" != build ] || scripts/setup.sh --release >/dev/null
WORK=$(mktemp -d /tmp/redcrawl-scale-XXXXXX)
# shellcheck source=scripts/testweb.sh
. scripts/testweb.sh
read -r -a extra <<<"${CRAWL_ARGS:-}"

echo "# bench_scale $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), ${WORKERS:-default (1)} workers ${CRAWL_ARGS:-}"
printf '%-8s %-6s %8s %8s %9s %12s %9s %13s %9s %7s %s\n' hosts pages expected fetched pages/s cpu_ms/page vs_first \
  cpu_ms/fetch vs_first rss_MB complete
base=""
basef=""
IFS=, read -r -a points <<<"$POINTS"
for pt in "${points[@]}"; do
  hosts=${pt%x*} per=${pt#*x}
  testweb_start --sites "$hosts" --pages "$per" --page-size 30000 --max-seconds "$((TIMEOUT + 60))"
  seq 0 $((hosts - 1)) | sed 's|.*|http://s&.site.test/|' >"$WORK/seeds"
  # The pages a complete crawl fetches, from the server's own link graph (as the tests count).
  expected=$(REDCRAWL_BUILD=$BUILD python3 -c 'import sys; sys.path.insert(0, "tests/integration"); import harness
g = harness.graph("--sites", sys.argv[1], "--pages", sys.argv[2])
print(len(harness.expected_pages(g, [l.strip() for l in open(sys.argv[3])], -1, ["site.test"])))' "$hosts" "$per" "$WORK/seeds")
  rm -rf "$WORK/out"
  t0=$(date +%s.%N)
  rc=0
  # time -v: user, sys and the largest resident set among the processes it waited for (the tree).
  /usr/bin/env time -f "%U %S %M" -o "$WORK/time" timeout --kill-after 30 "$TIMEOUT" \
    "$BUILD/cli/redcrawl" crawl --quiet --delay 0 --maxdepth -1 ${WORKERS:+--workers "$WORKERS"} --web-port -1 \
    --out "$WORK/out" --connect-to "::127.0.0.1:$PORT" --allow-net 127.0.0.0/8 \
    ${extra[@]+"${extra[@]}"} --seeds "$WORK/seeds" >"$WORK/summary" 2>"$WORK/err" || rc=$?
  t1=$(date +%s.%N)
  fetched=$(wc -l <"$WORK/out/pages.jsonl" 2>/dev/null || echo 0)
  # The last line: time -f puts "Command exited with non-zero status N" before it.
  read -r user sys rss < <(tail -n 1 "$WORK/time" 2>/dev/null) || true
  out=$(python3 - "$hosts" "$per" "$fetched" "$t0" "$t1" "${user:-0}" "${sys:-0}" "${rss:-0}" "$rc" "$base" "$expected" "$basef" <<'PY'
import sys
h, per, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
t0, t1, user, sys_, rss = map(float, sys.argv[4:9])
rc, base, want, basef = int(sys.argv[9]), sys.argv[10], int(sys.argv[11]), sys.argv[12]
cpu = (user + sys_) * 1000 / max(n, 1)
cpuf = (user + sys_) * 1000 / max(n + h, 1)
vs = cpu / float(base) if base else 1.0
vsf = cpuf / float(basef) if basef else 1.0
done = "yes" if rc == 0 and n == want else ("TIMEOUT" if rc == 124 else "no (exit %d)" % rc)
print("%-8d %-6d %8d %8d %9.0f %12.3f %8.2fx %13.3f %8.2fx %7.0f %s|%.6f|%.6f" %
      (h, per, want, n, n / (t1 - t0), cpu, vs, cpuf, vsf, rss / 1024, done, cpu, cpuf))
PY
)
  echo "${out%%|*}"
  rest=${out#*|}
  [ -n "$base" ] || base=${rest%|*}
  [ -n "$basef" ] || basef=${rest#*|}
  if [ "$rc" != 0 ] || [ "$fetched" != "$expected" ]; then
    # An incomplete point keeps what tells why (the work directory goes at exit).
    kept=$(mktemp -d "/tmp/redcrawl-scale-failed-${hosts}x${per}-XXXXXX")
    cp -r "$WORK/summary" "$WORK/err" "$WORK/out/logs" "$kept/" 2>/dev/null || true
    tail -n 3 "$WORK/err" "$WORK/summary" >&2 || true
    echo "# ${hosts}x${per} incomplete (exit $rc, $fetched of $expected pages): logs kept in $kept" >&2
  fi
  kill "$WEB_PID" && wait "$WEB_PID" 2>/dev/null || true
  WEB_PID=""
done
