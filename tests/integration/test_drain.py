#!/usr/bin/env python3
"""Draining a worker (real redis-server, scheduler, workers, the test web, redcrawl-web): a
worker drained mid-crawl takes nothing new, its hosts with queued URLs go to the other worker,
the crawl ends with exactly the expected pages, each once, and no host is ever hit twice at
once or under its delay; `redcrawl drain` waits with progress on a terminal and says clearly
when nothing can take the hosts; the REST API drains and undoes, refusing bad bodies."""
import collections
import datetime
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import (REDCRAWL, check, expected_pages, graph, read_pages, read_requests,  # noqa: E402
                     redis_cmd, run_tests, start_web)
from test_fleet import check_politeness, fleet  # noqa: E402
from webapi import call, start_webapp  # noqa: E402


def owned_with_backlog(redis_port, wid):
    return {h for h in redis_cmd(redis_port, "SMEMBERS", "rc:wdoms:" + wid) or []
            if int(redis_cmd(redis_port, "EXISTS", "rc:hjobs:" + h))}


def worker_fetched(redis_port, wid):
    return int(redis_cmd(redis_port, "HGET", "rc:worker:" + wid, "fetched") or 0)


def stamp(page):
    return datetime.datetime.strptime(page["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def wait_done(redis_port, crawlid, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline and redis_cmd(redis_port, "HGET", "rc:job:" + crawlid, "state") != "done":
        time.sleep(0.2)
    check(redis_cmd(redis_port, "HGET", "rc:job:" + crawlid, "state") == "done", "the crawl did not finish")


def check_pages(tmp, want):
    pages = read_pages(os.path.join(tmp, "out", "pages.jsonl"))
    urls = [p["url"] for p in pages]
    dups = [u for u, n in collections.Counter(urls).items() if n > 1]
    check(not dups, "%d pages stored twice, e.g. %s" % (len(dups), dups[:3]))
    missing, extra = set(want) - set(urls), set(urls) - set(want)
    check(not missing and not extra, "%d pages missing (%s), %d unexpected (%s)"
          % (len(missing), sorted(missing)[:3], len(extra), sorted(extra)[:3]))
    return pages


def test_drain_mid_crawl(tmp, procs):
    """Two workers crawl 6 hosts; w0 is drained while it holds hosts with queued URLs. From the
    moment `redcrawl drain` returns, w0 owns no host and stores no page; its backlogged hosts
    went to w1; the crawl ends with the expected page set, politely."""
    args = ["--sites", "6", "--pages", "60", "--latency-ms", "10"]
    delay = 0.1
    web_port, log, _ = start_web(procs, tmp, *args)
    seeds = ["http://s%d.site.test/" % i for i in range(6)]
    want = expected_pages(graph(*args), seeds, -1, ["site.test"])
    redis_port, env = fleet(procs, tmp, web_port, 2, "--delay", str(delay), "--delay-factor", "0")
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "dr", "--maxdepth", "-1"] + seeds,
                       capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode == 0, "submit failed: %s" % r.stderr)
    held = set()
    deadline = time.time() + 30
    while time.time() < deadline and (len(held) < 2 or worker_fetched(redis_port, "w0") < 5):
        held = owned_with_backlog(redis_port, "w0")
        time.sleep(0.05)
    check(len(held) >= 2, "w0 never held two hosts with queued URLs after 5 pages")
    before = int(redis_cmd(redis_port, "HGET", "rc:job:dr", "fetched") or 0)
    t0 = time.time()
    r = subprocess.run([REDCRAWL, "drain", "--timeout", "60", "--json", "w0"], capture_output=True, text=True,
                       env=env, timeout=90)
    t_drained = time.time()
    check(r.returncode == 0, "drain failed (%d): %s %s" % (r.returncode, r.stdout, r.stderr))
    a = json.loads(r.stdout)
    check(a["action"] == "drain" and a["worker"] == "w0" and a["draining"] and a["done"] and a["hosts"] == 0
          and a["inflight"] == 0, "drain answer: %s" % a)
    check(redis_cmd(redis_port, "HGET", "rc:job:dr", "state") == "running",
          "the crawl ended before the drain: nothing shown")
    new_owners = {h: redis_cmd(redis_port, "HGET", "rc:owner", h) for h in held}
    print("  w0 drained in %.2f s holding %d hosts with a backlog, %d pages fetched before; new owners %s"
          % (t_drained - t0, len(held), before, sorted(set(new_owners.values()), key=str)))
    check(all(o in ("w1", None) for o in new_owners.values()) and "w1" in new_owners.values(),
          "w0's backlogged hosts did not go to w1: %s" % new_owners)
    # w0 stays out while the crawl goes on
    while redis_cmd(redis_port, "HGET", "rc:job:dr", "state") != "done" and time.time() < t_drained + 120:
        check(not redis_cmd(redis_port, "SMEMBERS", "rc:wdoms:w0"), "a drained worker got a host")
        check(redis_cmd(redis_port, "ZCARD", "rc:lease:w0") == 0, "a drained worker took a URL")
        time.sleep(0.1)
    wait_done(redis_port, "dr", 1)
    pages = check_pages(tmp, want)
    late = [p["url"] for p in pages if p.get("worker") == "w0" and stamp(p) > t_drained]
    check(not late, "w0 stored pages after it was drained: %s" % late[:3])
    by = collections.Counter(p.get("worker") for p in pages)
    print("  %d pages, exactly the expected set; by worker %s" % (len(pages), dict(by)))
    check(by["w1"] > 0 and by["w0"] > 0, "both workers should have fetched: %s" % dict(by))
    check_politeness(read_requests(log), delay)
    check(int(redis_cmd(redis_port, "SISMEMBER", "rc:draining", "w0")) == 1, "w0 is no longer draining")
    r = subprocess.run([REDCRAWL, "drain", "--undo", "w0"], capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0 and "takes new URLs and hosts again" in r.stdout, "undo: %s %s" % (r.stdout, r.stderr))
    check(int(redis_cmd(redis_port, "SISMEMBER", "rc:draining", "w0")) == 0, "undo left the flag")


def test_drain_alone_times_out_then_undo(tmp, procs):
    """The only worker drained: nothing can take its hosts, so `redcrawl drain` shows its wait on
    a terminal and gives up at --timeout saying why; the crawl waits meanwhile and, undone,
    finishes with the expected pages. Unknown and malformed worker ids are refused."""
    args = ["--sites", "2", "--pages", "30"]
    web_port, log, _ = start_web(procs, tmp, *args)
    seeds = ["http://s0.site.test/", "http://s1.site.test/"]
    want = expected_pages(graph(*args), seeds, -1, ["site.test"])
    redis_port, env = fleet(procs, tmp, web_port, 1, "--delay", "0.2", "--delay-factor", "0")
    r = subprocess.run([REDCRAWL, "drain", "nosuch"], capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 1 and "no live worker 'nosuch'" in r.stderr, "unknown worker: %s" % r.stderr)
    r = subprocess.run([REDCRAWL, "drain", "a/b"], capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 2 and "worker id" in r.stderr, "bad id: %s" % r.stderr)
    check(not int(redis_cmd(redis_port, "EXISTS", "rc:draining")), "a refused drain left a flag")
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "solo", "--maxdepth", "-1"] + seeds,
                       capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode == 0, "submit failed: %s" % r.stderr)
    deadline = time.time() + 30
    while time.time() < deadline and (not owned_with_backlog(redis_port, "w0") or
                                      worker_fetched(redis_port, "w0") < 3):
        time.sleep(0.05)
    # script(1) gives the command a terminal: the wait is drawn once a second
    r = subprocess.run(["script", "-qec", "%s drain --timeout 3 w0" % REDCRAWL, "/dev/null"],
                       capture_output=True, text=True, env=env, timeout=60)
    out = r.stdout
    check("redcrawl drain: waiting for w0 to hand over" in out and "2 s of 3 s" in out,
          "no progress shown while waiting: %r" % out[-600:])
    check("timed out after 3 s" in out and "another worker takes them" in out and "--undo w0" in out,
          "no clear timeout message: %r" % out[-600:])
    fetched = int(redis_cmd(redis_port, "HGET", "rc:job:solo", "fetched") or 0)
    time.sleep(1)
    check(int(redis_cmd(redis_port, "HGET", "rc:job:solo", "fetched") or 0) == fetched,
          "a drained worker went on fetching")
    check(redis_cmd(redis_port, "HGET", "rc:job:solo", "state") == "running", "the crawl ended while drained")
    r = subprocess.run([REDCRAWL, "drain", "--undo", "w0"], capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0, "undo: %s" % r.stderr)
    wait_done(redis_port, "solo", 60)
    check_pages(tmp, want)
    print("  alone: timed out with its reason after 3 s (%d pages held back), undone, finished" % fetched)


def test_drain_over_rest(tmp, procs):
    """POST /api/drain drains and undoes a live worker, answers its state, and refuses what is not
    a drain request (400 with the field) or not a live worker (404)."""
    web_port, _, _ = start_web(procs, tmp, "--sites", "1", "--pages", "5")
    redis_port, env = fleet(procs, tmp, web_port, 2, "--delay", "0.1")
    port, _, _ = start_webapp(procs, tmp, redis_port)
    st, a = call(port, "POST", "/api/drain", {"worker": "w1"})
    check(st == 200 and a["action"] == "drain" and a["draining"] and a["live"], "drain: %s %s" % (st, a))
    check(int(redis_cmd(redis_port, "SISMEMBER", "rc:draining", "w1")) == 1, "no flag after the drain")
    st, a = call(port, "GET", "/api/status")
    ws = {w["id"]: w for w in a["workers"]}
    check(ws["w1"]["draining"] and ws["w1"]["weight"] == 0 and not ws["w0"]["draining"], "status: %s" % ws)
    st, a = call(port, "POST", "/api/drain", {"worker": "w1", "undo": True})
    check(st == 200 and a["action"] == "undrain" and not a["draining"], "undo: %s %s" % (st, a))
    for body, field in [({"worker": "w1", "undo": 1}, "undo"), ({"worker": "../x"}, "worker"), ({}, "worker"),
                        ({"worker": "w1", "appid": "x"}, "appid"), ("[1]", "(root)"), ("{", "(root)")]:
        st, a = call(port, "POST", "/api/drain", body)
        check(st == 400 and a.get("field") == field and a.get("reason"), "bad body %r: %s %s" % (body, st, a))
    st, a = call(port, "POST", "/api/drain", {"worker": "gone"})
    check(st == 404 and "no live worker" in a["error"], "unknown worker: %s %s" % (st, a))
    st, a = call(port, "GET", "/api/drain")
    check(st == 405, "GET /api/drain: %s" % st)
    check(not int(redis_cmd(redis_port, "EXISTS", "rc:draining")), "flags left: %s"
          % redis_cmd(redis_port, "SMEMBERS", "rc:draining"))
    print("  REST: drain, status shows it (weight 0), undo; 6 bad bodies 400 with their field, 404, 405")


if __name__ == "__main__":
    run_tests([test_drain_mid_crawl, test_drain_alone_times_out_then_undo, test_drain_over_rest])
