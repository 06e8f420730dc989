#!/usr/bin/env python3
"""Politeness and trap guards, measured from the test web server's request log, with a fleet
started by hand (one redis-server, the scheduler, 4 workers) and jobs sent with `redcrawl submit`:

- 4 workers, 20 hosts: no two requests to one host at once, the configured delay between the end
  of one response and the next request to that host, robots.txt fetched once per host for the
  whole fleet (shared through Redis), disallowed paths never requested, the exact page set;
- a rate set with a domain config request mid-crawl takes effect at once, and removing it too;
- 503 + Retry-After: 1 leaves the host alone for a second, and the page set is still complete;
- a host's first page waits --delay after its robots.txt, or --robots-delay when given (shorter),
  and its later pages are --delay (or Crawl-delay) apart either way;
- a site full of crawler traps (infinite calendar, session ids, repeating path segments, query
  explosion) is crawled to the end with a bounded number of fetches; a per-domain page cap holds.
"""
import collections
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(__file__))
from harness import (REDCRAWL, SCHEDULER, WORKER, Failure, check, check_page_set, expected_pages, graph, overlaps,  # noqa: E402
                     read_pages, read_requests, redis_cmd, run_tests, start_redis, start_web)

SLACK_US = 10000  # the tolerance on gaps: 10 ms


class Fleet:
    """redis-server, one scheduler and n workers, all started by hand against one Redis."""

    def __init__(self, tmp, procs, web_port, n=4, worker_args=()):
        self.redis_port, _ = start_redis(procs, tmp)
        self.env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % self.redis_port)
        self.out = os.path.join(tmp, "out")
        procs.start([SCHEDULER, "--worker-timeout", "5"], os.path.join(tmp, "scheduler.log"), env=self.env)
        for i in range(n):
            procs.start([WORKER, "--id", "w%d" % i, "--out", os.path.join(self.out, "{crawlid}"),
                         "--connect-to", "::127.0.0.1:%d" % web_port, "--allow-net", "127.0.0.0/8"] +
                        list(worker_args), os.path.join(tmp, "worker%d.log" % i), env=self.env)
        # Every worker registered before the first job, so hosts are spread at once (no rebalancing).
        deadline = time.time() + 20
        while time.time() < deadline and redis_cmd(self.redis_port, "ZCARD", "rc:workers") != n:
            time.sleep(0.05)
        check(redis_cmd(self.redis_port, "ZCARD", "rc:workers") == n, "the %d workers did not register" % n)

    def cli(self, *args, timeout=30):
        r = subprocess.run([REDCRAWL] + list(args), capture_output=True, text=True, env=self.env, timeout=timeout)
        check(r.returncode == 0, "redcrawl %s exited %d: %s %s" % (" ".join(args), r.returncode, r.stdout, r.stderr))
        return r.stdout

    def submit(self, crawlid, seeds, maxdepth=-1):
        self.cli("submit", "--crawlid", crawlid, "--maxdepth", str(maxdepth), *seeds)

    def job(self, crawlid, field):
        return redis_cmd(self.redis_port, "HGET", "rc:job:%s" % crawlid, field)

    def wait_state(self, crawlid, states, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline and self.job(crawlid, "state") not in states:
            time.sleep(0.1)
        state = self.job(crawlid, "state")
        check(state in states, "job %s is %s after %d s, want %s (fetched %s, pending %s)" %
              (crawlid, state, timeout, "/".join(states), self.job(crawlid, "fetched"), self.job(crawlid, "pending")))

    def pages(self, crawlid):
        path = os.path.join(self.out, crawlid, "pages.jsonl")
        return read_pages(path) if os.path.exists(path) else []


def by_host(rows):
    hosts = collections.defaultdict(list)
    for r in rows:
        hosts[r[2]].append(r)
    for rs in hosts.values():
        rs.sort()
    return hosts


def gaps_us(rows):
    """(gap, host, previous row, next row) for consecutive requests to one host: from the end of
    one response to the start of the next request."""
    out = []
    for host, rs in by_host(rows).items():
        for a, b in zip(rs, rs[1:]):
            out.append((b[0] - a[1], host, a, b))
    return out


def histogram(values_ms, edges):
    counts = collections.Counter()
    for v in values_ms:
        for lo, hi in zip(edges, edges[1:]):
            if lo <= v < hi:
                counts["%g-%g" % (lo, hi)] += 1
                break
        else:
            counts["<%g" % edges[0] if v < edges[0] else ">=%g" % edges[-1]] += 1
    keys = ["<%g" % edges[0]] + ["%g-%g" % (lo, hi) for lo, hi in zip(edges, edges[1:])] + [">=%g" % edges[-1]]
    return "  ".join("%s: %d" % (k, counts[k]) for k in keys if counts[k])


def is_private(url):
    return urllib.parse.urlsplit(url).path.startswith("/private/")


def test_politeness_4_workers_20_hosts(tmp, procs):
    delay = 0.2
    args = ["--sites", "20", "--pages", "30", "--latency-ms", "3"]
    web_port, log, _ = start_web(procs, tmp, *(args + ["--robots"]))
    fleet = Fleet(tmp, procs, web_port, 4, ["--delay", str(delay)])
    seeds = ["http://s%d.site.test/" % i for i in range(20)]
    fleet.submit("polite", seeds)
    fleet.wait_state("polite", ("done",), 120)
    rows = read_requests(log)

    # Every property is checked and all failures are reported together.
    problems = []

    def expect(cond, msg):
        if not cond:
            problems.append(msg)

    bad = overlaps(rows)
    expect(not bad, "%d overlapping requests to one host, e.g. %s" % (len(bad), bad[:2]))

    gaps = gaps_us(rows)
    check(gaps, "no host was requested twice: the test measures nothing")
    low = min(gaps)
    print("  %d requests to %d hosts; gaps end->next start: min %.1f ms (%s: %s after %s), median %.1f ms" %
          (len(rows), len(by_host(rows)), low[0] / 1000, low[1], low[3][3], low[2][3],
           sorted(g[0] for g in gaps)[len(gaps) // 2] / 1000))
    print("  gap histogram (ms): " + histogram([g[0] / 1000 for g in gaps], [190, 200, 205, 210, 250, 300, 500, 1000]))
    fetches = [g for g in gaps if g[2][4] not in (301, 302)]
    if fetches:
        print("  min gap after a response that was not a redirect: %.1f ms" % (min(fetches)[0] / 1000))
    short = [g for g in gaps if g[0] < delay * 1e6 - SLACK_US]
    if short:
        kinds = collections.Counter("%s -> %s" % (re.sub(r"\d+", "N", g[2][3]), re.sub(r"\d+", "N", g[3][3]))
                                    for g in short)
        problems.append("%d gaps under %.0f ms - 10 ms (by kind: %s), e.g. %.3f ms on %s (%s then %s)" %
                        (len(short), delay * 1000, dict(kinds), short[0][0] / 1000, short[0][1], short[0][2][3],
                         short[0][3][3]))

    private = [r for r in rows if r[3].startswith("/private/")]
    expect(not private, "robots.txt disallows /private/ but it was requested: %s" % private[:3])
    denied = int(fleet.job("polite", "robots_denied") or 0)
    print("  robots_denied %d" % denied)
    expect(denied > 0, "robots_denied is %d: the crawl found no /private/ link, the test tests nothing" % denied)

    robots = collections.Counter(r[2] for r in rows if r[3] == "/robots.txt")
    print("  robots.txt fetches: %d for %d hosts" % (sum(robots.values()), len(robots)))
    expect(set(robots) == {"s%d.site.test" % i for i in range(20)} and set(robots.values()) == {1},
           "robots.txt should be fetched once per host by the whole fleet: %s" % dict(robots))
    pages = fleet.pages("polite")
    workers = collections.Counter(p["worker"] for p in pages)
    print("  pages per worker: %s" % dict(sorted(workers.items())))
    expect(len(workers) == 4, "want pages from all 4 workers, got %s" % dict(workers))

    want = expected_pages(graph(*args), seeds, -1, ["site.test"], skip=is_private)
    try:
        check_page_set(pages, want, "4 workers, 20 hosts")
    except Failure as e:
        problems.append(str(e))
    check(not problems, "; ".join(problems))


def test_page_follows_robots_txt_without_delay(tmp, procs):
    """With no delay due (--delay 0, no Crawl-delay) a new host's first page is fetched right
    after its robots.txt, under the same lease and over the same connection, not sent back to
    its queue to be taken again: robots.txt still comes first, once per host, and is obeyed."""
    args = ["--sites", "30", "--pages", "10"]
    web_port, log, _ = start_web(procs, tmp, *(args + ["--robots"]))
    fleet = Fleet(tmp, procs, web_port, 2, ["--delay", "0"])
    seeds = ["http://s%d.site.test/" % i for i in range(30)]
    fleet.submit("nodelay", seeds)
    fleet.wait_state("nodelay", ("done",), 120)
    conns = {}
    with open(log) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) >= 7:
                conns[(int(p[0]), p[2].split(":")[0].lower(), p[3])] = p[6]
    hosts = by_host(read_requests(log))
    check(len(hosts) == 30, "want requests to 30 hosts, got %d" % len(hosts))
    robots = collections.Counter(r[2] for rs in hosts.values() for r in rs if r[3] == "/robots.txt")
    check(set(robots.values()) == {1} and len(robots) == 30, "robots.txt once per host: %s" % dict(robots))
    reused = 0
    for host, rs in hosts.items():
        check(rs[0][3] == "/robots.txt", "%s: %s requested before robots.txt" % (host, rs[0][3]))
        a, b = rs[0], rs[1]
        reused += conns[(a[0], host, a[3])] == conns[(b[0], host, b[3])]
    print("  %d of 30 hosts: the first page on robots.txt's connection" % reused)
    check(reused == 30, "only %d of 30 hosts had their first page follow robots.txt on its connection" % reused)
    # Every complete (a release too) counts in its worker's per-minute wstat: none but the pages'.
    completes = sum(int(v) for w in ("w0", "w1") for v in redis_cmd(fleet.redis_port, "HVALS", "rc:wstat:" + w) or [])
    # A /private/ link on a page of a site whose robots.txt its worker holds is denied there, in
    # the page's complete (robots_denied_links): it is never queued, taken or completed.
    early = int(fleet.job("nodelay", "robots_denied_links") or 0)
    check(early > 0, "no /private/ link was denied with the page that had it: each one was queued and taken")
    done = int(fleet.job("nodelay", "fetched") or 0) + int(fleet.job("nodelay", "robots_denied") or 0) - early
    print("  %d completes for %d pages fetched or denied when taken (%d denied as links)" % (completes, done, early))
    check(completes == done, "%d completes for %d pages: pages went back to their queue" % (completes, done))
    private = [r for rs in hosts.values() for r in rs if r[3].startswith("/private/")]
    check(not private, "robots.txt disallows /private/ but it was requested: %s" % private[:3])
    check(int(fleet.job("nodelay", "robots_denied") or 0) > 0, "no /private/ link denied: the test tests less")
    want = expected_pages(graph(*args), seeds, -1, ["site.test"], skip=is_private)
    check_page_set(fleet.pages("nodelay"), want, "2 workers, 30 hosts, delay 0")


def test_small_robots_cache_keeps_rules(tmp, procs):
    """A worker keeping robots.txt rules for only 16 origins (--robots-cache 16), crawling 40
    hosts: the origins it dropped come back from Redis, so robots.txt is still fetched once per
    host by the fleet, and still obeyed (no /private/ page requested), every page stored."""
    args = ["--sites", "40", "--pages", "6"]
    web_port, log, _ = start_web(procs, tmp, *(args + ["--robots"]))
    fleet = Fleet(tmp, procs, web_port, 1, ["--delay", "0", "--robots-cache", "16"])
    seeds = ["http://s%d.site.test/" % i for i in range(40)]
    fleet.submit("smallrc", seeds)
    fleet.wait_state("smallrc", ("done",), 120)
    hosts = by_host(read_requests(log))
    check(len(hosts) == 40, "want requests to 40 hosts (more than the 16 kept), got %d" % len(hosts))
    with open(os.path.join(tmp, "worker0.log")) as f:
        check("kept for the 16 origins used last" in f.read(), "the worker never reached its 16 origins")
    robots = collections.Counter(r[2] for rs in hosts.values() for r in rs if r[3] == "/robots.txt")
    check(set(robots.values()) == {1} and len(robots) == 40, "robots.txt once per host: %s" % dict(robots))
    private = [r for rs in hosts.values() for r in rs if r[3].startswith("/private/")]
    check(not private, "robots.txt disallows /private/ but it was requested: %s" % private[:3])
    check(int(fleet.job("smallrc", "robots_denied") or 0) > 0, "no /private/ link denied: the test tests less")
    want = expected_pages(graph(*args), seeds, -1, ["site.test"], skip=is_private)
    check_page_set(fleet.pages("smallrc"), want, "1 worker, 40 hosts, 16 origins' rules kept")


def rate_windows(starts, t_from, t_to, width):
    """The largest number of request starts in any window [t, t + width) with t in [t_from, t_to]."""
    starts = sorted(starts)
    worst = 0
    for i, s in enumerate(starts):
        if s < t_from or s > t_to:
            continue
        n = sum(1 for x in starts[i:] if x < s + width)
        worst = max(worst, n)
    # windows starting at t_from itself
    worst = max(worst, sum(1 for x in starts if t_from <= x < t_from + width))
    return worst


def test_rate_change_mid_crawl(tmp, procs):
    host = "s0.site.test"
    web_port, log, _ = start_web(procs, tmp, "--sites", "1", "--pages", "400", "--latency-ms", "5")
    fleet = Fleet(tmp, procs, web_port, 4, ["--delay", "0"])
    fleet.submit("rate", ["http://%s/" % host])
    time.sleep(2.0)
    t_set = time.time()
    r = redis_cmd(fleet.redis_port, "HSET", "rc:domainconf", host, '{"hits":2,"window":1,"scale":1}')
    check(not isinstance(r, Failure), "HSET rc:domainconf: %s" % r)
    time.sleep(5.0)
    t_del = time.time()
    redis_cmd(fleet.redis_port, "HDEL", "rc:domainconf", host)
    time.sleep(3.0)
    t_end = time.time()
    fleet.cli("stop", "rate")
    fleet.wait_state("rate", ("stopped", "done"), 30)

    rows = sorted(r for r in read_requests(log) if r[2] == host and r[3] != "/robots.txt")
    check(rows, "no requests")
    # The throttle counts takes. A redirect's target is fetched by the same take right after the
    # 301 (curl follows it), which is a politeness bug of its own, asserted deterministically by
    # test_politeness_4_workers_20_hosts; here the hop is not counted, so this test measures the
    # throttle alone and does not flake on whether a /redirect/ URL fell in the throttled period.
    hops = [b for a, b in zip(rows, rows[1:])
            if a[4] in (301, 302) and a[3].startswith("/redirect/") and b[3] == "/p/" + a[3].split("/")[2]
            and b[0] - a[1] < 100000]
    hop_set = set(hops)
    starts = [r[0] / 1e6 for r in rows if r not in hop_set]

    def rate(a, b):
        return sum(1 for s in starts if a <= s < b) / (b - a)

    first = min(starts)
    before = rate(first + 0.3, t_set)
    during = rate(t_set + 0.5, t_del)
    after = rate(t_del + 1.5, t_end)
    # 2 hits per sliding 1 s window, recorded when the URL is taken; the request reaches the server
    # a moment later, so the window is shortened by the jitter between take and request: on the
    # shared 2-core machine the ASan worker was seen descheduled 150-216 ms there (the take on
    # time, the request late). Unthrottled, the host gets 10+ requests a second.
    worst = rate_windows(starts, t_set + 0.5, t_del - 1.0, 1.0 - 0.25)
    print("  requests/s: before %.1f, with hits=2/window=1 %.2f (worst 1 s window %d), after HDEL %.1f; "
          "total %d (+%d redirect hops, %d of them while throttled)" %
          (before, during, worst, after, len(starts), len(hops),
           sum(1 for h in hops if t_set + 0.5 <= h[0] / 1e6 < t_del)))
    check(before > 8, "before the change the rate should be well above 2/s: %.1f/s" % before)
    check(worst <= 2, "a 1 s window after the change holds %d requests, want <= 2" % worst)
    check(during > 0.5, "the throttled host should still be crawled (about 2/s): %.2f/s" % during)
    check(after > 8, "after HDEL the rate should rise again: %.1f/s" % after)


def test_retry_after_503(tmp, procs):
    args = ["--sites", "3", "--pages", "30"]
    web_port, log, _ = start_web(procs, tmp, *(args + ["--fail-every", "5", "--latency-ms", "2"]))
    fleet = Fleet(tmp, procs, web_port, 4, ["--delay", "0.05"])
    seeds = ["http://s%d.site.test/" % i for i in range(3)]
    fleet.submit("retry", seeds)
    fleet.wait_state("retry", ("done",), 120)
    rows = read_requests(log)
    check(not overlaps(rows), "overlapping requests to one host")
    after_503 = [g for g in gaps_us(rows) if g[2][4] == 503]
    check(len(after_503) >= 5, "only %d 503s were followed by another request: the test tests little" % len(after_503))
    low = min(after_503)
    print("  %d requests, %d answered 503; shortest wait after a 503: %.3f s (%s)" %
          (len(rows), sum(1 for r in rows if r[4] == 503), low[0] / 1e6, low[1]))
    short = [g for g in after_503 if g[0] < 1000000 - SLACK_US]
    check(not short, "%d hosts requested again under 1 s after 503 + Retry-After: 1, e.g. %.3f s on %s (%s then %s)" %
          (len(short), short[0][0] / 1e6, short[0][1], short[0][2][3], short[0][3][3]) if short else "")
    pages = fleet.pages("retry")
    stored_503 = [p["url"] for p in pages if p.get("status_code") == 503]
    check(not stored_503, "503 stored instead of retried: %s" % stored_503[:3])
    errors = [p for p in pages if p.get("error")]
    check(not errors, "pages failed for good: %s" % errors[:2])
    want = expected_pages(graph(*args), seeds, -1, ["site.test"])
    check_page_set(pages, want, "with 503s")


def trap_expected(this_year, this_month):
    """The trap URLs the default URL filter lets through (shared/urlfilter.h): calendar years at
    most 3 from now, session ids stripped, a path segment at most twice, at most 16 query
    parameters."""
    base = "http://s0.site.test"
    want = set()
    for y in range(this_year - 3, this_year + 4):
        for m in range(1, 13):
            want.add("%s/cal/%d/%d" % (base, y, m))
            want.add("%s/cal/%d/%d/1" % (base, y, m))
            want.add("%s/cal/%d/%d/15" % (base, y, m))
    for n in range(1, 9):
        want.add("%s/sess/%d" % (base, n))
    for k in range(1, 5):
        want.add(base + "/deep" + "".join("/b" if j % 2 else "/a" for j in range(k)))
    for k in range(1, 17):
        want.add(base + "/q?" + "&".join("p%d=%d" % (j, j) for j in range(1, k + 1)))
    return want


def test_traps_bounded(tmp, procs):
    args = ["--sites", "1", "--pages", "20"]
    web_port, log, _ = start_web(procs, tmp, *(args + ["--traps"]))
    fleet = Fleet(tmp, procs, web_port, 4, ["--delay", "0"])
    t0 = time.time()
    fleet.submit("traps", ["http://s0.site.test/"])
    fleet.wait_state("traps", ("done",), 60)
    took = time.time() - t0
    rows = read_requests(log)
    pages = fleet.pages("traps")
    print("  trap site crawled to the end in %.1f s: %d fetches, %d pages stored, %s links filtered" %
          (took, len(rows), len(pages), sum(p.get("links_filtered", 0) for p in pages)))
    check(len(rows) < 400, "%d fetches on a site with 20 pages and four traps: not bounded" % len(rows))

    paths = [r[3] for r in rows]
    check(not [p for p in paths if "sid=" in p or "jsessionid" in p.lower()],
          "a session id reached the server: %s" % [p for p in paths if "sid=" in p][:3])
    now = time.gmtime()
    years = {int(m.group(1)) for p in paths for m in [re.match(r"/cal/(\d+)/", p)] if m}
    check(years and min(years) >= now.tm_year - 3 and max(years) <= now.tm_year + 3,
          "calendar years fetched: %s, want within 3 of %d" % (sorted(years), now.tm_year))
    for p in paths:
        segs = [s for s in p.split("?")[0].split("/") if s]
        check(max(collections.Counter(segs).values() or [0]) <= 2, "repeated segments fetched: %s" % p)
        check(p.count("&") < 16, "query explosion fetched: %s" % p)

    # Exactly the site's own pages plus what the trap guards let through, each once.
    want = set(expected_pages(graph(*args), ["http://s0.site.test/"], -1, ["site.test"]))
    want |= trap_expected(now.tm_year, now.tm_mon)
    check_page_set(pages, want, "trap site")
    trap_pages = [p for p in pages if re.match(r"http://[^/]+/(cal|sess|deep|q)\b", p["url"])]
    print("  trap pages: %s" % dict(collections.Counter(p["url"].split("/")[3].split("?")[0] for p in trap_pages)))

    # A per-domain page cap holds exactly (a crawl request with domain_max_pages; maxdepth 3 is
    # the most a request may ask for, and reaches far more than 25 pages here).
    cap = 25
    before = len(read_requests(log))
    req = {"url": "http://s0.site.test/", "appid": "testapp", "crawlid": "capped", "maxdepth": 3,
           "domain_max_pages": cap}
    fleet.cli("submit", "--raw", json.dumps(req))
    fleet.wait_state("capped", ("done",), 60)
    capped = fleet.pages("capped")
    fetched = read_requests(log)[before:]
    print("  domain_max_pages %d: %d pages stored, %d requests, dropped %s" %
          (cap, len(capped), len(fetched), fleet.job("capped", "dropped")))
    check(len(capped) == cap and len({p["url"] for p in capped}) == cap,
          "domain_max_pages %d: %d pages stored (%d distinct)" % (cap, len(capped), len({p["url"] for p in capped})))
    requested = [r for r in fetched if r[3] != "/robots.txt"]
    redirects = sum(1 for r in requested if r[4] in (301, 302))  # each also fetched its target
    check(len(requested) - redirects == cap,
          "domain_max_pages %d: %d pages requested (%d redirects)" % (cap, len(requested), redirects))
    check(int(fleet.job("capped", "dropped") or 0) > 0, "nothing was dropped: the cap was never reached")


def log_times(path, pattern):
    """Times (s) of the worker log lines matching pattern."""
    import datetime
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            if re.search(pattern, line):
                ts = datetime.datetime.strptime(line.split()[0], "%Y-%m-%dT%H:%M:%S.%fZ")
                out.append(ts.replace(tzinfo=datetime.timezone.utc).timestamp())
    return out


def test_unreachable_host_is_parked(tmp, procs):
    """A host that refuses every connection is parked after --park-after failures in a row: its
    next tries wait an exponential back-off (rc:parked says until when), the other hosts go on,
    and its URLs end in rc:failed after their attempts."""
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    closed_port = s.getsockname()[1]
    s.close()  # nothing listens there: connections are refused
    web_port, log, _ = start_web(procs, tmp, "--sites", "1", "--pages", "20")
    redis_port, _ = start_redis(procs, tmp)
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
    procs.start([SCHEDULER, "--worker-timeout", "3"], os.path.join(tmp, "scheduler.log"), env=env)
    wlog = os.path.join(tmp, "worker.log")
    procs.start([WORKER, "--out", os.path.join(tmp, "out"), "--delay", "0.05", "--park-after", "2",
                 "--max-delay", "2", "--robots=0",
                 "--connect-to", "dead.test:80:127.0.0.1:%d" % closed_port,
                 "--connect-to", "::127.0.0.1:%d" % web_port], wlog, env=env)
    seeds = ["http://dead.test/%d" % i for i in range(3)] + ["http://s0.site.test/"]
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "park", "--maxdepth", "-1"] + seeds,
                       capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0, "submit failed: %s" % r.stderr)
    deadline = time.time() + 90
    while time.time() < deadline and redis_cmd(redis_port, "HGET", "rc:job:park", "state") != "done":
        time.sleep(0.2)
    check(redis_cmd(redis_port, "HGET", "rc:job:park", "state") == "done", "job did not finish")
    check(redis_cmd(redis_port, "ZSCORE", "rc:parked", "dead.test") is not None, "dead.test was never parked")
    parked = log_times(wlog, r"host parked .*host=dead\.test")
    check(parked, "the worker did not log the parking")
    tries = log_times(wlog, r"retrying url=http://dead\.test/")
    after = [t for t in tries if t > parked[0]]
    gaps = [b - a for a, b in zip(after, after[1:])]
    check(gaps and min(gaps) >= 1.0, "a parked host was tried again too soon: gaps %s" % gaps)
    failed = [json.loads(m) for m in redis_cmd(redis_port, "ZRANGE", "rc:failed", 0, -1)]
    dead = [f for f in failed if f["url"].startswith("http://dead.test/")]
    check(len(dead) == 3 and all(f["attempts"] == 3 for f in dead), "dead URLs in failed: %s" % dead)
    ok = [row for row in read_requests(log) if row[2] == "s0.site.test"]
    check(len(ok) >= 20, "the healthy host was held up: %d requests" % len(ok))
    print("  dead.test parked; tries after parking %.1f s apart at least; %d requests to the healthy host" %
          (min(gaps), len(ok)), flush=True)


def test_backoff_capped_and_jittered(tmp, procs):
    """Retries back off exponentially with jitter, and --max-delay caps every wait, Retry-After
    included: hosts answering 500 (no Retry-After) and 503 with Retry-After: 120 are retried
    within the 1 s cap, and the first waits of different hosts differ (jitter)."""
    from webfiles import StaticWeb  # noqa: E402
    hosts = ["b%d.test" % i for i in range(6)]
    failing = {"http://%s/" % h: (500, {}) for h in hosts}
    failing["http://late.test/"] = (503, {"Retry-After": "120"})
    with StaticWeb({}, failing) as web:
        redis_port, _ = start_redis(procs, tmp)
        env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
        procs.start([SCHEDULER], os.path.join(tmp, "scheduler.log"), env=env)
        procs.start([WORKER, "--out", os.path.join(tmp, "out"), "--delay", "0.3", "--max-delay", "1",
                     "--max-attempts", "5", "--robots=0", "--connect-to", "::127.0.0.1:%d" % web.port],
                    os.path.join(tmp, "worker.log"), env=env)
        seeds = ["http://%s/" % h for h in hosts + ["late.test"]]
        r = subprocess.run([REDCRAWL, "submit", "--crawlid", "backoff", "--maxdepth", "0"] + seeds,
                           capture_output=True, text=True, env=env, timeout=30)
        check(r.returncode == 0, "submit failed: %s" % r.stderr)
        deadline = time.time() + 60
        while time.time() < deadline and redis_cmd(redis_port, "HGET", "rc:job:backoff", "state") != "done":
            time.sleep(0.2)
        check(redis_cmd(redis_port, "HGET", "rc:job:backoff", "state") == "done", "job not done in 60 s")
        times = list(web.times)
    gaps = {}
    for u in seeds:
        ts = [t for t, url in times if url == u]
        check(len(ts) == 5, "%s requested %d times, want 5 attempts" % (u, len(ts)))
        gaps[u] = [b - a for a, b in zip(ts, ts[1:])]
    worst = max(g for gs in gaps.values() for g in gs)
    firsts = sorted(round(gaps["http://%s/" % h][0], 2) for h in hosts)
    print("  worst wait between attempts %.2f s (cap 1 s; Retry-After: 120 too); first waits of 6 hosts %s"
          % (worst, firsts))
    check(worst < 1.0 + 0.6, "a retry waited %.2f s, over the 1 s --max-delay" % worst)
    check(max(firsts) - min(firsts) > 0.02, "first back-offs all alike, no jitter: %s" % firsts)


def robots_then_pages(tmp, procs, worker_args):
    """4 hosts of 5 pages crawled by 2 workers with worker_args: per host, the gap from the end of
    its robots.txt response to its first page request, and every gap after that (page to page)."""
    args = ["--sites", "4", "--pages", "5", "--latency-ms", "2"]
    web_port, log, _ = start_web(procs, tmp, *(args + ["--robots"]))
    fleet = Fleet(tmp, procs, web_port, 2, worker_args)
    seeds = ["http://s%d.site.test/" % i for i in range(4)]
    fleet.submit("rdelay", seeds)
    fleet.wait_state("rdelay", ("done",), 120)
    rows = read_requests(log)
    check(not overlaps(rows), "overlapping requests to one host: %s" % overlaps(rows)[:2])
    first, later = {}, []
    for host, rs in by_host(rows).items():
        check(rs[0][3] == "/robots.txt" and len(rs) > 2, "%s: want robots.txt first, then pages: %s" % (host, rs[:3]))
        first[host] = rs[1][0] - rs[0][1]
        later += [(b[0] - a[1], host, a[3], b[3]) for a, b in zip(rs[1:], rs[2:])]
    check(len(first) == 4, "want 4 hosts in the request log, got %s" % sorted(first))
    check_page_set(fleet.pages("rdelay"), expected_pages(graph(*args), seeds, -1, ["site.test"], skip=is_private),
                   "robots delay")
    print("  robots.txt -> first page (ms): %s; page -> page: min %.1f ms over %d gaps" %
          (sorted(round(g / 1000, 1) for g in first.values()), min(later)[0] / 1000, len(later)))
    return first, later


def test_robots_delay_shortens_first_gap(tmp, procs):
    """--robots-delay 0.05 with --delay 0.5: a host's first page follows its robots.txt after
    50 ms (not 500), and the pages after it are still 500 ms apart."""
    first, later = robots_then_pages(tmp, procs, ["--delay", "0.5", "--robots-delay", "0.05"])
    # The worker's next allowed time is in whole ms: 1 ms of it is the clock's, not the crawler's.
    early = {h: g for h, g in first.items() if g < 50000 - 1000}
    check(not early, "robots.txt -> first page under 50 ms: %s" % early)
    late = {h: g for h, g in first.items() if g >= 500000}
    check(not late, "robots.txt -> first page not shortened (>= the 500 ms delay): %s" % late)
    short = [g for g in later if g[0] < 500000 - SLACK_US]
    check(not short, "%d page gaps under the 500 ms delay, e.g. %s" % (len(short), short[:2]))


def test_robots_delay_default_is_delay(tmp, procs):
    """Without --robots-delay, a host's robots.txt fetch counts as a hit: its first page waits the
    whole --delay, as between pages."""
    first, later = robots_then_pages(tmp, procs, ["--delay", "0.5"])
    short = {h: g for h, g in first.items() if g < 500000 - SLACK_US}
    check(not short, "robots.txt -> first page under the 500 ms delay: %s" % short)
    short = [g for g in later if g[0] < 500000 - SLACK_US]
    check(not short, "%d page gaps under the 500 ms delay, e.g. %s" % (len(short), short[:2]))


def test_robots_delay_rejects_bad_values(tmp, procs):
    """A negative or non-numeric --robots-delay stops the worker and `redcrawl crawl` at once,
    naming the option."""
    for bad in ("-0.5", "soon", ""):
        for argv in ([WORKER, "--redis", "redis://127.0.0.1:1", "--robots-delay", bad],
                     [REDCRAWL, "crawl", "--robots-delay", bad, "http://s0.site.test/"]):
            r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
            check(r.returncode == 2 and "--robots-delay: '%s' is not a number" % bad in r.stderr,
                  "%s --robots-delay '%s': exit %d, stderr %r" % (os.path.basename(argv[0]), bad, r.returncode,
                                                                  r.stderr))


def test_crawl_passes_robots_delay(tmp, procs):
    """`redcrawl crawl --robots-delay 0.05 --delay 0.5` hands both to its workers: each host's first
    page 50 ms after its robots.txt, the next pages 500 ms apart."""
    web_port, log, _ = start_web(procs, tmp, "--sites", "2", "--pages", "3", "--robots")
    r = subprocess.run([REDCRAWL, "crawl", "--out", os.path.join(tmp, "out"), "--quiet", "--connect-to",
                        "::127.0.0.1:%d" % web_port, "--allow-net", "127.0.0.0/8", "--maxdepth", "-1", "--delay",
                        "0.5", "--robots-delay", "0.05", "http://s0.site.test/", "http://s1.site.test/"],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "redcrawl crawl exited %d: %s" % (r.returncode, r.stderr[-2000:]))
    for host, rs in by_host(read_requests(log)).items():
        gaps = [b[0] - a[1] for a, b in zip(rs, rs[1:])]
        print("  %s: %s, gaps %s ms" % (host, [x[3] for x in rs], [round(g / 1000, 1) for g in gaps]))
        check(rs[0][3] == "/robots.txt" and len(gaps) >= 2, "%s: want robots.txt then pages: %s" % (host, rs))
        check(50000 - 1000 <= gaps[0] < 500000, "%s: robots.txt -> first page %.1f ms" % (host, gaps[0] / 1000))
        check(min(gaps[1:]) >= 500000 - SLACK_US, "%s: page gaps under 500 ms: %s" % (host, gaps[1:]))


def test_crawl_passes_delay_factor(tmp, procs):
    """`redcrawl crawl --delay 0 --delay-factor 3` hands the factor to its workers: pages that take
    150 ms to answer are 450 ms apart on their host (the default factor, 2, would make it 300)."""
    web_port, log, _ = start_web(procs, tmp, "--sites", "1", "--pages", "3")
    seeds = ["http://s0.site.test/slow/150/%d" % i for i in range(3)]
    r = subprocess.run([REDCRAWL, "crawl", "--out", os.path.join(tmp, "out"), "--quiet", "--connect-to",
                        "::127.0.0.1:%d" % web_port, "--allow-net", "127.0.0.0/8", "--maxdepth", "0", "--delay",
                        "0", "--delay-factor", "3"] + seeds, capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "redcrawl crawl exited %d: %s" % (r.returncode, r.stderr[-2000:]))
    rs = [x for x in by_host(read_requests(log)).get("s0.site.test", []) if x[3].startswith("/slow/")]
    gaps = [b[0] - a[1] for a, b in zip(rs, rs[1:])]
    print("  pages %s, gaps %s ms" % ([x[3] for x in rs], [round(g / 1000, 1) for g in gaps]))
    check(len(rs) == 3, "want the 3 slow pages: %s" % rs)
    check(gaps and min(gaps) >= 450000 - SLACK_US, "gaps under 3 x 150 ms: %s" % gaps)


def test_robots_delay_keeps_crawl_delay(tmp, procs):
    """A site whose robots.txt says Crawl-delay: 1, crawled at --delay 0.1 --robots-delay 0.05:
    its first page follows robots.txt after 50 ms, and Crawl-delay still spaces the pages."""
    from webfiles import StaticWeb  # noqa: E402
    files = {"/robots.txt": ("User-agent: *\nCrawl-delay: 1\n", "text/plain")}
    for i in range(4):
        link = '<a href="/p%d">next</a>' % (i + 1) if i < 3 else ""
        files["/" if i == 0 else "/p%d" % i] = ("<html><title>p%d</title>%s</html>" % (i, link), "text/html")
    routes = {}
    for path, (body, ctype) in files.items():
        name = os.path.join(tmp, "f%d" % len(routes))
        with open(name, "w") as f:
            f.write(body)
        routes["http://cd.test" + path] = (name, ctype)
    with StaticWeb(routes) as web:
        redis_port, _ = start_redis(procs, tmp)
        env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
        procs.start([SCHEDULER], os.path.join(tmp, "scheduler.log"), env=env)
        procs.start([WORKER, "--out", os.path.join(tmp, "out"), "--delay", "0.1", "--robots-delay", "0.05",
                     "--connect-to", "::127.0.0.1:%d" % web.port], os.path.join(tmp, "worker.log"), env=env)
        r = subprocess.run([REDCRAWL, "submit", "--crawlid", "cdelay", "--maxdepth", "-1", "http://cd.test/"],
                           capture_output=True, text=True, env=env, timeout=30)
        check(r.returncode == 0, "submit failed: %s" % r.stderr)
        deadline = time.time() + 60
        while time.time() < deadline and redis_cmd(redis_port, "HGET", "rc:job:cdelay", "state") != "done":
            time.sleep(0.1)
        check(redis_cmd(redis_port, "HGET", "rc:job:cdelay", "state") == "done", "job not done in 60 s")
        times = sorted(web.times)
    paths = [u.split("cd.test", 1)[1] for _, u in times]
    gaps = [b[0] - a[0] for a, b in zip(times, times[1:])]
    print("  %s, gaps start to start %s s" % (paths, [round(g, 3) for g in gaps]))
    check(paths == ["/robots.txt", "/", "/p1", "/p2", "/p3"], "want robots.txt, then the 4 pages once: %s" % paths)
    # Start to start, so each gap holds a response too; 1 ms of slack is the next allowed time's ms.
    check(0.05 - 0.001 <= gaps[0] < 1.0, "robots.txt -> first page %.3f s, want 50 ms (not Crawl-delay's 1 s)" %
          gaps[0])
    check(min(gaps[1:]) >= 1.0 - SLACK_US / 1e6, "pages closer than Crawl-delay: 1: %s" % gaps[1:])


if __name__ == "__main__":
    run_tests([test_backoff_capped_and_jittered, test_unreachable_host_is_parked, test_politeness_4_workers_20_hosts, test_rate_change_mid_crawl,
               test_retry_after_503,
               test_traps_bounded, test_robots_delay_shortens_first_gap, test_robots_delay_default_is_delay,
               test_robots_delay_rejects_bad_values, test_crawl_passes_robots_delay, test_crawl_passes_delay_factor,
               test_robots_delay_keeps_crawl_delay, test_page_follows_robots_txt_without_delay,
               test_small_robots_cache_keeps_rules])
