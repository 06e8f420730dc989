#!/usr/bin/env bash
# The main job, end to end on this machine: builds redcrawl (scripts/setup.sh), starts the
# project's test web site (several hosts on 127.0.0.1), crawls it with `redcrawl crawl`
# (a private Redis, a scheduler and two workers), shows live progress and a summary, and leaves
# the page records in a JSON Lines file whose path it prints.
#   scripts/demo.sh [extra redcrawl crawl options]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh --release

SITES=${DEMO_SITES:-8}
PAGES=${DEMO_PAGES:-250}
OUT=${DEMO_OUT:-redcrawl-out/demo-$(date +%Y%m%d-%H%M%S)}
WORK=$(mktemp -d /tmp/redcrawl-demo-XXXXXX)
# shellcheck source=scripts/testweb.sh
. scripts/testweb.sh
testweb_start --sites "$SITES" --pages "$PAGES" --latency-ms 2 --page-size 20000 --robots --log "$WORK/requests.log"

echo "demo: test web site: $SITES hosts (s0.site.test ... s$((SITES - 1)).site.test) x $PAGES pages on 127.0.0.1:$PORT"
echo "demo: crawling it with 2 workers, 0.05 s between hits on one host, obeying each host's robots.txt"
echo
build/cli/redcrawl crawl --workers 2 --delay 0.05 --maxdepth -1 --out "$OUT" \
  --connect-to "::127.0.0.1:$PORT" --allow-net 127.0.0.0/8 "$@" http://s0.site.test/

echo
echo "demo: the test web server answered $(wc -l <"$WORK/requests.log") requests"
echo "demo: first page record:"
head -n 1 "$OUT/pages.jsonl"
