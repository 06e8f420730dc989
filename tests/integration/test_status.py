#!/usr/bin/env python3
"""`redcrawl status` against a running crawl (Redis, the scheduler, two workers, the test web
with latency): its --json agrees with Redis read directly while the fleet is frozen (SIGSTOP),
shows live rates while it runs, and after the crawl its HTTP statuses match the pages stored;
the live text view draws its frames."""
import collections
import json
import os
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import (REDCRAWL, SCHEDULER, WORKER, check, frontier_len, read_pages, redis_cmd,  # noqa: E402
                     run_tests, sbloom_filter, start_redis, start_web)


def status(env, *args):
    r = subprocess.run([REDCRAWL, "status", "--json"] + list(args), capture_output=True, text=True, env=env,
                       timeout=60)
    check(r.returncode == 0, "status --json exited %d: %s" % (r.returncode, r.stderr))
    return json.loads(r.stdout)


def keys(port, pattern):
    out, cursor = [], "0"
    while True:
        cursor, batch = redis_cmd(port, "SCAN", cursor, "MATCH", pattern, "COUNT", "1000")
        out += batch
        if cursor == "0":
            return out


def test_status_json_matches_redis(tmp, procs):
    web_port, _, _ = start_web(procs, tmp, "--sites", "4", "--pages", "60", "--latency-ms", "30", "--robots")
    redis_port, _ = start_redis(procs, tmp)
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
    fleet = [procs.start([SCHEDULER, "--worker-timeout", "10"], os.path.join(tmp, "scheduler.log"), env=env)]
    out = os.path.join(tmp, "out")
    for i in range(2):
        fleet.append(procs.start([WORKER, "--id", "w%d" % i, "--out", out, "--delay", "0.05", "--connect-to",
                                  "::127.0.0.1:%d" % web_port, "--allow-net", "127.0.0.0/8"],
                                 os.path.join(tmp, "w%d.log" % i), env=env))
    seeds = ["http://s%d.site.test/" % i for i in range(4)]
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "st", "--maxdepth", "-1"] + seeds, capture_output=True,
                       text=True, env=env, timeout=30)
    check(r.returncode == 0, "submit: %s" % r.stderr)
    deadline = time.time() + 60
    while time.time() < deadline and int(redis_cmd(redis_port, "HGET", "rc:job:st", "fetched") or 0) < 40:
        time.sleep(0.1)

    # Running: rates from two samples.
    s = status(env, "--interval", "1")
    job = [j for j in s["jobs"] if j["crawlid"] == "st"][0]
    check(job["state"] == "running" and job["pending"] > 0, "job while running: %s" % job)
    check(job["pages_per_s"] > 0, "job rate while running: %s" % job)
    check(sum(w["pages_per_s"] for w in s["workers"]) > 0, "no worker rate while running: %s" % s["workers"])
    check(s["hosts"]["top"], "no host with a backlog while running")

    # Frozen: every figure equals Redis read directly.
    for p in fleet:
        p.send_signal(signal.SIGSTOP)
    try:
        s = status(env, "--interval", "0.2", "--top", "3")
        check({w["id"] for w in s["workers"]} == {"w0", "w1"}, "workers: %s" % s["workers"])
        for w in s["workers"]:
            h = dict(zip(*[iter(redis_cmd(redis_port, "HGETALL", "rc:worker:" + w["id"]))] * 2))
            domains = redis_cmd(redis_port, "SCARD", "rc:wdoms:" + w["id"])
            check(w["host"] == socket.gethostname() and w["ip"] == "127.0.0.1", "host/ip: %s" % w)
            check(w["fetched"] == int(h["fetched"]) and w["inflight"] == int(h["inflight"]) and
                  w["queued"] == int(h["queued"]) and w["errors"] == int(h["errors"]), "worker %s vs %s" % (w, h))
            check(w["domains"] == domains and w["weight"] == 100 * max(int(h["slots"]) - domains, 1),
                  "weight: %s" % w)
            check(w["pages_per_s"] == 0, "a frozen worker has a rate: %s" % w)
            check(0 <= w["heartbeat_age_s"] < 10, "heartbeat age: %s" % w)
        job = [j for j in s["jobs"] if j["crawlid"] == "st"][0]
        jh = dict(zip(*[iter(redis_cmd(redis_port, "HGETALL", "rc:job:st"))] * 2))
        for k in ("pending", "fetched", "errors", "failed", "robots_denied"):
            check(job[k] == int(jh.get(k, 0)), "job %s: %s vs %s" % (k, job[k], jh.get(k)))
        nf = int(jh.get("bloom_filters", 1))
        m = bits = urls = 0
        est = 0.0
        for i in range(nf):
            mg, k, cap, groups = sbloom_filter(jh["bloom"], i)
            set_i = redis_cmd(redis_port, "BITCOUNT", "rc:bloom:st:%d" % i)
            m += mg * groups
            bits += set_i
            est += (set_i / (mg * groups)) ** (k * groups)
            urls += cap if i + 1 < nf else int(jh.get("bloom_count", 0))
        b = job["bloom"]
        check(b["bits"] == m and b["bits_set"] == bits and abs(b["fill"] - bits / m) < 1e-12 and
              abs(b["est_fp"] - est) < 1e-15 and b["filters"] == nf and b["urls"] == urls,
              "bloom: %s, want %d of %d bits in %d filters, %d URLs" % (b, bits, m, nf, urls))
        backlog = {}  # host -> URLs queued there, all jobs (rc:q:{crawlid}:{host})
        for q in keys(redis_port, "rc:q:*"):
            host = q.split(":", 3)[3]
            backlog[host] = backlog.get(host, 0) + redis_cmd(redis_port, "ZCARD", q)
        check(s["hosts"]["total_backlog"] == sum(backlog.values()), "total backlog %s, Redis %s" %
              (s["hosts"]["total_backlog"], sum(backlog.values())))
        want_top = sorted(backlog.values(), reverse=True)[:3]
        got_top = [h["backlog"] for h in s["hosts"]["top"]]
        check(got_top == want_top[:len(got_top)] and len(got_top) == min(3, len(s["hosts"]["top"])),
              "top backlogs %s, Redis %s" % (got_top, want_top))
        for h in s["hosts"]["top"]:
            check(backlog.get(h["host"]) == h["backlog"], "host row %s" % h)
            check(redis_cmd(redis_port, "HGET", "rc:owner", h["host"]) == h["worker"], "host owner %s" % h)
            check(h["state"] in ("fetching", "due", "waiting", "parked"), "state %s" % h)
        check(s["redis"]["frontier"] == sum(frontier_len(redis_port, c)
                                            for c in redis_cmd(redis_port, "SMEMBERS", "rc:frontier")), "frontier")
        check(s["redis"]["used_memory"] > 0, "redis memory")
        for code, n in s["statuses"]["total"].items():
            check(n == int(redis_cmd(redis_port, "HGET", "rc:stats:pages:link:" + code, "total")), "status " + code)
    finally:
        for p in fleet:
            p.send_signal(signal.SIGCONT)

    deadline = time.time() + 120
    while time.time() < deadline and redis_cmd(redis_port, "HGET", "rc:job:st", "state") != "done":
        time.sleep(0.2)
    check(redis_cmd(redis_port, "HGET", "rc:job:st", "state") == "done", "the crawl did not finish")
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    s = status(env, "--interval", "0.1")
    job = [j for j in s["jobs"] if j["crawlid"] == "st"][0]
    check(job["state"] == "done" and job["pending"] == 0 and job["fetched"] == len(pages), "done job: %s" % job)
    want = {str(c): n for c, n in collections.Counter(p["status_code"] for p in pages).items()}
    for win in ("1h", "1d", "total"):
        got = {c: n for c, n in s["statuses"][win].items() if n}
        check(got == want, "statuses %s: %s, pages.jsonl %s" % (win, got, want))
    check(sum(s["statuses"]["1m"].values()) <= len(pages), "1m over the total")
    check(s["hosts"]["total_backlog"] == 0 and not s["hosts"]["top"], "backlog after the crawl")

    r = subprocess.run([REDCRAWL, "status", "--count", "2", "--interval", "0.2"], capture_output=True, text=True,
                       env=env, timeout=30)
    check(r.returncode == 0, "status view exited %d: %s" % (r.returncode, r.stderr))
    check(r.stdout.count("WORKERS") == 2 and "w0" in r.stdout and "w1" in r.stdout, "view:\n" + r.stdout)
    check(any(line.split()[:2] == ["st", "done"] for line in r.stdout.splitlines()), "job line:\n" + r.stdout)
    print("  status: %d pages, statuses %s, bloom %d bits set, view %d lines" %
          (len(pages), want, job["bloom"]["bits_set"], len(r.stdout.splitlines()) // 2))


if __name__ == "__main__":
    run_tests([test_status_json_matches_redis])
