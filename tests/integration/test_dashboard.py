#!/usr/bin/env python3
"""The dashboard in headless Chromium (Debian's chromium and chromium-driver, driven over
WebDriver by webdriver.py) against a real fleet: Redis, the scheduler, two workers, the test web
with latency, redcrawl-web. The page loads; with the fleet frozen (SIGSTOP) the running job's
numbers on the page equal `redcrawl info`'s; a crawl submitted from the form runs to completion
(the pages stored are those the test web's graph predicts); a bad form input shows the
validator's field and reason, the same as the API's answer; the stop button stops a job and the
rate form writes the domain's throttle. Screenshots are saved in the test's temp dir (their
paths printed) and copied to REDCRAWL_KEEP_SCREENSHOTS (default
BUILD/meson-logs/dashboard-screenshots), since the temp dir is removed when the test passes."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import (BUILD, REDCRAWL, SCHEDULER, WORKER, check, expected_pages, free_port, graph,  # noqa: E402
                     read_pages, redis_cmd, run_tests, start_redis, start_web)
from webapi import call, start_webapp  # noqa: E402
from webdriver import Browser  # noqa: E402

WEB_ARGS = ["--sites", "4", "--pages", "60", "--latency-ms", "40"]
ROW = """const r = document.querySelector('#jobs tr[data-crawlid="' + arguments[0] + '"]');
if (!r) return null;
const v = (c) => r.querySelector('.' + c).textContent;
return {state: v('state'), pending: +v('pending'), fetched: +v('fetched'), items: +v('items'),
        errors: +v('errors')};"""

# Pixels of the chart in the bars' colour (app.js drawChart): 0 when nothing was drawn.
BAR_PIXELS = """const c = document.getElementById('chart');
const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
let n = 0;
for (let i = 0; i < d.length; i += 4) if (d[i] === 0x3b && d[i + 1] === 0x7d && d[i + 2] === 0xd8) n++;
return n;"""


def info(env, crawlid):
    r = subprocess.run([REDCRAWL, "info", "--json", crawlid], capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0, "redcrawl info: %s" % r.stderr)
    return json.loads(r.stdout.splitlines()[0])


def shots_dir(tmp):
    d = os.path.join(tmp, "screenshots")
    os.makedirs(d, exist_ok=True)
    return d


def keep_screenshots(shots):
    """The temp dir goes when the test passes: the screenshots are copied, as artifacts, to
    REDCRAWL_KEEP_SCREENSHOTS (default BUILD/meson-logs/dashboard-screenshots)."""
    keep = os.environ.get("REDCRAWL_KEEP_SCREENSHOTS") or os.path.join(BUILD, "meson-logs", "dashboard-screenshots")
    os.makedirs(keep, exist_ok=True)
    for name in os.listdir(shots):
        shutil.copy(os.path.join(shots, name), keep)
    print("  screenshots copied to %s" % keep)


def test_dashboard(tmp, procs):
    web_port, _, _ = start_web(procs, tmp, *WEB_ARGS)
    rport, _ = start_redis(procs, tmp)
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % rport)
    fleet = [procs.start([SCHEDULER, "--worker-timeout", "10"], os.path.join(tmp, "scheduler.log"), env=env)]
    out = os.path.join(tmp, "out")
    for i in range(2):
        fleet.append(procs.start([WORKER, "--id", "w%d" % i, "--out", out, "--delay", "0.05", "--connect-to",
                                  "::127.0.0.1:%d" % web_port, "--allow-net", "127.0.0.0/8"],
                                 os.path.join(tmp, "w%d.log" % i), env=env))
    port, _, log = start_webapp(procs, tmp, rport)
    url = "http://127.0.0.1:%d/" % port
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "big", "--maxdepth", "-1", "http://s0.site.test/",
                        "http://s2.site.test/"], capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0, "submit: %s" % r.stderr)
    shots = shots_dir(tmp)
    b = Browser(procs, tmp)
    try:
        b.get(url)
        check(b.js("return document.title") == "redcrawl", "the page did not load")
        row = b.wait("the running job on the page",
                     lambda: (lambda x: x if x and x["fetched"] >= 20 else None)(b.js(ROW, "big")))
        check(row["state"] == "running", "job on the page: %s" % row)
        b.wait("workers listed", lambda: b.js("return document.querySelectorAll('#workers tbody tr').length") == 2)

        # frozen fleet: the page's numbers equal redcrawl info's
        for p in fleet:
            p.send_signal(signal.SIGSTOP)
        try:
            time.sleep(0.5)
            first = b.text("#updated")
            b.wait("two refreshes", lambda: b.text("#updated") != first, 10)
            second = b.text("#updated")
            b.wait("a refresh with the frozen fleet", lambda: b.text("#updated") != second, 10)
            row = b.js(ROW, "big")
            a = info(env, "big")
            for k in ("pending", "fetched", "items", "errors"):
                check(row[k] == a[k], "%s: page %s, redcrawl info %s" % (k, row[k], a[k]))
            check(row["state"] == a["state"] == "running", "state: page %s, info %s" % (row, a["state"]))
            hosts = b.js("return document.querySelectorAll('#hosts tbody tr').length")
            check(hosts > 0, "no busy host on the page")
            bars = b.js(BAR_PIXELS)
            print("  frozen: page shows fetched %d pending %d items %d errors %d = redcrawl info; %d hosts; "
                  "chart %d bar pixels" % (row["fetched"], row["pending"], row["items"], row["errors"], hosts, bars))
            print("  screenshot %s" % b.screenshot(os.path.join(shots, "1-running.png")))
        finally:
            for p in fleet:
                p.send_signal(signal.SIGCONT)
        check(bars > 100, "the throughput chart has no bar (%d bar pixels)" % bars)

        # a bad input: the validator's message, as the API answers it
        b.type("#crawl-form [name=url]", "http://s1.site.test/")
        b.type("#crawl-form [name=crawlid]", "formjob")
        b.type("#crawl-form [name=maxdepth]", "deep")
        b.click("#crawl-form button")
        shown = b.wait("the validator's message", lambda: b.text("#crawl-result"))
        _, api = call(port, "POST", "/api/crawl", {"url": "http://s1.site.test/", "crawlid": "formjob",
                                                    "appid": "dashboard", "maxdepth": "deep"})
        check(shown == "%s: %s" % (api["field"], api["reason"]) and api["field"] == "maxdepth",
              "page shows %r, the API answers %s" % (shown, api))
        check(b.js("return document.getElementById('crawl-result').className") == "error", "not shown as an error")
        check(redis_cmd(rport, "EXISTS", "rc:job:formjob") == 0, "a refused crawl created its job")
        print("  bad input shows: %s" % shown)
        print("  screenshot %s" % b.screenshot(os.path.join(shots, "2-bad-input.png")))

        # a good one runs to completion
        b.type("#crawl-form [name=maxdepth]", "3")
        b.click("#crawl-form button")
        b.wait("the crawl accepted", lambda: "accepted" in (b.text("#crawl-result") or ""))
        row = b.wait("the form's job done", lambda: (lambda x: x if x and x["state"] == "done" else None)(
            b.js(ROW, "formjob")), 120)
        a = info(env, "formjob")
        # no allowed_domains in the form: links are followed within the seed's registrable domain
        want = expected_pages(graph(*WEB_ARGS), ["http://s1.site.test/"], 3, ["site.test"])
        got = {p["url"] for p in read_pages(os.path.join(out, "pages.jsonl")) if p["crawlid"] == "formjob"}
        check(a["state"] == "done" and row["fetched"] == a["fetched"] == len(want) and got == set(want),
              "form job: page %s, info %s, %d pages stored, %d expected" % (row, a, len(got), len(want)))
        print("  the form's crawl: done, %d pages, as the graph predicts" % len(got))
        print("  screenshot %s" % b.screenshot(os.path.join(shots, "3-form-crawl-done.png")))

        # the rate form and the stop button
        b.type("#domain-form [name=domain]", "s2.site.test")
        b.type("#domain-form [name=hits]", "7")
        b.type("#domain-form [name=window]", "30")
        b.click("#domain-form button[value=domain-update]")
        b.wait("the rate answer", lambda: b.text("#domain-result"))
        conf = json.loads(redis_cmd(rport, "HGET", "rc:domainconf", "s2.site.test") or "{}")
        check(conf.get("hits") == 7 and conf.get("window") == 30, "domainconf after the form: %s" % conf)
        b.click('#jobs tr[data-crawlid="big"] button')
        b.wait("big stopped", lambda: redis_cmd(rport, "HGET", "rc:job:big", "state") == "stopped", 20)
        b.wait("the page shows it", lambda: (b.js(ROW, "big") or {}).get("state") == "stopped", 10)
        print("  screenshot %s" % b.screenshot(os.path.join(shots, "4-stopped.png")))
    finally:
        b.close()
    keep_screenshots(shots)
    with open(log) as f:
        check("ERROR" not in f.read(), "redcrawl-web logged errors: see %s" % log)


def test_crawl_prints_dashboard_url(tmp, procs):
    """`redcrawl crawl` starts redcrawl-web on a free loopback port and prints its URL first;
    while the crawl runs, that URL serves the page and the job."""
    web_port, _, _ = start_web(procs, tmp, *WEB_ARGS)
    p = subprocess.Popen([REDCRAWL, "crawl", "--quiet", "--out", os.path.join(tmp, "out"), "--maxdepth", "2",
                          "--delay", "0.2", "--connect-to", "::127.0.0.1:%d" % web_port, "--allow-net", "127.0.0.0/8",
                          "--crawlid", "demo", "http://s3.site.test/"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    procs.procs.append(p)
    first = p.stderr.readline()
    m = re.match(r"redcrawl: dashboard and REST API at http://127\.0\.0\.1:(\d+)/$", first.rstrip())
    check(m, "first line: %r" % first)
    port = int(m.group(1))
    st, page = call(port, "GET", "/")
    check(st == 200 and "<title>redcrawl</title>" in page, "the page: %d" % st)
    st, s = call(port, "GET", "/api/status")
    check(st == 200 and [j["crawlid"] for j in s["jobs"]] == ["demo"], "status during the crawl: %d %s" %
          (st, str(s)[:300]))
    out, err = p.communicate(timeout=120)
    check(p.returncode == 0 and "job demo finished" in out, "crawl: rc %d\n%s\n%s" % (p.returncode, out, err))
    try:
        call(port, "GET", "/")
        check(False, "redcrawl-web still answers after the crawl")
    except OSError:
        pass
    print("  redcrawl crawl printed %s and served the job while it ran" % first.split(" at ")[1].strip())


def test_dashboard_with_token(tmp, procs):
    """Served with --token-file, the page asks for the token, then shows the fleet; a wrong one
    is asked for again."""
    rport, _ = start_redis(procs, tmp)
    secret = "dashboard-token-0123456789"
    tok = os.path.join(tmp, "token")
    with open(tok, "w") as f:
        f.write(secret + "\n")
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % rport)
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "tok", "http://s0.site.test/"], capture_output=True,
                       text=True, env=env, timeout=30)
    check(r.returncode == 0, "submit: %s" % r.stderr)
    port, _, _ = start_webapp(procs, tmp, rport, "--token-file", tok)
    b = Browser(procs, tmp)
    try:
        b.get("http://127.0.0.1:%d/" % port)
        b.wait("the token asked for", lambda: b.js("return !document.getElementById('token-form').hidden"), 10)
        check(b.js(ROW, "tok") is None, "the job shown without a token")
        b.type("#token", "wrong-token-0123456789")
        b.click("#token-form button")
        b.wait("asked again", lambda: b.js("return !document.getElementById('token-form').hidden"), 10)
        b.type("#token", secret)
        b.click("#token-form button")
        row = b.wait("the job with the token", lambda: b.js(ROW, "tok"), 10)
        check(row["state"] == "running" and row["pending"] == 1, "job: %s" % row)
        check(b.js("return document.getElementById('token-form').hidden"), "the token form still shown")
        print("  screenshot %s" % b.screenshot(os.path.join(shots_dir(tmp), "5-token.png")))
    finally:
        b.close()
    keep_screenshots(shots_dir(tmp))


WORKER_STATE = """const r = document.querySelector('#workers tr[data-worker="' + arguments[0] + '"]');
return r ? r.querySelector('.wstate').textContent : null;"""

FAILURES = """return [...document.querySelectorAll('#failures tbody tr')].map(
    (r) => ({crawlid: r.cells[1].textContent, url: r.cells[2].textContent, reason: r.cells[3].textContent}));"""


def test_dashboard_drain_and_errors(tmp, procs):
    """The drain form drains a worker of a crawling fleet (the Workers table says "draining", its
    hosts go to the other worker, it takes nothing) and undoes it; permanent failures (an address
    literal outside --allow-net, a host sent to a port outside --allow-port: the SSRF guard refuses
    both before any packet) appear under "Recent errors" with the reasons rc:failed holds."""
    web_port, _, _ = start_web(procs, tmp, *WEB_ARGS)
    rport, _ = start_redis(procs, tmp)
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % rport)
    procs.start([SCHEDULER, "--worker-timeout", "10"], os.path.join(tmp, "scheduler.log"), env=env)
    out = os.path.join(tmp, "out")
    dead = free_port()  # a port the workers may not connect to (--allow-port): refused by the SSRF guard
    for i in range(2):
        procs.start([WORKER, "--id", "w%d" % i, "--out", out, "--delay", "0.1", "--allow-port", str(web_port),
                     "--connect-to", "dead.site.test:80:127.0.0.1:%d" % dead,
                     "--connect-to", "::127.0.0.1:%d" % web_port, "--allow-net", "127.0.0.0/8"],
                    os.path.join(tmp, "w%d.log" % i), env=env)
    port, _, log = start_webapp(procs, tmp, rport)
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "drained", "--maxdepth", "-1"] +
                       ["http://s%d.site.test/" % i for i in range(4)], capture_output=True, text=True, env=env,
                       timeout=30)
    check(r.returncode == 0, "submit: %s" % r.stderr)
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "broken", "http://192.0.2.1/literal",
                        "http://dead.site.test/refused"], capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0, "submit: %s" % r.stderr)
    shots = shots_dir(tmp)
    b = Browser(procs, tmp)
    try:
        b.get("http://127.0.0.1:%d/" % port)
        b.wait("w0 active with hosts", lambda: b.js(WORKER_STATE, "w0") == "active" and
               redis_cmd(rport, "SCARD", "rc:wdoms:w0") > 0 and
               int(redis_cmd(rport, "HGET", "rc:worker:w0", "fetched") or 0) >= 5, 30)
        b.type("#drain-form [name=worker]", "w0")
        b.click("#drain-form button[value=drain]")
        b.wait("the drain answer", lambda: '"draining":true' in (b.text("#drain-result") or ""))
        check(int(redis_cmd(rport, "SISMEMBER", "rc:draining", "w0")) == 1, "the form set no flag")
        b.wait("the table shows it", lambda: b.js(WORKER_STATE, "w0") == "draining", 10)
        b.wait("w0 hands over its hosts", lambda: redis_cmd(rport, "SCARD", "rc:wdoms:w0") == 0 and
               redis_cmd(rport, "ZCARD", "rc:lease:w0") == 0, 30)
        print("  screenshot %s" % b.screenshot(os.path.join(shots, "6-draining.png")))
        time.sleep(1.5)  # the heartbeat that reports its last pages
        fetched = [int(redis_cmd(rport, "HGET", "rc:worker:" + w, "fetched") or 0) for w in ("w0", "w1")]
        time.sleep(2)
        check(redis_cmd(rport, "HGET", "rc:job:drained", "state") == "running", "the crawl ended: nothing shown")
        now = [int(redis_cmd(rport, "HGET", "rc:worker:" + w, "fetched") or 0) for w in ("w0", "w1")]
        check(now[0] == fetched[0] and now[1] > fetched[1], "fetched by w0, w1 over 2 s of the drain: %s -> %s"
              % (fetched, now))
        fetched = fetched[0]
        b.type("#drain-form [name=worker]", "nosuch")
        b.click("#drain-form button[value=drain]")
        b.wait("unknown worker refused", lambda: "no live worker" in (b.text("#drain-result") or ""))
        b.type("#drain-form [name=worker]", "w0")
        b.click("#drain-form button[value=undo]")
        b.wait("the table shows it back", lambda: b.js(WORKER_STATE, "w0") == "active", 10)
        check(int(redis_cmd(rport, "SISMEMBER", "rc:draining", "w0")) == 0, "undo left the flag")
        print("  drain form: w0 draining (table), its hosts to w1, %d pages and no more; undone" % fetched)

        # permanent failures: under "Recent errors", as rc:failed has them
        rows = b.wait("two failures on the page", lambda: (lambda x: x if len(x) == 2 else None)(
            [f for f in b.js(FAILURES) if f["crawlid"] == "broken"]), 60)
        stored = [json.loads(m) for m in redis_cmd(rport, "ZRANGE", "rc:failed", "0", "-1")]
        got = sorted((f["url"], f["reason"]) for f in rows)
        check(got == sorted((f["url"], f["reason"]) for f in stored if f["crawlid"] == "broken"),
              "page %s, rc:failed %s" % (got, stored))
        reasons = dict(got)
        check(set(reasons) == {"http://192.0.2.1/literal", "http://dead.site.test/refused"} and
              all(reasons.values()), "failures: %s" % reasons)
        print("  recent errors: %s" % got)
        print("  screenshot %s" % b.screenshot(os.path.join(shots, "7-recent-errors.png")))
    finally:
        b.close()
    keep_screenshots(shots)
    with open(log) as f:
        check("ERROR" not in f.read(), "redcrawl-web logged errors: see %s" % log)


if __name__ == "__main__":
    run_tests([test_dashboard, test_crawl_prints_dashboard_url, test_dashboard_with_token,
               test_dashboard_drain_and_errors])
