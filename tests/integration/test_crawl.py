#!/usr/bin/env python3
"""End-to-end crawls against a real redis-server and the project's test web server:
exact page sets, maxdepth, allowed domains, load sharing, a worker SIGKILLed mid-crawl,
politeness (no two requests at once to one host), --max-pages, Ctrl-C, bad input, the scheduler
on a thread of the CLI, and a fleet started by hand with the daemons."""
import collections
import ctypes
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import (REDCRAWL, SCHEDULER, WORKER, Failure, check, check_page_set, expected_pages, graph, overlaps,  # noqa: E402
                     frontier_len, read_pages, read_requests, redis_cmd, run_tests, sbloom_filter, start_redis,
                     start_web)
from webapi import call, start_webapp  # noqa: E402


def crawl(tmp, port, seeds, *args, timeout=120, expect_rc=0):
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port,
           "--allow-net", "127.0.0.0/8", "--quiet"] + list(args) + list(seeds)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != expect_rc:
        raise Failure("redcrawl crawl exited %d (want %d)\nstdout:\n%s\nstderr:\n%s" %
                      (r.returncode, expect_rc, r.stdout, r.stderr[-3000:]))
    return out, r


def crawl_while(cmd, during, timeout=120):
    """Runs `redcrawl crawl` cmd, calls during() while it runs, then waits for its end (at most
    timeout s): (exit status, stdout, stderr). Its process group is killed if it still runs then
    (a timeout, or a failed check in during)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        during()
        stdout, stderr = p.communicate(timeout=timeout)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    return p.returncode, stdout, stderr


def test_exact_page_set_unlimited_depth(tmp, procs):
    """Several hosts, every reachable page exactly once, nothing outside the seed's domain."""
    args = ["--sites", "4", "--pages", "40"]
    port, log, _ = start_web(procs, tmp, *args)
    g = graph(*args)
    want = expected_pages(g, ["http://s0.site.test/"], -1, ["site.test"])
    out, r = crawl(tmp, port, ["http://s0.site.test/"], "--maxdepth", "-1", "--delay", "0.01", "--workers", "2")
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check_page_set(pages, want, "unlimited depth")
    check(len({p["url"].split("/")[2] for p in pages}) >= 4, "expected pages from all 4 hosts")
    for p in pages:
        want_status = int(p["url"].rsplit("/", 1)[1]) if "/status/" in p["url"] else 200
        if "/redirect/" in p["url"]:
            want_status = 301
        check(p["status_code"] == want_status, "status %d for %s" % (p["status_code"], p["url"]))
    check(not any("other.test" in p["url"] for p in pages), "followed a link out of scope")
    for p in pages:
        for field in ("crawlid", "url", "response_url", "status_code", "depth", "title", "content_type",
                      "length", "timestamp"):
            check(field in p, "page record lacks %s: %s" % (field, p))
    # A redirect is stored as it is and its target fetched as its own URL, after the host's delay.
    redirected = [p for p in pages if "/redirect/" in p["url"]]
    fetched = {p["url"] for p in pages}
    check(redirected and all(p.get("redirect_to") in fetched for p in redirected), "redirect targets not fetched")
    titled = [p for p in pages if p["url"].endswith("/p/3")]
    check(titled and titled[0]["title"].endswith("page 3"), "title missing: %s" % titled[:1])
    bad = overlaps(read_requests(log))
    check(not bad, "overlapping requests to one host: %s" % bad[:2])
    check("finished" in r.stdout and "pages" in r.stdout, "no summary printed: %s" % r.stdout)
    # The summary's statuses are the records' (read by a scan of each line, not a parse).
    counts = {}
    for p in pages:
        counts[p["status_code"]] = counts.get(p["status_code"], 0) + 1
    want_line = "statuses   " + ", ".join("%d: %d" % (s, counts[s]) for s in sorted(counts))
    check(want_line in r.stdout, "summary statuses: want %r in %s" % (want_line, r.stdout))
    # The two workers share the machine's CPUs for parsing.
    threads = max(1, len(os.sched_getaffinity(0)) // 2)
    for i in (1, 2):
        log_text = open(os.path.join(out, "logs", "worker-%d.log" % i)).read()
        check("parse_threads=%d " % threads in log_text, "worker %d: want %d parse threads" % (i, threads))


def summary_statuses(stdout):
    """The summary's statuses line as {status: count}."""
    line = [x for x in stdout.splitlines() if x.startswith("  statuses   ")]
    check(len(line) == 1, "no statuses line: %s" % stdout)
    return {int(k): int(v) for k, v in (x.split(": ") for x in line[0][13:].split(", ") if x != "-")}


def test_summary_counts_this_job(tmp, procs):
    """Crawls into one OUT (a finished crawl's OUT takes a new one, which appends to its
    pages.jsonl): each summary's statuses count that crawl's pages, as its pages line does, not
    the records of the crawls before it in the file, nor twice a seed whose record a redirect
    chain's end stored again (same _id, with final_url)."""
    port, _, _ = start_web(procs, tmp, "--sites", "2", "--pages", "30")
    runs = [("one", "http://s0.site.test/"), ("two", "http://s1.site.test/p/7"), ("two", "http://s1.site.test/p/7"),
            ("three", "http://s0.site.test/redirect/3")]
    before = 0
    for crawlid, seed in runs:
        out, r = crawl(tmp, port, [seed], "--crawlid", crawlid, "--maxdepth", "1", "--delay", "0.01",
                       "--web-port", "-1")
        pages = read_pages(os.path.join(out, "pages.jsonl"))
        mine = list({p["_id"]: p for p in pages[before:]}.values())  # a later line supersedes
        before = len(pages)
        want = collections.Counter(p["status_code"] for p in mine)
        got = summary_statuses(r.stdout)
        check(got == want, "job %s: summary statuses %s, its %d records %s" % (crawlid, got, len(mine), dict(want)))
        check("  pages      %d in " % len(mine) in r.stdout, "job %s: pages line: %s" % (crawlid, r.stdout))


def test_out_with_crawlid(tmp, procs):
    """--out 'DIR/{crawlid}', as the workers take it: the crawl's whole output (pages, logs,
    crawl.json) goes to DIR/CRAWLID, and the summary names the file the pages are in (it named
    DIR/{crawlid}/pages.jsonl, which did not exist, and showed no statuses)."""
    port, _, _ = start_web(procs, tmp, "--sites", "1", "--pages", "10")
    tmpl = os.path.join(tmp, "runs", "{crawlid}")
    r = subprocess.run([REDCRAWL, "crawl", "--out", tmpl, "--crawlid", "cc", "--connect-to",
                        "::127.0.0.1:%d" % port, "--quiet", "--web-port", "-1", "--delay", "0.01", "--maxdepth", "1",
                        "http://s0.site.test/"], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr[-1500:]))
    out = os.path.join(tmp, "runs", "cc")
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check(pages, "no pages in %s" % out)
    check("  output     %s/pages.jsonl" % out in r.stdout, "summary names another file: %s" % r.stdout)
    check(summary_statuses(r.stdout) == collections.Counter(p["status_code"] for p in pages),
          "summary statuses: %s" % r.stdout)
    check(os.path.exists(os.path.join(out, "crawl.json")) and os.path.exists(os.path.join(out, "logs")),
          "crawl.json or logs not beside the pages: %s" % os.listdir(out))
    check(not os.path.exists(tmpl), "a directory named {crawlid} was made")


def test_out_not_utf8(tmp, procs):
    """An OUT whose name is not UTF-8 (a Latin-1 directory, legal on Linux) is taken: the paths
    of --out and --resume go in no JSON, unlike the options that must be UTF-8 (test_bad_input)."""
    port, _, _ = start_web(procs, tmp, "--sites", "1", "--pages", "10")
    out = os.path.join(tmp, "lat\udce9")
    r = subprocess.run([REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port, "--quiet",
                        "--web-port", "-1", "--delay", "0.01", "--maxdepth", "0", "http://s0.site.test/"],
                       capture_output=True, timeout=120)
    check(r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr[-1000:]))
    check(len(read_pages(os.path.join(out, "pages.jsonl"))) == 1, "no page in the Latin-1 OUT")


def test_link_only_crawl_matches_tree_crawl(tmp, procs):
    """Without rules, text or content dedup the worker tokenizes pages instead of building a
    tree: the same page set, each page with the same depth, title, link count and metadata as
    the crawl through gumbo. One site, a tree, so each page's depth is well defined."""
    args = ["--sites", "1", "--pages", "150"]
    port, log, _ = start_web(procs, tmp, *args)
    g = graph(*args)
    want = expected_pages(g, ["http://s0.site.test/"], -1, ["site.test"])
    records = []
    for i, extra in enumerate([[], ["--dedup-content=0"]]):
        run_dir = os.path.join(tmp, "run%d" % i)
        os.makedirs(run_dir)
        out, _ = crawl(run_dir, port, ["http://s0.site.test/"], "--maxdepth", "-1", "--delay", "0", *extra)
        pages = read_pages(os.path.join(out, "pages.jsonl"))
        check_page_set(pages, want, "link-only" if extra else "tree")
        records.append({p["url"]: p for p in pages})
    tree, fast = records
    check(not any("text_digest" in p for p in fast.values()), "the link-only crawl computed a digest")
    for url, p in tree.items():
        q = fast[url]
        for field in ("depth", "title", "links", "links_filtered", "meta", "status_code"):
            check(p.get(field) == q.get(field), "%s: %s differs: tree %r, link-only %r" %
                  (url, field, p.get(field), q.get(field)))
    check(sum(p.get("links", 0) for p in fast.values()) > len(fast), "link-only pages found no links")
    bad = overlaps(read_requests(log))
    check(not bad, "overlapping requests to one host: %s" % bad[:2])


def test_maxdepth(tmp, procs):
    """One site is a tree, so each page's depth is well defined: exactly the pages within it."""
    args = ["--sites", "1", "--pages", "200"]
    port, _, _ = start_web(procs, tmp, *args)
    g = graph(*args)
    want = expected_pages(g, ["http://s0.site.test/"], 3, ["site.test"])
    out, _ = crawl(tmp, port, ["http://s0.site.test/"], "--maxdepth", "3", "--delay", "0")
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check_page_set(pages, want, "maxdepth 3")
    check(max(p["depth"] for p in pages) == 3, "deepest page is not at depth 3")
    for p in pages:
        check(p["depth"] == want[p["url"]], "depth of %s is %d, want %d" % (p["url"], p["depth"], want[p["url"]]))


def test_options_after_urls(tmp, procs):
    """Options may follow the URLs, as with most command lines: `crawl URL --maxdepth 2`."""
    args = ["--sites", "1", "--pages", "100"]
    port, _, _ = start_web(procs, tmp, *args)
    want = expected_pages(graph(*args), ["http://s0.site.test/"], 2, ["site.test"])
    out = os.path.join(tmp, "out")
    r = subprocess.run([REDCRAWL, "crawl", "http://s0.site.test/", "--out", out, "--connect-to",
                        "::127.0.0.1:%d" % port, "--allow-net", "127.0.0.0/8", "--quiet", "--maxdepth", "2",
                        "--delay", "0"], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "crawl URL --options exited %d: %s" % (r.returncode, r.stderr[-2000:]))
    check_page_set(read_pages(os.path.join(out, "pages.jsonl")), want, "options after the URL")


def test_allowed_domains(tmp, procs):
    """allowed_domains overrides the default scope."""
    args = ["--sites", "4", "--pages", "30"]
    port, _, _ = start_web(procs, tmp, *args)
    g = graph(*args)
    scope = ["s0.site.test", "s1.site.test"]
    want = expected_pages(g, ["http://s0.site.test/"], -1, scope)
    out, _ = crawl(tmp, port, ["http://s0.site.test/"], "--maxdepth", "-1", "--delay", "0",
                   "--allowed-domain", "s0.site.test", "--allowed-domain", "s1.site.test")
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check_page_set(pages, want, "allowed domains")
    check({p["url"].split("/")[2] for p in pages} == set(scope), "hosts outside allowed_domains fetched")


def test_two_workers_share_load(tmp, procs):
    """Domains are spread over both workers by weighted round-robin."""
    args = ["--sites", "6", "--pages", "40", "--latency-ms", "5"]
    port, log, _ = start_web(procs, tmp, *args)
    seeds = ["http://s%d.site.test/" % i for i in range(6)]
    # ~3 s per host: long enough that a worker starting a moment late gets hosts by rebalancing
    out, _ = crawl(tmp, port, seeds, "--maxdepth", "-1", "--delay", "0.05", "--workers", "2")
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    by_worker = collections.Counter(p["worker"] for p in pages)
    check(len(by_worker) == 2, "want pages from 2 workers, got %s" % dict(by_worker))
    check(min(by_worker.values()) >= len(pages) // 6, "load badly shared: %s" % dict(by_worker))
    # A host stays with its worker, except when rebalancing moves an idle host to a worker that
    # joined late; so at most one move per host here.
    hosts_by_worker = collections.defaultdict(set)
    for p in pages:
        hosts_by_worker[p["url"].split("/")[2]].add(p["worker"])
    check(all(len(w) <= 2 for w in hosts_by_worker.values()), "a host bounced between workers")
    check(not overlaps(read_requests(log)), "overlapping requests to one host")


def workers_once_stored(out, n, count=2):
    """The pids of a `redcrawl crawl --workers COUNT --out OUT`'s workers once OUT holds n pages
    (at most 30 s)."""
    pages_path = os.path.join(out, "pages.jsonl")
    deadline = time.time() + 30
    while time.time() < deadline:
        if os.path.exists(pages_path) and len(open(pages_path).readlines()) >= n:
            break
        time.sleep(0.02)
    workers = subprocess.run(["pgrep", "-f", "redcrawl-worker.*%s" % out], capture_output=True,
                             text=True).stdout.split()
    check(len(workers) == count, "want %d worker processes, found %s" % (count, workers))
    return workers


def test_worker_sigkill_mid_crawl(tmp, procs):
    """A worker killed with SIGKILL mid-crawl: its queued and in-flight URLs are handed back at
    once (the crawl reaps its dead child) and the crawl still ends with the full page set, each
    page once."""
    args = ["--sites", "4", "--pages", "40", "--latency-ms", "20"]
    port, log, _ = start_web(procs, tmp, *args)
    g = graph(*args)
    want = expected_pages(g, ["http://s0.site.test/"], -1, ["site.test"])
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port, "--quiet",
           "--maxdepth", "-1", "--delay", "0.02", "--workers", "2", "http://s0.site.test/"]
    rc, stdout, stderr = crawl_while(cmd, lambda: os.kill(int(workers_once_stored(out, 20)[0]), signal.SIGKILL))
    check(rc == 0, "crawl exited %d: %s" % (rc, stderr[-2000:]))
    check("restarting" in stderr, "the dead worker was not noticed/restarted: %s" % stderr[-1000:])
    # The crawl reaps its dead child at once; the scheduler's heartbeat timeout (10 s) never has to.
    check("URLs handed back; restarting" in stderr, "the dead worker's work was not handed back at once: %s" %
          stderr[-1000:])
    sched = open(os.path.join(out, "logs", "scheduler.log")).read()
    check("heartbeat timeout" not in sched, "the dead worker was left to the heartbeat timeout: %s" %
          [line for line in sched.splitlines() if "heartbeat timeout" in line])
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check_page_set(pages, want, "after SIGKILL")
    check(not overlaps(read_requests(log)), "overlapping requests to one host")


def test_stalled_worker_keeps_its_pages(tmp, procs):
    """A worker of `redcrawl crawl` that stalls for 5 s (SIGSTOP: a long GC-like pause, a swapped
    out process) with transfers in flight is still alive: it must not be taken for dead and its
    pages handed to the other worker, which fetched them a second time (the CLI reaps a worker
    that died itself, at once, so the scheduler's heartbeat timeout need not be short). Every
    page requested once, nobody reaped."""
    args = ["--sites", "4", "--pages", "30", "--latency-ms", "300"]
    port, log, _ = start_web(procs, tmp, *args)
    redis_port, _ = start_redis(procs, tmp)
    seeds = ["http://s%d.site.test/" % i for i in range(4)]
    want = expected_pages(graph(*args), seeds, -1, ["site.test"])
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--redis", "redis://127.0.0.1:%d" % redis_port, "--out", out, "--quiet",
           "--connect-to", "::127.0.0.1:%d" % port, "--allow-net", "127.0.0.0/8", "--maxdepth", "-1",
           "--delay", "0", "--concurrency", "4", "--workers", "2"] + seeds
    victim = []

    def stall():
        deadline = time.time() + 60
        while not victim and time.time() < deadline:
            for wid in redis_cmd(redis_port, "ZRANGE", "rc:workers", "0", "-1") or []:
                if (redis_cmd(redis_port, "ZCARD", "rc:lease:" + wid) or 0) >= 2:
                    victim[:] = [wid, int(redis_cmd(redis_port, "HGET", "rc:worker:" + wid, "pid"))]
                    break
            time.sleep(0.01)
        check(victim, "no worker had 2 transfers in flight within 60 s")
        os.kill(victim[1], signal.SIGSTOP)
        time.sleep(5)  # past the 3 s the crawl's scheduler waited before
        os.kill(victim[1], signal.SIGCONT)
    rc, stdout, stderr = crawl_while(cmd, stall)
    check(rc == 0, "crawl exited %d: %s" % (rc, stderr[-2000:]))
    sched = open(os.path.join(out, "logs", "scheduler.log")).read()
    check("worker gone" not in sched, "the stalled worker was taken for dead: %s" %
          [line for line in sched.splitlines() if "worker gone" in line])
    check_page_set(read_pages(os.path.join(out, "pages.jsonl")), want, "after a 5 s stall")
    fetches = collections.Counter((r[2], r[3]) for r in read_requests(log) if r[3] != "/robots.txt")
    twice = sorted(k for k, n in fetches.items() if n > 1)
    check(not twice, "%d pages requested more than once, e.g. %s" % (len(twice), twice[:3]))
    print("  %s stalled 5 s and was kept: %d pages, each requested once" % (victim[0], len(fetches)))


def one_worker_crawl(tmp, procs):
    """A test web of 3 hosts x 30 pages and the command of a one-worker crawl of it: (the pages
    it must store, its --out, the command)."""
    args = ["--sites", "3", "--pages", "30", "--latency-ms", "50"]
    port, _, _ = start_web(procs, tmp, *args)
    want = expected_pages(graph(*args), ["http://s0.site.test/"], -1, ["site.test"])
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port, "--allow-net", "127.0.0.0/8",
           "--quiet", "--maxdepth", "-1", "--delay", "0.02", "--workers", "1", "http://s0.site.test/"]
    return want, out, cmd


def test_hung_worker_restarted(tmp, procs):
    """The only worker of a crawl hangs for good (SIGSTOP, never continued) with pages in flight:
    the scheduler reaps it after its worker timeout, and the crawl, seeing its registration gone
    and not back, kills it and starts another, which finishes the job: every page once. Without
    that the crawl waited for ever."""
    want, out, cmd = one_worker_crawl(tmp, procs)
    worker = []

    def hang():
        worker[:] = workers_once_stored(out, 10, count=1)
        os.kill(int(worker[0]), signal.SIGSTOP)
    t0 = time.time()
    rc, stdout, stderr = crawl_while(cmd, hang)
    check(rc == 0, "crawl exited %d: %s" % (rc, stderr[-2000:]))
    check("(pid %s) stopped beating" % worker[0] in stderr, "the hung worker was not named: %s" % stderr[-1000:])
    check("restarts   1" in stdout, "want one restart in the summary: %s" % stdout)
    check_page_set(read_pages(os.path.join(out, "pages.jsonl")), want, "after a hung worker")
    print("  the hung worker was replaced; the crawl took %.1f s" % (time.time() - t0))


def test_reaped_worker_that_wakes_is_kept(tmp, procs):
    """The only worker stalls past the scheduler's worker timeout (SIGSTOP), is reaped, and wakes
    (SIGCONT) 2 s after the scheduler has said so: it registers again at once, so the crawl,
    which has seen it unregistered meanwhile, must not take it for hung and kill it (it waits
    5 s for that). It finishes the job itself: no restart, every page once."""
    want, out, cmd = one_worker_crawl(tmp, procs)
    sched_log = os.path.join(out, "logs", "scheduler.log")

    def stall_until_reaped():
        pid = int(workers_once_stored(out, 10, count=1)[0])
        os.kill(pid, signal.SIGSTOP)
        deadline = time.time() + 30
        while time.time() < deadline and "worker gone" not in open(sched_log).read():
            time.sleep(0.05)
        time.sleep(2)  # past the crawl's next look (once a second), within its 5 s for a hang
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            raise Failure("the crawl killed the reaped worker within 2 s, before it could wake")
        check("worker gone" in open(sched_log).read(), "the stalled worker was not reaped within 30 s")
    rc, stdout, stderr = crawl_while(cmd, stall_until_reaped)
    check(rc == 0, "crawl exited %d: %s" % (rc, stderr[-2000:]))
    check("stopped beating" not in stderr, "the woken worker was killed: %s" % stderr[-1000:])
    check("restarts   0" in stdout, "want no restart in the summary: %s" % stdout)
    worker_log = open(os.path.join(out, "logs", "worker-1.log")).read()
    check("was reaped" in worker_log, "the woken worker did not say it was reaped")
    check_page_set(read_pages(os.path.join(out, "pages.jsonl")), want, "after a reaped worker woke")


def whole_lines_end(path):
    """The offset just past the last whole line of a file that is being appended to."""
    with open(path, "rb") as f:
        return f.read().rfind(b"\n") + 1


def stored_since(path, offset, pid):
    """The URLs that the worker of pid stored in JSON Lines file path past offset (whole lines)."""
    with open(path, "rb") as f:
        f.seek(offset)
        lines = f.read().split(b"\n")[:-1]
    recs = [json.loads(line) for line in lines]
    return [r["url"] for r in recs if r.get("worker", "").rsplit("-", 2)[-2:-1] == [str(pid)]]


def redis_ports_of(pid, redis_port):
    """The local ports of process pid's TCP connections to redis_port."""
    inodes = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:  # closed meanwhile
            continue
        if link.startswith("socket:["):
            inodes.add(link[len("socket:["):-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in open(table).read().splitlines()[1:]:
            f = row.split()
            if f[9] in inodes and int(f[2].rsplit(":", 1)[1], 16) == redis_port:
                ports.add(int(f[1].rsplit(":", 1)[1], 16))
    return ports


def pause_with_pages_unacked(redis_port, pages_path, pid, wid):
    """Pauses Redis' writes (CLIENT PAUSE WRITE) until worker pid (id wid) has stored a page since
    the pause began, and returns those pages' URLs with the pause still on. A store precedes its
    complete, and a complete (step.lua) is a write: those pages are stored and unacked. When the
    worker holds no lease as the pause begins (its fetches had just ended, acked) or stores nothing
    within a second (under load: its fetches are slow, or its last heartbeat is too old for the
    fence to let it store), the pause ends and it tries again. The pause's own timeout only
    matters if the test dies: the caller ends it."""
    for _ in range(40):
        check(redis_cmd(redis_port, "CLIENT", "PAUSE", "30000", "WRITE") == "OK", "CLIENT PAUSE refused")
        start = whole_lines_end(pages_path)
        # Takes and completes are writes: the leases stay as they are while paused.
        if redis_cmd(redis_port, "ZCARD", "rc:lease:%s" % wid) > 0:
            deadline = time.time() + 1
            while time.time() < deadline:
                urls = stored_since(pages_path, start, pid)
                if urls:
                    return urls
                time.sleep(0.01)
        check(redis_cmd(redis_port, "CLIENT", "UNPAUSE") == "OK", "CLIENT UNPAUSE refused")
        time.sleep(0.1)
    raise Failure("the worker stored no page while Redis was paused, in 40 tries")


def kill_while_paused(redis_port, pid):
    """SIGKILLs pid while Redis' writes are paused, and ends the pause once Redis has dropped
    the dead process' connections: a paused command of a connection Redis still holds would run
    on the unpause (an ack from beyond the grave)."""
    ports = redis_ports_of(pid, redis_port)
    check(ports, "worker %d has no connection to Redis" % pid)
    os.kill(pid, signal.SIGKILL)
    deadline = time.time() + 30
    while time.time() < deadline:
        clients = redis_cmd(redis_port, "CLIENT", "LIST")
        if not any("addr=127.0.0.1:%d " % port in clients for port in ports):
            break
        time.sleep(0.01)
    else:
        raise Failure("Redis kept the killed worker's connections for 30 s")
    check(redis_cmd(redis_port, "CLIENT", "UNPAUSE") == "OK", "CLIENT UNPAUSE refused")


def test_kill_with_batch_in_flight(tmp, procs):
    """A worker SIGKILLed while its completes are batched (step.lua, --step-batch 64): Redis is
    paused for writes (CLIENT PAUSE WRITE) so that the worker's step calls wait unanswered while
    it goes on storing pages (--dedup-content=0: storing asks Redis nothing) whose completes pile
    up behind them, then the worker dies. Pages it stored but never acked come back when it is
    reaped and are fetched again; the sink keeps each once, and the crawl ends with exactly the
    expected page set."""
    args = ["--sites", "24", "--pages", "25", "--latency-ms", "80"]
    port, log, _ = start_web(procs, tmp, *args)
    redis_port, _ = start_redis(procs, tmp)
    seeds = ["http://s%d.site.test/" % i for i in range(24)]  # every host busy from the start
    want = expected_pages(graph(*args), seeds, -1, ["site.test"])
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--redis", "redis://127.0.0.1:%d" % redis_port, "--out", out, "--quiet",
           "--connect-to", "::127.0.0.1:%d" % port, "--allow-net", "127.0.0.0/8", "--maxdepth", "-1",
           "--delay", "0.02", "--workers", "2", "--dedup-content=0"] + seeds
    env = dict(os.environ, REDCRAWL_STEP_BATCH="64")
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         env=env)
    try:
        workers = workers_once_stored(out, 60)
        victim = int(workers[0])
        ids = [i for i in redis_cmd(redis_port, "ZRANGE", "rc:workers", "0", "-1")
               if redis_cmd(redis_port, "HGET", "rc:worker:%s" % i, "pid") == str(victim)]
        check(len(ids) == 1, "the worker of pid %d is not registered: %s" % (victim, ids))
        unacked = pause_with_pages_unacked(redis_port, os.path.join(out, "pages.jsonl"), victim, ids[0])
        kill_while_paused(redis_port, victim)
        stdout, stderr = p.communicate(timeout=180)
    finally:
        redis_cmd(redis_port, "CLIENT", "UNPAUSE")
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    check(p.returncode == 0, "crawl exited %d: %s" % (p.returncode, stderr[-2000:]))
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check_page_set(pages, want, "after SIGKILL with a batch in flight")
    # Each page it stored but never acked was requested again after it died.
    asked = collections.Counter("http://%s%s" % (r[2], r[3]) for r in read_requests(log))
    again = [u for u in unacked if asked[u] > 1]
    print("  the killed worker stored %d pages while Redis was paused, %d of them fetched again" %
          (len(unacked), len(again)))
    check(len(again) == len(unacked), "pages stored unacked by the killed worker not fetched again: %s" %
          sorted(set(unacked) - set(again)))
    check(not overlaps(read_requests(log)), "overlapping requests to one host")


def test_max_pages(tmp, procs):
    args = ["--sites", "3", "--pages", "50"]
    port, _, _ = start_web(procs, tmp, *args)
    out, r = crawl(tmp, port, ["http://s0.site.test/"], "--maxdepth", "-1", "--delay", "0", "--max-pages", "25")
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check(len(pages) == 25, "want exactly 25 pages, got %d" % len(pages))
    check(len({p["url"] for p in pages}) == 25, "duplicates")
    check("max-pages" in r.stdout, "summary does not say why it stopped: %s" % r.stdout)


def test_retry_on_503(tmp, procs):
    """503 + Retry-After is retried after the delay it asks for; the page set is complete."""
    args = ["--sites", "2", "--pages", "20", "--fail-every", "7"]
    port, log, _ = start_web(procs, tmp, *args)
    g = graph("--sites", "2", "--pages", "20")
    want = expected_pages(g, ["http://s0.site.test/"], -1, ["site.test"])
    out, _ = crawl(tmp, port, ["http://s0.site.test/"], "--maxdepth", "-1", "--delay", "0", timeout=180)
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check_page_set(pages, want, "with 503s")
    check(all(p["status_code"] != 503 for p in pages), "a 503 was stored instead of retried")
    rows = read_requests(log)
    check(any(r[4] == 503 for r in rows), "the server sent no 503: the test tests nothing")
    # Retry-After: 1 -> the retry of that host waits at least ~1 s.
    by_host = collections.defaultdict(list)
    for r in rows:
        by_host[r[2]].append(r)
    for host, rs in by_host.items():
        rs.sort()
        for a, b in zip(rs, rs[1:]):
            if a[4] == 503:
                check(b[0] - a[1] >= 950000, "host %s hit again %.3f s after a 503 with Retry-After: 1" %
                      (host, (b[0] - a[1]) / 1e6))


def ctrl_c(cmd, ready):
    """Runs cmd (a crawl) in a session of its own, calls ready(p) until it is time, then sends
    Ctrl-C; it must exit 130. Returns its stdout, stderr and what ready returned."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        seen = ready(p)
        p.send_signal(signal.SIGINT)
        stdout, stderr = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    check(p.returncode == 130, "want exit 130 after Ctrl-C, got %d: %s" % (p.returncode, stderr[-1000:]))
    return stdout, stderr, seen


def test_sigint_stops_cleanly(tmp, procs):
    args = ["--sites", "2", "--pages", "400", "--latency-ms", "50"]
    port, _, _ = start_web(procs, tmp, *args)
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port, "--quiet",
           "--maxdepth", "-1", "--delay", "0.05", "http://s0.site.test/"]
    stdout, stderr, _ = ctrl_c(cmd, lambda p: time.sleep(2.0))
    check("paused by user" in stdout, "summary missing: %s" % stdout)
    left = subprocess.run(["pgrep", "-f", "redcrawl-(worker|scheduler).*%s" % out], capture_output=True, text=True)
    check(not left.stdout.strip(), "children left running: %s" % left.stdout)
    left = subprocess.run(["pgrep", "-f", "redis-server.*redcrawl-redis"], capture_output=True, text=True)
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check(len(pages) > 0 and len({x["url"] for x in pages}) == len(pages), "pages missing or duplicated")


def wait_for_first_page(out, timeout=30):
    """Until OUT/pages.jsonl holds a record: the crawl is under way."""
    pages = os.path.join(out, "pages.jsonl")
    deadline = time.time() + timeout
    while time.time() < deadline and not (os.path.exists(pages) and os.path.getsize(pages) > 0):
        time.sleep(0.05)


def children(pid, *pattern):
    """The pids of PID's children that pgrep's PATTERN ("-f", "redcrawl-worker") matches."""
    r = subprocess.run(["pgrep", "-P", str(pid)] + list(pattern), capture_output=True, text=True)
    return [int(x) for x in r.stdout.split()]


def test_worker_gone_while_stopping(tmp, procs):
    """A worker that exits on its own as the crawl is told to stop (systemd stops a unit with
    SIGTERM to every process of it): the crawl, which sees it go while stopping, does not restart
    it, nor wait for it. It kept its pid, counted it among the workers still stopping, so waited
    --timeout + 5 s for the other one, and said it killed a worker that was long gone. Made
    certain here: the crawl is frozen while the worker exits, and signalled before it thaws."""
    port, _, _ = start_web(procs, tmp, "--sites", "2", "--pages", "400")
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port, "--quiet", "--web-port", "-1",
           "--workers", "2", "--maxdepth", "-1", "--delay", "0.05", "--timeout", "20", "http://s0.site.test/",
           "http://s1.site.test/"]

    def state(pid):
        try:
            with open("/proc/%d/stat" % pid) as f:
                return f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            return "gone"

    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_for_first_page(out)
        workers = children(p.pid, "-f", "redcrawl-worker")
        check(len(workers) == 2, "want 2 workers, got %s" % workers)
        os.kill(p.pid, signal.SIGSTOP)
        os.kill(workers[0], signal.SIGTERM)
        deadline = time.time() + 30
        while time.time() < deadline and state(workers[0]) != "Z":
            time.sleep(0.05)
        check(state(workers[0]) == "Z", "the worker did not exit: %s" % state(workers[0]))
        os.kill(p.pid, signal.SIGTERM)
        t0 = time.time()
        os.kill(p.pid, signal.SIGCONT)
        stdout, stderr = p.communicate(timeout=60)
        took = time.time() - t0
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    check(p.returncode == 130 and "paused by user" in stdout, "exit %d: %s %s" % (p.returncode, stdout, stderr))
    check("killed" not in stderr and "restarting" not in stderr, "workers restarted or killed: %s" % stderr[-1000:])
    check(took < 10, "the crawl took %.1f s to stop: %s" % (took, stderr[-1000:]))


def test_private_redis_dies(tmp, procs):
    """The crawl's private Redis killed mid-crawl (the OOM killer's pick): the crawl ends at once,
    saying so, with exit status 1, and a --resume goes on from the data Redis kept in OUT: every
    page stored, once. It ran on for ever, its progress line at 0 pages, its summary at 0."""
    args = ["--sites", "2", "--pages", "60"]
    port, _, _ = start_web(procs, tmp, *args)
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port, "--quiet", "--web-port", "-1",
           "--maxdepth", "-1", "--delay", "0.1", "http://s0.site.test/"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_for_first_page(out)
        redis = children(p.pid, "redis-server")
        check(len(redis) == 1, "want one redis-server child, got %s" % redis)
        os.kill(redis[0], signal.SIGKILL)
        t0 = time.time()
        stdout, stderr = p.communicate(timeout=60)
        took = time.time() - t0
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    check(p.returncode == 1, "want exit 1, got %d: %s %s" % (p.returncode, stdout, stderr[-1000:]))
    check("its Redis was killed by signal 9" in stdout and "redcrawl crawl --resume %s" % out in stdout,
          "the summary does not say what happened: %s" % stdout)
    check(took < 15, "the crawl took %.1f s to end" % took)
    r = subprocess.run([REDCRAWL, "crawl", "--resume", out, "--quiet", "--web-port", "-1", "--delay", "0.01"],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0 and "finished" in r.stdout, "resume: exit %d %s %s" % (r.returncode, r.stdout,
                                                                                  r.stderr[-1000:]))
    check_page_set(read_pages(os.path.join(out, "pages.jsonl")),
                   expected_pages(graph(*args), ["http://s0.site.test/"], -1, ["site.test"]), "after the resume")


def test_not_resumable(tmp, procs):
    """--resumable=0: the private Redis keeps nothing in OUT/redis, Ctrl-C stops the job (it is
    not paused), and a --resume of that OUT says there is nothing to resume and why."""
    port, _, _ = start_web(procs, tmp, "--sites", "2", "--pages", "400", "--latency-ms", "50")
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port, "--quiet", "--resumable=0",
           "--maxdepth", "-1", "--delay", "0.05", "http://s0.site.test/"]

    def running(p):
        time.sleep(2.0)
        return os.path.exists(os.path.join(out, "redis"))
    stdout, stderr, kept = ctrl_c(cmd, running)
    check(not kept, "--resumable=0 kept Redis data in OUT/redis")
    check("stopped by user" in stdout and "--resume" not in stdout, "want a stop, not a pause: %s" % stdout)
    r = subprocess.run([REDCRAWL, "crawl", "--resume", out, "--quiet"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and "ran with --resumable=0" in r.stderr,
          "--resume of a crawl that kept nothing: exit %d, %s" % (r.returncode, r.stderr[-500:]))


def children_of(pid):
    """The command lines of a process' children (from /proc)."""
    out = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                with open(os.path.join(os.path.dirname(stat), "cmdline"), "rb") as f:
                    out.append(f.read().replace(b"\0", b" ").decode(errors="replace").strip())
        except (OSError, IndexError, ValueError):
            pass  # gone meanwhile
    return out


def test_scheduler_in_process(tmp, procs):
    """The scheduler runs on a thread of `redcrawl crawl` (one process fewer): the crawl's
    children are Redis and the workers only, the scheduler's lines still go to logs/scheduler.log
    (with the CLI's pid, none on its stderr), and Ctrl-C stops it with the crawl: its last line
    says what it dispatched."""
    port, _, _ = start_web(procs, tmp, "--sites", "2", "--pages", "400", "--latency-ms", "20")
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port, "--quiet", "--web-port", "-1",
           "--workers", "1", "--maxdepth", "-1", "--delay", "0.05", "http://s0.site.test/", "http://s1.site.test/"]
    pages_path = os.path.join(out, "pages.jsonl")

    def first_page_then_children(p):
        deadline = time.time() + 30
        while time.time() < deadline and not (os.path.exists(pages_path) and os.path.getsize(pages_path) > 0):
            time.sleep(0.05)
        return p.pid, children_of(p.pid)

    stdout, stderr, (pid, kids) = ctrl_c(cmd, first_page_then_children)
    names = sorted(os.path.basename(k.split()[0]) for k in kids)
    check(names == ["redcrawl-worker-lean", "redis-server"], "want Redis and one worker as children, got %s" % kids)
    log = open(os.path.join(out, "logs", "scheduler.log")).read()
    lines = log.splitlines()
    check(any("leading: this scheduler dispatches" in x for x in lines), "no leader line: %s" % log[-1000:])
    check(all(x.split()[2] == str(pid) for x in lines), "a line of another pid than the CLI's: %s" % log[-1000:])
    stopped = [x for x in lines if " scheduler stopped dispatched=" in x]
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check(len(stopped) == 1 and int(stopped[0].split("dispatched=")[1].split()[0]) >= len(pages) > 0,
          "want one 'stopped' line dispatching at least the %d pages: %s" % (len(pages), log[-1000:]))
    check(" scheduler " not in stderr, "scheduler lines on the CLI's stderr: %s" % stderr[-1000:])


def test_scheduler_cannot_start(tmp, procs):
    """A scheduler that cannot start (here its log file cannot be opened) ends the crawl before
    any worker starts, saying why, with exit status 1."""
    out = os.path.join(tmp, "out")
    os.makedirs(os.path.join(out, "logs", "scheduler.log"))  # a directory: open() fails
    r = subprocess.run([REDCRAWL, "crawl", "--out", out, "--quiet", "--web-port", "-1", "http://a.test/"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 1, "want exit 1, got %d: %s" % (r.returncode, r.stderr[-1000:]))
    check("the scheduler cannot start: cannot open" in r.stderr and "scheduler.log" in r.stderr,
          "no reason given: %s" % r.stderr[-1000:])
    check(not os.path.exists(os.path.join(out, "logs", "worker-1.log")), "a worker was started")


def test_workers_that_cannot_start(tmp, procs):
    """Workers that exit at once, every time (here a bad REDCRAWL_TREE in the environment, which
    only the workers read): the crawl gives up soon, says why with the worker's own words, does
    not call it a pause by the user, and exits 1; its job can still be resumed."""
    args = ["--sites", "1", "--pages", "10"]
    port, _, _ = start_web(procs, tmp, *args)
    out = os.path.join(tmp, "out")
    env = dict(os.environ, REDCRAWL_TREE="oak")
    t0 = time.time()
    r = subprocess.run([REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port, "--quiet",
                        "--web-port", "-1", "--delay", "0.01", "http://s0.site.test/"],
                       capture_output=True, text=True, timeout=120, env=env)
    took = time.time() - t0
    check(r.returncode == 1, "want exit 1, got %d: %s %s" % (r.returncode, r.stdout, r.stderr[-1500:]))
    check("paused by user" not in r.stdout and "stopped by user" not in r.stdout,
          "the user did nothing: %s" % r.stdout)
    check("'oak' is not light or gumbo" in r.stderr, "the worker's reason is not shown: %s" % r.stderr[-1500:])
    check(took < 20, "gave up after %.1f s" % took)
    check("\033[" not in r.stderr, "a terminal's escapes written to a file: %r" % r.stderr[-500:])
    check("redcrawl crawl --resume %s" % out in r.stdout, "no way on shown: %s" % r.stdout)
    r = subprocess.run([REDCRAWL, "crawl", "--resume", out, "--quiet", "--web-port", "-1"],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0 and "finished" in r.stdout, "resume: exit %d %s %s" % (r.returncode, r.stdout,
                                                                                  r.stderr[-1500:]))
    check_page_set(read_pages(os.path.join(out, "pages.jsonl")),
                   expected_pages(graph(*args), ["http://s0.site.test/"], 5, ["site.test"]), "after the resume")


def test_output_not_writable(tmp, procs):
    """An OUT whose pages.jsonl cannot be written (here a directory of that name; a read-only
    directory for a user other than root) is refused before anything starts, saying why: the
    workers handed every page back to its queue, once a second for ever, the crawl silent."""
    out = os.path.join(tmp, "out")
    os.makedirs(os.path.join(out, "pages.jsonl"))
    r = subprocess.run([REDCRAWL, "crawl", "--out", out, "--quiet", "--web-port", "-1", "http://a.test/"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 1, "want exit 1, got %d: %s %s" % (r.returncode, r.stdout, r.stderr[-1000:]))
    check("cannot write %s/pages.jsonl: Is a directory" % out in r.stderr, "no reason given: %s" % r.stderr[-1000:])
    check(not os.path.exists(os.path.join(out, "logs", "worker-1.log")), "a worker was started")


def test_fetch_errors_say_why(tmp, procs):
    """The summary names the reasons of the fetch errors, the commonest first: a crawl of a local
    site without --allow-net said "1 fetch errors" and nothing of the SSRF guard, which the page
    record alone named."""
    port, _, _ = start_web(procs, tmp, "--sites", "1", "--pages", "10")
    env = dict(os.environ)
    env.pop("REDCRAWL_ALLOW_NET", None)
    r = subprocess.run([REDCRAWL, "crawl", "--out", os.path.join(tmp, "out"), "--connect-to", "::127.0.0.1:%d" % port,
                        "--quiet", "--web-port", "-1", "http://s0.site.test/", "http://s0.site.test/p/1"],
                       capture_output=True, text=True, timeout=120, env=env)
    check(r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr[-1000:]))
    check("2 fetch errors" in r.stdout and
          "2 x blocked: loopback address 127.0.0.1 (not in --allow-net)" in r.stdout,
          "the summary does not say why: %s" % r.stdout)


def test_bad_input(tmp, procs):
    cases = [
        (["ftp://example.test/"], "url"),
        (["--connect-to", "nonsense", "http://a.test/"], "--connect-to"),
        (["--allow-net", "300.1.1.1/8", "http://a.test/"], "--allow-net"),
        (["--allow-port", "0", "http://a.test/"], "--allow-port"),
        # ids become directory names: none may climb out of --out
        (["--crawlid", "../../../tmp/escaped", "http://a.test/"], "crawlid"),
        (["--crawlid", "..", "http://a.test/"], "crawlid"),
        (["--crawlid", "a/b", "http://a.test/"], "crawlid"),
        (["--priority", "1000", "http://a.test/"], "--priority"),
        (["http://user:pass@a.test/"], "credentials"),
        (["http://xn--/"], "url"),
        (["http://xn--zz.test/"], "url"),
        (["--workers", "0", "http://a.test/"], "--workers"),
        (["http://a.test/", "--workers", "0"], "--workers"),
        (["http://a.test/", "--", "--workers"], "URL"),
        (["--delay", "soon", "http://a.test/"], "--delay"),
        (["--no-such-option", "http://a.test/"], "--no-such-option"),
        (["--log-level", "loud", "http://a.test/"], "--log-level"),
        # options only the workers read: refused before any starts (a bad --fsync restarted the
        # workers 100 times, then said "paused by user")
        (["--fsync", "maybe", "http://a.test/"], "--fsync"),
        (["--resolve", "nonsense", "http://a.test/"], "--resolve"),
        (["--seeds", tmp], "--seeds %s: Is a directory" % tmp),
        # bytes that are not UTF-8 (a JSON string cannot hold them): the option was dropped
        # silently, the crawl run with the default crawlid, scope or text method
        (["--crawlid", "ab\udcff", "http://a.test/"], "--crawlid: not UTF-8"),
        (["--allowed-domain", "\udcff.test", "http://a.test/"], "--allowed-domain: not UTF-8"),
        (["--useragent", "bot\udcff", "http://a.test/"], "--useragent: not UTF-8"),
        (["http://a.test/\udcff"], "URL 1: not UTF-8"),
        # a --redis that cannot be a Redis URL: nothing to wait for, no OUT to make
        (["--redis", "foo://x", "http://a.test/"], "--redis"),
        (["--redis", "redis://127.0.0.1:notaport", "http://a.test/"], "--redis"),
        ([], "URL"),
    ]
    for args, word in cases:
        r = subprocess.run([REDCRAWL, "crawl", "--out", os.path.join(tmp, "never")] + args,
                           capture_output=True, text=True, timeout=30)
        check(r.returncode == 2, "%s: want exit 2, got %d" % (args, r.returncode))
        check(word in r.stderr, "%s: error does not mention %s: %s" % (args, word, r.stderr))
    check(not os.path.exists("/tmp/escaped") and not os.path.exists(os.path.join(tmp, "never")),
          "a refused crawl created a directory")
    check(not os.path.exists(os.path.join(tmp, "never", "pages.jsonl")), "bad input wrote output")


def test_same_message_every_entry_point(tmp, procs):
    """One validator (shared/reqfield.c): a bad value gets the same field and reason from `redcrawl
    crawl` (the job spec parser), `redcrawl submit` over Kafka (checked before it is sent) and in
    embedded mode (through Redis), and the REST API."""
    rport, _ = start_redis(procs, tmp)
    wport, _, _ = start_webapp(procs, tmp, rport)
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % rport)
    env.pop("REDCRAWL_KAFKA", None)
    # crawl/submit option, value, the request field it sets, the value in the request
    cases = [
        ("--maxdepth", "5000", "maxdepth", 5000),
        ("--priority", "0", "priority", 0),
        ("--max-pages", "-1", "max_pages", -1),
        ("--allowed-domain", "a/b", "allowed_domains", ["a/b"]),
        ("--crawlid", "a/b", "crawlid", "a/b"),
        (None, "ftp://a.test/", "url", "ftp://a.test/"),
        (None, "http://user:pw@a.test/", "url", "http://user:pw@a.test/"),
    ]
    for option, value, field, jvalue in cases:
        opt = [option, value] if option else []
        url = "http://a.test/" if option else value
        label = "%s %s" % (option or "URL", value)
        r = subprocess.run([REDCRAWL, "crawl", "--out", os.path.join(tmp, "never")] + opt + [url],
                           capture_output=True, text=True, timeout=30, env=env)
        check(r.returncode == 2, "crawl %s: want exit 2, got %d: %s" % (label, r.returncode, r.stderr))
        answers = {}
        for how, extra in (("kafka", ["--kafka", "127.0.0.1:1"]), ("embedded", [])):
            crawlid = [] if option == "--crawlid" else ["--crawlid", "c"]
            s = subprocess.run([REDCRAWL, "submit", "--json"] + extra + crawlid + opt + [url],
                               capture_output=True, text=True, timeout=30, env=env)
            check(s.returncode == 1, "submit (%s) %s: want exit 1, got %d: %s %s" %
                  (how, label, s.returncode, s.stdout, s.stderr))
            answers["submit " + how] = json.loads(s.stdout.splitlines()[0])
        body = {"appid": "redcrawl-cli", "crawlid": "c", "url": "http://a.test/"}
        body[field] = jvalue
        st, answers["REST"] = call(wport, "POST", "/api/crawl", body)
        check(st == 400, "REST %s: want 400, got %d %s" % (label, st, answers["REST"]))
        first = answers["submit kafka"]
        check(str(first.get("field")).startswith(field) and first.get("reason"),
              "%s: submit over Kafka answered %s" % (label, first))
        for how, a in answers.items():
            check(a.get("field") == first.get("field") and a.get("reason") == first.get("reason"),
                  "%s: %s answered %s / %s, submit over Kafka %s / %s" %
                  (label, how, a.get("field"), a.get("reason"), first.get("field"), first.get("reason")))
        # The job spec names the seeds "urls": the same reason, about urls[0].
        sentence = "%s %s" % (first["field"].replace("url", "urls[0]") if field == "url" else first["field"],
                              first["reason"])
        check(sentence in r.stderr, "crawl %s said %r, want %r" % (label, r.stderr.strip(), sentence))
        check((option or "URL") in r.stderr, "crawl %s does not name %s: %s" % (label, option, r.stderr))


def test_fleet_by_hand(tmp, procs):
    """The daemons started by hand against one Redis, a job submitted with `redcrawl submit`."""
    args = ["--sites", "3", "--pages", "30"]
    web_port, log, _ = start_web(procs, tmp, *args)
    redis_port, _ = start_redis(procs, tmp)
    url = "redis://127.0.0.1:%d" % redis_port
    env = dict(os.environ, REDCRAWL_REDIS=url)
    procs.start([SCHEDULER, "--worker-timeout", "3"], os.path.join(tmp, "scheduler.log"), env=env)
    out = os.path.join(tmp, "fleet-out")
    for i in range(2):
        procs.start([WORKER, "--out", out, "--delay", "0", "--connect-to", "::127.0.0.1:%d" % web_port,
                     "--allow-net", "127.0.0.0/8"], os.path.join(tmp, "worker%d.log" % i), env=env)
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "hand", "--maxdepth", "-1", "http://s1.site.test/"],
                       capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0 and "1 new URL" in r.stdout, "submit failed: %s %s" % (r.stdout, r.stderr))
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "hand", "--maxdepth", "-1", "http://s1.site.test/"],
                       capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0 and "0 new URL" in r.stdout, "a resubmitted seed was added again: %s" % r.stdout)
    deadline = time.time() + 90
    while time.time() < deadline and redis_cmd(redis_port, "HGET", "rc:job:hand", "state") != "done":
        time.sleep(0.2)
    check(redis_cmd(redis_port, "HGET", "rc:job:hand", "state") == "done", "job did not finish")
    info = subprocess.run([REDCRAWL, "info", "--json", "hand"], capture_output=True, text=True, env=env, timeout=30)
    doc = json.loads(info.stdout)
    g = graph(*args)
    want = expected_pages(g, ["http://s1.site.test/"], -1, ["site.test"])
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check_page_set(pages, want, "fleet by hand")
    check(doc["fetched"] == len(want) and doc["pending"] == 0, "info disagrees: %s" % doc)
    check(frontier_len(redis_port, "hand") == 0 and redis_cmd(redis_port, "SCARD", "rc:frontier") == 0,
          "frontier not empty")
    # Idle hosts are let go: ownership does not grow with every host ever seen.
    deadline = time.time() + 10
    while time.time() < deadline and redis_cmd(redis_port, "HLEN", "rc:owner") != 0:
        time.sleep(0.1)
    check(redis_cmd(redis_port, "HLEN", "rc:owner") == 0, "hosts still owned after the crawl: %s" %
          redis_cmd(redis_port, "HKEYS", "rc:owner"))


def test_late_worker_gets_domains(tmp, procs):
    """A worker that joins after every host was handed out still gets hosts (rebalancing)."""
    args = ["--sites", "6", "--pages", "40", "--latency-ms", "5"]
    web_port, log, _ = start_web(procs, tmp, *args)
    redis_port, _ = start_redis(procs, tmp)
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
    procs.start([SCHEDULER, "--worker-timeout", "3"], os.path.join(tmp, "scheduler.log"), env=env)
    out = os.path.join(tmp, "late-out")
    wargs = ["--out", out, "--delay", "0.1", "--connect-to", "::127.0.0.1:%d" % web_port]
    procs.start([WORKER, "--id", "first"] + wargs, os.path.join(tmp, "worker1.log"), env=env)
    seeds = ["http://s%d.site.test/" % i for i in range(6)]
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "late", "--maxdepth", "-1"] + seeds,
                       capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0, "submit failed: %s" % r.stderr)
    deadline = time.time() + 10
    while time.time() < deadline and redis_cmd(redis_port, "SCARD", "rc:wdoms:first") != 6:
        time.sleep(0.05)
    check(redis_cmd(redis_port, "SCARD", "rc:wdoms:first") == 6, "the first worker did not get all 6 hosts")
    procs.start([WORKER, "--id", "second"] + wargs, os.path.join(tmp, "worker2.log"), env=env)
    deadline = time.time() + 90
    while time.time() < deadline and redis_cmd(redis_port, "HGET", "rc:job:late", "state") != "done":
        time.sleep(0.2)
    check(redis_cmd(redis_port, "HGET", "rc:job:late", "state") == "done", "job did not finish")
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    by_worker = collections.Counter(p["worker"] for p in pages)
    check(by_worker["second"] >= len(pages) // 5, "the late worker did little: %s" % dict(by_worker))
    g = graph(*args)
    want = expected_pages(g, seeds, -1, ["site.test"])
    check_page_set(pages, want, "late worker")
    check(not overlaps(read_requests(log)), "overlapping requests to one host after moving hosts")


def test_blacklist_applies_to_queued_urls(tmp, procs):
    """A domain blacklisted mid-crawl: URLs already queued for it are dropped, not fetched."""
    args = ["--sites", "2", "--pages", "60"]
    web_port, log, _ = start_web(procs, tmp, *args)
    redis_port, _ = start_redis(procs, tmp)
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
    procs.start([SCHEDULER, "--worker-timeout", "3"], os.path.join(tmp, "scheduler.log"), env=env)
    out = os.path.join(tmp, "bl-out")
    procs.start([WORKER, "--out", out, "--delay", "0.05", "--connect-to", "::127.0.0.1:%d" % web_port],
                os.path.join(tmp, "worker.log"), env=env)
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "bl", "--maxdepth", "-1", "http://s0.site.test/",
                        "http://s1.site.test/"], capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0, "submit failed: %s" % r.stderr)
    deadline = time.time() + 30
    while time.time() < deadline and sum(1 for row in read_requests(log) if row[2] == "s1.site.test") < 5:
        time.sleep(0.05)
    redis_cmd(redis_port, "SADD", "rc:blacklist", "site.test")  # a parent domain blocks s0 and s1
    t_block = time.time() * 1e6
    deadline = time.time() + 60
    while time.time() < deadline and redis_cmd(redis_port, "HGET", "rc:job:bl", "state") != "done":
        time.sleep(0.1)
    check(redis_cmd(redis_port, "HGET", "rc:job:bl", "state") == "done", "job did not finish")
    late = [row for row in read_requests(log) if row[0] > t_block + 100000]  # allow the one in flight
    check(not late, "%d requests after the blacklist, e.g. %s" % (len(late), late[:2]))
    dropped = int(redis_cmd(redis_port, "HGET", "rc:job:bl", "dropped") or 0)
    check(dropped > 0, "nothing was dropped: the blacklist came too late to test anything")


def test_seed_list_from_stdin(tmp, procs):
    """A seed list far past the old 1,000 (21,000 URLs over 1,000 hosts) read from stdin with
    --seeds -, bad lines reported by number and skipped: every page within depth 1 of the seeds
    fetched exactly once, one request per host at a time. A list with no valid line is refused.
    The job's bloom is asked for 1e-9 (--bloom-fp, the default since): at the old default 1e-6
    about one crawl in 40 of this size takes a URL for seen that was not (this set hit one,
    s488/p/13, when its seeds filled the bloom's first two filters); the test wants the exact set."""
    args = ["--sites", "1000", "--pages", "25"]
    port, log, _ = start_web(procs, tmp, *args)
    g = graph(*args)
    seeds = ["http://s%d.site.test/%s" % (h, "p/%d" % p if p else "") for p in range(21) for h in range(1000)]
    lines = list(seeds)
    lines[5:5] = ["", "# a comment", "not a url"]  # line 8 is bad
    lines.insert(20000, "ftp://s1.site.test/")     # line 20001 is bad
    want = expected_pages(g, seeds, 1, ["site.test"])
    check(len(want) > len(seeds), "depth 1 adds no pages: the test would show nothing about links")
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port, "--allow-net", "127.0.0.0/8",
           "--quiet", "--maxdepth", "1", "--delay", "0", "--workers", "2", "--bloom-fp", "1e-9", "--seeds", "-"]
    r = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=900)
    check(r.returncode == 0, "crawl exited %d: %s" % (r.returncode, r.stderr[-3000:]))
    check("stdin line 8 skipped" in r.stderr and "stdin line 20001 skipped" in r.stderr,
          "bad lines not reported by number: %s" % r.stderr[-2000:])
    check("2 bad lines skipped" in r.stderr, "no count of bad lines: %s" % r.stderr[-2000:])
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    # A seed is at depth 0 even when a page of an earlier batch of the list links to it: nothing
    # is fetched until the whole list is in (a run under load had s0/p/4, linked from s0/, at
    # depth 1, so its link s0/private/4 was never fetched).
    seedset = set(seeds)
    deep = [p["url"] for p in pages if p["url"] in seedset and p.get("depth") != 0]
    check(not deep, "%d seeds fetched at a depth other than 0, e.g. %s" % (len(deep), deep[:3]))
    check_page_set(pages, want, "21,000 seeds")
    check(len({p["url"].split("/")[2] for p in pages}) == 1000, "not every host was crawled")
    bad = overlaps(read_requests(log))
    check(not bad, "overlapping requests to one host: %s" % bad[:2])
    print("  seeds: %d seeds, %d pages, %d hosts" % (len(seeds), len(pages), 1000))

    r = subprocess.run([REDCRAWL, "crawl", "--out", os.path.join(tmp, "never"), "--seeds", "-"],
                       input="nothing\nftp://a.test/\n", capture_output=True, text=True, timeout=30)
    check(r.returncode == 2 and "no valid URL" in r.stderr and "line 2" in r.stderr,
          "a list with no valid URL: exit %d, %s" % (r.returncode, r.stderr))
    r = subprocess.run([REDCRAWL, "crawl", "--out", os.path.join(tmp, "never"), "--seeds", os.path.join(tmp, "none")],
                       capture_output=True, text=True, timeout=30)
    check(r.returncode == 2 and "--seeds" in r.stderr, "a missing list: exit %d, %s" % (r.returncode, r.stderr))
    check(not os.path.exists(os.path.join(tmp, "never")), "a refused crawl created a directory")


def test_bloom_grows_with_the_job(tmp, procs):
    """The job's bloom starts small and grows: a one-URL job's filter is a few hundred bytes of
    Redis; a 4,000-page job's has added filters (the second jumps to 65,536 bits), and the URLs
    the Lua counted into them are exactly the pages fetched (common.lua and shared/sbloom.c agree
    on every capacity). A seed list sizes the first filter to hold it."""
    args = ["--sites", "20", "--pages", "200"]
    port, _, _ = start_web(procs, tmp, *args)
    redis_port, _ = start_redis(procs, tmp)
    redis_url = "redis://127.0.0.1:%d" % redis_port
    out1, _ = crawl(os.path.join(tmp, "one"), port, ["http://s0.site.test/p/3"], "--maxdepth", "0", "--delay", "0",
                    "--redis", redis_url, "--crawlid", "one", "--bloom-fp", "1e-9")
    check(len(read_pages(os.path.join(out1, "pages.jsonl"))) == 1, "the one-URL job fetched more than one page")
    keys = redis_cmd(redis_port, "KEYS", "rc:bloom:one:*")
    used = sum(redis_cmd(redis_port, "MEMORY", "USAGE", k) for k in keys)
    check(keys == ["rc:bloom:one:0"] and used < 400, "a one-URL job's bloom: %s, %d bytes" % (keys, used))
    params = redis_cmd(redis_port, "HGET", "rc:job:one", "bloom").split(":")
    check(float(params[2]) == 1e-9, "--bloom-fp 1e-9 did not reach the job: %s" % params)

    g = graph(*args)
    want = expected_pages(g, ["http://s0.site.test/"], -1, ["site.test"])
    out, _ = crawl(tmp, port, ["http://s0.site.test/"], "--maxdepth", "-1", "--delay", "0", "--redis", redis_url,
                   "--crawlid", "big", timeout=300)
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check_page_set(pages, want, "growing bloom")
    jh = dict(zip(*[iter(redis_cmd(redis_port, "HGETALL", "rc:job:big"))] * 2))
    nf = int(jh["bloom_filters"])
    urls = sum(sbloom_filter(jh["bloom"], i)[2] for i in range(nf - 1)) + int(jh["bloom_count"])
    caps = [sbloom_filter(jh["bloom"], i)[2] for i in range(8)]  # at the default 1e-9: 19, 1,184, 2,253, ...
    want_nf, left = 1, len(pages)
    while left > caps[want_nf - 1]:
        left -= caps[want_nf - 1]
        want_nf += 1
    check(float(jh["bloom"].split(":")[2]) == 1e-9, "the default bound is not 1e-9: %s" % jh["bloom"])
    check(nf == want_nf and nf >= 3, "%d URLs should fill %d filters %s: %d" % (len(pages), want_nf, caps[:want_nf], nf))
    check(urls == len(pages), "the bloom counted %d URLs, %d pages were fetched" % (urls, len(pages)))
    used = sum(redis_cmd(redis_port, "MEMORY", "USAGE", "rc:bloom:big:%d" % i) for i in range(nf))
    print("  bloom: one-URL job %d bytes; %d URLs in %d filters, %d bytes" % (
        redis_cmd(redis_port, "MEMORY", "USAGE", "rc:bloom:one:0"), urls, nf, used))

    # A seed list of 1,000 or more sizes the first filter for it (expected_urls): the seeds are
    # not read in the filters a growing bloom would have filled with them (2,000 seeds took 3).
    seeds = ["http://s%d.site.test/%s" % (h, "p/%d" % p if p else "") for p in range(100) for h in range(20)]
    with open(os.path.join(tmp, "seeds"), "w") as f:
        f.write("\n".join(seeds) + "\n")
    crawl(os.path.join(tmp, "seeded"), port, [], "--seeds", os.path.join(tmp, "seeds"), "--maxdepth", "0",
          "--max-pages", "1", "--delay", "0", "--redis", redis_url, "--crawlid", "seeded")
    jh = dict(zip(*[iter(redis_cmd(redis_port, "HGETALL", "rc:job:seeded"))] * 2))
    nf, cap = int(jh.get("bloom_filters", 1)), sbloom_filter(jh["bloom"], 0)[2]
    check(nf == 1 and int(jh["bloom_count"]) == len(seeds) and cap >= len(seeds),
          "2,000 seeds: %d filters, %s URLs in the newest, the first holds %d" % (nf, jh["bloom_count"], cap))


def test_parse_threads(tmp, procs):
    """One worker parsing on four threads (--parse-threads 4): the exact page set, every page
    once, and every HTML page's item exactly as the rules say. The rules hold a union under [1],
    which libxml2 2.9 rewrites inside the compiled XPath as it evaluates it (so each thread has its
    own copy), and --data-pages is a regex of the URL filter all threads match with."""
    args = ["--sites", "4", "--pages", "60"]
    port, log, _ = start_web(procs, tmp, *args)
    g = graph(*args)
    want = expected_pages(g, ["http://s0.site.test/"], -1, ["site.test"])
    rules = os.path.join(tmp, "rules.json")
    with open(rules, "w") as f:
        json.dump({"fields": {"title": "//title", "first": "(//nav//a | //h1)[1]",
                              "links": "count(//a[@href])"}}, f)
    out, _ = crawl(tmp, port, ["http://s0.site.test/"], "--maxdepth", "-1", "--delay", "0", "--workers", "1",
                   "--parse-threads", "4", "--rules", rules, "--data-pages", "/p/[0-9]*5$", "--text")
    log_text = open(os.path.join(out, "logs", "worker-1.log")).read()
    check("parse_threads=4" in log_text, "the worker did not start 4 parse threads")
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check_page_set(pages, want, "--parse-threads 4")
    html = {p["url"]: p for p in pages if p["status_code"] == 200 and "html" in (p.get("content_type") or "")}
    items = [json.loads(line) for line in open(os.path.join(out, "items.jsonl"))]
    by_url = collections.Counter(i["url"] for i in items)
    check(set(by_url) == set(html) and set(by_url.values()) == {1},
          "want one item per HTML page (%d): %d items over %d pages" % (len(html), len(items), len(by_url)))
    for i in items:
        p = html[i["url"]]
        check(i["title"] == p["title"] and i["first"] == p["title"],
              "%s: item %s, page title %r" % (i["url"], i, p["title"]))
        check(int(i["links"]) >= p["links"] > 0, "%s: %s links in the item, %d in the record" %
              (i["url"], i["links"], p["links"]))
    check(len(html) > 150, "too few HTML pages to show anything: %d" % len(html))


def test_unreachable_site_says_so(tmp, procs):
    """A seed whose robots.txt cannot be fetched (nothing listens) is not crawled (RFC 9309), and
    the user is told why rather than "disallowed", with exit 5 (nothing crawled)."""
    import socket
    with socket.socket() as s:  # a port nothing listens on: bound, closed
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    out = os.path.join(tmp, "out")
    r = subprocess.run([REDCRAWL, "crawl", "--out", out, "--allow-net", "127.0.0.0/8", "--quiet",
                        "http://127.0.0.1:%d/" % dead], capture_output=True, text=True, timeout=120)
    check(r.returncode == 5, "want exit 5 (nothing crawled), got %d:\n%s\n%s" % (r.returncode, r.stdout, r.stderr))
    check("disallowed" not in r.stdout, "an unreachable site reported as disallowed: %s" % r.stdout)
    check("robots.txt unreachable for 1 host(s) (127.0.0.1:%d: " % dead in r.stdout and
          "refused" in r.stdout.lower() and "RFC 9309" in r.stdout,
          "the summary does not say robots.txt was unreachable: %s" % r.stdout)


def test_robots_503_says_so(tmp, procs):
    """robots.txt answered 503: not crawled, and the summary says so with the status."""
    import http.server
    import threading

    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        port = srv.server_address[1]
        out = os.path.join(tmp, "out")
        r = subprocess.run([REDCRAWL, "crawl", "--out", out, "--allow-net", "127.0.0.0/8", "--quiet",
                            "http://127.0.0.1:%d/" % port], capture_output=True, text=True, timeout=120)
    finally:
        srv.shutdown()
        srv.server_close()
    check(r.returncode == 5, "want exit 5 (nothing crawled), got %d:\n%s\n%s" % (r.returncode, r.stdout, r.stderr))
    check("127.0.0.1:%d: robots.txt answered 503" % port in r.stdout and "disallowed" not in r.stdout,
          "the summary does not say robots.txt answered 503: %s" % r.stdout)


def private_redis_of(crawl_pid, timeout=20):
    """The pid of the redis-server `redcrawl crawl` started (a child of it), once it answers."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        for d in os.listdir("/proc"):
            try:
                with open("/proc/%s/stat" % d) as f:
                    st = f.read()
            except OSError:
                continue
            if "(redis-server)" in st and int(st[st.rindex(")") + 2:].split()[1]) == crawl_pid:
                # redis-server's title names its socket: "redis-server unixsocket:PATH"
                title = open("/proc/%s/cmdline" % d).read().replace("\0", " ")
                sock = title.split("unixsocket:", 1)[1].split()[0] if "unixsocket:" in title else ""
                if subprocess.run(["redis-cli", "-s", sock, "PING"], capture_output=True, text=True).stdout.strip() == "PONG":
                    return int(d), sock
        time.sleep(0.1)
    raise Failure("no private redis-server under redcrawl crawl (pid %d)" % crawl_pid)


def test_lean_workers(tmp, procs):
    """Storing to JSON Lines, `redcrawl crawl` runs redcrawl-worker-lean: a worker that links and
    maps no MongoDB, Kafka or HTTP-server library (their pages were ~1 MB of each worker's
    memory); the crawl is whole. The lean build refuses --mongo and --metrics-port (the full
    worker is what a crawl with --mongo runs). Each worker runs with GNUTLS_NO_IMPLICIT_INIT=1:
    GnuTLS, which libcurl's librtmp and libldap bring in, is not initialised (~0.6 MB a worker)."""
    lean = WORKER + "-lean"
    needed = subprocess.run(["readelf", "-d", lean], capture_output=True, text=True, check=True).stdout
    unwanted = ("libmongoc", "libbson", "librdkafka", "libmicrohttpd")
    check("libcurl" in needed and not any(x in needed for x in unwanted),
          "redcrawl-worker-lean's NEEDED: %s" % [x for x in needed.splitlines() if "NEEDED" in x])
    rport, _ = start_redis(procs, tmp)
    for args, what in ((["--mongo", "mongodb://127.0.0.1:1/x"], "--mongo"), (["--metrics-port", "0"], "--metrics-port")):
        r = subprocess.run([lean, "--redis", "redis://127.0.0.1:%d" % rport] + args, capture_output=True, text=True,
                           timeout=30)
        check(r.returncode != 0 and what in r.stderr and "redcrawl-worker" in r.stderr,
              "lean worker with %s: exit %d, %s" % (what, r.returncode, r.stderr[-500:]))
    args = ["--sites", "2", "--pages", "200"]
    port, _, _ = start_web(procs, tmp, *args)
    seeds = ["http://s0.site.test/", "http://s1.site.test/"]
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port, "--quiet", "--web-port", "-1",
           "--workers", "2", "--maxdepth", "-1", "--delay", "0.02"] + seeds
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    maps = {}
    try:
        deadline = time.time() + 30
        while time.time() < deadline and len(maps) < 2:
            for d in os.listdir("/proc"):
                try:
                    with open("/proc/%s/stat" % d) as f:
                        st = f.read()
                    if int(st[st.rindex(")") + 2:].split()[1]) == p.pid and "redcrawl-worker" in st:
                        with open("/proc/%s/maps" % d) as f:
                            m = f.read()
                        if "libcurl" in m:  # past its exec and loading
                            with open("/proc/%s/environ" % d) as f:
                                env = f.read().split("\0")
                            maps[d] = (os.readlink("/proc/%s/exe" % d), m, env)
                except (OSError, ValueError):
                    pass
            time.sleep(0.1)
        stdout, stderr = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    check(p.returncode == 0, "crawl exited %d: %s" % (p.returncode, stderr[-1000:]))
    check(len(maps) == 2, "want 2 workers seen, got %d" % len(maps))
    for pid, (exe, m, env) in maps.items():
        check(os.path.basename(exe) == "redcrawl-worker-lean", "worker %s runs %s" % (pid, exe))
        check("GNUTLS_NO_IMPLICIT_INIT=1" in env, "worker %s: GNUTLS_NO_IMPLICIT_INIT not set" % pid)
        mapped = [x for x in unwanted if x in m]
        check(not mapped, "worker %s maps %s" % (pid, mapped))
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check_page_set(pages, expected_pages(graph(*args), seeds, -1, ["site.test"]), "lean workers")


def test_private_redis_allocator(tmp, procs):
    """The private redis-server's jemalloc gives freed pages back at once (MALLOC_CONF
    in its environment), unless the caller's environment sets MALLOC_CONF: then it has that."""
    port, _, _ = start_web(procs, tmp, "--sites", "1", "--pages", "400", "--latency-ms", "50")
    for given, want in ((None, "dirty_decay_ms:0"), ("dirty_decay_ms:5000,muzzy_decay_ms:5000",) * 2):
        env = dict(os.environ)
        env.pop("MALLOC_CONF", None)
        if given:
            env["MALLOC_CONF"] = given
        out = os.path.join(tmp, "out-%s" % bool(given))
        cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port, "--quiet", "--web-port", "-1",
               "--delay", "0.05", "http://s0.site.test/"]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, env=env)
        try:
            pid, sock = private_redis_of(p.pid)
            # (not /proc/PID/environ: redis-server writes its process title over it)
            stats = subprocess.run(["redis-cli", "-s", sock, "MEMORY", "MALLOC-STATS"], capture_output=True, text=True).stdout
            if "jemalloc" not in stats.lower():
                print("  (redis-server %d does not run on jemalloc: nothing to check)" % pid)
                continue
            for opt in want.split(","):
                name, value = opt.split(":")
                check("opt.%s: %s " % (name, value) in stats, "jemalloc's %s is not %s: %s" %
                      (name, value, [x for x in stats.splitlines() if "decay_ms" in x]))
        finally:
            p.send_signal(signal.SIGINT)
            try:
                p.communicate(timeout=60)
            finally:
                if p.poll() is None:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()



RESUME_SITE = ["--sites", "2", "--pages", "150", "--latency-ms", "20"]


def resume_crawl(tmp, procs, workers, latency_ms=20):
    """The test web of RESUME_SITE and the command of a crawl of it that takes ~8 s (2 hosts at
    one request per 0.05 s): (the pages it must store, the request log, --out, the command)."""
    port, log, _ = start_web(procs, tmp, *(RESUME_SITE[:-1] + [str(latency_ms)]))
    seeds = ["http://s0.site.test/", "http://s1.site.test/"]
    want = expected_pages(graph(*RESUME_SITE), seeds, -1, ["site.test"])
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port, "--allow-net", "127.0.0.0/8",
           "--quiet", "--web-port", "-1", "--maxdepth", "-1", "--delay", "0.05", "--workers", str(workers)] + seeds
    return want, log, out, cmd


def wait_lines(path, n, timeout=60):
    """Waits until the JSON Lines file path holds n lines; its line count."""
    deadline = time.time() + timeout
    count = 0
    while time.time() < deadline:
        count = len(open(path).readlines()) if os.path.exists(path) else 0
        if count >= n:
            break
        time.sleep(0.02)
    check(count >= n, "%s holds %d lines after %d s, want %d" % (path, count, timeout, n))
    return count


def page_requests(log):
    """How many times each page (not robots.txt) was requested: {url: n}."""
    return collections.Counter("http://%s%s" % (r[2], r[3]) for r in read_requests(log) if r[3] != "/robots.txt")


def resume(out, *extra, expect_rc=0):
    r = subprocess.run([REDCRAWL, "crawl", "--resume", out] + list(extra), capture_output=True, text=True,
                       timeout=180)
    check(r.returncode == expect_rc, "redcrawl crawl --resume %s exited %d (want %d):\n%s\n%s" %
          (" ".join(extra), r.returncode, expect_rc, r.stdout, r.stderr[-3000:]))
    return r


def test_resume_after_ctrl_c(tmp, procs):
    """Ctrl-C pauses a crawl (its private Redis keeps the job under OUT/redis) and says how to
    go on; `redcrawl crawl --resume OUT`, with no other argument, fetches only the pages not
    fetched before: every page requested once over both runs, and stored once. Meanwhile a new
    crawl into OUT, a job option given to --resume and a second resume while one runs are refused;
    once finished, there is nothing to resume; an OUT without a crawl is an error."""
    want, log, out, cmd = resume_crawl(tmp, procs, 1)
    pages_path = os.path.join(out, "pages.jsonl")
    _, stderr, before = ctrl_c(cmd, lambda p: wait_lines(pages_path, 60))
    check("redcrawl crawl --resume %s" % out in stderr, "Ctrl-C did not say how to resume: %s" % stderr[-1000:])
    first = len(read_pages(pages_path))
    check(before <= first < len(want) - 20, "the first run stored %d of %d pages" % (first, len(want)))
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and "--resume" in r.stderr, "a new crawl into a paused OUT: exit %d, %s" %
          (r.returncode, r.stderr[-500:]))
    r = resume(out, "--maxdepth", "3", expect_rc=2)
    check("--maxdepth" in r.stderr, "a job option given to --resume is not named: %s" % r.stderr[-500:])
    # A second resume while the first runs is refused: one crawl at a time on OUT's Redis data.
    p = subprocess.Popen([REDCRAWL, "crawl", "--resume", out, "--workers", "2"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_lines(pages_path, first + 20)
        t = time.time()
        r = resume(out, expect_rc=2)
        check("in use by another redcrawl crawl" in r.stderr, "a second resume at once: %s" % r.stderr[-500:])
        # At once: a live crawl is not waited for as a killed one's processes are (30 s).
        check(time.time() - t < 10, "the second resume was refused after %.1f s" % (time.time() - t))
        # The resumed run is running: were it to crash now, its resume must not take it for a pause.
        with open(os.path.join(out, "crawl.json")) as f:
            state = json.load(f)["state"]
        check(state == "running", "crawl.json says %r while the resumed run crawls" % state)
        stdout, stderr = p.communicate(timeout=180)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    check(p.returncode == 0 and "finished" in stdout, "resuming: exit %d, %s%s" % (p.returncode, stdout, stderr[-2000:]))
    check("interrupted run's end" not in stderr, "a paused crawl resumed looks pages up: %s" % stderr[-1000:])
    pages = read_pages(pages_path)
    check_page_set(pages, want, "paused and resumed")
    asked = page_requests(log)
    twice = sorted(u for u, n in asked.items() if n > 1)
    check(not twice, "%d pages requested more than once over both runs, e.g. %s" % (len(twice), twice[:3]))
    check(set(asked) == set(want), "requests: %d pages never asked, %d unexpected" %
          (len(set(want) - set(asked)), len(set(asked) - set(want))))
    print("  %d pages before Ctrl-C, %d after resuming, each requested once" % (first, len(pages) - first))
    r = resume(out)
    check("nothing to resume" in r.stderr, "a finished crawl resumed: %s" % r.stderr[-500:])
    r = resume(os.path.join(tmp, "nowhere"), expect_rc=2)
    check("nowhere" in r.stderr and "crawl.json" in r.stderr, "a bad OUT is not explained: %s" % r.stderr[-500:])


def threads_running(pid):
    """The threads of process pid that have not exited: [(tid, state)]; none once it is reaped.
    A zombie is not yet gone: SIGKILLed, its leader turns zombie while another thread of it may
    still be in the kernel (redis-server's bio_aof_fsync in an fsync, state D, on a busy disk),
    and its files, OUT's lock among them, stay open until the last thread exits."""
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return []
    running = []
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):  # exited meanwhile
            continue
        if state not in ("Z", "X"):
            running.append((int(tid), state))
    return running


def kill_crawl(pid):
    """SIGKILLs a crawl and every child of it at once (a crash, an OOM kill, a power cut of the
    process tree: none of them finishes anything) and waits until every thread of each has
    exited (at most 30 s), so their files are closed: a resume started then does not find OUT
    in use by the killed run."""
    pids = [int(x) for x in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True,
                                           text=True).stdout.split()]
    for p in pids + [pid]:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:  # a child that ended (and was reaped) since pgrep
            pass
    deadline = time.time() + 30
    left = pids + [pid]
    while left and time.time() < deadline:
        time.sleep(0.02)
        left = [p for p in left if threads_running(p)]
    check(not left, "threads still running 30 s after SIGKILL: %s" % {p: threads_running(p) for p in left})
    return pids


def crash_crawl(cmd, meanwhile):
    """Runs the crawl CMD, calls meanwhile(p) while it runs, then SIGKILLs it with its children
    (kill_crawl). (the pids killed with it, what meanwhile returned)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        got = meanwhile(p)
        kids = kill_crawl(p.pid)
        p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    return kids, got


def sock_cmd(sock, *args):
    """A command to the Redis on unix socket sock (redis-cli): its reply as text."""
    return subprocess.run(["redis-cli", "-s", sock] + list(args), capture_output=True, text=True,
                          timeout=10).stdout.strip()


def store_unacked(sock, pages_path):
    """Pauses the writes of the Redis on sock (CLIENT PAUSE WRITE) until a worker has stored a
    page since the pause began: a complete is a write, so those pages are stored and not acked.
    Returns their URLs with the pause still on. When nothing is stored within a second (no fetch
    was in flight), the pause ends and it tries again. Each try pauses only once a fetch is in
    flight: a try every so often instead fell, pause after pause, where the crawl waits between a
    host's pages (the pauses themselves set the crawl's pace), and never found one."""
    def leased():
        return any(int(sock_cmd(sock, "ZCARD", "rc:lease:" + w) or 0)
                   for w in sock_cmd(sock, "ZRANGE", "rc:workers", "0", "-1").split())
    for _ in range(40):
        deadline = time.time() + 2
        while not leased() and time.time() < deadline:
            pass
        check(sock_cmd(sock, "CLIENT", "PAUSE", "30000", "WRITE") == "OK", "CLIENT PAUSE refused")
        start = whole_lines_end(pages_path)
        # Takes and completes are writes: the leases stay as they are while paused.
        deadline = time.time() + (1 if leased() else 0)
        while time.time() < deadline:
            with open(pages_path, "rb") as f:
                f.seek(start)
                lines = f.read().split(b"\n")[:-1]
            if lines:
                return [json.loads(line)["url"] for line in lines]
            time.sleep(0.01)
        check(sock_cmd(sock, "CLIENT", "UNPAUSE") == "OK", "CLIENT UNPAUSE refused")
        time.sleep(0.1)
    raise Failure("no page stored while Redis was paused, in 40 tries")


def aof_written(sock, timeout=10):
    """Waits until the Redis on sock, its writes paused, has written every write it answered to
    its append-only file (INFO persistence: aof_buffer_length 0). With appendfsync everysec,
    while its last fsync of the file still runs (a busy disk), Redis holds its writes back for up
    to 2 s and answers them meanwhile: a crash of its process loses those (README, "Pause and
    resume"), a page's complete and the next page's take among them: the page, still leased in
    the file, is fetched again after the resume (stored once), one more than were in flight."""
    deadline = time.time() + timeout
    info = ""
    while time.time() < deadline:
        info = sock_cmd(sock, "INFO", "persistence")
        if "aof_buffer_length:0" in info.split():
            return
        time.sleep(0.01)
    raise Failure("Redis has not written its append-only file's buffer in %d s: %s" % (timeout, info))


def test_resume_after_sigkill(tmp, procs):
    """A crawl killed with SIGKILL, it and its children at once (Redis, workers), with pages stored
    and not acked (Redis' writes paused a moment before: their completes wait; those it answered
    before are in its append-only file, as on a disk that is not busy): `redcrawl crawl
    --resume OUT` finds the job in OUT/redis (append-only file) and ends it: every page in
    pages.jsonl exactly once; the pages stored unacked are fetched again (their leases handed
    back as redeliveries), not stored twice."""
    want, log, out, cmd = resume_crawl(tmp, procs, 2, latency_ms=60)
    # Storing asks Redis nothing (no content digest): pages are stored while it is paused. Pages
    # take 60 ms and no longer wait 2 x that: a fetch is in flight most of the time (~15 s).
    cmd[2:2] = ["--dedup-content=0", "--delay-factor", "0"]
    pages_path = os.path.join(out, "pages.jsonl")

    def unacked_stored(p):
        wait_lines(pages_path, 80)
        sock = private_redis_of(p.pid)[1]
        unacked = store_unacked(sock, pages_path)
        # A crash of the processes, not of the disk: what Redis acknowledged is in its file.
        aof_written(sock)
        return unacked
    kids, unacked = crash_crawl(cmd, unacked_stored)
    check(len(kids) >= 3, "want Redis and 2 workers killed with the crawl, got %s" % kids)
    first = len(read_pages(pages_path))
    r = resume(out)
    check("finished" in r.stdout and "URLs: handed back" in r.stderr, "resuming: %s%s" % (r.stdout, r.stderr))
    check_page_set(read_pages(pages_path), want, "killed and resumed")
    asked = page_requests(log)
    twice = sorted(u for u, n in asked.items() if n > 1)
    check(set(asked) == set(want) and all(n <= 2 for n in asked.values()),
          "requests: %d missing, %d unexpected, %d asked 3 times or more" %
          (len(set(want) - set(asked)), len(set(asked) - set(want)), sum(n > 2 for n in asked.values())))
    check(set(unacked) <= set(twice), "pages stored unacked at the kill not fetched again: %s" %
          sorted(set(unacked) - set(twice)))
    check(len(twice) <= 2, "%d pages fetched twice: more than were in flight (one a host)" % len(twice))
    print("  %d pages before the kill, %d of them stored unacked; resumed to %d, each stored once; %d fetched "
          "twice" % (first, len(unacked), len(want), len(twice)))




def hold_descriptor_of(pid, path):
    """A descriptor, in this process, of the open file that process pid holds on path
    (pidfd_getfd(2), Linux 5.6; close-on-exec): the same open file, so whatever flock it holds
    lasts while either process keeps it."""
    fds = []
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            if os.readlink("/proc/%d/fd/%s" % (pid, fd)) == path:
                fds.append(fd)
        except OSError:  # closed meanwhile
            pass
    check(fds, "process %d has no descriptor on %s" % (pid, path))
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = os.pidfd_open(pid)
    try:
        fd = libc.syscall(438, pidfd, int(fds[0]), 0)  # SYS_pidfd_getfd, the same on every architecture
        check(fd >= 0, "pidfd_getfd: %s" % os.strerror(ctypes.get_errno()))
    finally:
        os.close(pidfd)
    return fd


def test_resume_while_killed_crawl_ends(tmp, procs):
    """A resume started the moment a crawl is killed, while processes of it still hold OUT's lock
    (a SIGKILLed Redis whose fsync thread is still in the kernel, children ending on their
    parent's death), waits for them and says so instead of being refused; a second resume then
    started waits too, and once OUT is free one runs and the other is refused at once. The
    stand-in for a process still ending is this test, holding the killed crawl's descriptor on
    OUT (the same open file, so the same lock) until a second into the wait: first every process
    of the crawl SIGKILLed, then the resumed crawl alone (its children end on their parent-death
    SIGTERM). (A stopped Redis cannot stand in: its parent's death orphans its process group and
    the kernel continues it.) Every page is stored once."""
    want, log, out, cmd = resume_crawl(tmp, procs, 2)
    pages_path = os.path.join(out, "pages.jsonl")
    running, held = [], []

    def resume_waiting(name):
        """A resume started now, once it says it waits: (process, its stderr's path)."""
        err = os.path.join(tmp, name + ".err")
        with open(err, "w") as f:
            p = subprocess.Popen([REDCRAWL, "crawl", "--resume", out], stdout=subprocess.PIPE, stderr=f, text=True,
                                 start_new_session=True)
        running.append(p)
        deadline = time.time() + 30
        while "waiting for the killed crawl's processes to end" not in open(err).read():
            check(p.poll() is None and time.time() < deadline, "%s does not wait for the killed crawl (exit %s): %s" %
                  (name, p.poll(), open(err).read()[-1000:]))
            time.sleep(0.02)
        return p, err

    try:
        # Every process of the crawl killed, OUT still held.
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        running.append(p)
        wait_lines(pages_path, 60)
        held.append(hold_descriptor_of(private_redis_of(p.pid)[0], out))
        kill_crawl(p.pid)
        p.communicate(timeout=30)
        first = len(read_pages(pages_path))
        a, a_err = resume_waiting("resume-a")
        b, b_err = resume_waiting("resume-b")
        time.sleep(1)
        check(a.poll() is None and b.poll() is None, "a resume ended while OUT was held: %s %s" % (a.poll(), b.poll()))
        os.close(held.pop())
        freed = time.time()
        while a.poll() is None and b.poll() is None and time.time() < freed + 30:
            time.sleep(0.02)
        refused, refused_err, runner = (a, a_err, b) if a.poll() is not None else (b, b_err, a)
        check(refused.poll() == 2 and "in use by another redcrawl crawl" in open(refused_err).read(),
              "of two resumes waiting, one must be refused once the other runs: exit %s, %s" %
              (refused.poll(), open(refused_err).read()[-1000:]))
        print("  the second resume refused %.2f s after OUT was free" % (time.time() - freed))

        # The resumed crawl killed alone: its children end on their own, OUT still held.
        wait_lines(pages_path, first + 20)
        held.append(hold_descriptor_of(runner.pid, out))
        os.kill(runner.pid, signal.SIGKILL)
        runner.communicate(timeout=30)
        c, c_err = resume_waiting("resume-c")
        time.sleep(1)
        check(c.poll() is None, "the resume ended while OUT was held: exit %s" % c.poll())
        os.close(held.pop())
        stdout, _ = c.communicate(timeout=180)
        check(c.returncode == 0 and "finished" in stdout, "the resume: exit %d, %s%s" %
              (c.returncode, stdout, open(c_err).read()[-2000:]))
    finally:
        for fd in held:
            os.close(fd)
        for q in running:
            if q.poll() is None:
                os.killpg(q.pid, signal.SIGKILL)
                q.wait()
    check_page_set(read_pages(pages_path), want, "killed twice while resuming")

def cut_aof_at(redis_dir, marker):
    """Cuts the incr file of the append-only file in redis_dir back to just before the command
    `SET marker 1` (a command boundary): Redis' state is then as it was when the marker was set,
    what a machine crash does to the writes of its last second (appendfsync everysec). Returns
    the bytes cut."""
    aof_dir = os.path.join(redis_dir, "appendonlydir")
    incr = [f for f in os.listdir(aof_dir) if f.endswith(".incr.aof")]
    check(len(incr) == 1, "want one incr file in %s, got %s" % (aof_dir, os.listdir(aof_dir)))
    path = os.path.join(aof_dir, incr[0])
    data = open(path, "rb").read()
    at = data.find(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n" % (len(marker), marker.encode()))
    check(at > 0, "the marker is not in %s" % path)
    os.truncate(path, at)
    return len(data) - at


def waiting_first_attempts(tmp, redis_dir, urls):
    """The URLs among urls that the Redis data in redis_dir (a copy of it, loaded by a Redis of
    its own) holds as waiting first attempts: in a host queue or the frontier as a plain record
    with attempt 0, neither leased nor a redelivery (which is JSON)."""
    copy = os.path.join(tmp, "aof-copy")
    shutil.copytree(redis_dir, copy)
    sock = os.path.join(tmp, "aof-copy.sock")
    p = subprocess.Popen(["redis-server", "--port", "0", "--unixsocket", sock, "--save", "", "--appendonly", "yes",
                          "--dir", copy], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    try:
        deadline = time.time() + 10
        while time.time() < deadline and sock_cmd(sock, "PING") != "PONG":
            time.sleep(0.05)
        members = []
        for key in sock_cmd(sock, "--scan", "--pattern", "rc:q:*").split():
            members += sock_cmd(sock, "ZRANGE", key, "0", "-1").split("\n")
        for key in sock_cmd(sock, "--scan", "--pattern", "rc:seeds:*").split():
            if sock_cmd(sock, "TYPE", key) == "list":
                members += sock_cmd(sock, "LRANGE", key, "0", "-1").split("\n")
    finally:
        p.kill()
        p.wait()
    waiting = {m.split()[-1] for m in members if m and not m.startswith("{") and m.split()[-2] == "0"}
    return waiting & set(urls)


def test_resume_after_machine_crash(tmp, procs):
    """A machine crash loses the last second or two of Redis' writes (appendfsync everysec) while
    pages.jsonl may keep the pages stored then: a page taken and completed in that second is
    stored, yet back in its host queue as a first attempt, not a redelivery. Simulated: a marker
    set in the private Redis, a few more pages stored, everything SIGKILLed at once, the
    append-only file cut back to the marker. `redcrawl crawl --resume OUT`, paused (Ctrl-C) at
    its first request and resumed again, ends the job with every page in pages.jsonl exactly
    once: those pages are listed (only those past the mark that survived in Redis), fetched
    again, looked up and not stored twice, also those still queued over the pause."""
    want, log, out, cmd = resume_crawl(tmp, procs, 2)
    pages_path = os.path.join(out, "pages.jsonl")

    def mark_then_store(p):
        wait_lines(pages_path, 60)
        sock = private_redis_of(p.pid)[1]
        check(sock_cmd(sock, "SET", "crashtest-mark", "1") == "OK", "the marker was not set")
        with open(pages_path, "rb") as f:
            marked = f.read().count(b"\n")
        wait_lines(pages_path, marked + 8)
    kids, _ = crash_crawl(cmd, mark_then_store)
    check(len(kids) >= 3, "want Redis and 2 workers killed with the crawl, got %s" % kids)
    cut = cut_aof_at(os.path.join(out, "redis"), "crashtest-mark")
    stored = [pg["url"] for pg in read_pages(pages_path)]
    lost = waiting_first_attempts(tmp, os.path.join(out, "redis"), stored)
    check(lost, "no page of pages.jsonl waits as a first attempt in the cut Redis: the test shows nothing")
    # Paused at the resumed run's first request: the list must outlive the pause for the lost
    # pages still queued then.
    before = len(read_requests(log))

    def first_request(p):
        deadline = time.time() + 60
        while time.time() < deadline and len(read_requests(log)) <= before and p.poll() is None:
            time.sleep(0.005)
    _, stderr, _ = ctrl_c([REDCRAWL, "crawl", "--resume", out, "--quiet"], first_request)
    check(glob.glob(os.path.join(out, "recheck-*.ids")), "no list of pages to look up after the pause: %s" %
          stderr[-1000:])
    asked_then = page_requests(log)
    waiting = [u for u in lost if asked_then[u] < 2]
    check(waiting, "every lost page was fetched again before the pause: it shows nothing of the list after one")
    r = resume(out)
    check("finished" in r.stdout, "resuming: %s%s" % (r.stdout, r.stderr[-2000:]))
    check_page_set(read_pages(pages_path), want, "crashed and resumed")
    said = re.search(r"redcrawl: (\d+) pages stored at the interrupted run's end", stderr)
    rechecked = int(said.group(1)) if said else 0
    # Those past the mark that survived in Redis: the lost ones, not every page stored; none
    # more after the pause (a clean end).
    check(len(lost) <= rechecked < len(stored) / 2, "%d pages looked up for %d lost of %d stored: %s" %
          (rechecked, len(lost), len(stored), stderr[-1000:]))
    check("interrupted run's end" not in r.stderr, "a paused crawl resumed lists pages: %s" % r.stderr[-1000:])
    check(not glob.glob(os.path.join(out, "recheck-*.ids")), "the finished job's list is still there")
    asked = page_requests(log)
    check(set(asked) == set(want) and all(asked[u] >= 2 for u in lost),
          "requests: %d missing, %d unexpected, %d lost pages not fetched again" %
          (len(set(want) - set(asked)), len(set(asked) - set(want)), sum(asked[u] < 2 for u in lost)))
    print("  %d pages stored before the crash, %d bytes of the append-only file cut: %d of them waiting again as "
          "first attempts, %d looked up, %d still queued over a pause; resumed to %d, each stored once" %
          (len(stored), cut, len(lost), rechecked, len(waiting), len(want)))


def cut_jsonl(path, keep):
    """Cuts the JSON Lines file PATH and its _id index (PATH.ids: "start end _id") back to their
    first KEEP records, as a crash of the machine loses what the kernel had not written yet. The
    URLs of the records cut."""
    with open(path, "rb") as f:
        lines = f.readlines()
    with open(path, "wb") as f:
        f.writelines(lines[:keep])
    size = sum(len(x) for x in lines[:keep])
    with open(path + ".ids") as f:
        idx = [x for x in f if int(x.split()[1]) <= size]
    with open(path + ".ids", "w") as f:
        f.writelines(idx)
    return [json.loads(x)["url"] for x in lines[keep:]]


def test_resume_warns_of_lost_file_tail(tmp, procs):
    """With --fsync none (the default) a crash of the machine can lose pages.jsonl's last records
    while Redis, whose file is synced every second, counts their pages fetched. Simulated: the
    crawl SIGKILLed with its children, pages.jsonl and its index cut back to half. The resume
    says so (`lost its last N bytes ... --fsync batch`), and finishes with every other page
    stored once; the pages cut that Redis counted are missing, as it says."""
    want, log, out, cmd = resume_crawl(tmp, procs, 2)
    pages_path = os.path.join(out, "pages.jsonl")
    # The crawl notes how far the file is complete every 200 ms.
    crash_crawl(cmd, lambda p: (wait_lines(pages_path, 60), time.sleep(0.5)))
    cut = cut_jsonl(pages_path, 30)
    r = resume(out)
    said = re.search(r"lost its last (\d+) bytes of pages .* --fsync batch", r.stderr)
    check(said and int(said.group(1)) > 0, "the resume did not say pages.jsonl lost stored pages: %s" %
          r.stderr[-1500:])
    pages = [pg["url"] for pg in read_pages(pages_path)]
    dups = [u for u, n in collections.Counter(pages).items() if n > 1]
    missing = set(want) - set(pages)
    check(not dups and set(pages) <= set(want), "%d stored twice, %d unexpected" % (len(dups), len(set(pages) - set(want))))
    check(missing and missing <= set(cut), "%d pages missing, %d of them not cut from the file" %
          (len(missing), len(missing - set(cut))))
    print("  %d records cut from pages.jsonl, %d bytes said lost: %d pages missing after the resume, the rest once" %
          (len(cut), int(said.group(1)), len(missing)))


def test_resume_with_redis_after_sigkill(tmp, procs):
    """A crawl on a Redis of its own (--redis: the job's state is there, not in OUT/redis) killed
    with its workers: `redcrawl crawl --resume OUT --redis URL` finds the job still running, hands
    back what the dead workers held and frees the dead scheduler's lock at once, and ends it:
    every page stored once, none fetched more than twice (one in flight a host at the kill)."""
    want, log, out, cmd = resume_crawl(tmp, procs, 2, latency_ms=60)
    redis_port, _ = start_redis(procs, tmp)
    url = "redis://127.0.0.1:%d" % redis_port
    cmd[2:2] = ["--redis", url, "--crawlid", "ext"]
    kids, _ = crash_crawl(cmd, lambda p: wait_lines(os.path.join(out, "pages.jsonl"), 60))
    check(len(kids) >= 2 and not os.path.exists(os.path.join(out, "redis")),
          "want 2 workers killed and no OUT/redis with --redis: %s" % kids)
    check(redis_cmd(redis_port, "HGET", "rc:job:ext", "state") == "running", "the killed crawl's job is not running")
    t0 = time.time()
    r = resume(out, "--redis", url)
    check("finished" in r.stdout and "URLs: handed back" in r.stderr,
          "resuming on --redis: %s%s" % (r.stdout, r.stderr[-2000:]))
    check_page_set(read_pages(os.path.join(out, "pages.jsonl")), want, "killed and resumed on --redis")
    asked = page_requests(log)
    check(set(asked) == set(want) and all(n <= 2 for n in asked.values()),
          "requests: %d missing, %d asked 3 times or more" %
          (len(set(want) - set(asked)), sum(n > 2 for n in asked.values())))
    print("  resumed on --redis in %.1f s: %d pages, each stored once" % (time.time() - t0, len(want)))


if __name__ == "__main__":
    run_tests([test_bad_input, test_same_message_every_entry_point, test_exact_page_set_unlimited_depth, test_summary_counts_this_job,
               test_out_with_crawlid, test_out_not_utf8, test_link_only_crawl_matches_tree_crawl,
               test_maxdepth, test_options_after_urls, test_allowed_domains,
               test_two_workers_share_load, test_max_pages, test_retry_on_503, test_worker_sigkill_mid_crawl,
               test_kill_with_batch_in_flight, test_stalled_worker_keeps_its_pages,
               test_hung_worker_restarted, test_reaped_worker_that_wakes_is_kept,
               test_sigint_stops_cleanly, test_worker_gone_while_stopping, test_private_redis_dies,
               test_not_resumable, test_fleet_by_hand, test_late_worker_gets_domains,
               test_blacklist_applies_to_queued_urls, test_seed_list_from_stdin,
               test_bloom_grows_with_the_job, test_parse_threads, test_unreachable_site_says_so,
               test_robots_503_says_so, test_private_redis_allocator, test_scheduler_in_process, test_lean_workers,
               test_scheduler_cannot_start, test_workers_that_cannot_start, test_output_not_writable,
               test_fetch_errors_say_why,
               test_resume_after_ctrl_c, test_resume_after_sigkill,
               test_resume_while_killed_crawl_ends, test_resume_after_machine_crash,
               test_resume_warns_of_lost_file_tail, test_resume_with_redis_after_sigkill])
