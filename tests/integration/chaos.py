#!/usr/bin/env python3
"""Chaos crawl: a fleet (scheduler + N workers, started by hand) crawls the test web while a
bounded loop, every few seconds, SIGKILLs a random worker (and starts a new one) or SIGSTOPs
one for longer than the worker timeout; Redis (AOF) is restarted once and the scheduler killed
once; the long form also fills the output disk for a while and, with --mongo, restarts the
MongoDB-compatible store (FerretDB, scripts/services.sh). At the end every sink must hold
exactly the expected page set (from the test server's graph): none missing, none twice, no
corrupt line; and no page was fetched more often than once plus the faults that could have
interrupted it. Prints the counts; exit status 0 when all hold.

Used by tests/integration/test_faults.py (short form) and scripts/chaos.sh (long form)."""
import argparse
import collections
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import (REDCRAWL, SCHEDULER, WORKER, Failure, Procs, expected_pages, graph,  # noqa: E402
                     read_requests, redis_cmd, free_port, start_web)

WORKER_TIMEOUT = 3


class Fleet:
    def __init__(self, tmp, procs, web_port, workers, out, mongo=None, kafka=None):
        self.tmp, self.procs, self.web_port, self.out, self.mongo = tmp, procs, web_port, out, mongo
        self.kafka = kafka
        self.redis_port = free_port()
        self.redis = None
        self.start_redis()
        self.env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % self.redis_port)
        for name in ("REDCRAWL_KAFKA", "REDCRAWL_MONGO"):  # sinks by flag; submit in embedded mode
            self.env.pop(name, None)
        self.scheduler = None
        self.start_scheduler()
        self.n_started = 0
        self.workers = [self.start_worker() for _ in range(workers)]

    def start_redis(self):
        self.redis = self.procs.start(["redis-server", "--bind", "127.0.0.1", "--port", str(self.redis_port),
                                       "--save", "", "--appendonly", "yes", "--appendfsync", "everysec",
                                       "--dir", self.tmp], os.path.join(self.tmp, "redis.log"))
        deadline = time.time() + 20
        while time.time() < deadline and redis_cmd(self.redis_port, "PING") != "PONG":
            time.sleep(0.05)
        if redis_cmd(self.redis_port, "PING") != "PONG":
            raise Failure("redis-server did not start")

    def start_scheduler(self):
        self.scheduler = self.procs.start([SCHEDULER, "--worker-timeout", str(WORKER_TIMEOUT)],
                                          os.path.join(self.tmp, "scheduler.log"), env=self.env)

    def start_worker(self):
        self.n_started += 1
        argv = [WORKER, "--out", self.out, "--delay", "0", "--heartbeat", "0.5", "--lease-seconds", "20",
                "--concurrency", "16", "--connect-to", "::127.0.0.1:%d" % self.web_port,
                "--allow-net", "127.0.0.0/8"]
        if self.mongo:
            argv += ["--mongo", self.mongo]
        if self.kafka:
            argv += ["--firehose", "--kafka", self.kafka, "--topic-prefix", "chaos"]
        return self.procs.start(argv, os.path.join(self.tmp, "worker%d.log" % self.n_started), env=self.env)

    def job(self, field):
        v = redis_cmd(self.redis_port, "HGET", "rc:job:chaos", field)
        return v if isinstance(v, str) else None


def fill_disk(path):
    n = 0
    with open(path, "wb", buffering=0) as f:
        chunk = b"x" * 65536
        while True:
            try:
                w = f.write(chunk)
            except OSError:
                break
            n += w
            if w < len(chunk):
                chunk = chunk[:max(1, w // 2)] if w else b"x"
    return n


def chaos_loop(fleet, opts, counts, log):
    """Faults every opts.every seconds until the job is done or opts.max_seconds pass."""
    rnd = random.Random(opts.seed)
    deadline = time.time() + opts.max_seconds
    plan = ["redis", "scheduler"] + (["disk"] if opts.disk else []) + (["mongo"] if opts.mongo else []) + \
        (["kafka"] if opts.kafka else [])
    next_fault = time.time() + opts.every
    disk_filled_at = None
    done_one_offs = len(plan)
    while time.time() < deadline and fleet.job("state") != "done":
        time.sleep(0.2)
        if disk_filled_at and time.time() - disk_filled_at > 8:
            os.unlink(os.path.join(opts.disk, "filler"))
            disk_filled_at = None
            log("disk freed")
        if time.time() < next_fault:
            continue
        next_fault = time.time() + opts.every
        fetched = int(fleet.job("fetched") or 0)
        # The one-off faults come once the crawl is well under way, one per round.
        if plan and fetched > opts.pages_total * (0.15 + 0.13 * (done_one_offs - len(plan))):
            what = plan.pop(0)
            if what == "redis":
                fleet.procs.stop(fleet.redis)  # SIGTERM: Redis writes its AOF and exits
                fleet.start_redis()
            elif what == "scheduler":
                fleet.procs.stop(fleet.scheduler, signal.SIGKILL)
                fleet.start_scheduler()
            elif what == "disk":
                fill_disk(os.path.join(opts.disk, "filler"))
                disk_filled_at = time.time()
            elif what in ("mongo", "kafka"):
                subprocess.run([os.path.join(opts.source, "scripts", "services.sh"), "restart", what,
                                "--dir", opts.services_dir], capture_output=True, timeout=300)
            counts[what] += 1
            log("fault: %s restarted/filled at %d pages" % (what, fetched))
            continue
        i = rnd.randrange(len(fleet.workers))
        p = fleet.workers[i]
        if rnd.random() < 0.5:
            fleet.procs.stop(p, signal.SIGKILL)
            fleet.workers[i] = fleet.start_worker()
            counts["sigkill"] += 1
            log("fault: worker %d SIGKILLed at %d pages" % (p.pid, fetched))
        else:
            os.kill(p.pid, signal.SIGSTOP)
            time.sleep(WORKER_TIMEOUT + 2)
            os.kill(p.pid, signal.SIGCONT)
            counts["sigstop"] += 1
            log("fault: worker %d SIGSTOPped %ds at %d pages" % (p.pid, WORKER_TIMEOUT + 2, fetched))
    if disk_filled_at:
        os.unlink(os.path.join(opts.disk, "filler"))


def jsonl_counts(path, want):
    recs, corrupt = [], 0
    if os.path.exists(path):
        with open(path, "rb") as f:
            for line in f:
                try:
                    recs.append(json.loads(line))
                except ValueError:
                    corrupt += 1
    ids = collections.Counter(r["_id"] for r in recs)
    urls = {r["url"] for r in recs}
    return {"records": len(recs), "missing": len(set(want) - urls), "unexpected": len(urls - set(want)),
            "duplicated": sum(n - 1 for n in ids.values() if n > 1), "corrupt": corrupt}


def mongo_counts(uri, want):
    """Pages in the MongoDB sink: count, URLs stored twice (by a group on url)."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
    import mongo_ping
    host, port = mongo_ping.parse_address(uri)
    conn = mongo_ping.Conn(host, port, 60)
    n = conn.command({"count": "pages", "query": {"crawlid": "chaos"}, "$db": "redcrawl"}).get("n", -1)
    r = conn.command({"aggregate": "pages", "pipeline": [
        {"$match": {"crawlid": "chaos"}}, {"$group": {"_id": "$url", "n": {"$sum": 1}}},
        {"$match": {"n": {"$gt": 1}}}], "cursor": {}, "$db": "redcrawl"})
    dups = sum(d["n"] - 1 for d in r.get("cursor", {}).get("firstBatch", []))
    distinct = n - dups
    return {"records": n, "missing": max(len(want) - distinct, 0), "unexpected": max(distinct - len(want), 0),
            "duplicated": dups, "corrupt": 0}


def kafka_counts(brokers, want):
    """The firehose is at least once (consumers dedupe by key): every page's key must be there;
    repeated deliveries are counted, not failed."""
    r = subprocess.run(["kcat", "-C", "-b", brokers, "-t", "chaos.crawled_firehose", "-e", "-q", "-f", "%k\t%s\n"],
                       capture_output=True, text=True, timeout=300)
    urls = []
    for line in r.stdout.splitlines():
        try:
            urls.append(json.loads(line.split("\t", 1)[1])["url"])
        except (ValueError, IndexError, KeyError):
            pass
    c = collections.Counter(u for u in urls if u in want or "/" in u)
    pages = {u for u in c if u in want}
    return {"records": len(urls), "missing": len(set(want) - pages), "unexpected": 0,
            "redelivered (at least once)": sum(n - 1 for n in c.values() if n > 1), "corrupt": 0}


def fetch_counts(log_path, faults_that_interrupt):
    """Fetches per page from the server's log: at most once plus the faults that could have
    interrupted it (each kill, stall, or restart may cut a fetch short or void its result)."""
    per = collections.Counter((r[2], r[3]) for r in read_requests(log_path) if r[3] != "/robots.txt")
    extra = sum(n - 1 for n in per.values())
    worst = max(per.values()) if per else 0
    return {"fetched_urls": len(per), "refetched_urls": sum(1 for n in per.values() if n > 1),
            "extra_fetches": extra, "max_fetches_of_one_url": worst, "bound": 1 + faults_that_interrupt}


def run(tmp, procs, opts, log=print):
    web_args = ["--sites", str(opts.sites), "--pages", str(opts.pages), "--latency-ms", str(opts.latency)]
    web_port, req_log, _ = start_web(procs, tmp, *web_args)
    seeds = ["http://s%d.site.test/" % i for i in range(opts.sites)]
    want = expected_pages(graph(*web_args), seeds, -1, ["site.test"])
    opts.pages_total = len(want)
    out = os.path.join(opts.disk or tmp, "out")
    fleet = Fleet(tmp, procs, web_port, opts.workers, out, opts.mongo, opts.kafka)
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "chaos", "--maxdepth", "-1"] + seeds,
                       capture_output=True, text=True, env=fleet.env, timeout=30)
    if r.returncode != 0:
        raise Failure("submit failed: %s %s" % (r.stdout, r.stderr))
    counts = collections.Counter()
    t0 = time.time()
    chaos_loop(fleet, opts, counts, log)
    deadline = time.time() + opts.max_seconds
    while time.time() < deadline and fleet.job("state") != "done":
        time.sleep(0.5)
    result = {"expected_pages": len(want), "state": fleet.job("state"), "seconds": round(time.time() - t0, 1),
              "faults": dict(counts)}
    procs.stop_all()
    result["jsonl"] = jsonl_counts(os.path.join(out, "pages.jsonl"), want)
    if opts.mongo:
        result["mongodb"] = mongo_counts(opts.mongo, want)
    if opts.kafka:
        result["kafka"] = kafka_counts(opts.kafka, want)
    interrupting = sum(counts.values())
    result["server"] = fetch_counts(req_log, interrupting)
    return result


def verdict(res):
    bad = []
    if res["state"] != "done":
        bad.append("job not done: %s" % res["state"])
    for sink in ("jsonl", "mongodb", "kafka"):
        c = res.get(sink)
        if c and (c["missing"] or c["unexpected"] or c.get("duplicated") or c["corrupt"]):
            bad.append("%s: %s" % (sink, c))
    s = res["server"]
    if s["max_fetches_of_one_url"] > s["bound"]:
        bad.append("a page fetched %d times (bound %d)" % (s["max_fetches_of_one_url"], s["bound"]))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sites", type=int, default=50)
    ap.add_argument("--pages", type=int, default=120)
    ap.add_argument("--latency", type=int, default=5)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--every", type=float, default=4.0, help="seconds between faults")
    ap.add_argument("--max-seconds", type=float, default=900)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--disk", help="a mounted small filesystem for the output, filled once for 8 s")
    ap.add_argument("--mongo", help="MongoDB URI (FerretDB from scripts/services.sh), restarted once")
    ap.add_argument("--kafka", help="Kafka brokers (scripts/services.sh): workers also produce the firehose; "
                    "the broker is restarted once")
    ap.add_argument("--services-dir", default=os.environ.get("REDCRAWL_SERVICES_DIR", ""))
    ap.add_argument("--source", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    ap.add_argument("--keep", action="store_true", help="keep the temp dir")
    opts = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="rc-chaos-")
    procs = Procs()
    try:
        res = run(tmp, procs, opts, log=lambda m: print("chaos: " + m, flush=True))
    finally:
        procs.stop_all()
    print(json.dumps(res, indent=1))
    bad = verdict(res)
    print("chaos: %s%s (files in %s)" % ("PASS" if not bad else "FAIL: ", "; ".join(bad), tmp))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
