#!/usr/bin/env bash
# The long chaos crawl (issue 13): >= 5,000 pages over 50 hosts, 4 workers, while a bounded loop
# SIGKILLs or SIGSTOPs (past the worker timeout) a random worker every few seconds, restarts
# Redis (AOF) once, kills the scheduler once, fills the output disk (a small tmpfs) for 8 s and,
# with --mongo, restarts FerretDB, with --kafka the Kafka broker (scripts/services.sh; workers
# then also produce the crawled firehose) once. Prints the counts per sink (records, missing,
# duplicated, corrupt) and the server's fetch counts; exit 0 when every sink holds exactly the
# expected page set (Kafka: every page, redeliveries counted: the firehose is at least once).
#
# Usage: scripts/chaos.sh [--runs N] [--mongo] [--kafka] [chaos.py options...]   (root: mounts a tmpfs)
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export REDCRAWL_BUILD=${REDCRAWL_BUILD:-$REPO/build}
runs=1
mongo=0
kafka=0
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs=$2; shift 2 ;;
        --mongo) mongo=1; shift ;;
        --kafka) kafka=1; shift ;;
        *) args+=("$1"); shift ;;
    esac
done
[ -x "$REDCRAWL_BUILD/worker/redcrawl-worker" ] || "$REPO/scripts/setup.sh"
work=$(mktemp -d /tmp/rc-chaos-run-XXXXXX)
disk=$work/disk
mkdir -p "$disk"
mount -t tmpfs -o size=64m tmpfs "$disk"
svc=$work/services
cleanup() {
    umount -l "$disk" 2>/dev/null || true
    [ "$mongo" = 1 ] && "$REPO/scripts/services.sh" stop mongo --dir "$svc" >/dev/null 2>&1 || true
    [ "$kafka" = 1 ] && "$REPO/scripts/services.sh" stop kafka --dir "$svc" >/dev/null 2>&1 || true
}
trap cleanup EXIT
mongo_args=()
kafka_args=()
status=0
for i in $(seq 1 "$runs"); do
    rm -rf "${disk:?}"/*
    if [ "$mongo" = 1 ]; then
        line=$("$REPO/scripts/services.sh" start mongo --dir "$svc")
        eval "$line"
        mongo_args=(--mongo "$REDCRAWL_MONGO" --services-dir "$svc")
    fi
    if [ "$kafka" = 1 ]; then
        line=$("$REPO/scripts/services.sh" start kafka --dir "$svc")
        eval "$line"
        kafka_args=(--kafka "$REDCRAWL_KAFKA" --services-dir "$svc")
    fi
    echo "chaos.sh: run $i of $runs"
    python3 "$REPO/tests/integration/chaos.py" --sites 50 --pages 120 --latency 150 --every 4 \
        --disk "$disk" --seed "$i" "${mongo_args[@]}" "${kafka_args[@]}" "${args[@]}" || status=1
    [ "$mongo" = 1 ] && "$REPO/scripts/services.sh" stop mongo --dir "$svc" >/dev/null 2>&1
    [ "$kafka" = 1 ] && "$REPO/scripts/services.sh" stop kafka --dir "$svc" >/dev/null 2>&1
    true
done
exit $status
