#!/usr/bin/env python3
"""One crawl job over three shards on three masters of a real Redis Cluster (3 masters without
replicas of Debian's redis-server, started by scripts/services.sh in the test's temp dir with
REDCRAWL_CLUSTER_REPLICAS=0, stopped by pid): a scheduler and a worker per shard (--shards 3
--shard I), the seed submitted with --shards 3 to its host's shard, the test web's hosts spread
over the shards by host. Every expected page is fetched and stored exactly once; each master
holds the keys of its shard and of no other (the job's hash and bloom among them), each shard
fetched its hosts' pages, the outboxes are empty, and the job ends: two reads of every shard in
turn find pending 0 and `arrived` unchanged (ARCHITECTURE.md "Shards"); `redcrawl info` sums
the shards, and so do `redcrawl status` (every shard's workers) and redcrawl-web's REST API. A
stop over the shards mid-crawl (`stop --wait` returns once nothing is left, nothing fetched
after), and a shard's worker SIGKILLed mid-crawl (reaped by its shard's scheduler only, its
work taken up by a new worker of that shard, every page stored), and a manual failover of a
shard's master mid-crawl (3 masters with a replica each: every page fetched exactly once). The
Kafka control plane over the shards: redcrawl-monitor --shards 3 sends a crawl request posted to
Kafka to its seed's shard, answers an info request with the shards' counts summed and writes a
domain update to every shard. A job's max_pages over the shards: one cap for the whole job
(exactly max_pages pages fetched), and such a job stopped mid-crawl."""
import collections
import contextlib
import json
import os
import subprocess
import sys
import time
import types

sys.path.insert(0, os.path.dirname(__file__))
from harness import (REDCRAWL, SCHEDULER, WORKER, Failure, check, expected_pages, graph,  # noqa: E402
                     read_pages, read_requests, redis_cmd, run_tests, start_redis, start_web)

SERVICES = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "services.sh")
SHARDS = 3
SLOTS = 16384
EDGE = 16  # shared/shard.c: a tag's slot kept this far inside its shard's share


class Cluster:
    """3 masters (no replicas unless asked), in DIR/svc, started and stopped by the project's
    script."""

    def __init__(self, tmp, replicas=0):
        self.dir = os.path.join(tmp, "svc")
        env = dict(os.environ, REDCRAWL_CLUSTER_REPLICAS=str(replicas))
        r = subprocess.run(["bash", SERVICES, "start", "cluster", "--dir", self.dir], capture_output=True,
                           text=True, timeout=120, env=env)
        if r.returncode != 0:
            raise Failure("services.sh start cluster failed:\n%s" % r.stderr[-3000:])
        self.seed_url = r.stdout.strip().split("=", 1)[1]
        with open(os.path.join(self.dir, "cluster", "ports")) as f:
            self.ports = [int(p) for p in f.read().split()]

    def stop(self):
        subprocess.run(["bash", SERVICES, "stop", "cluster", "--dir", self.dir], capture_output=True, timeout=60)

    def master_of(self, key):
        slot = redis_cmd(self.ports[0], "CLUSTER", "KEYSLOT", key)
        for rng in redis_cmd(self.ports[0], "CLUSTER", "SLOTS"):
            if rng[0] <= slot <= rng[1]:
                return rng[2][1]
        raise Failure("no master serves slot %s" % slot)


def fail_over(cl, master):
    """CLUSTER FAILOVER on master's replica; returns its port once it serves master's slots
    (asked up to three times: Redis drops a manual failover that takes over 5 s)."""
    replica = next(p for p in cl.ports if (redis_cmd(p, "ROLE") or [""])[0] == "slave" and
                   redis_cmd(p, "ROLE")[2] == master)
    slot = next(r[0] for r in redis_cmd(cl.ports[0], "CLUSTER", "SLOTS") if r[2][1] == master)
    for _ in range(3):
        check(redis_cmd(replica, "CLUSTER", "FAILOVER") == "OK", "CLUSTER FAILOVER refused")
        deadline = time.time() + 10
        while time.time() < deadline:
            if any(r[0] == slot and r[2][1] == replica for r in redis_cmd(cl.ports[0], "CLUSTER", "SLOTS")):
                return replica
            time.sleep(0.1)
    raise Failure("the replica of %d did not take over" % master)


def shard_prefix(cl, i):
    """Shard i's prefix as shared/shard.c names it, the tag's slot asked of Redis itself."""
    lo, hi = i * SLOTS // SHARDS + EDGE, (i + 1) * SLOTS // SHARDS - EDGE
    for n in range(10000):
        tag = "{s%d.%d}" % (i, n)
        if lo <= redis_cmd(cl.ports[0], "CLUSTER", "KEYSLOT", tag) < hi:
            return "rc:%s:" % tag
    raise Failure("no tag for shard %d" % i)


def job_counts(cl, prefixes, crawlid):
    """Every shard's (pending, arrived, state, fetched) of the job, one shard after another."""
    out = []
    for p in prefixes:
        v = redis_cmd(cl.master_of(p), "HMGET", p + "job:" + crawlid, "pending", "arrived", "state", "fetched")
        out.append((int(v[0] or 0), int(v[1] or 0), v[2], int(v[3] or 0)))
    return out


def wait_job_end(cl, prefixes, crawlid, timeout=180):
    """The job's end as a sharded keyspace defines it: two reads of every shard in turn, both
    with pending 0 everywhere and no shard's `arrived` changed between them."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        now = job_counts(cl, prefixes, crawlid)
        if all(c[0] == 0 for c in now) and last and [c[1] for c in now] == [c[1] for c in last] \
                and all(c[0] == 0 for c in last):
            return now
        last = now
        time.sleep(0.3)
    raise Failure("job %s did not end: %s" % (crawlid, job_counts(cl, prefixes, crawlid)))


def start_fleet(tmp, procs, cl, web_port, delay, submit=True):
    """A scheduler and a worker per shard, through the cluster's seed node; the seed submitted
    to its shard. Returns (the shards' prefixes, their masters, env, the output dir, the worker
    processes by shard)."""
    prefixes = [shard_prefix(cl, i) for i in range(SHARDS)]
    masters = [cl.master_of(p) for p in prefixes]
    check(len(set(masters)) == SHARDS, "the shards' tags share masters: %s %s" % (prefixes, masters))
    env = dict(os.environ, REDCRAWL_REDIS=cl.seed_url, REDCRAWL_SHARDS=str(SHARDS))
    out = os.path.join(tmp, "out")
    workers = []
    for i in range(SHARDS):
        procs.start([SCHEDULER, "--shard", str(i), "--worker-timeout", "3"],
                    os.path.join(tmp, "scheduler%d.log" % i), env=env)
        workers.append(start_worker(tmp, procs, env, web_port, i, "w%d" % i, delay))
    if not submit:
        return prefixes, masters, env, out, workers
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "shj", "--maxdepth", "-1", SEED],
                       capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0 and "new URL" in r.stdout, "submit failed: %s %s" % (r.stdout, r.stderr))
    return prefixes, masters, env, out, workers


def start_worker(tmp, procs, env, web_port, shard, wid, delay):
    return procs.start([WORKER, "--shard", str(shard), "--id", wid, "--out", os.path.join(tmp, "out"), "--delay",
                        delay, "--connect-to", "::127.0.0.1:%d" % web_port, "--allow-net", "127.0.0.0/8"],
                       os.path.join(tmp, "worker-%s.log" % wid), env=env)


SEED = "http://s0.site.test/"
WEB_ARGS = ["--sites", "6", "--pages", "30"]  # the test web of the crawls here: 216 pages


@contextlib.contextmanager
def sharded_crawl(tmp, procs, delay, replicas=0, submit=True):
    """What the crawls here run on, stopped when the test ends: the cluster (with `replicas` per
    master), the test web (WEB_ARGS), and a scheduler and a worker per shard with --delay delay,
    the seed submitted unless submit=False (start_fleet). Yields a namespace of them: cl,
    web_port, log (the web's request log), prefixes, masters, env, out and workers."""
    cl = Cluster(tmp, replicas)
    try:
        web_port, log, _ = start_web(procs, tmp, *WEB_ARGS)
        prefixes, masters, env, out, workers = start_fleet(tmp, procs, cl, web_port, delay, submit)
        yield types.SimpleNamespace(cl=cl, web_port=web_port, log=log, prefixes=prefixes, masters=masters, env=env,
                                    out=out, workers=workers)
    finally:
        procs.stop_all()
        cl.stop()


def wait_pages_stored(f):
    """Waits for job shj's end over the shards, and checks that every expected page was stored
    and nothing else. Returns the shards' job_counts, the expected pages and a Counter of the
    URLs stored."""
    counts = wait_job_end(f.cl, f.prefixes, "shj")
    want = expected_pages(graph(*WEB_ARGS), [SEED], -1, ["site.test"])
    urls = collections.Counter(p["url"] for p in read_pages(os.path.join(f.out, "pages.jsonl")))
    missing, extra = set(want) - set(urls), set(urls) - set(want)
    check(not missing and not extra, "%d missing (e.g. %s), %d unexpected" %
          (len(missing), sorted(missing)[:3], len(extra)))
    return counts, want, urls


def test_one_job_over_three_masters(tmp, procs):
    with sharded_crawl(tmp, procs, "0") as f:
        counts = wait_job_end(f.cl, f.prefixes, "shj")
        want = expected_pages(graph(*WEB_ARGS), [SEED], -1, ["site.test"])
        pages = read_pages(os.path.join(f.out, "pages.jsonl"))
        urls = collections.Counter(p["url"] for p in pages)
        dups = [u for u, n in urls.items() if n > 1]
        check(not dups, "%d pages stored more than once, e.g. %s" % (len(dups), dups[:3]))
        missing, extra = set(want) - set(urls), set(urls) - set(want)
        check(not missing and not extra, "%d missing (e.g. %s), %d unexpected (e.g. %s)" %
              (len(missing), sorted(missing)[:3], len(extra), sorted(extra)[:3]))
        asked = collections.Counter((q[2], q[3]) for q in read_requests(f.log) if not q[3].startswith("/robots.txt"))
        twice = [k for k, n in asked.items() if n > 1]
        check(not twice, "%d URLs requested more than once, e.g. %s" % (len(twice), twice[:3]))
        check(len(asked) == len(want), "%d URLs requested, want %d" % (len(asked), len(want)))
        # Each shard did its hosts' share, and says the job is done there.
        check(all(c[3] > 0 for c in counts), "a shard fetched nothing: %s" % counts)
        check(sum(c[3] for c in counts) == len(want), "fetched %s, want %d in all" % (counts, len(want)))
        check(all(c[2] == "done" for c in counts), "a shard's job is not done: %s" % counts)
        # Each master holds its shard's keys and no other's; the outboxes are empty.
        for p, m in zip(f.prefixes, f.masters):
            keys = redis_cmd(m, "KEYS", "*")
            check(keys and all(k.startswith(p) for k in keys), "keys on %d outside %s: %s" %
                  (m, p, [k for k in keys if not k.startswith(p)][:5]))
            check(p + "job:shj" in keys and p + "bloom:shj:0" in keys, "no job or bloom of shard %s on %d" % (p, m))
            check(not any(k.startswith(p + "out:") for k in keys), "an outbox of %s is not empty" % p)
        # redcrawl info over the shards: their counts summed, the job done.
        r = subprocess.run([REDCRAWL, "info", "--json", "shj"], capture_output=True, text=True, env=f.env, timeout=30)
        info = json.loads(r.stdout) if r.returncode == 0 else {}
        check(info.get("fetched") == len(want) and info.get("pending") == 0 and info.get("state") == "done" and
              "error" not in info, "info over the shards: %s %s" % (r.stdout, r.stderr[-300:]))
        # redcrawl status over the shards: every shard's worker, the job once, its counts summed
        r = subprocess.run([REDCRAWL, "status", "--json", "--interval", "0.1"], capture_output=True, text=True,
                           env=f.env, timeout=30)
        st = json.loads(r.stdout) if r.returncode == 0 else {}
        check(sorted(w.get("shard") for w in st.get("workers", [])) == list(range(SHARDS)),
              "status workers: %s %d %s %s" % (st.get("workers"), r.returncode, r.stdout[:300], r.stderr[-300:]))
        jobs = [j for j in st.get("jobs", []) if j["crawlid"] == "shj"]
        check(len(jobs) == 1 and jobs[0]["fetched"] == len(want) and jobs[0]["pending"] == 0 and
              jobs[0]["state"] == "done", "status jobs: %s" % st.get("jobs"))
        check(sum(st["statuses"]["total"].values()) == len(want), "status statuses: %s" % st["statuses"])
        check(len(st["shards"]) == SHARDS and all(x["scheduler"] for x in st["shards"]),
              "status shards: %s" % st["shards"])
        r = subprocess.run([REDCRAWL, "status", "--count", "1"], capture_output=True, text=True, env=f.env, timeout=30)
        check(r.returncode == 0 and "shard 2" in r.stdout and "shj" in r.stdout, "status view: %s" % r.stdout)
        # redcrawl-web's REST API over the shards: the info summed, the status merged
        import webapi
        port, _, _ = webapi.start_webapp(procs, tmp, 0, "--redis", f.cl.seed_url, "--shards", str(SHARDS))
        code, a = webapi.call(port, "POST", "/api/info", {"appid": "redcrawl-cli", "spiderid": "link",
                                                              "crawlid": "shj"})
        check(code == 200 and a.get("fetched") == len(want) and a.get("state") == "done", "/api/info: %s %s" %
              (code, a))
        code, a = webapi.call(port, "GET", "/api/status")
        jobs = [j for j in a.get("jobs", []) if j["crawlid"] == "shj"] if code == 200 else []
        check(len(jobs) == 1 and jobs[0]["fetched"] == len(want) and len(a["workers"]) == SHARDS and
              sum(t["pages"] for t in a["throughput"]) == len(want), "/api/status: %s %s" % (code, a))
        by_worker = collections.Counter(p.get("worker") for p in pages)
        print("  %d pages on masters %s, fetched per shard %s, stored by %s" %
              (len(want), f.masters, [c[3] for c in counts], dict(by_worker)))


def stop_and_wait(f, after):
    """`redcrawl stop --wait` of job shj once the shards' fetched counts sum to `after`: it
    returns once nothing is in flight, no shard has pending left, and nothing is fetched in the
    2 s after. The shards' job counts at the stop."""
    deadline = time.time() + 60
    while time.time() < deadline and sum(c[3] for c in job_counts(f.cl, f.prefixes, "shj")) < after:
        time.sleep(0.1)
    r = subprocess.run([REDCRAWL, "stop", "--wait", "--timeout", "60", "shj"], capture_output=True, text=True,
                       env=f.env, timeout=90)
    check(r.returncode == 0 and "nothing in flight any more" in r.stdout, "stop --wait: %s %s" %
          (r.stdout, r.stderr[-500:]))
    counts = job_counts(f.cl, f.prefixes, "shj")
    check(all(c[0] == 0 for c in counts), "pending left after stop --wait: %s" % counts)
    asked = len(read_requests(f.log))
    time.sleep(2)
    check(len(read_requests(f.log)) == asked, "pages fetched after stop --wait returned")
    return counts


def test_stop_over_shards(tmp, procs):
    """`redcrawl stop --shards 3 --wait` mid-crawl: it returns once nothing of the job is in
    flight or travelling in any shard (rc_shard_end_round), and nothing is fetched after."""
    with sharded_crawl(tmp, procs, "0.3") as f:
        counts = stop_and_wait(f, 20)
        check(sum(1 for c in counts if c[3] > 0) >= 2, "the job did not spread over shards: %s" % counts)
        check(all(c[2] in ("stopped", "done", None) for c in counts), "a shard still runs the job: %s" % counts)
        for p, m in zip(f.prefixes, f.masters):
            check(not redis_cmd(m, "KEYS", p + "out:*"), "an outbox of %s is not empty" % p)
        pages = read_pages(os.path.join(f.out, "pages.jsonl"))
        urls = collections.Counter(p["url"] for p in pages)
        check(all(n == 1 for n in urls.values()), "a page stored twice")
        fetched = sum(c[3] for c in counts)
        check(len(urls) == fetched and fetched < 216, "stored %d, fetched %s" % (len(urls), counts))
        print("  stopped after %d of 216 pages, per shard %s" % (fetched, [c[3] for c in counts]))


def test_worker_killed_in_a_shard(tmp, procs):
    """A shard's worker SIGKILLed mid-crawl and another started for that shard: that shard's
    scheduler reaps the dead one (the other shards know nothing of it), its leases and hosts go
    to the new one; every page is stored, the job ends over all shards."""
    with sharded_crawl(tmp, procs, "0.05") as f:
        deadline = time.time() + 60
        while time.time() < deadline and job_counts(f.cl, f.prefixes, "shj")[0][3] < 20:
            time.sleep(0.05)
        f.workers[0].kill()  # a process this test started
        f.workers[0].wait()
        killed_at = job_counts(f.cl, f.prefixes, "shj")[0][3]
        start_worker(tmp, procs, f.env, f.web_port, 0, "w0b", "0.05")
        counts, want, urls = wait_pages_stored(f)
        again = sum(n - 1 for n in urls.values())
        check(again <= 32, "%d pages stored again: more than the dead worker could hold in flight" % again)
        logs = [open(os.path.join(tmp, "scheduler%d.log" % i)).read() for i in range(SHARDS)]
        check("worker=w0 " in logs[0] and "worker gone" in logs[0], "shard 0's scheduler did not reap w0")
        check(not any("worker=w0 " in t for t in logs[1:]), "another shard's scheduler knew w0")
        check(all(c[2] == "done" and c[0] == 0 for c in counts), "the job did not end: %s" % counts)
        print("  w0 killed after %d pages of shard 0; %d stored again; per shard %s" %
              (killed_at, again, [c[3] for c in counts]))


def test_failover_of_a_shard(tmp, procs):
    """A manual failover of one shard's master mid-crawl (3 masters with a replica each): that
    shard's scheduler and worker, and the other shards' schedulers forwarding links to it, follow
    it to the promoted replica; every page is fetched and stored exactly once."""
    with sharded_crawl(tmp, procs, "0.05", replicas=1) as f:
        deadline = time.time() + 60
        while time.time() < deadline and sum(c[3] for c in job_counts(f.cl, f.prefixes, "shj")) < 30:
            time.sleep(0.05)
        before = job_counts(f.cl, f.prefixes, "shj")[0][3]
        moved_to = fail_over(f.cl, f.masters[0])
        check(f.cl.master_of(f.prefixes[0]) == moved_to, "shard 0 did not move")
        counts, want, urls = wait_pages_stored(f)
        check(all(n == 1 for n in urls.values()), "pages stored twice: %s" % [u for u, n in urls.items() if n > 1][:3])
        asked = collections.Counter((q[2], q[3]) for q in read_requests(f.log) if not q[3].startswith("/robots.txt"))
        check(all(n == 1 for n in asked.values()) and len(asked) == len(want), "requests: %d for %d pages" %
              (sum(asked.values()), len(want)))
        print("  shard 0 moved from %d to %d after %d of its pages; per shard %s" %
              (f.masters[0], moved_to, before, [c[3] for c in counts]))


def shard_of(env, host):
    """(shard, prefix) of a host, as `redcrawl shard` says."""
    r = subprocess.run([REDCRAWL, "shard", host], capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0, "redcrawl shard: %s" % r.stderr)
    f = r.stdout.split()
    return int(f[0]), f[1]


def test_forward_drops_what_fails(tmp, procs):
    """Shards side by side on one plain Redis: an outbox line that is not a worker's (its record
    unreadable) is dropped, said and counted in its job's `dropped`, instead of holding the
    outbox for ever or leaving half a submit.lua done; the other job's line behind it is
    forwarded, its shard getting the job."""
    port, _ = start_redis(procs, tmp)
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % port, REDCRAWL_SHARDS="2")
    hosts = {}
    for n in range(50):
        s, p = shard_of(env, "h%d.test" % n)
        hosts.setdefault(s, ("h%d.test" % n, p))
    (h0, p0), (h1, p1) = hosts[0], hosts[1]
    for job in ("bad", "good"):
        r = subprocess.run([REDCRAWL, "submit", "--crawlid", job, "http://%s/" % h0], capture_output=True,
                           text=True, env=env, timeout=30)
        check(r.returncode == 0, "submit: %s" % r.stderr)
    hashes = "\t".join(str(1000 + i) for i in range(16))
    redis_cmd(port, "RPUSH", p0 + "out:1", "bad\tnot a record\t" + hashes,
              "good\tgood 1 1 0 http://%s/x\t%s" % (h1, hashes))
    for job in ("bad", "good"):
        redis_cmd(port, "HINCRBY", p0 + "job:" + job, "pending", "1")
    procs.start([SCHEDULER, "--shard", "0"], os.path.join(tmp, "scheduler.log"), env=env)
    deadline = time.time() + 20
    while time.time() < deadline and redis_cmd(port, "LLEN", p0 + "out:1") != 0:
        time.sleep(0.1)
    check(redis_cmd(port, "LLEN", p0 + "out:1") == 0, "the outbox was not emptied")
    check(redis_cmd(port, "HGET", p0 + "job:bad", "dropped") == "1", "the failing line was not counted dropped: %s" %
          redis_cmd(port, "HGETALL", p0 + "job:bad"))
    check(redis_cmd(port, "HGET", p0 + "job:bad", "pending") == redis_cmd(port, "HGET", p0 + "job:good", "pending"),
          "the lines were not counted off their jobs' pending alike")
    check(redis_cmd(port, "HGET", p1 + "job:good", "pending") == "1", "the good line did not reach shard 1")
    check(redis_cmd(port, "EXISTS", p1 + "job:bad") == 0, "the failing line made its job in shard 1")
    log = open(os.path.join(tmp, "scheduler.log")).read()
    check("dropped" in log and "job bad" in log, "the drop was not said: %s" % log[-500:])


def test_crawl_refuses_shards(tmp, procs):
    """`redcrawl crawl` runs one keyspace: with REDCRAWL_SHARDS in its environment (its workers
    and scheduler would read it and wait on shards nobody runs) it refuses, saying why."""
    env = dict(os.environ, REDCRAWL_SHARDS="3")
    r = subprocess.run([REDCRAWL, "crawl", "--out", os.path.join(tmp, "out"), "http://s0.site.test/"],
                       capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 2 and "REDCRAWL_SHARDS=3" in r.stderr and "one keyspace" in r.stderr,
          "crawl with REDCRAWL_SHARDS: %d %s" % (r.returncode, r.stderr[-300:]))


def test_kafka_over_three_masters(tmp, procs):
    """A crawl request posted to Kafka (kcat, as any client) for a job over 3 shards: the
    monitor (--shards 3) sends it to its seed's shard, the per-shard schedulers and workers crawl
    every expected page once, an info request over Kafka is answered with the shards' counts
    summed, and a domain update reaches every shard."""
    import test_kafka as tk
    with sharded_crawl(tmp, procs, "0", submit=False) as f:
        broker = tk.kafka(tmp)
        try:
            menv = dict(f.env, REDCRAWL_KAFKA=broker)
            mlog = os.path.join(tmp, "monitor.log")
            mon = procs.start([tk.MONITOR, "--session-timeout", "3000"], mlog, env=menv)
            tk.wait_for(lambda: check(mon.poll() is None, "the monitor exited: see %s" % mlog) or
                        "partitions assigned" in open(mlog, errors="replace").read(), 30, "the monitor's partitions")
            tk.kcat_produce(broker, "redcrawl.incoming", [json.dumps({
                "uuid": "k-crawl", "appid": "kapp", "crawlid": "kj", "url": SEED, "maxdepth": -1,
                "allowed_domains": ["site.test"]})])
            a = tk.by_uuid(tk.wait_answers(broker, "redcrawl.outbound_firehose", ["k-crawl"]))["k-crawl"][0]
            check(a.get("status") == "accepted" and a.get("added") == 1, "crawl answer: %s" % a)
            seed_shard = int(subprocess.run([REDCRAWL, "shard", "s0.site.test"], capture_output=True, text=True,
                                            env=f.env, timeout=30).stdout.split()[0])
            counts = wait_job_end(f.cl, f.prefixes, "kj")
            want = expected_pages(graph(*WEB_ARGS), [SEED], -1, ["site.test"])
            pages = read_pages(os.path.join(f.out, "pages.jsonl"))
            urls = collections.Counter(p["url"] for p in pages)
            check(all(n == 1 for n in urls.values()), "a page stored twice")
            check(set(urls) == set(want), "%d stored, want %d" % (len(urls), len(want)))
            check(all(c[3] > 0 for c in counts), "a shard fetched nothing: %s" % counts)
            check(redis_cmd(f.masters[seed_shard], "HGET", f.prefixes[seed_shard] + "job:kj", "appid") == "kapp",
                  "the job's seed shard %d has no job kj from the request" % seed_shard)
            # info over Kafka: the shards' counts summed
            tk.kcat_produce(broker, "redcrawl.incoming", [json.dumps({
                "uuid": "k-info", "appid": "kapp", "spiderid": "link", "action": "info", "crawlid": "kj"})])
            a = tk.by_uuid(tk.wait_answers(broker, "redcrawl.outbound_firehose", ["k-info"]))["k-info"][0]
            check(a.get("fetched") == len(want) and a.get("pending") == 0 and a.get("state") == "done" and
                  "error" not in a, "info over Kafka: %s (fetched per shard %s)" % (a, [c[3] for c in counts]))
            # a domain update over Kafka: in every shard
            tk.kcat_produce(broker, "redcrawl.incoming", [json.dumps({
                "uuid": "k-dom", "appid": "kapp", "action": "domain-update", "domain": "site.test", "hits": 3,
                "window": 60})])
            tk.wait_answers(broker, "redcrawl.outbound_firehose", ["k-dom"])
            for p, m in zip(f.prefixes, f.masters):
                check(redis_cmd(m, "HGET", p + "domainconf", "site.test") is not None, "no domainconf in %s" % p)
            print("  %d pages via Kafka, fetched per shard %s, seed in shard %d" %
                  (len(want), [c[3] for c in counts], seed_shard))
        finally:
            procs.stop_all()  # the monitor before its broker
            tk.kafka(tmp, "stop")


def test_max_pages_over_shards(tmp, procs):
    """max_pages is one cap for the whole job, not each shard's: a job of max_pages 40 over 3
    shards (216 pages in the test web) fetches and stores exactly 40 pages, each once, and ends
    (the URLs over the budget dropped once it is gone for good: ARCHITECTURE.md "Shards"); a
    job of max_pages 1000 fetches all 216 and ends."""
    cap = 40
    with sharded_crawl(tmp, procs, "0", submit=False) as f:
        r = subprocess.run([REDCRAWL, "submit", "--crawlid", "shj", "--maxdepth", "-1", "--max-pages", str(cap),
                            SEED], capture_output=True, text=True, env=f.env, timeout=30)
        check(r.returncode == 0 and "new URL" in r.stdout, "submit failed: %s %s" % (r.stdout, r.stderr))
        counts = wait_job_end(f.cl, f.prefixes, "shj")
        urls = collections.Counter(p["url"] for p in read_pages(os.path.join(f.out, "pages.jsonl")))
        check(all(n == 1 for n in urls.values()), "a page stored twice")
        fetched = sum(c[3] for c in counts)
        check(sum(1 for c in counts if c[3] > 0) >= 2, "the job did not spread over shards: %s" % counts)
        check(fetched == cap and len(urls) == cap, "fetched %s (%d in all), stored %d, want %d" %
              (counts, fetched, len(urls), cap))
        asked = [q for q in read_requests(f.log) if not q[3].startswith("/robots.txt")]
        check(len(asked) == cap, "%d pages requested, want %d" % (len(asked), cap))
        # A budget above what the web holds: every page, the shards' allowances they did not
        # use given back, and the job ends.
        r = subprocess.run([REDCRAWL, "submit", "--crawlid", "shk", "--maxdepth", "-1", "--max-pages", "1000",
                            SEED], capture_output=True, text=True, env=f.env, timeout=30)
        check(r.returncode == 0 and "new URL" in r.stdout, "submit failed: %s %s" % (r.stdout, r.stderr))
        big = wait_job_end(f.cl, f.prefixes, "shk")
        check(sum(c[3] for c in big) == 216, "fetched %s of 216 with max_pages 1000" % big)
        print("  %d pages of max_pages %d, per shard %s; %d of 1000" % (fetched, cap, [c[3] for c in counts],
                                                                          sum(c[3] for c in big)))


def test_stop_with_max_pages_over_shards(tmp, procs):
    """A job with a max_pages budget over the shards stopped mid-crawl, shards holding URLs over
    their allowance among them: `stop --wait` returns, nothing is fetched after, and the job
    fetched no more than its max_pages."""
    cap = 60
    with sharded_crawl(tmp, procs, "0.3", submit=False) as f:
        r = subprocess.run([REDCRAWL, "submit", "--crawlid", "shj", "--maxdepth", "-1", "--max-pages", str(cap),
                            SEED], capture_output=True, text=True, env=f.env, timeout=30)
        check(r.returncode == 0 and "new URL" in r.stdout, "submit failed: %s %s" % (r.stdout, r.stderr))
        counts = stop_and_wait(f, 15)
        fetched = sum(c[3] for c in counts)
        check(15 <= fetched <= cap, "fetched %s (%d in all) with max_pages %d" % (counts, fetched, cap))
        print("  stopped after %d pages of max_pages %d, per shard %s" % (fetched, cap, [c[3] for c in counts]))


if __name__ == "__main__":
    run_tests([test_one_job_over_three_masters, test_stop_over_shards, test_worker_killed_in_a_shard,
               test_failover_of_a_shard, test_forward_drops_what_fails, test_crawl_refuses_shards,
               test_kafka_over_three_masters, test_max_pages_over_shards,
               test_stop_with_max_pages_over_shards])
