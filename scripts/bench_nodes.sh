#!/usr/bin/env bash
# The thesis' node-scaling experiment (5.2.3, fig 5-5) without Docker: 1, 2 and 3 crawl nodes,
# each a network namespace whose worker has a CPU quota (cgroup v1 cpu.cfs_quota_us, or cpu.max
# under cgroup v2), Redis and the scheduler in another, the test web with latency in another,
# all joined by a bridge in a namespace of its own (nothing reaches the host's network). Prints
# pages/min for each fleet size and the scaling ratio. Needs root. Optimised build.
#   scripts/bench_nodes.sh [--cpus 0.05] [--hosts 90] [--latency-ms 40] [--skip 1500] [--pages 4000] [--nodes 1,2,3]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ "$(id -u)" -eq 0 ] || { echo "bench_nodes: needs root (ip netns, cgroups)" >&2; exit 1; }
scripts/setup.sh --release
exec python3 tests/bench/bench_nodes.py --build build "$@"
