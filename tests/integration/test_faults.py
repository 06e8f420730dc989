#!/usr/bin/env python3
"""Faults an operator meets on a bad day, each against real servers (redis-server, the test web
server) on loopback: Redis at maxmemory, Redis restarted without persistence, a worker stalled
(SIGSTOP) past the worker timeout with transfers in flight, and the output disk full. Each
checks that nothing is lost and nothing is stored twice."""
import collections
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import chaos  # noqa: E402
from harness import (REDCRAWL, SCHEDULER, WORKER, Failure, check, expected_pages, graph,  # noqa: E402
                     read_requests, redis_cmd, run_tests, start_redis, start_web)


def fleet(tmp, procs, redis_port, web_port, n_workers, *worker_args):
    """A scheduler (worker timeout 3 s) and n workers started by hand, all writing to one --out."""
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
    procs.start([SCHEDULER, "--worker-timeout", "3"], os.path.join(tmp, "scheduler.log"), env=env)
    out = os.path.join(tmp, "out")
    workers = []
    for i in range(n_workers):
        workers.append(procs.start(fleet_worker_argv(out, web_port, *worker_args), os.path.join(tmp, "worker%d.log" % i),
                                   env=env))
    return env, out, workers


def fleet_worker_argv(out, web_port, *worker_args):
    return [WORKER, "--out", out, "--delay", "0", "--heartbeat", "0.5", "--connect-to", "::127.0.0.1:%d" % web_port,
            "--allow-net", "127.0.0.0/8"] + list(worker_args)


def submit(env, crawlid, seed):
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", crawlid, "--maxdepth", "-1", seed],
                       capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0, "submit failed: %s %s" % (r.stdout, r.stderr))


def job_field(port, crawlid, field):
    v = redis_cmd(port, "HGET", "rc:job:" + crawlid, field)
    return v if isinstance(v, str) else None


def wait_for(cond, secs, what):
    deadline = time.time() + secs
    while time.time() < deadline:
        if cond():
            return
        time.sleep(0.2)
    raise Failure("timed out after %ds waiting for %s" % (secs, what))


def read_jsonl(path):
    """Records and lines that are not one complete JSON object (torn or glued records)."""
    recs, bad = [], []
    if os.path.exists(path):
        with open(path, "rb") as f:
            for line in f:
                try:
                    recs.append(json.loads(line))
                except ValueError:
                    bad.append(line[:120])
    return recs, bad


def check_exact(path, want, label):
    recs, bad = read_jsonl(path)
    check(not bad, "%s: %d corrupt lines, e.g. %r" % (label, len(bad), bad[:2]))
    ids = collections.Counter(r["_id"] for r in recs)
    dups = [i for i, n in ids.items() if n > 1]
    check(not dups, "%s: %d _ids stored more than once, e.g. %s" % (label, len(dups), dups[:3]))
    got = {r["url"] for r in recs}
    missing, extra = set(want) - got, got - set(want)
    check(not missing and not extra, "%s: %d missing (e.g. %s), %d unexpected (e.g. %s)" %
          (label, len(missing), sorted(missing)[:3], len(extra), sorted(extra)[:3]))


def log_text(tmp, name):
    with open(os.path.join(tmp, name), errors="replace") as f:
        return f.read()


def used_memory(port):
    info = redis_cmd(port, "INFO", "memory")
    for line in info.splitlines():
        if line.startswith("used_memory:"):
            return int(line.split(":")[1])
    raise Failure("no used_memory in INFO")


def over_maxmemory(port):
    """Ballast past 20 MB, then `maxmemory 20mb noeviction`: Redis refuses what would grow it.
    (A SET of the ballast under the limit would be refused itself: its query buffer counts.)"""
    ballast = max((20 << 20) - used_memory(port), 0) + (2 << 20)
    check(redis_cmd(port, "SET", "ballast", "x" * ballast) == "OK", "ballast not set")
    redis_cmd(port, "CONFIG", "SET", "maxmemory-policy", "noeviction")
    check(redis_cmd(port, "CONFIG", "SET", "maxmemory", str(20 << 20)) == "OK", "maxmemory not set")


def test_redis_at_maxmemory(tmp, procs):
    """Redis over `maxmemory 20mb noeviction`: no script half-applies (no page completes, no URL
    is leased), heartbeats go on (no live worker reaped), the components say so, and the crawl
    resumes and ends exactly once every page when memory frees. A finished job's working keys
    then carry the retention TTL."""
    args = ["--sites", "4", "--pages", "60", "--latency-ms", "20"]
    web_port, _, _ = start_web(procs, tmp, *args)
    redis_port, _ = start_redis(procs, tmp)
    env, out, _ = fleet(tmp, procs, redis_port, web_port, 2, "--concurrency", "8")
    submit(env, "oom", "http://s0.site.test/")
    wait_for(lambda: int(job_field(redis_port, "oom", "fetched") or 0) >= 20, 60, "20 pages")
    over_maxmemory(redis_port)
    workers_before = set(redis_cmd(redis_port, "ZRANGE", "rc:workers", "0", "-1"))
    time.sleep(1.0)  # what was in flight settles
    fetched0 = int(job_field(redis_port, "oom", "fetched"))
    mem0 = used_memory(redis_port)
    time.sleep(6)  # twice the worker timeout
    fetched1 = int(job_field(redis_port, "oom", "fetched"))
    workers_after = set(redis_cmd(redis_port, "ZRANGE", "rc:workers", "0", "-1"))
    grew = used_memory(redis_port) - mem0
    check(workers_after == workers_before and len(workers_after) == 2,
          "live workers were reaped at maxmemory: %s -> %s" % (workers_before, workers_after))
    check(fetched1 == fetched0, "pages kept completing past maxmemory: fetched %d -> %d" % (fetched0, fetched1))
    check(grew < (256 << 10), "Redis kept growing past maxmemory: +%d bytes in 6 s" % grew)
    check("Redis refuses writes: OOM" in log_text(tmp, "worker0.log") + log_text(tmp, "worker1.log"),
          "the workers did not say Redis refuses writes")
    check("Redis refuses writes: OOM" in log_text(tmp, "scheduler.log"), "the scheduler did not say so")
    redis_cmd(redis_port, "DEL", "ballast")
    wait_for(lambda: job_field(redis_port, "oom", "state") == "done", 90, "the job to finish after memory freed")
    want = expected_pages(graph(*args), ["http://s0.site.test/"], -1, ["site.test"])
    check_exact(os.path.join(out, "pages.jsonl"), want, "after maxmemory")
    ttl = redis_cmd(redis_port, "PTTL", "rc:bloom:oom:0")
    check(isinstance(ttl, int) and ttl > 0, "a finished job's bloom has no retention TTL (PTTL %s)" % ttl)


def test_stop_at_maxmemory(tmp, procs):
    """Stopping a job works while Redis is at maxmemory (stop.lua is flagged allow-oom)."""
    args = ["--sites", "2", "--pages", "50", "--latency-ms", "50"]
    web_port, _, _ = start_web(procs, tmp, *args)
    redis_port, _ = start_redis(procs, tmp)
    env, _, _ = fleet(tmp, procs, redis_port, web_port, 1, "--concurrency", "2")
    submit(env, "oomstop", "http://s0.site.test/")
    wait_for(lambda: int(job_field(redis_port, "oomstop", "fetched") or 0) >= 3, 60, "3 pages")
    over_maxmemory(redis_port)
    r = subprocess.run([REDCRAWL, "stop", "oomstop"], capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0 and job_field(redis_port, "oomstop", "state") == "stopped",
          "stop refused at maxmemory: rc=%d %s %s" % (r.returncode, r.stdout, r.stderr))
    redis_cmd(redis_port, "DEL", "ballast")  # the held completes go through: the worker stops at once


def test_redis_restart_loses_job(tmp, procs):
    """Redis restarted without persistence: `redcrawl crawl` exits with a clear error (not a
    wait for ever) and the workers log the restart and register again. While Redis is down the
    scheduler says it cannot renew the leader lock, and why, not that another scheduler leads."""
    args = ["--sites", "2", "--pages", "200", "--latency-ms", "30"]
    web_port, _, _ = start_web(procs, tmp, *args)
    redis_port, redis_p = start_redis(procs, tmp)
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--redis", "redis://127.0.0.1:%d" % redis_port, "--out", out, "--quiet",
           "--connect-to", "::127.0.0.1:%d" % web_port, "--allow-net", "127.0.0.0/8", "--maxdepth", "-1",
           "--delay", "0.05", "--workers", "2", "http://s0.site.test/"]
    crawl = procs.start(cmd, os.path.join(tmp, "crawl.log"))
    wait_for(lambda: int(job_field(redis_port, redis_cmd(redis_port, "SRANDMEMBER", "rc:jobs") or "-",
                                   "fetched") or 0) >= 5, 60, "5 pages")
    procs.stop(redis_p, signal.SIGKILL)
    p = procs.start(["redis-server", "--bind", "127.0.0.1", "--port", str(redis_port), "--save", "",
                     "--appendonly", "no", "--dir", tmp], os.path.join(tmp, "redis2.log"))
    wait_for(lambda: redis_cmd(redis_port, "PING") == "PONG", 10, "Redis to come back")
    try:
        rc = crawl.wait(timeout=40)
    except subprocess.TimeoutExpired:
        raise Failure("redcrawl crawl still waits 40 s after its job vanished with Redis")
    text = log_text(tmp, "crawl.log")
    check(rc == 3 and "vanished from Redis" in text, "want exit 3 and a clear error, got %d: %s" % (rc, text[-800:]))
    procs.stop(p)
    check("Redis restarted (run_id" in log_text(os.path.join(out, "logs"), "scheduler.log"),
          "the scheduler did not log the Redis restart")
    # The crawl stops its workers as soon as it sees the job gone, which may be before their
    # reconnect; a fleet started by hand shows what a worker says.
    hand = os.path.join(tmp, "hand")
    os.makedirs(hand)
    redis_port, redis_p = start_redis(procs, hand)
    env, _, _ = fleet(hand, procs, redis_port, web_port, 1)
    submit(env, "restart", "http://s0.site.test/")
    wait_for(lambda: int(job_field(redis_port, "restart", "fetched") or 0) >= 5, 60, "5 pages")
    procs.stop(redis_p, signal.SIGKILL)
    # While Redis is down the scheduler cannot renew its lease: it must say so, not blame a
    # leader that does not exist.
    wait_for(lambda: "cannot renew the leader lock" in log_text(hand, "scheduler.log"), 15,
             "the scheduler to log that it cannot renew the leader lock")
    procs.start(["redis-server", "--bind", "127.0.0.1", "--port", str(redis_port), "--save", "",
                 "--appendonly", "no", "--dir", hand], os.path.join(hand, "redis2.log"))
    wait_for(lambda: "Redis restarted (run_id" in log_text(hand, "worker0.log"), 30,
             "the worker to log the Redis restart")
    wait_for(lambda: log_text(hand, "scheduler.log").count("leading: this scheduler dispatches") >= 2, 15,
             "the scheduler to lead again once Redis is back")
    sched = log_text(hand, "scheduler.log")
    lock_lines = [l for l in sched.splitlines() if "leader lock" in l]
    check("Redis unreachable" in lock_lines[0] and "Connection refused" in lock_lines[0],
          "the lock line does not say Redis is unreachable and why: %s" % lock_lines[0][-300:])
    check("another scheduler leads" not in sched,
          "a lone scheduler blamed another leader while Redis was down: %s" % sched[-800:])
    print("  scheduler: %s" % lock_lines[0][-200:])
    print("  worker: %s" % [l for l in log_text(hand, "worker0.log").splitlines() if "run_id" in l][0][-160:])


def test_stalled_worker_is_fenced(tmp, procs):
    """A worker SIGSTOPped with transfers in flight for longer than the worker timeout is reaped
    and its URLs go to the other worker; on SIGCONT it must store and ack nothing it held: every
    page once, no _id twice."""
    args = ["--sites", "5", "--pages", "10", "--latency-ms", "1200"]
    web_port, _, _ = start_web(procs, tmp, *args)
    redis_port, _ = start_redis(procs, tmp)
    env, out, workers = fleet(tmp, procs, redis_port, web_port, 2, "--concurrency", "6", "--delay-factor", "0")
    submit(env, "stall", "http://s0.site.test/")

    def inflight_worker():
        for wid in redis_cmd(redis_port, "ZRANGE", "rc:workers", "0", "-1") or []:
            if (redis_cmd(redis_port, "ZCARD", "rc:lease:" + wid) or 0) >= 2:
                return wid
        return None
    wait_for(lambda: inflight_worker() is not None, 60, "a worker with 2 transfers in flight")
    wid = inflight_worker()
    pid = int(redis_cmd(redis_port, "HGET", "rc:worker:" + wid, "pid"))
    victim = [p for p in workers if p.pid == pid][0]
    os.kill(pid, signal.SIGSTOP)
    time.sleep(10)  # worker timeout 3 s: reaped, and the other worker stores those pages meanwhile
    reaped = redis_cmd(redis_port, "ZSCORE", "rc:workers", wid) is None
    os.kill(pid, signal.SIGCONT)
    check(reaped, "the stopped worker was not reaped")
    wait_for(lambda: job_field(redis_port, "stall", "state") == "done", 120, "the job to finish")
    want = expected_pages(graph(*args), ["http://s0.site.test/"], -1, ["site.test"])
    check_exact(os.path.join(out, "pages.jsonl"), want, "after a stall")
    idx = [p for p in workers].index(victim)
    check("was reaped" in log_text(tmp, "worker%d.log" % idx), "the woken worker did not say it was reaped")


def test_paused_machine_reaps_nobody(tmp, procs):
    """The whole machine stalls (a VM's vCPUs descheduled, a host swapping): the worker, Redis and
    the scheduler all stop for longer than the worker timeout, the worker a little before the
    others and back a little after them. The scheduler must not take that pause for the worker's
    death: reaping it threw away the pages it had fetched in full, which were fetched again (the
    bench's duplicate fetches under heavy load). Every page requested once, nobody reaped."""
    args = ["--sites", "5", "--pages", "10", "--latency-ms", "300"]
    web_port, requests_log, _ = start_web(procs, tmp, *args)
    redis_port, redis = start_redis(procs, tmp)
    env, out, workers = fleet(tmp, procs, redis_port, web_port, 1, "--concurrency", "6", "--delay-factor", "0")
    scheduler = procs.procs[-2]
    submit(env, "pause", "http://s0.site.test/")
    wid = None

    def leases():
        nonlocal wid
        wid = (redis_cmd(redis_port, "ZRANGE", "rc:workers", "0", "-1") or [None])[0]
        return wid and (redis_cmd(redis_port, "ZCARD", "rc:lease:" + wid) or 0) >= 2
    wait_for(leases, 60, "the worker with 2 transfers in flight")
    os.kill(workers[0].pid, signal.SIGSTOP)
    time.sleep(0.2)
    for p in (scheduler, redis):
        os.kill(p.pid, signal.SIGSTOP)
    time.sleep(4.5)  # past the worker timeout (3 s) for everyone
    for p in (redis, scheduler):
        os.kill(p.pid, signal.SIGCONT)
    time.sleep(0.4)
    os.kill(workers[0].pid, signal.SIGCONT)
    wait_for(lambda: job_field(redis_port, "pause", "state") == "done", 120, "the job to finish")
    sched = log_text(tmp, "scheduler.log")
    check("this scheduler did not run for" in sched, "the scheduler did not notice its own pause")
    check("worker gone" not in sched, "the pause was taken for the worker's death: %s" %
          [l for l in sched.splitlines() if "worker gone" in l])
    fetches = collections.Counter((r[2], r[3]) for r in read_requests(requests_log) if r[3] != "/robots.txt")
    twice = sorted(k for k, n in fetches.items() if n > 1)
    check(not twice, "%d pages requested more than once, e.g. %s" % (len(twice), twice[:3]))
    want = expected_pages(graph(*args), ["http://s0.site.test/"], -1, ["site.test"])
    check_exact(os.path.join(out, "pages.jsonl"), want, "after a pause")
    print("  %s reaped nobody: %d pages, each requested once" % (wid, len(fetches)))


def test_orphan_leases_adopted(tmp, procs):
    """Leases a worker holds in Redis but no longer knows of (a take whose reply was lost with
    the connection, or a process with a fixed --id killed and started again, as a container
    restart does) are fetched at once by the worker under that id, not left to expire
    (--lease-seconds 60 here): the crawl ends well before, every page once."""
    args = ["--sites", "4", "--pages", "12", "--latency-ms", "400"]
    web_port, _, _ = start_web(procs, tmp, *args)
    redis_port, _ = start_redis(procs, tmp)
    env, out, _ = fleet(tmp, procs, redis_port, web_port, 0)
    wargs = fleet_worker_argv(out, web_port, "--id", "fixed", "--lease-seconds", "60", "--concurrency", "4")
    first = procs.start(wargs, os.path.join(tmp, "worker0.log"), env=env)
    submit(env, "orphans", "http://s0.site.test/")
    wait_for(lambda: (redis_cmd(redis_port, "ZCARD", "rc:lease:fixed") or 0) >= 2, 60, "2 leases in flight")
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    held = redis_cmd(redis_port, "ZRANGE", "rc:lease:fixed", "0", "-1")
    check(len(held) >= 1, "the killed worker left no lease to adopt")
    t0 = time.time()
    procs.start(wargs, os.path.join(tmp, "worker1.log"), env=env)
    wait_for(lambda: job_field(redis_port, "orphans", "state") == "done", 40, "the job to finish (leases expire at 60 s)")
    want = expected_pages(graph(*args), ["http://s0.site.test/"], -1, ["site.test"])
    check_exact(os.path.join(out, "pages.jsonl"), want, "after adopting leases")
    text = log_text(tmp, "worker1.log")
    check("adopted %d leases" % len(held) in text, "worker1 did not adopt the %d leases: %s" % (len(held), held))
    print("  %d leases adopted; the job ended %.1f s after the restart" % (len(held), time.time() - t0))


def test_disk_full(tmp, procs):
    """The output directory on a small tmpfs that fills up mid-crawl and frees again: every
    failed write is rolled back (no partial record, nothing glued), every page ends up stored
    exactly once, and the summary says writes failed and were retried. With --resumable=0: the
    private Redis' append-only file would be on the same small disk, and Redis, refusing writes
    from its first failed one, stops the takes; whether a page was still on its way to the file
    then was a matter of timing (a CI run under load saw none)."""
    args = ["--sites", "4", "--pages", "40", "--latency-ms", "10"]
    web_port, _, _ = start_web(procs, tmp, *args)
    mnt = os.path.join(tmp, "disk")
    os.mkdir(mnt)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt], capture_output=True, text=True)
    check(r.returncode == 0, "cannot mount a tmpfs (root needed): %s" % r.stderr)
    try:
        out = os.path.join(mnt, "out")
        cmd = [REDCRAWL, "crawl", "--out", out, "--quiet", "--connect-to", "::127.0.0.1:%d" % web_port,
               "--allow-net", "127.0.0.0/8", "--maxdepth", "-1", "--delay", "0.02", "--workers", "2",
               "--resumable=0", "--text", "http://s0.site.test/"]
        crawl = procs.start(cmd, os.path.join(tmp, "crawl.log"))
        pages = os.path.join(out, "pages.jsonl")
        wait_for(lambda: os.path.exists(pages) and os.path.getsize(pages) > 20000, 60, "20 kB of pages")
        filler = os.path.join(mnt, "filler")
        chaos.fill_disk(filler)
        time.sleep(4)  # writes fail meanwhile; their URLs go back and are retried
        os.unlink(filler)
        try:
            rc = crawl.wait(timeout=90)
        except subprocess.TimeoutExpired:
            raise Failure("the crawl did not finish after the disk freed")
        text = log_text(tmp, "crawl.log")
        check(rc == 0, "crawl exited %d: %s" % (rc, text[-1500:]))
        want = expected_pages(graph(*args), ["http://s0.site.test/"], -1, ["site.test"])
        check_exact(pages, want, "after a full disk")
        check("write(s) failed and were retried" in text, "the summary does not say writes failed: %s" % text)
        with open(pages + ".ids") as f:
            check(len(f.readlines()) == len(want), "the _id index does not list every record once")
    finally:
        procs.stop_all()
        subprocess.run(["umount", "-l", mnt], capture_output=True)


def test_chaos_short(tmp, procs):
    """The short chaos crawl (tests/integration/chaos.py; scripts/chaos.sh runs the long one):
    2,400 pages over 50 hosts, 4 workers, a worker SIGKILLed or SIGSTOPped (5 s, past the 3 s
    worker timeout) every 3 s, Redis (AOF) restarted once, the scheduler killed once."""
    import argparse
    opts = argparse.Namespace(sites=50, pages=40, latency=150, workers=4, every=3.0, max_seconds=100, seed=1,
                              disk=None, mongo=None, kafka=None, services_dir="", source="")
    res = chaos.run(tmp, procs, opts, log=lambda m: print("  chaos: " + m, flush=True))
    print("  chaos counts: %s" % json.dumps(res), flush=True)
    bad = chaos.verdict(res)
    check(not bad, "; ".join(bad))
    f = res["faults"]
    check(f.get("redis") == 1 and f.get("scheduler") == 1 and f.get("sigkill", 0) + f.get("sigstop", 0) >= 3,
          "too few faults were injected: %s" % f)


# Stops one thread of a process (ptrace: PTRACE_SEIZE, then PTRACE_INTERRUPT) and keeps it stopped
# until the process ends or 60 s pass; its other threads run on. A process of its own, so that the
# test, the worker's parent, still gets the worker's exit status.
STOP_THREAD = r"""
import ctypes, os, signal, sys
signal.alarm(60)
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
tid = int(sys.argv[1])
for req in (0x4206, 0x4207):  # PTRACE_SEIZE, PTRACE_INTERRUPT
    if libc.ptrace(req, tid, None, None) != 0:
        sys.exit("ptrace %#x: %s" % (req, os.strerror(ctypes.get_errno())))
print("stopped", flush=True)
while True:  # stops are reported and left as they are; the thread runs again only once we are gone
    _, status = os.waitpid(tid, 0)
    if os.WIFEXITED(status) or os.WIFSIGNALED(status):
        break
"""


def test_blocked_loop_exits(tmp, procs):
    """A worker whose event loop is blocked for good (its thread stopped alone, as a write() on a
    hung disk or a lock never released would hold it) sends no heartbeat: the scheduler reaps it,
    but only an exit lets a supervisor (compose, systemd) start a fresh one. Its watchdog
    (--watchdog 3) ends it with status 70 and says why. A stop of the whole process (SIGSTOP,
    5 s) is not a blocked loop: that worker lives on. A fresh worker then finishes: every page
    once."""
    args = ["--sites", "4", "--pages", "30", "--latency-ms", "300"]
    web_port, _, _ = start_web(procs, tmp, *args)
    redis_port, _ = start_redis(procs, tmp)
    env, out, workers = fleet(tmp, procs, redis_port, web_port, 1, "--watchdog", "3", "--concurrency", "4")
    submit(env, "blocked", "http://s0.site.test/")
    pages = os.path.join(out, "pages.jsonl")
    wait_for(lambda: os.path.exists(pages) and os.path.getsize(pages) > 0, 60, "the first records")
    w = workers[0]
    os.kill(w.pid, signal.SIGSTOP)
    time.sleep(5)
    os.kill(w.pid, signal.SIGCONT)
    time.sleep(3)
    check(w.poll() is None, "the watchdog took a stop of the whole process for a blocked loop (exit %s)" % w.returncode)
    tracer = subprocess.Popen([sys.executable, "-c", STOP_THREAD, str(w.pid)], stdout=subprocess.PIPE, text=True)
    try:
        check(tracer.stdout.readline().strip() == "stopped", "could not stop the worker's loop thread")
        t0 = time.time()
        try:
            rc = w.wait(timeout=30)
        except subprocess.TimeoutExpired:
            raise Failure("a worker whose loop was blocked for 30 s did not exit")
        waited = time.time() - t0
    finally:
        tracer.kill()
        tracer.wait()
    text = log_text(tmp, "worker0.log")
    check(rc == 70, "the blocked worker exited with %s, not 70: %s" % (rc, text[-600:]))
    check("the event loop has not run for" in text, "the worker did not say why it exited: %s" % text[-600:])
    check(job_field(redis_port, "blocked", "state") != "done", "the job ended before the test could block a worker")
    procs.start(fleet_worker_argv(out, web_port, "--watchdog", "3", "--concurrency", "4"),
                os.path.join(tmp, "worker1.log"), env=env)
    wait_for(lambda: job_field(redis_port, "blocked", "state") == "done", 120, "the job to finish")
    want = expected_pages(graph(*args), ["http://s0.site.test/"], -1, ["site.test"])
    check_exact(pages, want, "after a blocked worker")
    print("  the blocked worker exited %.1f s after its loop stopped (--watchdog 3)" % waited)


def test_killed_worker_keeps_acked_pages(tmp, procs):
    """A page a worker acknowledged (counted fetched in Redis) is in pages.jsonl even when that
    worker is SIGKILLed mid-crawl: the JSON Lines sink writes a loop turn's records before it
    acknowledges them (worker/sink_jsonl.c), so the lines it held unwritten belong to URLs still
    leased, which come back. Three workers killed in turn at full speed, then one finishes: every
    page once."""
    args = ["--sites", "20", "--pages", "60"]
    web_port, _, _ = start_web(procs, tmp, *args)
    redis_port, _ = start_redis(procs, tmp)
    env, out, _ = fleet(tmp, procs, redis_port, web_port, 0)
    wargs = fleet_worker_argv(out, web_port)
    want = expected_pages(graph(*args), ["http://s0.site.test/"], -1, ["site.test"])
    submit(env, "killed", "http://s0.site.test/")
    pages = os.path.join(out, "pages.jsonl")

    def fetched():
        return int(job_field(redis_port, "killed", "fetched") or 0)
    for i in range(3):
        w = procs.start(wargs, os.path.join(tmp, "worker%d.log" % i), env=env)
        goal = (i + 1) * len(want) // 5
        wait_for(lambda: fetched() >= goal, 60, "%d pages fetched" % goal)
        os.kill(w.pid, signal.SIGKILL)
        w.wait()
        acked = fetched()
        recs, bad = read_jsonl(pages)
        stored = len({r["_id"] for r in recs})
        check(not bad, "a killed worker left a torn record: %r" % bad[:2])
        check(stored >= acked, "kill %d: Redis counts %d pages fetched, pages.jsonl holds %d" % (i + 1, acked, stored))
        print("  kill %d: %d pages acknowledged, %d records" % (i + 1, acked, stored))
    procs.start(wargs, os.path.join(tmp, "worker3.log"), env=env)
    wait_for(lambda: job_field(redis_port, "killed", "state") == "done", 120, "the job to finish")
    check_exact(pages, want, "after three workers were killed")


if __name__ == "__main__":
    run_tests([test_chaos_short, test_redis_at_maxmemory, test_stop_at_maxmemory, test_redis_restart_loses_job,
               test_stalled_worker_is_fenced, test_paused_machine_reaps_nobody, test_orphan_leases_adopted, test_disk_full, test_killed_worker_keeps_acked_pages,
               test_blocked_loop_exits])
