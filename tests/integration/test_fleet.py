#!/usr/bin/env python3
"""The scheduler balancing a fleet started by hand (real redis-server, scheduler, workers, the
test web): a small job is not stuck behind a big job's backlog on another host, hosts follow
capacity, a worker slowed down mid-crawl loses its hosts to the others, and jobs sharing hosts
take turns on them by priority (a new job's first page is not stuck behind another job's backlog
on the same host) without breaking the hosts' politeness."""
import collections
import datetime
import os
import re
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import (REDCRAWL, SCHEDULER, WORKER, check, check_page_set, expected_pages, frontier_len,  # noqa: E402
                     graph, overlaps, read_pages, read_requests, redis_cmd, run_tests, start_redis, start_web)


def fleet(procs, tmp, web_port, n_workers, *wargs):
    redis_port, _ = start_redis(procs, tmp)
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
    procs.start([SCHEDULER, "--worker-timeout", "5"], os.path.join(tmp, "scheduler.log"), env=env)
    for i in range(n_workers):
        procs.start([WORKER, "--id", "w%d" % i, "--out", os.path.join(tmp, "out"), "--heartbeat", "0.5",
                     "--connect-to", "::127.0.0.1:%d" % web_port] + list(wargs),
                    os.path.join(tmp, "worker%d.log" % i), env=env)
    deadline = time.time() + 10
    while time.time() < deadline and redis_cmd(redis_port, "ZCARD", "rc:workers") != n_workers:
        time.sleep(0.1)
    return redis_port, env


SLACK_US = 10000  # tolerance on a gap between two requests to a host, as in test_politeness.py


def check_politeness(rows, delay):
    """No two requests to a host overlap, and from the end of one response to the start of the
    next request to that host, never less than the delay. Prints the smallest gap."""
    bad = overlaps(rows)
    check(not bad, "overlapping requests to one host: %s" % bad[:2])
    by_host = {}
    for r in rows:
        by_host.setdefault(r[2], []).append(r)
    gaps = []
    for host, rs in by_host.items():
        rs.sort()
        gaps += [(b[0] - a[1], host, a[3], b[3]) for a, b in zip(rs, rs[1:])]
    check(gaps, "no two requests to one host to check")
    low = min(gaps)
    print("  politeness: %d requests, no overlap, smallest gap %.1f ms (delay %.0f ms)"
          % (len(rows), low[0] / 1000, delay * 1000))
    check(low[0] >= delay * 1e6 - SLACK_US, "a gap under the delay: %s" % (low,))


def submit(env, crawlid, urls, *args):
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", crawlid, "--maxdepth", "0"] + list(args) + urls,
                       capture_output=True, text=True, env=env, timeout=120)
    check(r.returncode == 0, "submit %s failed: %s %s" % (crawlid, r.stdout, r.stderr[-1000:]))


def test_small_job_not_behind_big_one(tmp, procs):
    """The issue's first case: two workers at --delay 0.5, a job of 1,600 URLs on one host, then
    a job of 5 URLs on another host. The second host used to be never requested (its URLs sat
    behind the first 1,000 frontier entries, all for a host whose worker's budget was full)."""
    web_port, log, _ = start_web(procs, tmp, "--sites", "2", "--pages", "1600")
    redis_port, env = fleet(procs, tmp, web_port, 2, "--delay", "0.5")
    big = ["http://s0.site.test/"] + ["http://s0.site.test/p/%d" % i for i in range(1, 1600)]
    submit(env, "big", big)
    time.sleep(2)  # the big job's backlog is handed out
    t_small = time.time()
    submit(env, "small", ["http://s1.site.test/"] + ["http://s1.site.test/p/%d" % i for i in range(1, 5)])
    first = None
    deadline = time.time() + 30
    while time.time() < deadline and first is None:
        rows = [r for r in read_requests(log) if r[2] == "s1.site.test" and r[3] != "/robots.txt"]
        if rows:
            first = min(r[0] for r in rows) / 1e6 - t_small
        time.sleep(0.1)
    print("  small job's first page requested %s s after its submit" % ("%.2f" % first if first is not None
                                                                       else "never (30 s)"))
    check(first is not None and first < 5.0, "the small job waited behind the big one: %s" % first)
    deadline = time.time() + 30
    while time.time() < deadline and redis_cmd(redis_port, "HGET", "rc:job:small", "state") != "done":
        time.sleep(0.2)
    check(redis_cmd(redis_port, "HGET", "rc:job:small", "state") == "done", "the small job did not finish")
    bad = overlaps(read_requests(log))
    check(not bad, "overlapping requests to one host: %s" % bad[:2])


def test_hosts_follow_capacity(tmp, procs):
    """The issue's second case: a worker with 16 transfer slots and one with 1, 16 hosts x 60
    pages answering in 100 ms, no delays. Hosts used to split 8/8 (weights from completions,
    i.e. from hosts held) and the slow worker's 8 hosts took ~4x the ideal. The ideal is one
    request per host at a time: the busiest host's requests x 0.1 s (~7 s)."""
    web_port, log, _ = start_web(procs, tmp, "--sites", "16", "--pages", "60", "--latency-ms", "100")
    redis_port, _ = start_redis(procs, tmp)
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
    procs.start([SCHEDULER, "--worker-timeout", "5"], os.path.join(tmp, "scheduler.log"), env=env)
    for wid, conc in (("fast", "16"), ("slow", "1")):
        procs.start([WORKER, "--id", wid, "--out", os.path.join(tmp, "out"), "--heartbeat", "0.5",
                     "--concurrency", conc, "--delay", "0", "--delay-factor", "0",
                     "--connect-to", "::127.0.0.1:%d" % web_port], os.path.join(tmp, wid + ".log"), env=env)
    deadline = time.time() + 10
    while time.time() < deadline and redis_cmd(redis_port, "ZCARD", "rc:workers") != 2:
        time.sleep(0.1)
    time.sleep(1.5)  # both heartbeats (with their slots) seen by the scheduler
    t0 = time.time()
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "cap", "--maxdepth", "-1"] +
                       ["http://s%d.site.test/" % i for i in range(16)], capture_output=True, text=True, env=env,
                       timeout=60)
    check(r.returncode == 0, "submit failed: %s" % r.stderr)
    deadline = time.time() + 60
    while time.time() < deadline and redis_cmd(redis_port, "HGET", "rc:job:cap", "state") != "done":
        time.sleep(0.1)
    took = time.time() - t0
    fetched = int(redis_cmd(redis_port, "HGET", "rc:job:cap", "fetched") or 0)
    per_host = {}
    for row in read_requests(log):
        per_host[row[2]] = per_host.get(row[2], 0) + 1
    ideal = max(per_host.values()) * 0.1  # the busiest host's requests, one at a time
    owners = {}
    for wid in ("fast", "slow"):
        owners[wid] = int(redis_cmd(redis_port, "HGET", "rc:worker:%s" % wid, "fetched") or 0)
    print("  %d pages in %.1f s (capacity ideal %.1f s: %d requests on the busiest host); pages per worker %s"
          % (fetched, took, ideal, max(per_host.values()), owners))
    check(redis_cmd(redis_port, "HGET", "rc:job:cap", "state") == "done", "the crawl did not finish in 60 s")
    check(took < 1.5 * ideal, "%.1f s is over 1.5x the capacity ideal of %.1f s" % (took, ideal))
    bad = overlaps(read_requests(log))
    check(not bad, "overlapping requests to one host: %s" % bad[:2])


def test_slowed_worker_loses_hosts(tmp, procs):
    """A worker slowed down mid-crawl (its rate cap set through rc:ratecap) gives its backlogged
    hosts to the other worker within seconds; politeness holds through every move."""
    web_port, log, _ = start_web(procs, tmp, "--sites", "12", "--pages", "150")
    redis_port, env = fleet(procs, tmp, web_port, 2, "--delay", "0.05", "--delay-factor", "0")
    t0 = time.time()
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "slow", "--maxdepth", "-1"] +
                       ["http://s%d.site.test/" % i for i in range(12)], capture_output=True, text=True, env=env,
                       timeout=60)
    check(r.returncode == 0, "submit failed: %s" % r.stderr)
    time.sleep(3)
    before = int(redis_cmd(redis_port, "SCARD", "rc:wdoms:w0") or 0)
    redis_cmd(redis_port, "HSET", "rc:ratecap", "w0", "1")  # w0 now starts 1 page/s
    t_slow = time.time()
    after, moved_at = before, None
    deadline = time.time() + 30
    while time.time() < deadline:
        after = int(redis_cmd(redis_port, "SCARD", "rc:wdoms:w0") or 0)
        if moved_at is None and after <= before // 2:
            moved_at = time.time() - t_slow
        if redis_cmd(redis_port, "HGET", "rc:job:slow", "state") == "done":
            break
        time.sleep(0.2)
    print("  w0 held %d hosts when slowed to 1 page/s; half of them moved after %s s; crawl done in %.1f s"
          % (before, "%.1f" % moved_at if moved_at is not None else "never", time.time() - t0))
    check(before >= 2, "w0 held no hosts to lose (%d)" % before)
    check(moved_at is not None and moved_at < 10, "the slowed worker kept its hosts: %d -> %d" % (before, after))
    deadline = time.time() + 60
    while time.time() < deadline and redis_cmd(redis_port, "HGET", "rc:job:slow", "state") != "done":
        time.sleep(0.2)
    check(redis_cmd(redis_port, "HGET", "rc:job:slow", "state") == "done", "the crawl did not finish")
    rows = read_requests(log)
    bad = overlaps(rows)
    check(not bad, "overlapping requests to one host across the moves: %s" % bad[:2])
    counts = {}
    for row in rows:
        counts[(row[2], row[3])] = counts.get((row[2], row[3]), 0) + 1
    twice = [k for k, n in counts.items() if n > 1 and k[1] != "/robots.txt"]
    check(not twice, "pages fetched twice across the moves: %s" % twice[:3])


def last_weights(sched_log):
    """worker -> (weight, cpu_free) from the scheduler's latest debug line "weight worker=..."
    for each worker."""
    out = {}
    with open(sched_log, errors="replace") as f:
        for line in f:
            m = re.search(r"weight worker=(\S+) weight=(\d+) .*cpu_free=(-?[\d.]+)", line)
            if m:
                out[m.group(1)] = (int(m.group(2)), float(m.group(3)))
    return out


def test_cpu_bound_worker_gets_fewer_hosts(tmp, procs):
    """Two workers with 8 transfer slots each; one may use 0.0001 of a core (less than its own idle loop takes) (--cpu-cores: it takes
    nothing new while it used more over the last second), so its CPU, not its slots, is what
    it lacks. Once its heartbeat shows its CPU used up (cpu_free), a job with 32 new hosts
    arrives: the weights follow the CPU headroom, and the CPU-bound worker gets few of them
    although it has as many free slots (more: its backlogged hosts moved to the other)."""
    web_port, log, _ = start_web(procs, tmp, "--sites", "40", "--pages", "40", "--latency-ms", "20")
    redis_port, _ = start_redis(procs, tmp)
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
    sched_log = os.path.join(tmp, "scheduler.log")
    procs.start([SCHEDULER, "--worker-timeout", "5", "--log-level", "debug"], sched_log, env=env)
    for wid, extra in (("free", []), ("cpu", ["--cpu-cores", "0.0001"])):
        procs.start([WORKER, "--id", wid, "--out", os.path.join(tmp, "out"), "--heartbeat", "0.5",
                     "--concurrency", "8", "--delay", "0", "--delay-factor", "0",
                     "--connect-to", "::127.0.0.1:%d" % web_port] + extra, os.path.join(tmp, wid + ".log"), env=env)
    deadline = time.time() + 10
    while time.time() < deadline and redis_cmd(redis_port, "ZCARD", "rc:workers") != 2:
        time.sleep(0.1)
    # Work for both (no links followed: the dispatched counters move only with the next job).
    submit(env, "warm", ["http://s%d.site.test/p/%d" % (h, i) for h in range(8) for i in range(1, 40)])
    free_cpu = {}
    deadline = time.time() + 30
    while time.time() < deadline:
        free_cpu = {w: float(redis_cmd(redis_port, "HGET", "rc:worker:" + w, "cpu_free") or 1) for w in ("free", "cpu")}
        if free_cpu["cpu"] < 0.3:
            break
        time.sleep(0.2)
    check(free_cpu.get("cpu", 1) < 0.3, "the capped worker never ran out of CPU: %s" % free_cpu)
    # The scheduler's own view, from its log: the weights it dispatches by, once they show the
    # capped worker out of CPU and the other not (a heartbeat the test read may be one the
    # scheduler has not read yet, and the free worker is busy with the warm job at first).
    weights = {}
    deadline = time.time() + 20
    while time.time() < deadline:
        weights = last_weights(sched_log)
        drained = int(redis_cmd(redis_port, "SCARD", "rc:wdoms:free") or 0) <= 3  # as the weight says
        if drained and "cpu" in weights and "free" in weights and weights["cpu"][1] < 0.1 and weights["free"][0] >= 500:
            break
        time.sleep(0.1)
    # A weight is free slots x CPU headroom (x100): the free worker has 5 or more slots free
    # (its warm hosts drained) and the capped one's CPU is gone, whatever its slots.
    check(weights.get("cpu", (0, 1))[1] < 0.1 and weights.get("free", (0, 0))[0] >= 500,
          "the scheduler never weighed the capped worker as out of CPU and the other as free: %s" % weights)
    before = {w: int(redis_cmd(redis_port, "HGET", "rc:worker:" + w, "dispatched") or 0) for w in ("free", "cpu")}
    held = {w: int(redis_cmd(redis_port, "SCARD", "rc:wdoms:" + w) or 0) for w in ("free", "cpu")}
    submit(env, "new", ["http://s%d.site.test/" % h for h in range(8, 40)])
    deadline = time.time() + 20
    while time.time() < deadline and redis_cmd(redis_port, "EXISTS", "rc:seedb:new") != 0:
        time.sleep(0.05)
    got = {w: int(redis_cmd(redis_port, "HGET", "rc:worker:" + w, "dispatched") or 0) - before[w]
           for w in ("free", "cpu")}
    print("  CPU headroom when the new job came: %s; scheduler's weights (weight, cpu_free) %s; hosts held "
          "then %s; of its 32 new hosts: %s" % (free_cpu, weights, held, got))
    check(sum(got.values()) == 32, "the new job's hosts were not all dispatched: %s" % got)
    check(got["cpu"] <= 8, "the CPU-bound worker got %d of 32 new hosts" % got["cpu"])
    bad = overlaps(read_requests(log))
    check(not bad, "overlapping requests to one host: %s" % bad[:2])


def job_of(path, split):
    """Which job asked for /p/N: the first `split` pages belong to "hi", the rest to "lo"."""
    if not path.startswith("/p/"):
        return None
    return "hi" if int(path[3:]) <= split else "lo"


def test_priorities_share_hosts(tmp, procs):
    """Two jobs of priority 1 and 2 on the same two hosts: while both have work, each host
    serves them ~1:2 (stride scheduling over the per-job queues of the host)."""
    per_host, delay = 150, 0.05
    web_port, log, _ = start_web(procs, tmp, "--sites", "2", "--pages", str(2 * per_host + 1))
    redis_port, _ = start_redis(procs, tmp)
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
    # Both jobs are in the frontier before any worker exists: they reach the hosts together.
    for crawlid, prio, first in (("lo", "1", per_host + 1), ("hi", "2", 1)):
        submit(env, crawlid, ["http://s%d.site.test/p/%d" % (h, i) for h in range(2)
                              for i in range(first, first + per_host)], "--priority", prio)
    procs.start([SCHEDULER, "--worker-timeout", "5"], os.path.join(tmp, "scheduler.log"), env=env)
    for i in range(2):
        procs.start([WORKER, "--id", "w%d" % i, "--out", os.path.join(tmp, "out"), "--heartbeat", "0.5",
                     "--delay", str(delay), "--delay-factor", "0", "--connect-to", "::127.0.0.1:%d" % web_port],
                    os.path.join(tmp, "worker%d.log" % i), env=env)
    deadline = time.time() + 120
    while time.time() < deadline and any(redis_cmd(redis_port, "HGET", "rc:job:" + j, "state") != "done"
                                         for j in ("lo", "hi")):
        time.sleep(0.2)
    for j in ("lo", "hi"):
        check(redis_cmd(redis_port, "HGET", "rc:job:" + j, "state") == "done", "job %s did not finish" % j)
    rows = [r for r in read_requests(log) if job_of(r[3], per_host)]
    check(len(rows) == 4 * per_host, "%d page requests, want %d" % (len(rows), 4 * per_host))
    # While both have work: up to the first request of the last page of the job that ends first.
    last = {j: max(r[0] for r in rows if job_of(r[3], per_host) == j) for j in ("lo", "hi")}
    until = min(last.values())
    both = [r for r in rows if r[0] <= until]
    n = {j: sum(1 for r in both if job_of(r[3], per_host) == j) for j in ("lo", "hi")}
    ratio = n["lo"] / n["hi"]
    print("  while both had work: priority 1 got %d pages, priority 2 got %d (ratio %.2f, want ~0.5); "
          "the priority-2 job ended first: %s" % (n["lo"], n["hi"], ratio, last["hi"] < last["lo"]))
    check(last["hi"] < last["lo"], "the priority-1 job ended first")
    check(0.4 <= ratio <= 0.6, "pages of priority 1 : priority 2 = %.2f, not ~1:2" % ratio)
    check_politeness(read_requests(log), delay)


def resp(*args):
    return "*%d\r\n" % len(args) + "".join("$%d\r\n%s\r\n" % (len(str(a).encode()), a) for a in args)


def load_frontier(port, crawlid, urls, listed=True):
    """Writes frontier records straight into the job's frontier, listed in rc:frontier (as
    scripts/bench_scheduler.sh does: a backlog of this size takes minutes through the CLI under
    the sanitizers), as submit.lua stores them (shared/lua/common.lua: priority 1, depth 0, the
    list rc:seeds:{crawlid}:1:0 listed in rc:seedb:{crawlid}, the compact records without their
    crawlid), and counts them in the job's pending. listed=False leaves the job out of
    rc:frontier (the scheduler does not see it until the caller adds it)."""
    # Counted first, before the records are even built: the job must not finish (pending 0,
    # its seed fetched) while they arrive.
    check(redis_cmd(port, "HINCRBY", "rc:job:" + crawlid, "pending", len(urls)) >= len(urls), "pending not counted")
    cmds = [resp("RPUSH", "rc:seeds:%s:1:0" % crawlid, *("0 1 0 " + url for url in urls[i:i + 1000]))
            for i in range(0, len(urls), 1000)]
    cmds.append(resp("ZADD", "rc:seedb:" + crawlid, 999 * 2 ** 40, "1:0"))
    if listed:
        cmds.append(resp("SADD", "rc:frontier", crawlid))
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall("".join(cmds).encode())
        f = s.makefile("rb")
        for _ in cmds:
            check(f.readline()[:1] == b":", "Redis refused a frontier record")


def test_frontier_windows_by_priority(tmp, procs):
    """Two jobs' frontiers of 20,000 URLs each, priorities 1 and 3, seen by the scheduler at the
    same moment: each round reads a window of both, sized by priority, so when the priority-3
    job's frontier is empty the other's has moved about a third as much (not nothing: no job's
    backlog sits in front of another's)."""
    n = 20000
    web_port, _, _ = start_web(procs, tmp, "--sites", "2", "--pages", "10")
    redis_port, env = fleet(procs, tmp, web_port, 2, "--delay", "0.5")
    for crawlid, prio, site in (("lo", "1", "s0"), ("hi", "3", "s1")):
        submit(env, crawlid, ["http://%s.site.test/" % site], "--priority", prio)
        load_frontier(redis_port, crawlid, ["http://%s.site.test/%s/%d" % (site, crawlid, i) for i in range(n)],
                      listed=False)
    redis_cmd(redis_port, "SADD", "rc:frontier", "lo", "hi")
    moved = None
    deadline = time.time() + 120
    while time.time() < deadline:
        lo, hi = (frontier_len(redis_port, c) for c in ("lo", "hi"))
        if hi == 0:
            moved = {"lo": n - lo, "hi": n}
            break
        time.sleep(0.02)
    print("  dispatched when the priority-3 job's frontier emptied: %s (ratio %.2f, want ~0.33)"
          % (moved, moved["lo"] / n if moved else 0))
    check(moved is not None, "the priority-3 job's frontier did not empty in 120 s")
    check(0.15 * n <= moved["lo"] <= 0.55 * n, "windows not by priority: %s" % moved)


def first_request(env, log, crawlid, path):
    """Submits one URL as a new job; seconds until the server saw its request (None: 30 s)."""
    t = time.time()
    submit(env, crawlid, ["http://s0.site.test" + path])
    deadline = time.time() + 30
    while time.time() < deadline:
        rows = [r for r in read_requests(log) if r[3] == path]
        if rows:
            return rows[0][0] / 1e6 - t
        time.sleep(0.1)
    return None


def test_new_job_not_behind_backlog_on_same_host(tmp, procs):
    """A job with 200,000 URLs on a host, then new jobs with one URL each on the same host: one
    while the backlog is still in the frontier (the frontier is per job: the scheduler reads a
    window of every job's each round), one once it is all queued on the host (the new job joins
    the host's turns at the lowest pass). Each is requested within a few of the host's turns, not
    after the backlog. Politeness (0.5 s) holds throughout."""
    n_big, delay = 200000, 0.5
    web_port, log, _ = start_web(procs, tmp, "--sites", "2", "--pages", "50")
    redis_port, env = fleet(procs, tmp, web_port, 2, "--delay", str(delay), "--delay-factor", "0")
    # The big job's seed answers in 3 s, on another host: the job must not finish (its one seed
    # fetched, pending 0) before load_frontier counts its backlog, which a loaded machine's slow
    # exit of the submit process once let happen (the backlog then dropped as a stopped job's).
    submit(env, "big", ["http://s1.site.test/slow/3000/0"])
    t0 = time.time()
    load_frontier(redis_port, "big", ["http://s0.site.test/big/%d" % i for i in range(n_big)])
    in_frontier = frontier_len(redis_port, "big")
    a = first_request(env, log, "new1", "/p/7")
    print("  new job's first page requested %s s after its submit, %s URLs of the other job in the frontier"
          % ("%.2f" % a if a is not None else "never (30 s)", in_frontier))
    check(a is not None and a < 5.0, "the new job waited behind the backlog in the frontier: %s" % a)
    deadline = time.time() + 120
    while time.time() < deadline and frontier_len(redis_port, "big") != 0:
        time.sleep(0.1)
    queued = redis_cmd(redis_port, "ZCARD", "rc:q:big:s0.site.test")
    print("  %d URLs loaded and dispatched into rc:q:big:s0.site.test in %.1f s; %s queued there"
          % (n_big, time.time() - t0, queued))
    check(redis_cmd(redis_port, "HGET", "rc:job:big", "state") == "running", "the big job is not running")
    check(frontier_len(redis_port, "big") == 0, "the frontier did not drain in 120 s")
    check(queued is not None and queued > n_big - 1000, "the backlog is not queued on the host: %s" % queued)
    b = first_request(env, log, "new2", "/p/8")
    print("  new job's first page requested %s s after its submit, %s URLs of the other job queued on the host"
          % ("%.2f" % b if b is not None else "never (30 s)", redis_cmd(redis_port, "ZCARD", "rc:q:big:s0.site.test")))
    check(b is not None and b < 5.0, "the new job waited behind the backlog on the host: %s" % b)
    deadline = time.time() + 30
    while time.time() < deadline and redis_cmd(redis_port, "HGET", "rc:job:new2", "state") != "done":
        time.sleep(0.2)
    check(redis_cmd(redis_port, "HGET", "rc:job:new2", "state") == "done", "the new job did not finish")
    r = subprocess.run([REDCRAWL, "stop", "big"], capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode == 0, "stop failed: %s" % r.stderr)
    check(redis_cmd(redis_port, "EXISTS", "rc:q:big:s0.site.test") == 0, "the stopped job's queue is still there")
    check_politeness(read_requests(log), delay)


def test_reaped_worker_hosts_keep_queues(tmp, procs):
    """A worker SIGKILLed while its hosts hold queued URLs: once reaped, its hosts keep their
    per-job queues (rc:orphans) and get a new owner; the crawl ends with every page stored
    once, the server's log with no overlapping requests to a host."""
    args = ["--sites", "4", "--pages", "80", "--latency-ms", "10"]
    web_port, log, _ = start_web(procs, tmp, *args)
    seeds = ["http://s%d.site.test/" % i for i in range(4)]
    want = expected_pages(graph(*args), seeds, -1, ["site.test"])
    redis_port, env = fleet(procs, tmp, web_port, 2, "--delay", "0.1", "--delay-factor", "0")
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "orph", "--maxdepth", "-1"] + seeds,
                       capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode == 0, "submit failed: %s" % r.stderr)
    victim = None
    deadline = time.time() + 30
    while time.time() < deadline and victim is None:
        for p in procs.procs:
            wid = p.args[2] if p.args[0] == WORKER else None
            if wid and int(redis_cmd(redis_port, "HGET", "rc:worker:" + wid, "queued") or 0) >= 10:
                victim = (p, wid)
                break
        time.sleep(0.1)
    check(victim is not None, "no worker held 10 queued URLs")
    held = redis_cmd(redis_port, "SMEMBERS", "rc:wdoms:" + victim[1])
    queued = int(redis_cmd(redis_port, "HGET", "rc:worker:" + victim[1], "queued") or 0)
    victim[0].send_signal(signal.SIGKILL)
    victim[0].wait()
    t_kill = time.time()
    deadline = time.time() + 60
    new_owner = None
    while time.time() < deadline and new_owner is None:
        owners = {h: redis_cmd(redis_port, "HGET", "rc:owner", h) for h in held}
        if any(o and o != victim[1] for o in owners.values()):
            new_owner = time.time() - t_kill
        time.sleep(0.1)
    print("  %s killed holding %d hosts, %d URLs queued; its hosts had a new owner %s s later (worker timeout 5 s)"
          % (victim[1], len(held), queued, "%.1f" % new_owner if new_owner is not None else "never"))
    check(new_owner is not None, "the killed worker's hosts got no new owner")
    deadline = time.time() + 120
    while time.time() < deadline and redis_cmd(redis_port, "HGET", "rc:job:orph", "state") != "done":
        time.sleep(0.2)
    check(redis_cmd(redis_port, "HGET", "rc:job:orph", "state") == "done", "the crawl did not finish")
    check(redis_cmd(redis_port, "ZCARD", "rc:orphans") == 0, "orphaned hosts left")
    urls = [p["url"] for p in read_pages(os.path.join(tmp, "out", "pages.jsonl"))]
    dups = [u for u, n in collections.Counter(urls).items() if n > 1]
    check(not dups, "%d pages stored twice, e.g. %s" % (len(dups), dups[:3]))
    missing = set(want) - set(urls)
    check(not missing and set(urls) <= set(want), "%d pages missing, e.g. %s" % (len(missing), sorted(missing)[:3]))
    bad = overlaps(read_requests(log))
    check(not bad, "overlapping requests to one host: %s" % bad[:2])


def nudged_fleet(procs, tmp, poll_only):
    """Redis, a scheduler ticking every 10 s and one worker (w0); the seconds from a one-URL
    submit to its stored record, and the nudges seen on wake:sched and wake:w0."""
    from test_kafka import Subscriber
    tmp = os.path.join(tmp, "poll" if poll_only else "nudge")
    os.makedirs(tmp)
    web_port, _, _ = start_web(procs, tmp, "--sites", "1", "--pages", "3")
    redis_port, _ = start_redis(procs, tmp)
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
    extra = ["--poll-only"] if poll_only else []
    t_start = time.time()
    procs.start([SCHEDULER, "--tick-ms", "10000"] + extra, os.path.join(tmp, "scheduler.log"), env=env)
    out = os.path.join(tmp, "out")
    procs.start([WORKER, "--id", "w0", "--out", out, "--connect-to", "::127.0.0.1:%d" % web_port] + extra,
                os.path.join(tmp, "worker0.log"), env=env)
    subs = [Subscriber(redis_port, "rc:wake:sched"), Subscriber(redis_port, "rc:wake:w0")]
    while time.time() < t_start + 10 and redis_cmd(redis_port, "ZCARD", "rc:workers") != 1:
        time.sleep(0.1)
    time.sleep(max(0.0, t_start + 2 - time.time()))  # the scheduler's first tick is over
    t0 = time.time()
    submit(env, "one", ["http://s0.site.test/"])
    path = os.path.join(out, "pages.jsonl")
    while time.time() < t0 + 30 and not (os.path.exists(path) and read_pages(path)):
        time.sleep(0.05)
    check(os.path.exists(path) and read_pages(path), "the page was not stored within 30 s")
    return time.time() - t0, [len(sub.messages) for sub in subs]


def test_nudges_cut_the_wait(tmp, procs):
    """Pub/sub nudges (shared/wake.c): with the scheduler's tick at 10 s, a job submitted to an
    idle fleet is dispatched at once, because submit.lua nudges the scheduler (wake:sched) and
    assign.lua the worker that got the host (wake:w0). With --poll-only the same job waits for
    the next tick."""
    fast, seen = nudged_fleet(procs, tmp, False)
    procs.stop_all()
    slow, seen_poll = nudged_fleet(procs, tmp, True)
    print("  submit to stored: %.2f s with nudges %s, %.2f s polling every 10 s (nudges %s)"
          % (fast, seen, slow, seen_poll))
    check(seen[0] >= 1 and seen[1] >= 1, "no nudge on wake:sched or wake:w0: %s" % seen)
    check(fast < 5, "with nudges the page still waited %.1f s for the 10 s tick" % fast)
    check(slow > fast + 3, "polling only was not slower (%.1f s vs %.1f s): did the nudge act?" % (slow, fast))


def log_time(path, pattern):
    """The time (s since the epoch) of the first log line in path matching pattern, or None."""
    for line in open(path):
        if re.search(pattern, line):
            stamp = datetime.datetime.strptime(line.split()[0], "%Y-%m-%dT%H:%M:%S.%fZ")
            return stamp.replace(tzinfo=datetime.timezone.utc).timestamp()
    return None


def join_delay(procs, tmp, workers, *sargs):
    """A scheduler alone, then (just after its first refresh) workers w0.. one after another,
    each once the scheduler has seen the one before: returns, for each, the ms from its
    registration to the scheduler's "worker joined"."""
    tmp = os.path.join(tmp, "tick%d%s" % (workers, "".join(sargs[1:])))  # each run its own logs
    os.makedirs(tmp)
    redis_port, _ = start_redis(procs, tmp)
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
    slog = os.path.join(tmp, "scheduler.log")
    procs.start([SCHEDULER, "--log-level", "debug"] + list(sargs), slog, env=env)
    deadline = time.time() + 10
    while time.time() < deadline and not log_time(slog, "leading"):
        time.sleep(0.01)
    delays = []
    for i in range(workers):
        wlog, joined = os.path.join(tmp, "worker%d.log" % i), "worker joined worker=w%d" % i
        procs.start([WORKER, "--id", "w%d" % i, "--out", os.path.join(tmp, "out")], wlog, env=env)
        deadline = time.time() + 15
        while time.time() < deadline and not log_time(slog, joined):
            time.sleep(0.05)
        registered, seen = log_time(wlog, "registered"), log_time(slog, joined)
        check(registered and seen, "worker w%d did not register or join within 15 s" % i)
        delays.append((seen - registered) * 1000)
    return delays


def test_workers_seen_at_once(tmp, procs):
    """A fleet starting: the scheduler refreshes its workers once a second, and a worker that
    registered just after a refresh waited out the second before it got a host (a one-page
    `redcrawl crawl` took 1.2 s, 0.3 s now), and a second worker starting with the first got
    no host of a job submitted at once (every host went to the first: test_crawl's
    test_two_workers_share_load). A worker's registration nudges the scheduler (work.lua's
    heartbeat on wake:sched), which then compares the worker table with the workers it knows:
    with the tick at 10 s every worker still joins at once."""
    polled = join_delay(procs, tmp, 2)
    procs.stop_all()
    nudged = join_delay(procs, tmp, 2, "--tick-ms", "10000")
    print("  workers joined %s ms after registering (tick 50 ms), %s ms (tick 10 s, nudged)"
          % (["%.0f" % d for d in polled], ["%.0f" % d for d in nudged]))
    for name, delays in (("a 50 ms tick", polled), ("a 10 s tick", nudged)):
        for i, d in enumerate(delays):
            check(d < 500, "with %s worker w%d joined %.0f ms after it registered: the scheduler waited "
                  "for its once-a-second refresh" % (name, i, d))


def test_seed_list_into_a_fleet(tmp, procs):
    """A seed list given to a running fleet (`redcrawl crawl --seeds - --redis URL`, whose own
    scheduler stands by behind the fleet's) goes in over many submit.lua calls while the fleet's
    workers wait for work. Each host's root comes first in the list and links to its p/1 and
    p/2, which come last: were the job dispatched while the list goes in, the roots' links
    would put p/1 and p/2 in at depth 1, the seeds would then be found in the bloom and not
    added at depth 0, and with --maxdepth 1 their links p/3..p/6 would never be fetched. The
    job is held (hold_until, submit.lua) until the list is in: every seed at depth 0, the
    exact set within depth 1, each page once over the fleet's and the crawl's workers."""
    hosts = 200
    args = ["--sites", str(hosts), "--pages", "30"]
    port, log, _ = start_web(procs, tmp, *args)
    redis_port, env = fleet(procs, tmp, port, 2, "--delay", "0")
    roots = ["http://s%d.site.test/" % h for h in range(hosts)]
    middle = ["http://s%d.site.test/p/%d" % (h, p) for p in range(7, 30) for h in range(hosts)]
    last = ["http://s%d.site.test/p/%d" % (h, p) for p in (1, 2) for h in range(hosts)]
    seeds = roots + middle + last
    want = expected_pages(graph(*args), seeds, 1, ["site.test"])
    out = os.path.join(tmp, "listed")
    r = subprocess.run([REDCRAWL, "crawl", "--redis", env["REDCRAWL_REDIS"], "--crawlid", "listed", "--out", out,
                        "--connect-to", "::127.0.0.1:%d" % port, "--allow-net", "127.0.0.0/8", "--quiet",
                        "--maxdepth", "1", "--delay", "0", "--workers", "1", "--web-port", "-1", "--seeds", "-"],
                       input="\n".join(seeds) + "\n", capture_output=True, text=True, env=env, timeout=600)
    check(r.returncode == 0, "crawl exited %d: %s" % (r.returncode, r.stderr[-3000:]))
    pages = [p for path in (os.path.join(tmp, "out", "pages.jsonl"), os.path.join(out, "pages.jsonl"))
             if os.path.exists(path) for p in read_pages(path) if p.get("crawlid") == "listed"]
    seedset = set(seeds)
    deep = sorted(p["url"] for p in pages if p["url"] in seedset and p.get("depth") != 0)
    check(not deep, "%d seeds fetched at a depth other than 0, e.g. %s" % (len(deep), deep[:3]))
    check_page_set(pages, want, "%d seeds into a fleet" % len(seeds))
    check(redis_cmd(redis_port, "HGET", "rc:job:listed", "hold_until") is None, "the job's hold was left set")
    bad = overlaps(read_requests(log))
    check(not bad, "overlapping requests to one host: %s" % bad[:2])
    print("  %d seeds, %d pages, every seed at depth 0" % (len(seeds), len(pages)))
    # A hold whose list never ends (its crawl killed) runs out by itself: a job held for 1.5 s
    # from its submission is dispatched then, not before and not never.
    t0 = time.time()
    redis_cmd(redis_port, "HSET", "rc:job:late", "hold_until", str(int((t0 + 1.5) * 1000)))
    submit(env, "late", ["http://s0.site.test/p/29"])
    first = None
    deadline = t0 + 15
    while time.time() < deadline and first is None:
        rows = [r for r in read_requests(log) if r[3] == "/p/29" and r[0] / 1e6 > t0]
        first = min(r[0] for r in rows) / 1e6 - t0 if rows else None
        time.sleep(0.1)
    print("  a job held 1.5 s was first fetched after %s s" % ("%.2f" % first if first is not None else "never (15 s)"))
    check(first is not None and 1.5 <= first < 5, "a held job's page fetched after %s s, not once its hold ran out"
          % first)


if __name__ == "__main__":
    run_tests([test_small_job_not_behind_big_one, test_hosts_follow_capacity, test_slowed_worker_loses_hosts,
               test_priorities_share_hosts, test_new_job_not_behind_backlog_on_same_host,
               test_reaped_worker_hosts_keep_queues, test_cpu_bound_worker_gets_fewer_hosts,
               test_frontier_windows_by_priority, test_nudges_cut_the_wait, test_workers_seen_at_once,
               test_seed_list_into_a_fleet])
