#!/usr/bin/env bash
# bench_dns.sh - the worker's own DNS cache against libcurl's (issue 14): crawls of many hosts
# whose names the workers look up (no --connect-to), with `--dns-cache 0` (libcurl 7.88's
# shared cache, which it scans on every transfer) and with the default cache (each transfer
# gets a DNS cache of its own, filled from the worker's hash map). Prints pages/s and CPU per
# page of the whole crawl tree for each. Runs inside a network namespace it creates with only
# a loopback interface (root: ip netns), where the test web server takes port 80 and every
# name is given its address by --resolve, as a DNS answer would; stopped by pid, namespace
# removed.
#   scripts/bench_dns.sh [HOSTS PAGES_PER_HOST]...   (default: 1000 20 20000 1)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ "$(id -u)" = 0 ] || { echo "bench_dns: needs root (ip netns)" >&2; exit 2; }
[ -n "${NO_BUILD:-}" ] || scripts/setup.sh --release >/dev/null
if [ -z "${BENCH_DNS_NETNS:-}" ]; then
  ns="rcdns$$"
  ip netns add "$ns"
  trap 'ip netns del "$ns"' EXIT
  ip netns exec "$ns" ip link set lo up
  BENCH_DNS_NETNS=$ns ip netns exec "$ns" "$0" "$@"
  exit $?
fi
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 20 20000 1)
WORK=$(mktemp -d /tmp/redcrawl-dns-XXXXXX)
web=""
cleanup() {
  [ -z "$web" ] || { kill "$web" 2>/dev/null; wait "$web" 2>/dev/null || true; }
  rm -rf "$WORK"
}
trap cleanup EXIT
echo "# bench_dns $(date -u +%Y-%m-%dT%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $(curl-config --version)"
printf '%-7s %-6s %-22s %7s %8s %9s %12s\n' hosts pages dns pages wall_s pages/s cpu_ms/page
for ((i = 0; i < ${#sizes[@]}; i += 2)); do
  hosts=${sizes[i]} pages=${sizes[i + 1]}
  build/tests/testweb --port 80 --max-seconds 900 --sites "$hosts" --pages "$pages" --page-size 30000 \
    >"$WORK/web.out" 2>"$WORK/web.err" &
  web=$!
  sleep 0.3
  : >"$WORK/seeds"
  : >"$WORK/args"
  for ((h = 0; h < hosts; h++)); do
    echo "http://s$h.site.test/" >>"$WORK/seeds"
    printf -- '--resolve\ns%d.site.test:80:127.0.0.1\n' "$h" >>"$WORK/args"
  done
  mapfile -t resolve <"$WORK/args"
  for dns in 0 100000; do
    rm -rf "$WORK/out"
    t0=$(date +%s.%N)
    /usr/bin/env time -f "%U %S" -o "$WORK/time" build/cli/redcrawl crawl --quiet --delay 0 --maxdepth -1 \
      --workers 2 --out "$WORK/out" --allow-net 127.0.0.0/8 --web-port -1 --dns-cache "$dns" "${resolve[@]}" \
      --seeds "$WORK/seeds" >/dev/null 2>"$WORK/err" || { tail -5 "$WORK/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    n=$(wc -l <"$WORK/out/pages.jsonl")
    read -r user sys <"$WORK/time"
    label=$([ "$dns" = 0 ] && echo "libcurl's (before)" || echo "worker's own (now)")
    python3 -c "import sys; h,p,l,n,t0,t1,u,s=sys.argv[1:]; n=int(n); w=float(t1)-float(t0)
print('%-7s %-6s %-22s %7d %8.1f %9.0f %12.3f' % (h, p, l, n, w, n / w, (float(u) + float(s)) * 1000 / max(n, 1)))" \
      "$hosts" "$pages" "$label" "$n" "$t0" "$t1" "$user" "$sys"
  done
  kill "$web" && wait "$web" 2>/dev/null || true
  web=""
done
