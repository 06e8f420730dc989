#!/usr/bin/env bash
# Main-text extraction figures (issues 5, 15): precision / recall / F1 and ms/page of redcrawl's
# methods and of trafilatura, readability-lxml and jusText on the same pages in the same run, over
# each labelled data directory given (layouts and scoring: scripts/maintext_bench.py; where the
# sets come from: README.md "Main text"). Without a directory, redcrawl's own tests/data/maintext.
#   scripts/bench_maintext.sh [--redcrawl-only] [--by-type] [--bounds] [--methods article,density] [--trees gumbo,light]
#                             [--python trafilatura]
#                             [--worst N] [DIR...]
# Each method runs on both trees by default (gumbo's; "~light": htmltree.c's, the crawler's for
# jobs without XPath rules), in the same run.
#   scripts/bench_maintext.sh --sweep   (the old K/threshold sweep on tests/data/maintext)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh --release >/dev/null
if [ "${1:-}" = "--sweep" ]; then
  exec build/tests/bench/maintext_eval tests/data "$@"
fi
venv="${REDCRAWL_MAINTEXT_VENV:-$HOME/.cache/redcrawl/venv-maintext}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import trafilatura, readability, justext' 2>/dev/null; then
  echo "bench_maintext: installing trafilatura, readability-lxml, jusText into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -U pip
  "$venv/bin/pip" install -q trafilatura readability-lxml justext
fi
args=() sets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --redcrawl-only|--by-type|--bounds) args+=("$1") ;;
    --methods|--worst|--trees|--python) args+=("$1" "$2"); shift ;;
    *) sets+=("$1") ;;
  esac
  shift
done
[ ${#sets[@]} -gt 0 ] || sets=(tests/data)
exec "$venv/bin/python" scripts/maintext_bench.py --driver build/tests/bench/maintext_dump "${args[@]}" "${sets[@]}"
