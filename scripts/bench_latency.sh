#!/usr/bin/env bash
# Submit-to-stored latency into an idle fleet (SpiderDuck's figure): single-URL crawl requests
# posted to a real Kafka broker at a steady rate, each timed from the producer call to its page
# record in the JSON Lines output; monitor, scheduler and workers of the release build, all on
# loopback, stopped by pid. Runs twice in one go, with pub/sub nudges (the default) and with
# --poll-only, and prints one JSON line per run: all requests, those to a host already seen
# (host_known) and each host's first (host_first: robots.txt, then the politeness delay, or the
# workers' --robots-delay when given).
#   scripts/bench_latency.sh [--requests N] [--rate PER_S] [--hosts H] [--workers W] [--delay S]
#                            [--robots-delay S]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh --release >/dev/null

# A Kafka producer that sends each message at once (kcat reads its input in blocks).
VENV=${REDCRAWL_CACHE:-$HOME/.cache/redcrawl}/venv-latency
if ! "$VENV/bin/python" -c 'import confluent_kafka' 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q 'confluent-kafka==2.*'
fi
export REDCRAWL_BUILD=$PWD/build
for mode in "" --poll-only; do
  "$VENV/bin/python" tests/bench/latency.py "$@" $mode
done
