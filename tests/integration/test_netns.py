#!/usr/bin/env python3
"""The fleet across machines, without Docker: Redis, Kafka, redcrawl-monitor and the scheduler in
one network namespace ("core"), three workers in three others (each its own address, so per-IP
throttles are real), the test web in another, and a client in its own, joined by veth pairs on a
bridge in a switch namespace; all made and removed by the test (tests/integration/netns.py),
none reaching outside. The README journey runs across them: the client sets a domain rate and
submits the crawl through Kafka (`redcrawl ... --kafka CORE:PORT`), waits for it with `redcrawl
info` over Kafka and inspects Redis with redis-cli over the network. The crawl gives exactly the
expected page set, every worker takes part from its own address, the per-IP sliding windows are
kept per worker address, and no two requests to one host overlap. Kafka is stopped (by pid) and
its files removed before the namespaces go."""
import collections
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import (REDCRAWL, SCHEDULER, WORKER, TESTWEB, Failure, check, expected_pages, graph,  # noqa: E402
                     overlaps, read_pages, read_requests, run_tests)
from netns import Net  # noqa: E402

REDIS_PORT, WEB_PORT = 6379, 8080
WORKERS = ["w0", "w1", "w2"]
MONITOR = os.path.join(os.path.dirname(SCHEDULER), "redcrawl-monitor")
SOURCE = os.environ.get("REDCRAWL_SOURCE") or os.path.join(os.path.dirname(__file__), "..", "..")
SERVICES = os.path.join(os.path.abspath(SOURCE), "scripts", "services.sh")


class Fleet:
    """Redis, Kafka, the monitor and the scheduler in "core", workers in w0..w2, the test web in
    "web", the operator in "client"."""

    def __init__(self, tmp, procs, web_args, worker_args=()):
        self.tmp, self.procs = tmp, procs
        self.kafka_dir = None
        self.net = Net(["core", "web", "client"] + WORKERS)
        try:
            self.start(web_args, worker_args)
        except BaseException:
            self.close()  # the caller's finally never sees a half-made fleet: its namespaces go here
            raise

    def start(self, web_args, worker_args):
        tmp, procs = self.tmp, self.procs
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
        self.start_kafka()

    def start_kafka(self):
        """services.sh run inside "core", its plain listener on core's address; then the monitor
        beside it. The broker is the machine's services' one, as in the README's compose file."""
        self.kafka_dir = os.path.join(self.tmp, "kafka")
        # The jars come from Maven Central, which the namespace cannot reach: fetched (once)
        # from here first, so that this test also passes first on a fresh machine.
        r = subprocess.run([SERVICES, "fetch", "kafka"], capture_output=True, text=True, timeout=900)
        check(r.returncode == 0, "services.sh fetch kafka: %s" % r.stderr[-2000:])
        r = subprocess.run(self.net.cmd("core", ["env", "REDCRAWL_KAFKA_HOST=" + self.net.addr["core"], SERVICES,
                                                 "start", "kafka", "--dir", self.kafka_dir]),
                           capture_output=True, text=True, timeout=240)
        check(r.returncode == 0, "services.sh start kafka in core: %s" % r.stderr[-2000:])
        line = [x for x in r.stdout.splitlines() if x.startswith("export REDCRAWL_KAFKA=")]
        check(line, "services.sh printed no REDCRAWL_KAFKA: %r" % r.stdout)
        self.broker = line[0].split("=", 1)[1]
        check(self.broker.startswith(self.net.addr["core"] + ":"), "broker not on core's address: %s" % self.broker)
        log = os.path.join(self.tmp, "monitor.log")
        self.procs.start(self.net.cmd("core", [MONITOR, "--session-timeout", "3000"]), log,
                         env=dict(self.env, REDCRAWL_KAFKA=self.broker))

        def assigned():
            with open(log, errors="replace") as f:
                return "partitions assigned" in f.read()
        self.wait(assigned, "the monitor's partitions (see %s)" % log, timeout=60)

    def client(self, *args, timeout=90):
        """redcrawl in the client namespace, over Kafka only (no Redis in its environment)."""
        env = {k: v for k, v in os.environ.items() if k not in ("REDCRAWL_REDIS", "REDCRAWL_KAFKA")}
        env["REDCRAWL_KAFKA"] = self.broker
        r = subprocess.run(self.net.cmd("client", [REDCRAWL] + list(args)), capture_output=True, text=True, env=env,
                           timeout=timeout)
        check(r.returncode == 0, "client: redcrawl %s: %s %s" % (args[0], r.stdout, r.stderr))
        return r.stdout

    def client_redis(self, *args):
        """redis-cli in the client namespace, over the network to core."""
        r = subprocess.run(self.net.cmd("client", ["redis-cli", "-h", self.net.addr["core"], "-p", str(REDIS_PORT),
                                                   "--raw"] + list(args)), capture_output=True, text=True, timeout=30)
        return r.stdout.strip()

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
        if self.kafka_dir:
            subprocess.run([SERVICES, "stop", "kafka", "--dir", self.kafka_dir], capture_output=True, timeout=60)
            shutil.rmtree(self.kafka_dir, ignore_errors=True)
        self.net.close()


def test_crawl_across_namespaces(tmp, procs):
    args = ["--sites", "6", "--pages", "50", "--latency-ms", "10", "--robots"]
    fleet = Fleet(tmp, procs, args, ["--delay", "0.05"])
    try:
        net = fleet.net
        # A fleet-wide rate for the whole domain: every take also logs the hit in the
        # sliding window of its worker's address (throttle:{ip}:site.test).
        # The operator, on a machine of its own, talks to Kafka only.
        a = json.loads(fleet.client("domain", "update", "site.test", "--hits", "100000", "--window", "120",
                                    "--json"))
        check(a.get("action") == "domain-update" and a.get("domain") == "site.test", "domain answer: %s" % a)
        seeds = ["http://s%d.site.test/" % i for i in range(6)]
        answers = [json.loads(x) for x in fleet.client("submit", "--crawlid", "multi", "--maxdepth", "-1", "--json",
                                                        *seeds).splitlines()]
        check(len(answers) == 6 and all(x.get("status") == "accepted" for x in answers), "submit: %s" % answers)

        def done():
            return json.loads(fleet.client("info", "--json", "multi").splitlines()[0]).get("state") == "done"
        fleet.wait(done, "the crawl, asked over Kafka", timeout=180)
        check(fleet.client_redis("HGET", "rc:job:multi", "state") == "done", "redis-cli from the client")
        workers = fleet.client_redis("ZRANGE", "rc:workers", "0", "-1").split()
        check(sorted(workers) == WORKERS, "redis-cli from the client: workers %s" % workers)

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
        print("  netns: submitted over Kafka (%s) from %s; %d pages by %s from %s; per-IP windows %s" %
              (fleet.broker, net.addr["client"], len(pages), dict(by_worker), sorted(net.addr[w] for w in WORKERS),
               windows))
    finally:
        fleet.close()
    check(not fleet.net.leftovers(), "namespaces left: %s" % fleet.net.leftovers())
    check(not os.path.exists(fleet.kafka_dir), "Kafka's files left in %s" % fleet.kafka_dir)


if __name__ == "__main__":
    if os.geteuid() != 0:
        print("test_netns.py: needs root (ip netns); run it as root", file=sys.stderr)
        sys.exit(1)
    run_tests([test_crawl_across_namespaces])
