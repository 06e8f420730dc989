#!/usr/bin/env python3
"""Submit-to-stored latency (SpiderDuck's figure): N single-URL crawl requests posted one by one
to Kafka at a steady rate into an idle fleet (monitor, scheduler, workers: the release build), each
request's time from the moment the producer is handed the message to the moment its page record is in the
JSON Lines file. Prints one JSON line per run and the median / p90 / p99 / max.

Everything is on loopback: a real Kafka broker (scripts/services.sh), redis-server, the test web.
    tests/bench/latency.py [--requests N] [--rate PER_S] [--hosts H] [--workers W] [--delay S]
                           [--robots-delay S]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import confluent_kafka  # scripts/bench_latency.sh runs this in a venv that has it

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
os.environ.setdefault("REDCRAWL_BUILD", os.path.join(HERE, "..", "..", "build"))

from harness import Procs, check, start_redis, start_web  # noqa: E402
from test_kafka import kafka, start_monitor, SCHEDULER, WORKER  # noqa: E402

TOPIC = "redcrawl.incoming"
POLL = []
LOGLEVEL = ["--log-level", os.environ.get("RC_LOG_LEVEL", "info")]


class Tail(threading.Thread):
    """Follows pages.jsonl as it grows and notes when each crawl id's record arrived."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path, self.seen, self.stop = path, {}, False

    def run(self):
        while not os.path.exists(self.path) and not self.stop:
            time.sleep(0.001)
        buf = b""
        with open(self.path, "rb") as f:
            while not self.stop:
                chunk = f.read()
                if not chunk:
                    time.sleep(0.0005)
                    continue
                now = time.monotonic()
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    if line.strip():
                        self.seen.setdefault(json.loads(line)["crawlid"], now)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def summary(xs):
    if not xs:
        return {}
    return {"n": len(xs), "median_ms": round(pct(xs, 50), 1), "p90_ms": round(pct(xs, 90), 1),
            "p99_ms": round(pct(xs, 99), 1), "max_ms": round(max(xs), 1)}


def run(args, tmp, procs):
    broker = kafka(tmp)
    try:
        redis_port, _ = start_redis(procs, tmp)
        POLL[:] = ["--poll-only"] if args.poll_only else []
        pages = max(1, args.requests // args.hosts + 1)
        web_port, _, _ = start_web(procs, tmp, "--sites", str(args.hosts), "--pages", str(pages))
        start_monitor(procs, tmp, broker, redis_port)
        env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
        procs.start([SCHEDULER] + LOGLEVEL + POLL, os.path.join(tmp, "scheduler.log"), env=env)
        out = os.path.join(tmp, "out")
        robots_delay = [] if args.robots_delay is None else ["--robots-delay", str(args.robots_delay)]
        for i in range(args.workers):
            procs.start([WORKER, "--out", out, "--delay", str(args.delay), "--connect-to", "::127.0.0.1:%d" % web_port, "--allow-net",
                         "127.0.0.0/8"] + robots_delay + LOGLEVEL + POLL, os.path.join(tmp, "worker%d.log" % i), env=env)
        tail = Tail(os.path.join(out, "pages.jsonl"))
        tail.start()
        producer = confluent_kafka.Producer({"bootstrap.servers": broker, "linger.ms": 0})
        time.sleep(2)  # the workers register; the fleet is idle from here on
        sent = {}
        trace = open(os.path.join(tmp, "sent.log"), "w")  # wall-clock submit times, beside the logs
        t0 = time.monotonic()
        for i in range(args.requests):
            due = t0 + i / args.rate
            time.sleep(max(0.0, due - time.monotonic()))
            cid = "lat%d" % i
            k = i // args.hosts
            url = "http://s%d.site.test/%s" % (i % args.hosts, "p/%d" % k if k else "")
            msg = {"appid": "bench", "crawlid": cid, "url": url, "maxdepth": 0}
            sent[cid] = time.monotonic()
            trace.write("%.6f %s %s\n" % (time.time(), cid, url))
            producer.produce(TOPIC, json.dumps(msg).encode())
            producer.poll(0)
        producer.flush(30)
        del producer  # before the broker stops: no reconnect noise
        trace.close()
        deadline = time.monotonic() + 60
        while len(tail.seen) < args.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        tail.stop = True
        lat = {c: (tail.seen[c] - sent[c]) * 1000.0 for c in sent}
        missing = sorted(set(sent) - set(tail.seen), key=lambda c: int(c[3:]))
        check(not missing, "%d of %d requests were not stored within 60 s: %s" % (len(missing), args.requests, missing[:20]))
        # A host's first request waits for its robots.txt and then the politeness delay (or the
        # --robots-delay).
        first = [lat["lat%d" % i] for i in range(min(args.hosts, args.requests))]
        known = [lat["lat%d" % i] for i in range(args.hosts, args.requests)]
        return {"requests": args.requests, "rate_per_s": args.rate, "hosts": args.hosts,
                "workers": args.workers, "nudges": not args.poll_only, "delay_s": args.delay,
                "robots_delay_s": args.robots_delay, "all": summary(list(lat.values())),
                "host_known": summary(known), "host_first": summary(first)}
    finally:
        procs.stop_all()
        kafka(tmp, "stop")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--rate", type=float, default=20.0, help="requests per second")
    ap.add_argument("--hosts", type=int, default=50)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--delay", type=float, default=1.0, help="the workers' --delay (politeness), s")
    ap.add_argument("--robots-delay", type=float, help="the workers' --robots-delay, s (default: theirs, the delay)")
    ap.add_argument("--poll-only", action="store_true", help="scheduler and workers without nudges")
    ap.add_argument("--keep", metavar="DIR", help="keep the logs in DIR (a new directory)")
    args = ap.parse_args()
    procs = Procs()
    if args.keep:
        os.makedirs(args.keep)
        print(json.dumps(run(args, args.keep, procs)), flush=True)
        return
    with tempfile.TemporaryDirectory(prefix="rc-bench-latency-") as tmp:
        print(json.dumps(run(args, tmp, procs)), flush=True)


if __name__ == "__main__":
    main()
