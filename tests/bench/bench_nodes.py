#!/usr/bin/env python3
"""The thesis' speed experiment (5.2.3, fig 5-5) on one machine: 1, 2 and 3 crawl nodes, each a
network namespace of its own (tests/integration/netns.py) whose worker runs in a cgroup with a
CPU quota, so that the nodes, not the machine, are the limit; Redis and the scheduler in a core
namespace, the test web (with latency, many hosts) in another. Prints pages/min per fleet size
and the scaling ratio. Driven by scripts/bench_nodes.sh; needs root (ip netns, cgroups)."""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import Procs  # noqa: E402
from netns import Net  # noqa: E402

V1 = "/sys/fs/cgroup/cpu"
V1_ACCT = "/sys/fs/cgroup/cpuacct"  # v1 keeps CPU accounting in a hierarchy of its own
V2 = "/sys/fs/cgroup"


class CpuLimit:
    """A cgroup with a CPU quota (cgroup v1 cpu.cfs_quota_us, or v2 cpu.max)."""

    def __init__(self, name, cpus):
        period = 100000
        quota = int(cpus * period)
        self.acct = None
        if os.path.exists(os.path.join(V2, "cgroup.controllers")):
            self.path = os.path.join(V2, name)
            os.mkdir(self.path)
            with open(os.path.join(self.path, "cpu.max"), "w") as f:
                f.write("%d %d" % (quota, period))
        else:
            self.path = os.path.join(V1, name)
            os.mkdir(self.path)
            if os.path.isdir(V1_ACCT):
                self.acct = os.path.join(V1_ACCT, name)
                os.mkdir(self.acct)
            with open(os.path.join(self.path, "cpu.cfs_period_us"), "w") as f:
                f.write(str(period))
            with open(os.path.join(self.path, "cpu.cfs_quota_us"), "w") as f:
                f.write(str(quota))

    def wrap(self, argv):
        """argv started inside the cgroup: a shell joins it, then execs argv."""
        if self.acct:
            return ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && echo $$ > "$1/cgroup.procs" && shift && exec "$@"',
                    self.path, self.acct] + list(argv)
        return ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', self.path] + list(argv)

    def usage_s(self):
        try:
            with open(os.path.join(self.path, "cpu.stat")) as f:
                for line in f:
                    k, v = line.split()
                    if k == "usage_usec":
                        return int(v) / 1e6
        except OSError:
            pass
        try:
            with open(os.path.join(self.acct, "cpuacct.usage")) as f:
                return int(f.read()) / 1e9
        except (OSError, TypeError):
            return None

    def close(self):
        for path in (self.path, self.acct):
            for _ in range(50):
                try:
                    if path:
                        os.rmdir(path)
                    break
                except OSError:
                    time.sleep(0.1)


def redis(net, *args):
    return subprocess.run(net.cmd("core", ["redis-cli", "-p", "6379", "--raw"] + list(args)), capture_output=True,
                          text=True, timeout=30).stdout.strip()


def run(build, nodes, opts, work):
    names = ["n%d" % i for i in range(nodes)]
    net = Net(["core", "web"] + names)
    procs = Procs()
    limits = []
    tmp = tempfile.mkdtemp(prefix="n%d-" % nodes, dir=work)
    try:
        core, web = net.addr["core"], net.addr["web"]
        procs.start(net.cmd("core", ["redis-server", "--bind", core, "127.0.0.1", "--port", "6379",
                                     "--protected-mode", "no", "--save", "", "--appendonly", "no", "--dir", tmp]),
                    os.path.join(tmp, "redis.log"))
        deadline = time.time() + 10
        while redis(net, "PING") != "PONG":
            if time.time() > deadline:
                raise RuntimeError("redis-server did not start in the core namespace")
            time.sleep(0.05)
        procs.start(net.cmd("web", [os.path.join(build, "tests", "testweb"), "--bind", web, "--port", "8080",
                                    "--sites", str(opts.hosts), "--pages", "5000", "--latency-ms",
                                    str(opts.latency_ms), "--max-seconds", "600"]), os.path.join(tmp, "web.out"))
        env = dict(os.environ, REDCRAWL_REDIS="redis://%s:6379" % core)
        procs.start(net.cmd("core", [os.path.join(build, "scheduler", "redcrawl-scheduler")]),
                    os.path.join(tmp, "scheduler.log"), env=env)
        for n in names:
            lim = CpuLimit("%s-%s" % (net.tag, n), opts.cpus)
            limits.append(lim)
            argv = net.cmd(n, [os.path.join(build, "worker", "redcrawl-worker"), "--id", n, "--out",
                               os.path.join(tmp, "out"), "--delay", "0", "--concurrency", str(opts.concurrency),
                               "--connect-to", "::%s:8080" % web, "--allow-net", net.cidr, "--log-level", "warn"])
            procs.start(lim.wrap(argv), os.path.join(tmp, n + ".log"), env=env)
        seeds = ["http://s%d.site.test/" % i for i in range(opts.hosts)]
        subprocess.run(net.cmd("core", [os.path.join(build, "cli", "redcrawl"), "submit", "--crawlid", "bench",
                                        "--maxdepth", "-1"] + seeds), env=env, check=True, capture_output=True,
                       timeout=60)
        # The same stretch of the crawl for every fleet size (pages --skip to --skip + --pages):
        # early pages carry more new links than later ones, so a fixed time window would favour
        # the fleet that got further.
        def fetched():
            return int(redis(net, "HGET", "rc:job:bench", "fetched") or 0)

        def wait_for(n, deadline):
            while fetched() < n:
                if time.time() > deadline:
                    raise RuntimeError("%d pages not reached within the time limit (see %s)" % (n, tmp))
                time.sleep(0.05)
            return fetched(), time.time()

        f0, t0 = wait_for(opts.skip, time.time() + 300)
        c0 = [lim.usage_s() for lim in limits]
        f1, t1 = wait_for(opts.skip + opts.pages, time.time() + 600)
        c1 = [lim.usage_s() for lim in limits]
        cpu = [(b - a) / (t1 - t0) for a, b in zip(c0, c1) if a is not None and b is not None]
        return (f1 - f0) / (t1 - t0) * 60, cpu
    finally:
        procs.stop_all()
        for lim in limits:
            lim.close()
        net.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--nodes", default="1,2,3")
    ap.add_argument("--cpus", type=float, default=0.05, help="CPU quota of each node's worker")
    ap.add_argument("--hosts", type=int, default=90)
    ap.add_argument("--latency-ms", type=int, default=40)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--skip", type=int, default=1500, help="pages crawled before the measure starts")
    ap.add_argument("--pages", type=int, default=4000, help="pages measured")
    opts = ap.parse_args()
    work = tempfile.mkdtemp(prefix="redcrawl-bench-nodes-")
    print("bench_nodes: each node's worker capped at %.2f CPU; test web %d hosts, %d ms latency; "
          "concurrency %d; pages %d to %d of the crawl measured" % (opts.cpus, opts.hosts, opts.latency_ms,
                                                                    opts.concurrency, opts.skip,
                                                                    opts.skip + opts.pages))
    results = {}
    for n in [int(x) for x in opts.nodes.split(",")]:
        rate, cpu = run(opts.build, n, opts, work)
        results[n] = rate
        per_page = "%.2f ms of worker CPU per page" % (sum(cpu) / (rate / 60) * 1000) if cpu else "CPU not measured"
        print("  %d node%s: %8.0f pages/min  (workers' CPU %s; %s)" % (n, "" if n == 1 else "s", rate,
                                                                      ", ".join("%.3f" % c for c in cpu) or "n/a",
                                                                      per_page), flush=True)
    base = results.get(min(results))
    if base:
        print("  scaling: " + ", ".join("%d nodes %.2fx" % (n, r / base) for n, r in sorted(results.items())))
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
