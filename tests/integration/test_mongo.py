#!/usr/bin/env python3
"""The MongoDB sink against a real MongoDB-wire server: FerretDB 1.24 started by
scripts/services.sh in the test's temp dir.

- test_sink_program: the C test program (tests/unit/test_sink_mongo.c): documents read back by
  _id with the right shape, a redelivered page does not duplicate, -EAGAIN on a full queue,
  permanent rejections with clear errors, cancellation when the store is gone, throughput.
- test_outage: the program keeps putting write-groups (a page and its two items) while the
  store is stopped mid-stream and started again (same port, same data) a few seconds later:
  every group's callback fires once with status 0, and every document is stored exactly once.

Everything binds loopback only; FerretDB is stopped with `services.sh stop` by its pid file."""
import json
import os
import re
import signal
import subprocess
import sys
import time
import zlib

sys.path.insert(0, os.path.dirname(__file__))
from harness import BUILD, Failure, check, run_tests  # noqa: E402

SOURCE = os.environ.get("REDCRAWL_SOURCE") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SERVICES = os.path.join(SOURCE, "scripts", "services.sh")
TEST_BIN = os.environ.get("REDCRAWL_TEST_SINK_MONGO") or os.path.join(BUILD, "tests", "test_sink_mongo")
sys.path.insert(0, os.path.join(SOURCE, "scripts"))
import mongo_ping  # noqa: E402


def services(tmp, *args, timeout=900):
    """scripts/services.sh with its state in TMP/svc; its stderr goes to TMP/services.out."""
    r = subprocess.run([SERVICES] + list(args) + ["--dir", os.path.join(tmp, "svc")], capture_output=True,
                       text=True, timeout=timeout)
    with open(os.path.join(tmp, "services.out"), "a") as f:
        f.write("$ services.sh %s\n%s" % (" ".join(args), r.stderr))
    if r.returncode != 0:
        raise Failure("services.sh %s failed (%d):\n%s" % (" ".join(args), r.returncode, r.stderr[-2000:]))
    return r.stdout


def start_mongo(tmp, keep_data=False):
    out = services(tmp, "start", "mongo", *(["--keep-data"] if keep_data else []))
    m = re.search(r"^export REDCRAWL_MONGO=(\S+)$", out, re.M)
    check(m, "services.sh printed no REDCRAWL_MONGO line: %r" % out)
    return m.group(1)


def stop_mongo(tmp):
    services(tmp, "stop", "mongo", timeout=60)


def tail(path, n=40):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return "(no %s)" % path


def program_env(uri):
    env = dict(os.environ)
    env["REDCRAWL_MONGO"] = uri
    return env


def test_sink_program(tmp, procs):
    """Shapes, redelivery, -EAGAIN, rejections, cancellation and throughput (the C program)."""
    check(os.access(TEST_BIN, os.X_OK), "no test program %s (build it with ninja)" % TEST_BIN)
    uri = start_mongo(tmp)
    try:
        log = os.path.join(tmp, "test_sink_mongo.log")
        with open(log, "wb") as f:
            r = subprocess.run([TEST_BIN, "--db", "rc_it_sink", "--bench", "4000"], stdout=f, stderr=subprocess.STDOUT,
                               env=program_env(uri), timeout=400)
        check(r.returncode == 0, "test_sink_mongo exited %d:\n%s" % (r.returncode, tail(log)))
        with open(log, errors="replace") as f:
            text = f.read()
        m = re.search(r"^throughput: .*$", text, re.M)
        check(m, "no throughput line:\n%s" % tail(log))
        print("  " + m.group(0), flush=True)
        check(re.search(r"test_sink_mongo: \d+ checks, 0 failed", text), "checks failed:\n%s" % tail(log))
    finally:
        stop_mongo(tmp)


def count(conn, db, coll, crawlid):
    r = conn.command({"count": coll, "query": {"crawlid": crawlid}, "$db": db})
    check(r.get("ok") in (1, 1.0), "count %s: %r" % (coll, r))
    return r["n"]


def doubled_urls(conn, db, coll, crawlid, key):
    r = conn.command({"aggregate": coll, "pipeline": [
        {"$match": {"crawlid": crawlid}},
        {"$group": {"_id": key, "n": {"$sum": 1}}},
        {"$match": {"n": {"$gt": 1}}}], "cursor": {}, "$db": db})
    check(r.get("ok") in (1, 1.0), "aggregate %s: %r" % (coll, r))
    return r["cursor"]["firstBatch"]


def wait_log(path, pattern, timeout, proc=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        with open(path, errors="replace") as f:
            if re.search(pattern, f.read(), re.M):
                return
        if proc is not None and proc.poll() is not None:
            raise Failure("program exited (%s) before %r:\n%s" % (proc.returncode, pattern, tail(path)))
        time.sleep(0.05)
    raise Failure("no %r within %d s:\n%s" % (pattern, timeout, tail(path)))


def acked(log):
    with open(log, errors="replace") as f:
        return max([int(x) for x in re.findall(r"^acked (\d+)$", f.read(), re.M)] or [0])


def test_outage(tmp, procs):
    """The store goes away mid-stream and comes back: nothing lost, nothing doubled."""
    check(os.access(TEST_BIN, os.X_OK), "no test program %s (build it with ninja)" % TEST_BIN)
    n, db, crawlid = 400, "rc_it_outage", "outage-1"
    uri = start_mongo(tmp)
    try:
        log = os.path.join(tmp, "outage.log")
        p = procs.start([TEST_BIN, "--outage", str(n), "--db", db, "--crawlid", crawlid, "--rate-ms", "20"], log,
                        env=program_env(uri))
        wait_log(log, r"^acked (5\d|[6-9]\d|\d{3,})$", 60, p)
        t0 = time.time()
        stop_mongo(tmp)
        t_down = time.time()
        check(p.poll() is None, "the program finished before the store went down: not mid-stream")
        acked_stop = acked(log)
        time.sleep(4)
        acked_down = acked(log)
        # Writes that were in flight when the server died may still report; nothing after that.
        check(acked_down - acked_stop <= 30, "%d groups acked while the store was down" % (acked_down - acked_stop))
        check(acked_down < n, "all groups acked while the store was down")
        uri2 = start_mongo(tmp, keep_data=True)
        check(uri2 == uri, "store came back at %s, not %s" % (uri2, uri))
        print("  stop took %.1f s, store down for %.1f s; groups acked: %d when it stopped, %d before it came back"
              % (t_down - t0, time.time() - t_down, acked_stop, acked_down), flush=True)
        try:
            p.wait(timeout=300)
        except subprocess.TimeoutExpired:
            raise Failure("outage program still running after 300 s:\n%s" % tail(log))
        with open(log, errors="replace") as f:
            text = f.read()
        check(p.returncode == 0, "outage program exited %d:\n%s" % (p.returncode, tail(log)))
        m = re.search(r"^outage: groups=(\d+) fired=(\d+) ok=(\d+) failed=(\d+) eagain=(\d+) max_latency_ms=(\d+) "
                      r"pages=(\d+) items=(\d+) missing=(\d+)$", text, re.M)
        check(m, "no summary line:\n%s" % tail(log))
        print("  " + m.group(0), flush=True)
        groups, fired, ok, failed, eagain, max_lat, pages, items, missing = (int(x) for x in m.groups())
        check(groups == n and fired == n and ok == n and failed == 0, "callbacks: %s" % m.group(0))
        check(pages == n and items == 2 * n and missing == 0, "stored documents: %s" % m.group(0))
        check(max_lat >= 3000, "no group waited through the outage (max latency %d ms)" % max_lat)
        check(eagain > 0, "the bounded queue never filled during the outage (no -EAGAIN)")
        check("write failed, retrying" in text and "write recovered" in text,
              "the sink did not log the outage and the recovery:\n%s" % tail(log))
        # Independently of the C program: exactly once per page and per item.
        host, port = mongo_ping.parse_address(uri)
        conn = mongo_ping.Conn(host, port, 30)
        try:
            check(count(conn, db, "pages", crawlid) == n, "pages stored != %d" % n)
            check(count(conn, db, "items_outage", crawlid) == 2 * n, "items stored != %d" % (2 * n))
            dup = doubled_urls(conn, db, "pages", crawlid, "$url")
            check(not dup, "pages stored twice: %s" % dup[:3])
            dup = doubled_urls(conn, db, "items_outage", crawlid, {"u": "$url", "p": "$position"})
            check(not dup, "items stored twice: %s" % dup[:3])
        finally:
            conn.close()
    finally:
        stop_mongo(tmp)


def test_crawl_into_mongo_with_outage(tmp, procs):
    """`redcrawl crawl --mongo --rules`: page records and items land in MongoDB exactly once
    each, although the store is stopped mid-crawl and started again (nothing is acknowledged to
    the frontier before it is stored, so nothing is lost)."""
    from harness import REDCRAWL, expected_pages, graph, start_web  # noqa: E402
    args = ["--sites", "3", "--pages", "40", "--latency-ms", "10"]
    web_port, _, _ = start_web(procs, tmp, *args)
    want = expected_pages(graph(*args), ["http://s0.site.test/"], -1, ["site.test"])
    rules = os.path.join(tmp, "rules.json")
    with open(rules, "w") as f:
        json.dump({"fields": {"title": {"xpath": "//title", "required": True}, "heading": "//h1"}}, f)
    uri = start_mongo(tmp)
    db, crawlid = "rc_it_crawl", "mongo-crawl"
    try:
        out = os.path.join(tmp, "out")
        cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % web_port, "--quiet",
               "--maxdepth", "-1", "--delay", "0.03", "--crawlid", crawlid, "--rules", rules,
               "--mongo", uri.rstrip("/") + "/" + db, "--body", "http://s0.site.test/"]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        pages_path = os.path.join(out, "pages.jsonl")
        deadline = time.time() + 60
        while time.time() < deadline and (not os.path.exists(pages_path) or
                                          len(open(pages_path).readlines()) < 15):
            if p.poll() is not None:
                raise Failure("the crawl exited early (%d): %s" % (p.returncode, p.stderr.read()[-2000:]))
            time.sleep(0.05)
        stop_mongo(tmp)
        time.sleep(3)
        check(p.poll() is None, "the crawl finished before the store came back: not mid-crawl")
        start_mongo(tmp, keep_data=True)
        stdout, stderr = p.communicate(timeout=300)
        check(p.returncode == 0, "crawl exited %d: %s" % (p.returncode, stderr[-2000:]))
        host, port = mongo_ping.parse_address(uri)
        conn = mongo_ping.Conn(host, port, 30)
        try:
            n_pages = count(conn, db, "pages", crawlid)
            n_items = count(conn, db, "items_link", crawlid)
            check(n_pages == len(want), "%d page records in MongoDB, want %d" % (n_pages, len(want)))
            dup = doubled_urls(conn, db, "pages", crawlid, "$url")
            check(not dup, "pages stored twice: %s" % dup[:3])
            html_200 = sum(1 for line in open(pages_path) if '"status_code":200' in line and "text/html" in line
                           and "duplicate_of" not in line)
            check(n_items >= html_200 - 5 and n_items <= html_200, "items %d vs html pages %d" % (n_items, html_200))
            dup = doubled_urls(conn, db, "items_link", crawlid, "$url")
            check(not dup, "items stored twice: %s" % dup[:3])
            ids = [json.loads(line)["_id"] for line in open(pages_path)]
            check(len(ids) == len(set(ids)) == len(want), "pages.jsonl: %d lines, %d distinct, want %d" %
                  (len(ids), len(set(ids)), len(want)))
            # --body: the HTML is kept zlib-compressed in MongoDB, as it is in pages.jsonl.
            r = conn.command({"find": "pages", "filter": {"crawlid": crawlid, "status_code": 200}, "limit": 5,
                              "$db": db})
            docs = r["cursor"]["firstBatch"]
            jsonl = {json.loads(line)["_id"]: json.loads(line) for line in open(pages_path)}
            check(docs, "no page found in MongoDB")
            for d in docs:
                check("body" not in d and d.get("body_coding") == "zlib", "body not compressed: %s" % list(d))
                html = zlib.decompress(bytes(d["body_z"])).decode()
                check(html == jsonl[d["_id"]]["body"], "%s: the compressed body differs from the page's" % d["url"])
            print("  %d pages and %d items in MongoDB after a store outage mid-crawl" % (n_pages, n_items), flush=True)
        finally:
            conn.close()
    finally:
        stop_mongo(tmp)


def test_worker_stops_while_mongo_down(tmp, procs):
    """A worker told to stop (SIGTERM, as compose and systemd do) while MongoDB is down and a
    page waits for it: it gives up on the page after its grace times (the URL goes back to its
    queue) and exits 0, its memory intact (before: the sink's last verdict reached the worker's
    notes after they were freed, a heap-use-after-free)."""
    from harness import (REDCRAWL, SCHEDULER, WORKER, free_port, sanitizer_reports, start_redis,  # noqa: E402
                         start_web)
    web_port, _, _ = start_web(procs, tmp, "--sites", "1", "--pages", "5")
    redis_port, _ = start_redis(procs, tmp)
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port,
               REDCRAWL_ALLOW_NET="127.0.0.0/8", REDCRAWL_CONNECT_TO="::127.0.0.1:%d" % web_port)
    for k in ("REDCRAWL_KAFKA", "REDCRAWL_MONGO", "REDCRAWL_SHARDS", "REDCRAWL_PREFIX"):
        env.pop(k, None)
    procs.start([SCHEDULER], os.path.join(tmp, "scheduler.log"), env=env)
    down = "mongodb://127.0.0.1:%d/?serverSelectionTimeoutMS=500" % free_port()  # nothing listens there
    wlog = os.path.join(tmp, "worker.log")
    w = procs.start([WORKER, "--id", "w0", "--mongo", down, "--delay", "0.05"], wlog, env=env)
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "m", "http://s0.site.test/"], env=env,
                       capture_output=True, text=True, timeout=30)
    check(r.returncode == 0, "submit: %s" % r.stderr)
    wait_log(wlog, r"mongo write failed", 60, w)
    w.send_signal(signal.SIGTERM)
    try:
        rc = w.wait(timeout=120)
    except subprocess.TimeoutExpired:
        raise Failure("the worker did not exit within 120 s of SIGTERM:\n%s" % tail(wlog))
    check(rc == 0, "the worker exited %d on SIGTERM with MongoDB down:\n%s" % (rc, tail(wlog)))
    check(not sanitizer_reports(tmp), "sanitizer reports: %s\n%s" % (sanitizer_reports(tmp), tail(wlog)))
    with open(wlog, errors="replace") as f:
        check("mongo sink stopped before the documents were stored" in f.read(),
              "the page waiting for MongoDB was not given back:\n%s" % tail(wlog))


def make_other_ca(tmp):
    """A CA the server's certificate was not signed by: verification must fail."""
    ca = os.path.join(tmp, "other-ca.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    "/CN=not the test CA", "-keyout", os.path.join(tmp, "other-ca.key"), "-out", ca],
                   check=True, capture_output=True, timeout=60)
    return ca


def test_crawl_over_tls(tmp, procs):
    """A crawl stores into MongoDB over TLS (mongodb://...?tls=true&tlsCAFile=CA): every page
    record arrives; with a CA that did not sign the server's certificate, the worker stores
    nothing and logs the verification failure (never ignored)."""
    from harness import REDCRAWL, SCHEDULER, WORKER, expected_pages, graph, start_redis, start_web  # noqa: E402
    args = ["--sites", "2", "--pages", "15", "--latency-ms", "5"]
    web_port, _, _ = start_web(procs, tmp, *args)
    want = expected_pages(graph(*args), ["http://s0.site.test/"], -1, ["site.test"])
    uri = start_mongo(tmp)
    svc = os.path.join(tmp, "svc", "mongo")
    with open(os.path.join(svc, "tport")) as f:
        tport = int(f.read())
    ca = os.path.join(svc, "tls", "ca.pem")
    db = "rc_it_tls"

    def tls_uri(cafile):
        return "mongodb://127.0.0.1:%d/%s?tls=true&tlsCAFile=%s" % (tport, db, cafile)

    try:
        cmd = [REDCRAWL, "crawl", "--out", os.path.join(tmp, "good"), "--connect-to", "::127.0.0.1:%d" % web_port,
               "--quiet", "--maxdepth", "-1", "--delay", "0", "--crawlid", "tls-good", "--mongo", tls_uri(ca),
               "http://s0.site.test/"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
        check(r.returncode == 0, "crawl over TLS exited %d: %s" % (r.returncode, r.stderr[-1000:]))
        # The wrong CA, on a fleet by hand: the worker must refuse the connection and say why.
        redis_port, _ = start_redis(procs, tmp)
        env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
        procs.start([SCHEDULER], os.path.join(tmp, "scheduler.log"), env=env)
        wlog = os.path.join(tmp, "worker-bad-ca.log")
        worker = procs.start([WORKER, "--mongo", tls_uri(make_other_ca(tmp)), "--delay", "0",
                              "--connect-to", "::127.0.0.1:%d" % web_port], wlog, env=env)
        r = subprocess.run([REDCRAWL, "submit", "--crawlid", "tls-bad", "--maxdepth", "-1", "http://s0.site.test/"],
                           capture_output=True, text=True, env=env, timeout=30)
        check(r.returncode == 0, "submit failed: %s" % r.stderr)
        deadline = time.time() + 60
        while time.time() < deadline and "certificate verify failed" not in open(wlog, errors="replace").read():
            time.sleep(0.2)
        procs.stop(worker, signal.SIGKILL)
        host, port = mongo_ping.parse_address(uri)
        conn = mongo_ping.Conn(host, port, 30)
        try:
            good, bad = count(conn, db, "pages", "tls-good"), count(conn, db, "pages", "tls-bad")
        finally:
            conn.close()
        check(good == len(want), "%d page records stored over TLS, want %d" % (good, len(want)))
        check(bad == 0, "%d pages stored through an unverified TLS connection" % bad)
        why = [l for l in open(wlog, errors="replace").read().splitlines() if "certificate verify failed" in l]
        check(why, "the TLS verification failure was not logged in %s" % wlog)
        print("  %d pages over TLS; wrong CA: nothing stored, logged: %s" % (good, why[0][-160:]))
    finally:
        stop_mongo(tmp)


if __name__ == "__main__":
    run_tests([test_sink_program, test_outage, test_crawl_into_mongo_with_outage, test_crawl_over_tls,
               test_worker_stops_while_mongo_down])
