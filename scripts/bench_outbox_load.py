#!/usr/bin/env python3
"""Writes, as Redis protocol on stdout for `redis-cli --pipe`, shard I's outboxes of a sharded
job (ARCHITECTURE.md "Shards"; scripts/bench_shards.sh BENCH_MODE=forward): of URLS links over
HOSTS hosts, those its shard-mates hold, each a line "bench TAB record TAB 16 hash values" in
out:{t} of the shard of the host (hosts file: `redcrawl shard` lines, "SHARD PREFIX HOST"),
spread over the other shards' outboxes as workers there would have put them; then the job's
pending in shard I counted up by its lines, as complete.lua counts them.

  bench_outbox_load.py PREFIX I K URLS HOSTS HOSTS_FILE"""
import random
import sys


def cmd(out, *a):
    out.write("*%d\r\n" % len(a) + "".join("$%d\r\n%s\r\n" % (len(x.encode()), x) for x in map(str, a)))


def main():
    prefix, me, k, urls, hosts, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), \
        int(sys.argv[5]), sys.argv[6]
    shard = {}
    with open(path) as f:
        for line in f:
            s, _, host = line.split()
            shard[host] = int(s)
    rnd = random.Random(me)
    out, batch, lines = sys.stdout, {}, 0
    for n in range(urls):
        host = "h%d.bench.test" % (n % hosts)
        t = shard[host]
        if (t + 1 + n % (k - 1)) % k != me:  # the shard whose worker found it
            continue
        hashes = "\t".join(str(rnd.getrandbits(32)) for _ in range(16))
        batch.setdefault(t, []).append("bench\tbench 1 1 0 http://%s/p/%d\t%s" % (host, n, hashes))
        lines += 1
        if len(batch[t]) == 1000:
            cmd(out, "RPUSH", "%sout:%d" % (prefix, t), *batch.pop(t))
    for t, b in batch.items():
        cmd(out, "RPUSH", "%sout:%d" % (prefix, t), *b)
    cmd(out, "HINCRBY", prefix + "job:bench", "pending", lines)


if __name__ == "__main__":
    main()
