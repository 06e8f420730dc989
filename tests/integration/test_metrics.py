#!/usr/bin/env python3
"""Prometheus metrics: a crawl of the test web by a fleet started by hand (Kafka, the monitor,
the scheduler, two workers, each serving --metrics-port on loopback); every endpoint is scraped
and parsed with prometheus_client's own parser (from PyPI, in a venv under ~/.cache/redcrawl
made on first use), and the values are checked against the crawl's known counts: pages by
status from the test server's link graph, robots.txt denials, retries of a 503, URLs
dispatched, new links, requests by kind and result, and the gauges at rest."""
import collections
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from harness import (SCHEDULER, WORKER, Failure, check, expected_pages, free_port, graph,  # noqa: E402
                     read_pages, redis_cmd, run_tests, start_redis, start_web)
from test_kafka import cli, env_for, kafka, kcat_produce, start_monitor  # noqa: E402

CACHE = os.path.join(os.environ.get("REDCRAWL_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "redcrawl"))
VENV = os.path.join(CACHE, "venv-metrics")
PROMETHEUS_CLIENT = "prometheus_client==0.21.1"


def parser():
    """prometheus_client's text parser, installed into a venv of its own on first use."""
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True, timeout=300)
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    if not os.path.isdir(os.path.join(site, "prometheus_client")):
        subprocess.run([py, "-m", "pip", "install", "-q", PROMETHEUS_CLIENT], check=True, timeout=600)
    sys.path.insert(0, site)
    from prometheus_client.parser import text_string_to_metric_families
    return text_string_to_metric_families


def scrape(port):
    """{family name: (type, [(sample name, labels, value)])} from one endpoint."""
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
        check(r.status == 200, "scrape of %d: status %d" % (port, r.status))
        ctype = r.headers.get("Content-Type", "")
        check(ctype.startswith("text/plain; version=0.0.4"), "content type %r" % ctype)
        text = r.read().decode()
    out = {}
    for fam in parser()(text):
        out[fam.name] = (fam.type, [(s.name, s.labels, s.value) for s in fam.samples])
    return out


def value(fams, name, **labels):
    """The sum of a family's samples named NAME whose labels include LABELS (0 when none)."""
    base = name[:-6] if name.endswith("_total") else name
    for fam in (base, name):
        if fam in fams:
            return sum(v for n, lab, v in fams[fam][1]
                       if n == name and all(lab.get(k) == w for k, w in labels.items()))
    raise Failure("no metric %s in %s" % (name, sorted(fams)))


def total(scrapes, name, **labels):
    return sum(value(f, name, **labels) for f in scrapes)


def check_histogram(fams, name):
    """Buckets cumulative, ending at +Inf == _count."""
    typ, samples = fams[name]
    check(typ == "histogram", "%s is a %s" % (name, typ))
    buckets = [(float(lab["le"]), v) for n, lab, v in samples if n == name + "_bucket"]
    count = [v for n, _, v in samples if n == name + "_count"][0]
    check(buckets == sorted(buckets), "%s: buckets not in order" % name)
    check(all(a[1] <= b[1] for a, b in zip(buckets, buckets[1:])), "%s: buckets not cumulative" % name)
    check(buckets[-1][0] == float("inf") and buckets[-1][1] == count, "%s: +Inf != count" % name)
    return count


def status_of(g, url):
    kind, target, _ = g.get(url, ("none", "-", []))
    if kind in ("html", "text"):
        return "200"
    if kind == "redirect":
        return "301"
    if "/status/" in url:
        return url.rsplit("/", 1)[1]
    return "404"


def wait_for(port, cond, what, timeout=20):
    """Scrapes port until cond holds; a process just started may not listen yet."""
    deadline = time.time() + timeout
    while True:
        try:
            fams = scrape(port)
        except urllib.error.URLError:
            fams = None
        if fams is not None and cond(fams):
            return fams
        if time.time() > deadline:
            raise Failure("timed out waiting for %s" % what)
        time.sleep(0.3)


def check_lag(tmp, procs, broker, redis_port, redis_proc, port):
    """Redis gone: the monitor holds its request and consumes nothing behind it, so the
    requests produced meanwhile show as consumer lag; Redis back: the lag drains to 0."""
    procs.stop(redis_proc)
    reqs = ['{"appid": "testapp", "crawlid": "m", "spiderid": "link", "action": "info", "uuid": "lag-%d"}' % i
            for i in range(5)]
    kcat_produce(broker, "redcrawl.incoming", reqs)
    fams = wait_for(port, lambda f: value(f, "redcrawl_monitor_held") == 1 and
                    value(f, "redcrawl_monitor_consumer_lag") >= 4, "the held request and the lag behind it")
    lag = value(fams, "redcrawl_monitor_consumer_lag")
    check(lag == 4, "consumer lag %s while the first of 5 requests is held, want 4" % lag)
    procs.start(["redis-server", "--bind", "127.0.0.1", "--port", str(redis_port), "--save", "", "--appendonly",
                 "no", "--dir", tmp], os.path.join(tmp, "redis2.log"))
    wait_for(port, lambda f: value(f, "redcrawl_monitor_held") == 0 and
             value(f, "redcrawl_monitor_consumer_lag") == 0 and
             value(f, "redcrawl_monitor_requests_total", kind="info") == 6, "the lag to drain", timeout=30)
    return lag


def test_metrics_match_the_crawl(tmp, procs):
    broker = kafka(tmp)
    try:
        run_crawl(tmp, procs, broker)
    finally:
        procs.stop_all()
        kafka(tmp, "stop")


def run_crawl(tmp, procs, broker):
    args = ["--sites", "3", "--pages", "40", "--robots"]
    web_port, _, _ = start_web(procs, tmp, *args)
    redis_port, redis_proc = start_redis(procs, tmp)
    env = env_for(broker, redis_port)
    ports = {"monitor": free_port(), "scheduler": free_port(), "w0": free_port(), "w1": free_port()}
    start_monitor(procs, tmp, broker, redis_port, "--metrics-port", str(ports["monitor"]))
    procs.start([SCHEDULER, "--worker-timeout", "5", "--metrics-port", str(ports["scheduler"])],
                os.path.join(tmp, "scheduler.log"), env=env)
    out = os.path.join(tmp, "out")
    for i in range(2):
        procs.start([WORKER, "--id", "w%d" % i, "--out", out, "--delay", "0", "--max-attempts", "3",
                     "--max-delay", "0.2", "--connect-to", "::127.0.0.1:%d" % web_port, "--allow-net",
                     "127.0.0.0/8", "--metrics-port", str(ports["w%d" % i])],
                    os.path.join(tmp, "w%d.log" % i), env=env)
    # Both workers in the scheduler's table before the job: the crawl (3 hosts, no delay) is over
    # in about a second, before a late worker could be given a host (CI once saw w1 get none).
    wait_for(ports["scheduler"], lambda f: value(f, "redcrawl_scheduler_workers") == 2,
             "both workers registered with the scheduler")
    kenv = env_for(broker)
    seeds = ["http://s0.site.test/", "http://s1.site.test/status/503"]
    cli(kenv, "submit", "--crawlid", "m", "--maxdepth", "-1", "--allowed-domain", "site.test", *seeds)
    # A bad request (the CLI would refuse to send it): produced as it is.
    kcat_produce(broker, "redcrawl.incoming", ['{"appid": "testapp", "crawlid": "m", "url": "http://s0.site.test/", '
                                              '"priority": 101, "uuid": "bad-1"}'])

    deadline = time.time() + 120
    while time.time() < deadline and redis_cmd(redis_port, "HGET", "rc:job:m", "state") != "done":
        time.sleep(0.2)
    check(redis_cmd(redis_port, "HGET", "rc:job:m", "state") == "done", "the crawl did not finish")
    cli(kenv, "info", "m")

    g = graph(*args[:-1])
    want = expected_pages(g, seeds, -1, ["site.test"])
    private = [u for u in want if "/private/" in u]
    stored = [u for u in want if u not in private]
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check(sorted(p["url"] for p in pages) == sorted(stored), "page set differs from the graph's")
    statuses = collections.Counter(status_of(g, u) for u in stored)

    # Gauges are sampled every second: wait for the fleet at rest.
    deadline = time.time() + 15
    while True:
        s = {k: scrape(p) for k, p in ports.items()}
        workers = [s["w0"], s["w1"]]
        rest = (total(workers, "redcrawl_worker_in_flight") == 0 and
                value(s["scheduler"], "redcrawl_scheduler_frontier") == 0 and
                value(s["scheduler"], "redcrawl_scheduler_queued") == 0 and
                value(s["scheduler"], "redcrawl_scheduler_workers") == 2 and
                value(s["monitor"], "redcrawl_monitor_requests_total", kind="info") == 1 and
                value(s["monitor"], "redcrawl_monitor_requests_total", result="rejected") == 1)
        if rest or time.time() > deadline:
            break
        time.sleep(0.3)
    for k, fams in s.items():
        for name, (typ, samples) in fams.items():
            check(name.startswith("redcrawl_"), "%s: stray family %s" % (k, name))

    # Workers: pages by status, exactly the graph's.
    for code, n in statuses.items():
        got = total(workers, "redcrawl_worker_pages_total", status=code)
        check(got == n, "pages with status %s: %s, want %d" % (code, got, n))
    check(total(workers, "redcrawl_worker_pages_total") == len(stored), "pages_total != pages stored")
    check(value(s["w0"], "redcrawl_worker_pages_total") > 0 and value(s["w1"], "redcrawl_worker_pages_total") > 0,
          "one worker did nothing")
    denied = {r: total(workers, "redcrawl_worker_robots_denied_total", reason=r) for r in ("disallowed", "unreachable")}
    check(denied == {"disallowed": len(private), "unreachable": 0} and
          total(workers, "redcrawl_worker_robots_denied_total") == len(private),
          "robots denied %s, want %d disallowed" % (denied, len(private)))
    # The 503 seed: 3 attempts, 3 errors, 2 retries; nothing else failed.
    check(total(workers, "redcrawl_worker_errors_total", kind="http_5xx") == 3, "http_5xx errors")
    check(total(workers, "redcrawl_worker_errors_total") == 3, "other errors: %s" %
          [x for w in workers for x in w.get("redcrawl_worker_errors", ("", []))[1]])
    check(total(workers, "redcrawl_worker_retries_total") == 2, "retries")
    fetches = sum(check_histogram(w, "redcrawl_worker_fetch_seconds") for w in workers)
    check(fetches == len(stored) + 2, "fetch_seconds_count %d, want %d transfers" % (fetches, len(stored) + 2))
    stores = sum(check_histogram(w, "redcrawl_worker_store_seconds") for w in workers)
    check(stores == len(stored), "store_seconds_count %d, want %d" % (stores, len(stored)))
    # Bodies as received: every stored page's, plus the two retried 503s (the same body).
    body = sum(p["length"] for p in pages) + 2 * [p["length"] for p in pages if p["status_code"] == 503][0]
    check(total(workers, "redcrawl_worker_bytes_total") == body,
          "bytes %s, want %d" % (total(workers, "redcrawl_worker_bytes_total"), body))
    new_links = total(workers, "redcrawl_worker_links_new_total")
    check(new_links == len(want) - len(seeds), "new links %s, want %d" % (new_links, len(want) - len(seeds)))
    check(total(workers, "redcrawl_worker_links_total") >= new_links, "links < new links")
    check(total(workers, "redcrawl_worker_slots") == 2 * 64, "slots")

    # Scheduler: every URL dispatched once but the links denied with the page that had them (the
    # worker held their site's robots.txt), nothing dropped or reclaimed, queues empty.
    sc = s["scheduler"]
    early = int(redis_cmd(redis_port, "HGET", "rc:job:m", "robots_denied_links") or 0)
    check(value(sc, "redcrawl_scheduler_dispatched_total") == len(want) - early,
          "dispatched %s, want %d" % (value(sc, "redcrawl_scheduler_dispatched_total"), len(want) - early))
    check(value(sc, "redcrawl_scheduler_leader") == 1, "not the leader")
    check(value(sc, "redcrawl_scheduler_dropped_total") == 0, "dropped")
    check(value(sc, "redcrawl_scheduler_reclaimed_total") == 0, "reclaimed")
    check(value(sc, "redcrawl_scheduler_queued", worker="w0") == 0 and
          value(sc, "redcrawl_scheduler_queued", worker="w1") == 0, "queued at rest: %s" %
          (sc["redcrawl_scheduler_queued"],))
    check({lab["worker"] for n, lab, v in sc["redcrawl_scheduler_queued"][1]} == {"w0", "w1"}, "queued workers")
    check_histogram(sc, "redcrawl_scheduler_round_seconds")

    # Monitor: two crawl requests accepted (one per seed), one refused, one info; lag drained.
    mo = s["monitor"]
    check(value(mo, "redcrawl_monitor_requests_total", kind="crawl", result="accepted") == 2, "crawls accepted")
    check(value(mo, "redcrawl_monitor_requests_total", kind="crawl", result="rejected") == 1,
          "crawl rejected: %s" % (mo["redcrawl_monitor_requests"],))
    check(value(mo, "redcrawl_monitor_requests_total", kind="info", result="accepted") == 1, "info")
    check(value(mo, "redcrawl_monitor_answers_total", result="delivered") >= 4, "answers delivered")
    check(value(mo, "redcrawl_monitor_answers_total", result="lost") == 0, "answers lost")
    check(value(mo, "redcrawl_monitor_consumer_lag") == 0, "consumer lag at rest")
    lag = check_lag(tmp, procs, broker, redis_port, redis_proc, ports["monitor"])
    print("  metrics: %d pages (%s), %d denied, %d transfers, %d dispatched, %d families scraped, lag %d while "
          "Redis was away" % (len(stored), dict(statuses), len(private), fetches, len(want),
                              sum(len(f) for f in s.values()), lag))

    # Loopback only: each listening socket is bound to 127.0.0.1, not to every address.
    for k, port in ports.items():
        lines = subprocess.run(["ss", "-ltnH", "sport = :%d" % port], capture_output=True,
                               text=True).stdout.splitlines()
        local = [line.split()[3] for line in lines]
        check(local == ["127.0.0.1:%d" % port], "%s metrics listen on %s" % (k, local))

if __name__ == "__main__":
    run_tests([test_metrics_match_the_crawl])
