#!/usr/bin/env bash
# The thesis's dispatch experiment (5.2.1, fig 5-1) on this machine: three workers whose speed
# is capped at different rates (--max-rate), one of which changes speed twice mid-run through
# rc:ratecap; every interval the script samples, per worker, the URLs the scheduler dispatched
# to it and the pages it completed, prints them as a table and draws both as a PNG chart
# (gnuplot). The lines' slopes should follow the speeds. Loopback only; everything stopped by pid.
#   scripts/bench_dispatch.sh [SECONDS [OUT.png]]     (default 60 s, bench_dispatch.png)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh --release >/dev/null
command -v gnuplot >/dev/null || {
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null
}

SECS=${1:-60}
PNG=${2:-bench_dispatch.png}
STEP=2
RATES=(4 8 16)               # pages/s of w0 w1 w2 at the start
CHANGES=("w1 24" "w1 2")     # at 1/3 and 2/3 of the run: w1 speeds up, then slows down
WORK=$(mktemp -d /tmp/redcrawl-bench-dispatch-XXXXXX)
SOCK=$WORK/redis.sock
pids=()
# shellcheck source=scripts/testweb.sh
. scripts/testweb.sh
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait "${pids[@]}" 2>/dev/null || true
  testweb_cleanup
}
trap cleanup EXIT
testweb_start --sites 90 --pages 400
redis-server --port 0 --unixsocket "$SOCK" --save '' --appendonly no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do redis-cli -s "$SOCK" ping >/dev/null 2>&1 && break; sleep 0.05; done
export REDCRAWL_REDIS="unix://$SOCK" REDCRAWL_ALLOW_NET=127.0.0.0/8
build/scheduler/redcrawl-scheduler --log-level warn >"$WORK/scheduler.log" 2>&1 &
pids+=($!)
for i in 0 1 2; do
  build/worker/redcrawl-worker --id "w$i" --max-rate "${RATES[$i]}" --delay 0.5 --heartbeat 0.5 \
    --out "$WORK/out" --connect-to "::127.0.0.1:$PORT" --log-level warn >"$WORK/w$i.log" 2>&1 &
  pids+=($!)
done
sleep 1
seeds=()
for i in $(seq 0 89); do seeds+=("http://s$i.site.test/"); done
build/cli/redcrawl submit --crawlid dispatch --maxdepth -1 "${seeds[@]}" >/dev/null

echo "# bench_dispatch $(date -u +%Y-%m-%dT%H:%M:%SZ): 90 hosts, delay 0.5 s, caps w0=${RATES[0]} w1=${RATES[1]} w2=${RATES[2]} pages/s;"
echo "# w1 set to ${CHANGES[0]#* } at $((SECS / 3)) s and to ${CHANGES[1]#* } at $((2 * SECS / 3)) s"
printf '%6s %10s %10s %10s %10s %10s %10s\n' t disp_w0 disp_w1 disp_w2 done_w0 done_w1 done_w2 | tee "$WORK/table"
t=0
while ((t <= SECS)); do
  ((t == SECS / 3)) && redis-cli -s "$SOCK" hset rc:ratecap ${CHANGES[0]} >/dev/null
  ((t == 2 * SECS / 3)) && redis-cli -s "$SOCK" hset rc:ratecap ${CHANGES[1]} >/dev/null
  row=("$t")
  for f in dispatched fetched; do
    for i in 0 1 2; do
      v=$(redis-cli -s "$SOCK" hget "rc:worker:w$i" "$f")
      row+=("${v:-0}")
    done
  done
  printf '%6s %10s %10s %10s %10s %10s %10s\n' "${row[@]}" | tee -a "$WORK/table"
  sleep "$STEP"
  t=$((t + STEP))
done

gnuplot <<EOF
set terminal png size 1000,600
set output "$PNG"
set title "redcrawl dispatch: URLs dispatched (thin) and pages completed (thick) per worker"
set xlabel "seconds"
set ylabel "URLs / pages (cumulative)"
set key left top
set arrow from $((SECS / 3)),graph 0 to $((SECS / 3)),graph 1 nohead dt 3
set arrow from $((2 * SECS / 3)),graph 0 to $((2 * SECS / 3)),graph 1 nohead dt 3
plot "$WORK/table" every ::1 using 1:5 with lines lw 2 title "w0 done (${RATES[0]}/s)", \
     "" every ::1 using 1:6 with lines lw 2 title "w1 done (${RATES[1]} -> ${CHANGES[0]#* } -> ${CHANGES[1]#* }/s)", \
     "" every ::1 using 1:7 with lines lw 2 title "w2 done (${RATES[2]}/s)", \
     "" every ::1 using 1:2 with lines dt 2 title "w0 dispatched", \
     "" every ::1 using 1:3 with lines dt 2 title "w1 dispatched", \
     "" every ::1 using 1:4 with lines dt 2 title "w2 dispatched"
EOF
python3 - "$WORK/table" "$SECS" <<'PY'
import sys
rows = [list(map(int, l.split())) for l in open(sys.argv[1]) if l.strip() and not l.lstrip().startswith("t")]
secs = int(sys.argv[2])
def slope(col, a, b):
    ra = min(rows, key=lambda r: abs(r[0] - a)); rb = min(rows, key=lambda r: abs(r[0] - b))
    return (rb[col] - ra[col]) / max(1, rb[0] - ra[0])
for name, (a, b) in (("first third", (2, secs // 3)), ("second third", (secs // 3 + 2, 2 * secs // 3)),
                     ("last third", (2 * secs // 3 + 2, secs))):
    print("# %-12s pages/s done: w0 %.1f  w1 %.1f  w2 %.1f" % (name, slope(4, a, b), slope(5, a, b), slope(6, a, b)))
PY
echo "# chart: $PNG"
