#!/usr/bin/env python3
"""redcrawl-web's REST API against a real redis-server: every control operation through HTTP
with its effect in Redis and its status code; the same requests answered the same way as over
Kafka (a real broker and redcrawl-monitor on a second Redis: the answer JSON compared field by
field, server_time aside), valid ones and test_kafka.py's malformed ones; the token when bound
elsewhere than loopback; the Host, Content-Type and method guards.

Each test gets its own servers in a temp dir, stopped by pid."""
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import check, redis_cmd, run_tests, start_redis  # noqa: E402
from test_kafka import (kcat_produce, kcat_produce_bytes, malformed_cases, start_monitor,  # noqa: E402
                        wait_answers, with_kafka)
from webapi import WEBAPP, call, start_webapp  # noqa: E402


def valid_requests():
    """One request of every kind and action, in an order where each has something to act on."""
    app = {"appid": "restapp"}
    return [
        dict(app, uuid="v1", crawlid="c1", url="http://a.test/", maxdepth=1, priority=5),
        dict(app, uuid="v2", crawlid="c1", url="http://a.test/two"),
        dict(app, uuid="v3", crawlid="c2", url="http://b.test/", allowed_domains=["b.test"]),
        dict(app, uuid="v4", action="info", spiderid="link", crawlid="c1"),
        dict(app, uuid="v5", action="info", spiderid="link"),
        dict(app, uuid="v6", domain="a.test", action="domain-update", hits=5, window=60, scale=0.5),
        dict(app, uuid="v7", domain="a.test", action="domain-remove"),
        dict(app, uuid="v8", domain="evil.test", action="blacklist-update"),
        dict(app, uuid="v9", domain="evil.test", action="blacklist-remove"),
        dict(app, uuid="v10", action="stop", spiderid="link", crawlid="c2"),
        dict(app, uuid="v11", action="info", spiderid="link", crawlid="c2"),
        dict(app, uuid="v12", crawlid="c2", url="http://b.test/again"),
        dict(app, uuid="v13", stats="queue"),
        dict(app, uuid="v14", stats="crawler"),
    ]


def strip(a):
    """An answer without what differs between the two runs: the server's clock, and the list of
    live monitors in a stats answer (Redis A has redcrawl-monitor's heartbeat, Redis B none)."""
    if not isinstance(a, dict):
        return a
    a = json.loads(json.dumps(a))
    a.pop("server_time", None)
    a.get("processes", {}).pop("monitors", None)
    return a


def test_operations(tmp, procs):
    """Each operation over HTTP: its status code, answer and effect in Redis; the typed
    endpoints fill in uuid and action; a crawl of another kind sent to a typed endpoint is 400."""
    rport, _ = start_redis(procs, tmp)
    port, _, log = start_webapp(procs, tmp, rport)
    st, a = call(port, "POST", "/api/crawl", {"appid": "restapp", "crawlid": "j1", "url": "http://a.test/",
                                               "maxdepth": 1})
    check(st == 200 and a.get("status") == "accepted" and a.get("added") == 1 and a.get("uuid"),
          "crawl: %s %s" % (st, a))
    check(redis_cmd(rport, "HGET", "rc:job:j1", "state") == "running", "job j1 not in Redis")
    st, a = call(port, "POST", "/api/info", {"appid": "restapp", "spiderid": "link", "crawlid": "j1"})
    check(st == 200 and a.get("crawlid") == "j1" and a.get("total_pending") == 1 and a.get("state") == "running",
          "info: %s %s" % (st, a))
    st, a = call(port, "POST", "/api/domain", {"appid": "restapp", "action": "domain-update", "domain": "A.Test",
                                                "hits": 3, "window": 10})
    conf = redis_cmd(rport, "HGET", "rc:domainconf", "a.test")
    check(st == 200 and conf and json.loads(conf).get("hits") == 3, "domain-update: %s %s, conf %s" % (st, a, conf))
    st, a = call(port, "POST", "/api/domain", {"appid": "restapp", "action": "blacklist-update", "domain": "evil.test"})
    check(st == 200 and redis_cmd(rport, "SISMEMBER", "rc:blacklist", "evil.test") == 1,
          "blacklist-update: %s %s" % (st, a))
    st, a = call(port, "POST", "/api/stats", {"appid": "restapp", "stats": "queue"})
    check(st == 200 and a.get("stats") == "queue", "stats: %s %s" % (st, a))
    st, a = call(port, "POST", "/api/stop", {"appid": "restapp", "spiderid": "link", "crawlid": "j1"})
    check(st == 200 and a.get("action") == "stop" and a.get("total_purged") == 1, "stop: %s %s" % (st, a))
    check(redis_cmd(rport, "HGET", "rc:job:j1", "state") == "stopped", "job j1 not stopped")
    st, a = call(port, "POST", "/api/crawl", {"appid": "restapp", "crawlid": "j1", "url": "http://a.test/x"})
    check(st == 409 and a.get("status") == "refused", "crawl of a stopped job: %s %s" % (st, a))
    # the generic endpoint: a crawl without uuid gets no answer, as on Kafka
    st, a = call(port, "POST", "/api/request", {"appid": "restapp", "crawlid": "j2", "url": "http://b.test/"})
    check(st == 202 and a == {"status": "accepted"} and redis_cmd(rport, "EXISTS", "rc:job:j2") == 1,
          "crawl without uuid: %s %s" % (st, a))
    # a request of another kind at a typed endpoint
    st, a = call(port, "POST", "/api/stop", {"appid": "restapp", "spiderid": "link", "crawlid": "j2",
                                              "action": "info"})
    check(st == 400 and a.get("field") == "(root)" and "/api/stop takes stop requests" in a.get("reason", ""),
          "info at /api/stop: %s %s" % (st, a))
    st, a = call(port, "POST", "/api/crawl", {"appid": "restapp", "stats": "all"})
    check(st == 400 and "takes crawl requests" in a.get("reason", ""), "stats at /api/crawl: %s %s" % (st, a))
    check(redis_cmd(rport, "HGET", "rc:job:j2", "state") == "running", "a refused request changed j2")
    # validation: field and reason
    st, a = call(port, "POST", "/api/crawl", {"appid": "restapp", "crawlid": "j3", "url": "ftp://a.test/"})
    check(st == 400 and a.get("field") == "url" and "ftp" in a.get("reason", ""), "bad url: %s %s" % (st, a))
    # the guards
    st, a = call(port, "POST", "/api/crawl", "{}", headers={"Content-Type": "text/plain"})
    check(st == 415, "text/plain body: %s %s" % (st, a))
    st, a = call(port, "GET", "/api/crawl")
    check(st == 405, "GET /api/crawl: %s %s" % (st, a))
    st, a = call(port, "GET", "/api/nothing")
    check(st == 404, "unknown endpoint: %s %s" % (st, a))
    st, a = call(port, "GET", "/api/status", headers={"Host": "attacker.example:%d" % port})
    check(st == 403, "a foreign Host header (DNS rebinding): %s %s" % (st, a))
    st, a = call(port, "GET", "/api/status")
    jobs = {j["crawlid"]: j for j in a.get("jobs", [])} if st == 200 else {}
    check(st == 200 and jobs.get("j1", {}).get("state") == "stopped" and len(a.get("throughput", [])) == 60,
          "status: %s %s" % (st, str(a)[:300]))
    # the OpenAPI file documents exactly the endpoints served
    spec = os.path.join(os.environ.get("REDCRAWL_SOURCE") or os.path.join(os.path.dirname(__file__), "..", ".."),
                        "deploy", "openapi.yaml")
    with open(spec) as f:
        paths = re.findall(r"^  (/api/[a-z]+):$", f.read(), re.M)
    check(len(paths) == 8, "openapi.yaml paths: %s" % paths)
    for p in paths:
        st, a = call(port, "GET" if p == "/api/status" else "POST", p, {"appid": "restapp"})
        check(st != 404, "%s documented but not served: %s" % (p, a))
    with open(log) as f:
        check("ERROR" not in f.read(), "redcrawl-web logged errors: see %s" % log)
    print("  every operation over HTTP: 200/202/400/409 as expected; guards 403/404/405/415")


def test_redis_outage(tmp, procs):
    """Redis away: 503 for requests and for the status (not an empty fleet); back on the same
    port: the same server answers again."""
    rport, rp = start_redis(procs, tmp)
    port, _, _ = start_webapp(procs, tmp, rport)
    st, _ = call(port, "POST", "/api/crawl", {"appid": "restapp", "crawlid": "o1", "url": "http://a.test/"})
    check(st == 200, "before: %d" % st)
    procs.stop(rp)
    st, a = call(port, "POST", "/api/crawl", {"appid": "restapp", "crawlid": "o2", "url": "http://a.test/"})
    check(st == 503 and "error" in a, "crawl with Redis away: %d %s" % (st, a))
    st, a = call(port, "GET", "/api/status")
    check(st == 503, "status with Redis away: %d %s" % (st, str(a)[:200]))
    procs.start(["redis-server", "--bind", "127.0.0.1", "--port", str(rport), "--save", "", "--appendonly", "no",
                 "--dir", tmp], os.path.join(tmp, "redis2.log"))
    deadline = time.time() + 10
    while redis_cmd(rport, "PING") != "PONG" and time.time() < deadline:
        time.sleep(0.05)
    st, a = call(port, "POST", "/api/crawl", {"appid": "restapp", "crawlid": "o2", "url": "http://a.test/"})
    check(st == 200 and a.get("added") == 1 and redis_cmd(rport, "EXISTS", "rc:job:o2") == 1,
          "after Redis is back: %d %s" % (st, a))
    print("  Redis away: 503 for a request and for the status; back: 200")


def test_token(tmp, procs):
    """A non-loopback address needs --token-file; with a token every /api call needs it."""
    import subprocess
    rport, _ = start_redis(procs, tmp)
    r = subprocess.run([WEBAPP, "--redis", "redis://127.0.0.1:%d" % rport, "--addr", "0.0.0.0", "--port", "0"],
                       capture_output=True, text=True, timeout=20)
    check(r.returncode != 0 and "--token-file" in r.stderr, "0.0.0.0 without a token: rc %d %r" %
          (r.returncode, r.stderr))
    tok = os.path.join(tmp, "token")
    with open(tok, "w") as f:
        f.write("short\n")
    r = subprocess.run([WEBAPP, "--redis", "redis://127.0.0.1:%d" % rport, "--token-file", tok, "--port", "0"],
                       capture_output=True, text=True, timeout=20)
    check(r.returncode != 0 and "16 characters" in r.stderr, "a short token: %r" % r.stderr)
    secret = "s3cret-token-0123456789abcdef"
    with open(tok, "w") as f:
        f.write(secret + "\n")
    port, _, _ = start_webapp(procs, tmp, rport, "--token-file", tok)
    st, _ = call(port, "GET", "/api/status")
    check(st == 401, "no token: %d" % st)
    st, _ = call(port, "GET", "/api/status", headers={"Authorization": "Bearer " + secret[:-1] + "X"})
    check(st == 401, "a wrong token: %d" % st)
    st, a = call(port, "POST", "/api/stats", {"appid": "restapp"}, headers={"Authorization": "Bearer " + secret})
    check(st == 200 and a.get("stats") == "all", "the right token: %d %s" % (st, str(a)[:200]))
    st, page = call(port, "GET", "/")
    check(st == 200 and "<html" in page.lower(), "the dashboard's page needs no token (it holds no data): %d" % st)
    st, _ = call(port, "GET", "/api/status", headers={"Authorization": "Bearer " + secret,
                                                      "Host": "crawler.example.org"})
    check(st == 200, "with a token any Host is served: %d" % st)
    # IPv6 loopback: no token needed, Host [::1]:PORT accepted
    port6, _, _ = start_webapp(procs, tmp, rport, "--addr", "::1", name="webapp6")
    st, a = call(port6, "POST", "/api/stats", {"appid": "restapp", "stats": "queue"}, host="::1")
    check(st == 200 and a.get("stats") == "queue", "over ::1: %d %s" % (st, a))


@with_kafka
def test_same_answers_as_kafka(tmp, procs, broker):
    """The same requests, valid and malformed, to redcrawl-monitor over Kafka (Redis A) and to
    redcrawl-web over HTTP (Redis B): the same answer JSON, server_time aside."""
    ra, _ = start_redis(procs, os.path.join(tmp))
    tmp_b = os.path.join(tmp, "b")
    os.makedirs(tmp_b)
    rb, _ = start_redis(procs, tmp_b)
    start_monitor(procs, tmp, broker, ra)
    port, _, _ = start_webapp(procs, tmp, rb)

    valid = valid_requests()
    kcat_produce(broker, "redcrawl.incoming", [json.dumps(r) for r in valid])
    kafka_valid = wait_answers(broker, "redcrawl.outbound_firehose", [r["uuid"] for r in valid])
    by_uuid = {a["uuid"]: a for a in kafka_valid}
    for r in valid:
        st, a = call(port, "POST", "/api/request", r)
        check(st in (200, 409), "%s: HTTP %d %s" % (r["uuid"], st, a))
        check(strip(a) == strip(by_uuid[r["uuid"]]), "%s answered differently:\n  http  %s\n  kafka %s" %
              (r["uuid"], strip(a), strip(by_uuid[r["uuid"]])))

    cases = [c for c in malformed_cases() if c[0]]
    kcat_produce(broker, "redcrawl.incoming", [c[0] for c in cases])
    kcat_produce_bytes(broker, "redcrawl.incoming", b'{"uuid": "m-utf8", "appid": "\xff\xfe"}')
    nul = b'{"uuid": "m-nul", "appid": "app\x00x", "stats": "all"}'
    kcat_produce_bytes(broker, "redcrawl.incoming", nul)
    big = json.dumps({"uuid": "m-big", "appid": "app", "crawlid": "big", "url": "http://a.test/",
                      "attrs": {"pad": "x" * (1024 * 1024)}}).encode()
    kcat_produce_bytes(broker, "redcrawl.incoming", big, "-z", "gzip", "-X", "message.max.bytes=4000000")
    bodies = [c[0].encode("utf-8", "surrogateescape") for c in cases] + [b'{"uuid": "m-utf8", "appid": "\xff\xfe"}',
                                                                          nul, big]
    n = len(bodies)
    msgs = wait_answers(broker, "redcrawl.outbound_firehose", [], timeout=60,
                        pred=lambda m: len(m) >= len(valid) + n)
    kafka_bad = msgs[len(valid):]
    check(len(kafka_bad) == n, "want %d answers over Kafka, got %d" % (n, len(kafka_bad)))
    for body, ka in zip(bodies, kafka_bad):
        st, a = call(port, "POST", "/api/request", body)
        check(st == 400, "malformed %r: HTTP %d" % (body[:60], st))
        check(strip(a) == strip(ka), "malformed %r answered differently:\n  http  %s\n  kafka %s" %
              (body[:60], strip(a), strip(ka)))
    # and an empty body, as Kafka's empty message
    st, a = call(port, "POST", "/api/request", b"")
    check(st == 400 and a.get("field") == "(root)" and "empty" in a.get("reason", ""), "empty body: %d %s" % (st, a))
    # the rejected counters agree too
    st, sa = call(port, "POST", "/api/stats", {"appid": "restapp", "stats": "kafka-monitor"})
    kcat_produce(broker, "redcrawl.incoming", [json.dumps({"uuid": "s-last", "appid": "restapp",
                                                           "stats": "kafka-monitor"})])
    sk = [m for m in wait_answers(broker, "redcrawl.outbound_firehose", ["s-last"]) if m.get("uuid") == "s-last"][0]
    # (HTTP saw one more: the empty body; both count the crawl refused for its stopped job)
    check(sa["fail"]["lifetime"] == sk["fail"]["lifetime"] + 1 and sk["fail"]["lifetime"] >= n,
          "rejected counts: http %s, kafka %s (%d malformed)" % (sa["fail"], sk["fail"], n))
    print("  %d valid and %d malformed requests: the same answer JSON over HTTP as over Kafka" % (len(valid), n))


def openapi_crawl_properties():
    """deploy/openapi.yaml's CrawlRequest: {property: its one-line schema}."""
    spec = os.path.join(os.environ.get("REDCRAWL_SOURCE") or os.path.join(os.path.dirname(__file__), "..", ".."),
                        "deploy", "openapi.yaml")
    with open(spec) as f:
        text = f.read()
    block = text[text.index("\n    CrawlRequest:"):text.index("\n    ActionRequest:")]
    return dict(re.findall(r"^        ([a-z_]+): (\{.*\})$", block, re.M))


def test_openapi_crawl_schema(tmp, procs):
    """The OpenAPI file's CrawlRequest is the validator's: the same fields (it says
    additionalProperties: false, so a client checking its requests against it must be able to send
    every field redcrawl takes), and every integer limit it states is the one enforced."""
    # a YAML document first, or no OpenAPI tool reads it (Debian's PyYAML, as test_deploy.py uses)
    spec = os.path.join(os.environ.get("REDCRAWL_SOURCE") or os.path.join(os.path.dirname(__file__), "..", ".."),
                        "deploy", "openapi.yaml")
    y = subprocess.run(["/usr/bin/python3", "-c", "import sys, yaml; yaml.safe_load(open(sys.argv[1]))", spec],
                       capture_output=True, text=True, timeout=30)
    check(y.returncode == 0, "deploy/openapi.yaml is not YAML: %s" % y.stderr.strip().split("\n")[-3:])
    rport, _ = start_redis(procs, tmp)
    port, _, _ = start_webapp(procs, tmp, rport)
    base = {"appid": "restapp", "url": "http://a.test/"}
    st, a = call(port, "POST", "/api/crawl", dict(base, crawlid="o0", zz_unknown=1))
    m = re.search(r"\(known: ([^)]*)\)", a.get("reason", ""))
    check(st == 400 and m, "an unknown field: %s %s" % (st, a))
    known = set(m.group(1).split(", "))
    props = openapi_crawl_properties()
    check(set(props) == known, "openapi.yaml CrawlRequest and the validator differ: only in the file %s, only in "
          "the validator %s" % (sorted(set(props) - known), sorted(known - set(props))))
    n = 0
    for name, schema in sorted(props.items()):
        if "type: integer" not in schema:
            continue
        for bound, step in (("minimum", -1), ("maximum", 1)):
            b = re.search(r"%s: (-?\d+)" % bound, schema)
            if not b:
                continue
            edge = int(b.group(1))
            n += 1
            st, a = call(port, "POST", "/api/crawl", dict(base, crawlid="o%d" % n, **{name: edge + step}))
            check(st == 400 and a.get("field") == name, "%s %d is outside the documented %s %d, yet: %s %s" %
                  (name, edge + step, bound, edge, st, a))
            st, a = call(port, "POST", "/api/crawl", dict(base, crawlid="p%d" % n, **{name: edge}))
            check(not (st == 400 and a.get("field") == name), "%s %d is the documented %s, yet: %s %s" %
                  (name, edge, bound, st, a))
    check(n >= 10, "too few documented limits checked: %d" % n)
    print("  %d fields as the validator's, %d documented integer limits enforced" % (len(props), n))


if __name__ == "__main__":
    run_tests([test_operations, test_redis_outage, test_token, test_same_answers_as_kafka, test_openapi_crawl_schema])
