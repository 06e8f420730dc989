#!/usr/bin/env python3
"""The fleet across machines, without Docker: Redis and the scheduler in one network namespace,
three workers in three others (each its own address, so per-IP throttles are real), the test web
in another, joined by veth pairs on a bridge in a switch namespace; all made and removed by the
test (tests/integration/netns.py), none reaching outside. The crawl gives exactly the expected
page set, every worker takes part from its own address, the per-IP sliding windows are kept per
worker address, and no two requests to one host overlap."""
import collections
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import (REDCRAWL, SCHEDULER, WORKER, TESTWEB, Failure, check, expected_pages, graph,  # noqa: E402
                     overlaps, read_pages, read_requests, run_tests)
from netns import Net  # noqa: E402

REDIS_PORT, WEB_PORT = 6379, 8080
WORKERS = ["w0", "w1", "w2"]


class Fleet:
    """Redis + scheduler in "core", workers in w0..w2, the test web in "web"."""

    def __init__(self, tmp, procs, web_args, worker_args=()):
        self.tmp, self.procs = tmp, procs
        self.net = Net(["core", "web"] + WORKERS)
        core = self.net.addr["core"]
        self.redis_url = "redis://%s:%d" % (core, REDIS_PORT)
        procs.start(self.net.cmd("core", ["redis-server", "--bind", core, "127.0.0.1", "--port", str(REDIS_PORT),
                                          "--protected-mode", "no", "--save", "", "--appendonly", "no",
                                          "--dir", tmp]), os.path.join(tmp, "redis.log"))
        self.wait(lambda: self.redis("PING") == "PONG", "redis-server in the core namespace")
        procs.start(self.net.cmd("web", [TESTWEB, "--bind", self.net.addr["web"], "--port", str(WEB_PORT),
                                         "--log", os.path.join(tmp, "requests.log"), "--max-seconds", "300"] +
                                 list(web_args)), os.path.join(tmp, "web.out"))
        self.env = dict(os.environ, REDCRAWL_REDIS=self.redis_url)
        procs.start(self.net.cmd("core", [SCHEDULER, "--worker-timeout", "5"]), os.path.join(tmp, "scheduler.log"),
                    env=self.env)
        self.out = os.path.join(tmp, "out")
        for w in WORKERS:
            procs.start(self.net.cmd(w, [WORKER, "--id", w, "--out", self.out, "--connect-to",
                                         "::%s:%d" % (self.net.addr["web"], WEB_PORT), "--allow-net",
                                         self.net.cidr] + list(worker_args)),
                        os.path.join(tmp, "%s.log" % w), env=self.env)
        self.wait(lambda: self.redis("ZCARD", "rc:workers") == "3", "three workers registered")

    def redis(self, *args):
        r = subprocess.run(self.net.cmd("core", ["redis-cli", "-p", str(REDIS_PORT), "--raw"] + list(args)),
                           capture_output=True, text=True, timeout=30)
        return r.stdout.strip()

    def cli(self, *args):
        r = subprocess.run(self.net.cmd("core", [REDCRAWL] + list(args)), capture_output=True, text=True,
                           env=self.env, timeout=60)
        check(r.returncode == 0, "redcrawl %s: %s %s" % (args[0], r.stdout, r.stderr))
        return r.stdout

    def wait(self, cond, what, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if cond():
                return
            time.sleep(0.1)
        raise Failure("timed out waiting for %s" % what)

    def close(self):
        self.procs.stop_all()
        self.net.close()


def test_crawl_across_namespaces(tmp, procs):
    args = ["--sites", "6", "--pages", "50", "--latency-ms", "10", "--robots"]
    fleet = Fleet(tmp, procs, args, ["--delay", "0.05"])
    try:
        net = fleet.net
        # A fleet-wide rate for the whole domain: every take also logs the hit in the
        # sliding window of its worker's address (throttle:{ip}:site.test).
        fleet.cli("domain", "update", "site.test", "--hits", "100000", "--window", "120")
        seeds = ["http://s%d.site.test/" % i for i in range(6)]
        fleet.cli("submit", "--crawlid", "multi", "--maxdepth", "-1", *seeds)
        fleet.wait(lambda: fleet.redis("HGET", "rc:job:multi", "state") == "done", "the crawl", timeout=180)

        g = graph(*args[:-1])
        want = {u for u in expected_pages(g, seeds, -1, ["site.test"]) if "/private/" not in u}
        pages = read_pages(os.path.join(fleet.out, "pages.jsonl"))
        urls = [p["url"] for p in pages]
        check(len(urls) == len(set(urls)), "a page stored twice")
        check(set(urls) == want, "page set: %d missing, %d unexpected" % (len(want - set(urls)),
                                                                          len(set(urls) - want)))
        by_worker = collections.Counter(p["worker"] for p in pages)
        check(set(by_worker) == set(WORKERS), "not every worker took part: %s" % dict(by_worker))
        ips = {w: fleet.redis("HGET", "rc:worker:" + w, "ip") for w in WORKERS}
        check(ips == {w: net.addr[w] for w in WORKERS}, "worker addresses %s, made %s" % (ips, net.addr))
        windows = {w: fleet.redis("ZCARD", "rc:throttle:%s:site.test" % net.addr[w]) for w in WORKERS}
        for w in WORKERS:
            check(int(windows[w] or 0) > 0, "no per-IP window for %s (%s): %s" % (w, net.addr[w], windows))
        check(sum(int(v) for v in windows.values()) >= len(pages), "per-IP hits %s < pages %d" %
              (windows, len(pages)))
        rows = read_requests(os.path.join(tmp, "requests.log"))
        check(not overlaps(rows), "overlapping requests to one host: %s" % overlaps(rows)[:2])
        print("  netns: %d pages by %s from %s; per-IP windows %s" %
              (len(pages), dict(by_worker), sorted(net.addr[w] for w in WORKERS), windows))
    finally:
        fleet.close()
    check(not fleet.net.leftovers(), "namespaces left: %s" % fleet.net.leftovers())


if __name__ == "__main__":
    if os.geteuid() != 0:
        print("test_netns.py: needs root (ip netns); run it as root", file=sys.stderr)
        sys.exit(1)
    run_tests([test_crawl_across_namespaces])
