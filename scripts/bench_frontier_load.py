#!/usr/bin/env python3
"""Writes, as Redis protocol on stdout for `redis-cli --pipe`, a dispatch benchmark's state under
one key prefix: fake workers (a heartbeat and the fields the scheduler reads) and a job's
frontier of URLS records over HOSTS hosts, written as the code writes them (shared/record.h).
Used by scripts/bench_scheduler.sh and scripts/bench_shards.sh.

  bench_frontier_load.py PREFIX URLS HOSTS WORKERS [compact|json] [lists|zset]

json: the records' JSON form (what they were before); zset: the frontier as one zset per job
(rc:seeds:{crawlid}, what it was before: the scripts drain it first). For comparison.
BENCH_ONLY_HOSTS=FILE: only the URLs of the hosts FILE lists, one a line (a shard's share of
the job: `redcrawl shard`), the job's pending counting those."""
import os
import json
import sys
import time


def cmd(out, *a):
    out.write("*%d\r\n" % len(a) + "".join("$%d\r\n%s\r\n" % (len(x.encode()), x) for x in map(str, a)))


def record(url, form, frontier):
    if form == "json":
        return json.dumps({"url": url, "crawlid": "bench", "depth": 0, "priority": 1, "attempt": 0},
                          separators=(",", ":"))
    if frontier == "zset":
        return "bench 0 1 0 " + url
    return "0 1 0 " + url  # in its job's lists the crawlid is implied


def main():
    prefix, urls, hosts, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    form = sys.argv[5] if len(sys.argv) > 5 else "compact"
    frontier = sys.argv[6] if len(sys.argv) > 6 else "lists"
    out = sys.stdout
    now = int(time.time() * 1000)
    for w in range(workers):
        cmd(out, "ZADD", prefix + "workers", now, "fw%d" % w)
        cmd(out, "HSET", prefix + "worker:fw%d" % w, "hb", now, "started_ms", now, "slots", 64)
    only = None
    if os.environ.get("BENCH_ONLY_HOSTS"):
        with open(os.environ["BENCH_ONLY_HOSTS"]) as f:
            only = set(line.strip() for line in f if line.strip())
    batch = []
    kept = 0
    for i in range(urls):
        if only is not None and "h%d.bench.test" % (i % hosts) not in only:
            continue
        kept += 1
        rec = record("http://h%d.bench.test/p/%d" % (i % hosts, i), form, frontier)
        if frontier == "zset":
            cmd(out, "ZADD", prefix + "seeds:bench", 1000000000 + i, rec)
            continue
        batch.append(rec)
        if len(batch) == 1000:
            cmd(out, "RPUSH", prefix + "seeds:bench:1:0", *batch)
            batch = []
    if batch:
        cmd(out, "RPUSH", prefix + "seeds:bench:1:0", *batch)
    if frontier != "zset":
        cmd(out, "ZADD", prefix + "seedb:bench", 999 * 2 ** 40, "1:0")
    cmd(out, "SADD", prefix + "frontier", "bench")
    cmd(out, "HINCRBY", prefix + "job:bench", "pending", kept)


if __name__ == "__main__":
    main()
