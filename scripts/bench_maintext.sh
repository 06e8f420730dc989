#!/usr/bin/env bash
# Main-text extraction figures (issue 5): token precision / recall / F1 of the line-block
# distribution method and of redcrawl's density variant, page by page and overall, over the
# hand-labelled corpus in tests/data/maintext (each page's expected main text written by hand).
#   scripts/bench_maintext.sh [--sweep]   (--sweep also tries other K and threshold values)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh --release
exec build/tests/bench/maintext_eval tests/data "$@"
