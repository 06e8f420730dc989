#!/usr/bin/env python3
"""The control plane against a real Apache Kafka broker (scripts/services.sh start kafka) and a
real redis-server: every request kind end to end, produced with the CLI (`redcrawl ... --kafka`)
and with Debian's kcat as a plain producer; answers carry the request's uuid; effects are checked
in Redis; the unasked `expired` notification; 30+ malformed requests each answered with a precise
error and changing nothing; a Redis outage (nothing consumed past the held request, applied once
Redis is back); the broker restarted mid-run (every request takes effect exactly once); and the
CLI's embedded mode (no Kafka) giving the same answers.

Each test gets its own broker and Redis in a temp dir, stopped by pid."""
import collections
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import (BUILD, REDCRAWL, SCHEDULER, WORKER, Failure, check, expected_pages, graph,  # noqa: E402
                     frontier_len, frontier_records, read_pages, read_requests, redis_cmd, run_tests,
                     start_redis, start_web)

MONITOR = os.path.join(BUILD, "scheduler", "redcrawl-monitor")
SOURCE = os.environ.get("REDCRAWL_SOURCE") or os.path.join(os.path.dirname(__file__), "..", "..")
SERVICES = os.path.join(os.path.abspath(SOURCE), "scripts", "services.sh")
DELIM = "\x1e"  # kcat -D: one message per record, so messages may hold newlines


# ---- servers --------------------------------------------------------------------------------

def kafka(tmp, action="start"):
    """scripts/services.sh start|restart|stop kafka with its state in TMP/kafka; the broker."""
    r = subprocess.run([SERVICES, action, "kafka", "--dir", os.path.join(tmp, "kafka")], capture_output=True,
                       text=True, timeout=180)
    if r.returncode != 0:
        raise Failure("services.sh %s kafka failed: %s" % (action, r.stderr[-2000:]))
    if action == "stop":
        return None
    line = [x for x in r.stdout.splitlines() if x.startswith("export REDCRAWL_KAFKA=")]
    check(line, "services.sh printed no REDCRAWL_KAFKA: %r" % r.stdout)
    broker = line[0].split("=", 1)[1]
    check(broker.startswith("127.0.0.1:"), "broker not on loopback: %s" % broker)
    return broker


def with_kafka(test):
    """Runs TEST(tmp, procs, broker) with a fresh broker, stopped (by pid) however the test ends."""
    def run(tmp, procs):
        broker = kafka(tmp)
        try:
            test(tmp, procs, broker)
        finally:
            procs.stop_all()
            kafka(tmp, "stop")
    run.__name__ = test.__name__
    run.__doc__ = test.__doc__
    return run


def start_monitor(procs, tmp, broker, redis_port, *args, name="monitor"):
    log = os.path.join(tmp, name + ".log")
    env = dict(os.environ, REDCRAWL_KAFKA=broker, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
    p = procs.start([MONITOR, "--session-timeout", "3000"] + list(args), log, env=env)
    deadline = time.time() + 30
    while time.time() < deadline:
        with open(log, errors="replace") as f:
            if "partitions assigned" in f.read():
                return p, log
        check(p.poll() is None, "redcrawl-monitor exited: see %s" % log)
        time.sleep(0.05)
    raise Failure("the monitor got no partitions within 30 s: see %s" % log)


def env_for(broker=None, redis_port=None):
    env = dict(os.environ)
    env.pop("REDCRAWL_KAFKA", None)
    env.pop("REDCRAWL_REDIS", None)
    if broker:
        env["REDCRAWL_KAFKA"] = broker
    if redis_port:
        env["REDCRAWL_REDIS"] = "redis://127.0.0.1:%d" % redis_port
    return env


def cli(env, *args, expect_rc=0, timeout=40):
    r = subprocess.run([REDCRAWL] + list(args), capture_output=True, text=True, env=env, timeout=timeout)
    if expect_rc is not None and r.returncode != expect_rc:
        raise Failure("redcrawl %s exited %d (want %d)\nstdout: %s\nstderr: %s" %
                      (" ".join(args), r.returncode, expect_rc, r.stdout[-2000:], r.stderr[-2000:]))
    return r


def cli_json(env, *args, expect_rc=0):
    """The CLI with --json: one answer per line."""
    r = cli(env, *(list(args) + ["--json"]), expect_rc=expect_rc)
    return [json.loads(line) for line in r.stdout.splitlines() if line.strip()]


# ---- kcat -----------------------------------------------------------------------------------

def kcat_produce(broker, topic, messages, *extra):
    data = DELIM.join(messages) + DELIM
    r = subprocess.run(["kcat", "-P", "-b", broker, "-t", topic, "-D", DELIM] + list(extra),
                       input=data.encode("utf-8", "surrogateescape"), capture_output=True, timeout=60)
    check(r.returncode == 0, "kcat -P failed: %s" % r.stderr.decode(errors="replace"))


def kcat_produce_bytes(broker, topic, payload, *extra):
    r = subprocess.run(["kcat", "-P", "-b", broker, "-t", topic] + list(extra), input=payload,
                       capture_output=True, timeout=60)
    check(r.returncode == 0, "kcat -P failed: %s" % r.stderr.decode(errors="replace"))


def read_topic(broker, topic):
    """Every message of TOPIC so far (kcat -C -o beginning -e), parsed as JSON."""
    r = subprocess.run(["kcat", "-C", "-b", broker, "-t", topic, "-o", "beginning", "-e", "-q", "-D", DELIM],
                       capture_output=True, timeout=60)
    if r.returncode != 0:
        return []  # the topic may not exist yet
    out = []
    for m in r.stdout.decode().split(DELIM):
        if m.strip():
            out.append(json.loads(m))
    return out


def read_raw(broker, topic):
    r = subprocess.run(["kcat", "-C", "-b", broker, "-t", topic, "-o", "beginning", "-e", "-q", "-D", DELIM],
                       capture_output=True, timeout=60)
    return [m for m in r.stdout.decode(errors="replace").split(DELIM) if m.strip()]


def wait_answers(broker, topic, want, timeout=60, pred=None):
    """Polls TOPIC until PRED(messages) (default: every uuid in WANT answered); the messages."""
    pred = pred or (lambda msgs: set(want) <= {m.get("uuid") for m in msgs})
    deadline = time.time() + timeout
    msgs = []
    while time.time() < deadline:
        msgs = read_topic(broker, topic)
        if pred(msgs):
            return msgs
        time.sleep(0.3)
    got = {m.get("uuid") for m in msgs}
    raise Failure("no answer on %s within %d s for %s" % (topic, timeout, sorted(set(want) - got)[:10]))


def by_uuid(msgs):
    d = {}
    for m in msgs:
        d.setdefault(m.get("uuid"), []).append(m)
    return d


# ---- Redis ----------------------------------------------------------------------------------

def dump(port, exclude=("rc:stats:", "rc:monitor")):
    """Every rc:* key with its value, but the counters and the monitors' heartbeats."""
    out = {}
    for k in sorted(redis_cmd(port, "KEYS", "rc:*") or []):
        if k.startswith(exclude):
            continue
        t = redis_cmd(port, "TYPE", k)
        if t == "string" and k.startswith("rc:bloom:"):  # bitmaps: not text
            v = (redis_cmd(port, "STRLEN", k), redis_cmd(port, "BITCOUNT", k))
        elif t == "string":
            v = redis_cmd(port, "GET", k)
        elif t == "hash":
            v = redis_cmd(port, "HGETALL", k)
        elif t == "set":
            v = sorted(redis_cmd(port, "SMEMBERS", k))
        elif t == "zset":
            v = redis_cmd(port, "ZRANGE", k, "0", "-1", "WITHSCORES")
        else:
            v = redis_cmd(port, "LRANGE", k, "0", "-1")
        out[k] = (t, v)
    return out


class Subscriber:
    """SUBSCRIBE to a channel on a thread (a tiny RESP reader); .messages collects payloads."""

    def __init__(self, port, channel):
        self.messages = []
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.sock.sendall(("*2\r\n$9\r\nSUBSCRIBE\r\n$%d\r\n%s\r\n" % (len(channel), channel)).encode())
        self.f = self.sock.makefile("rb")
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _read(self):
        line = self.f.readline().rstrip(b"\r\n")
        if line[:1] == b"*":
            return [self._read() for _ in range(int(line[1:]))]
        if line[:1] == b"$":
            data = self.f.read(int(line[1:]) + 2)[:-2]
            return data.decode()
        if line[:1] == b":":
            return int(line[1:])
        if not line:
            raise EOFError
        return line.decode()

    def _run(self):
        try:
            while True:
                m = self._read()
                if isinstance(m, list) and m and m[0] == "message":
                    self.messages.append((time.time(), json.loads(m[2])))
        except (OSError, EOFError, ValueError):
            pass

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def wait_for(cond, timeout, what):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return
        time.sleep(0.1)
    raise Failure("timed out after %d s waiting for %s" % (timeout, what))


def strip_volatile(a, *more):
    a = dict(a)
    for k in ("server_time", "uuid") + more:
        a.pop(k, None)
    return a


# ---- tests ----------------------------------------------------------------------------------

@with_kafka
def test_every_request_kind(tmp, procs, broker):
    """crawl, info, stop, stats and the four domain actions, from the CLI and from kcat; answers
    on the firehose (and the app's topic) carry the request's uuid; effects are in Redis."""
    redis_port, _ = start_redis(procs, tmp)
    args = ["--sites", "2", "--pages", "12"]
    web_port, _, _ = start_web(procs, tmp, *args)
    start_monitor(procs, tmp, broker, redis_port)
    env = env_for(broker, redis_port)
    procs.start([SCHEDULER, "--worker-timeout", "3"], os.path.join(tmp, "scheduler.log"), env=env)
    out = os.path.join(tmp, "out")
    procs.start([WORKER, "--out", out, "--delay", "0", "--connect-to", "::127.0.0.1:%d" % web_port,
                 "--allow-net", "127.0.0.0/8"], os.path.join(tmp, "worker.log"), env=env)
    kenv = env_for(broker)  # the CLI talks to Kafka only: no Redis in its environment
    events = Subscriber(redis_port, "rc:events")

    # crawl, with the CLI: the answer names the job and the URL added
    a = cli_json(kenv, "submit", "--crawlid", "viacli", "--maxdepth", "3", "--uuid", "u-crawl-cli",
                 "--appid", "testapp", "http://s0.site.test/")
    check(len(a) == 1 and a[0]["uuid"] == "u-crawl-cli" and a[0]["action"] == "crawl" and a[0]["added"] == 1
          and a[0]["status"] == "accepted" and a[0]["crawlid"] == "viacli", "crawl answer: %s" % a)
    check(redis_cmd(redis_port, "HGET", "rc:job:viacli", "appid") == "testapp", "job viacli not in Redis")
    # crawl, with kcat (Scrapy Cluster's own fields, uuid being redcrawl's extension)
    kcat_produce(broker, "redcrawl.incoming", [json.dumps({
        "uuid": "u-crawl-kcat", "appid": "testapp", "crawlid": "viakcat", "url": "http://s1.site.test/",
        "maxdepth": 3, "priority": 60, "spiderid": "link", "allowed_domains": ["s1.site.test"],
        "attrs": {"k": "v"}})])
    # a crawl without a uuid gets no answer (as in Scrapy Cluster) but takes effect
    kcat_produce(broker, "redcrawl.incoming", [json.dumps({"appid": "testapp", "crawlid": "silent",
                                                           "url": "http://s1.site.test/p/1"})])
    msgs = wait_answers(broker, "redcrawl.outbound_firehose", ["u-crawl-kcat"])
    a = by_uuid(msgs)["u-crawl-kcat"][0]
    check(a["added"] == 1 and a["crawlid"] == "viakcat" and a["url"] == "http://s1.site.test/", "answer: %s" % a)
    wait_for(lambda: redis_cmd(redis_port, "EXISTS", "rc:job:silent") == 1, 20, "the uuid-less crawl")
    check(not any(m.get("crawlid") == "silent" for m in read_topic(broker, "redcrawl.outbound_firehose")),
          "a crawl without uuid was answered")
    app = read_topic(broker, "redcrawl.outbound_testapp")
    check({"u-crawl-cli", "u-crawl-kcat"} <= {m.get("uuid") for m in app}, "per-app topic lacks answers: %s" % app)

    # the crawls run to the end through the scheduler and the worker
    for cid in ("viacli", "viakcat"):
        wait_for(lambda: redis_cmd(redis_port, "HGET", "rc:job:%s" % cid, "state") == "done", 90, "job %s" % cid)
    g = graph(*args)
    want0 = expected_pages(g, ["http://s0.site.test/"], 3, ["site.test"])
    want1 = expected_pages(g, ["http://s1.site.test/"], 3, ["s1.site.test"])
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    got0 = {p["url"] for p in pages if p["crawlid"] == "viacli"}
    got1 = {p["url"] for p in pages if p["crawlid"] == "viakcat"}
    check(got0 == set(want0) and got1 == set(want1), "page sets differ: %d/%d, %d/%d" %
          (len(got0), len(want0), len(got1), len(want1)))

    # info, with the CLI and with kcat
    a = cli_json(kenv, "info", "--appid", "testapp", "--uuid", "u-info-cli", "viacli")[0]
    check(a["uuid"] == "u-info-cli" and a["crawlid"] == "viacli" and a["state"] == "done"
          and a["fetched"] == len(want0) and a["total_pending"] == 0 and a["pending"] == 0
          and "items" in a and "errors" in a and "failed" in a, "info answer: %s" % a)
    r = cli(kenv, "info", "viakcat")
    check("job viakcat: done" in r.stdout and "fetched %d" % len(want1) in r.stdout, "readable info: %s" % r.stdout)
    kcat_produce(broker, "redcrawl.incoming", [json.dumps({"uuid": "u-info-kcat", "appid": "testapp",
                                                           "spiderid": "link", "action": "info"})])
    a = by_uuid(wait_answers(broker, "redcrawl.outbound_firehose", ["u-info-kcat"]))["u-info-kcat"][0]
    check(set(a["crawlids"]) == {"viacli", "viakcat", "silent"} and a["total_crawlids"] == 3
          and a["crawlids"]["viakcat"]["fetched"] == len(want1), "app-wide info: %s" % a)

    # stats, with the CLI (all) and with kcat (Scrapy Cluster's default: uuid + appid only)
    a = cli_json(kenv, "stats", "--uuid", "u-stats-cli", "all")[0]
    check(a["uuid"] == "u-stats-cli" and a["stats"] == "all", "stats answer: %s" % str(a)[:300])
    for section in ("kafka-monitor", "redis-monitor", "crawler", "queues", "processes"):
        check(section in a, "stats all lacks %s" % section)
    pages200 = a["crawler"]["spiders"]["link"]["200"]
    n200 = sum(1 for p in pages if p["status_code"] == 200)
    check(set(pages200) == {"900", "3600", "21600", "43200", "86400", "604800", "lifetime"}
          and pages200["900"] == n200 and pages200["lifetime"] == n200, "pages per status: %s, want %d" %
          (pages200, n200))
    crawls = a["kafka-monitor"]["requests"]["crawl"]["accepted"]
    check(crawls["lifetime"] == 3 and crawls["900"] == 3, "crawl requests counted: %s" % crawls)
    mons = a["processes"]["monitors"]
    check(len(mons) == 1 and mons[0]["pid"] and mons[0]["host"] and mons[0]["ip"]
          and 0 <= mons[0]["heartbeat_age"] < 5, "monitor not listed: %s" % mons)
    ws = a["processes"]["workers"]
    check(len(ws) == 1 and ws[0]["pid"] and ws[0]["host"] and ws[0]["heartbeat_age"] < 10, "workers: %s" % ws)
    check(a["processes"]["scheduler"] and a["processes"]["scheduler"]["pid"], "no scheduler leader listed")
    kcat_produce(broker, "redcrawl.incoming", [json.dumps({"uuid": "u-stats-kcat", "appid": "testapp"}),
                                              json.dumps({"uuid": "u-stats-q", "appid": "testapp", "stats": "queue"}),
                                              json.dumps({"uuid": "u-stats-m", "appid": "testapp", "stats": "machine"}),
                                              json.dumps({"uuid": "u-stats-s", "appid": "testapp", "stats": "spider"})])
    got = by_uuid(wait_answers(broker, "redcrawl.outbound_firehose", ["u-stats-kcat", "u-stats-q", "u-stats-m",
                                                                       "u-stats-s"]))
    check(got["u-stats-kcat"][0]["stats"] == "all", "default stats is not all")
    check(got["u-stats-q"][0]["queues"]["total_backlog"] == 0, "queue stats: %s" % got["u-stats-q"][0])
    check(got["u-stats-m"][0]["machines"]["count"] == 1, "machine stats: %s" % got["u-stats-m"][0])
    check(got["u-stats-s"][0]["spiders"]["link"]["count"] == 1, "spider stats: %s" % got["u-stats-s"][0])

    # domain settings, with the CLI and with kcat; each change is published on rc:events
    a = cli_json(kenv, "domain", "update", "Example.COM", "--hits", "10", "--window", "60", "--scale", "0.5",
                 "--uuid", "u-dom-1")[0]
    check(a["uuid"] == "u-dom-1" and a["action"] == "domain-update" and a["domain"] == "example.com", "%s" % a)
    conf = json.loads(redis_cmd(redis_port, "HGET", "rc:domainconf", "example.com"))
    check(conf == {"hits": 10, "window": 60, "scale": 0.5}, "domainconf: %s" % conf)
    cli_json(kenv, "domain", "blacklist", "bad.test")
    check(redis_cmd(redis_port, "SISMEMBER", "rc:blacklist", "bad.test") == 1, "not blacklisted")
    kcat_produce(broker, "redcrawl.incoming", [
        json.dumps({"uuid": "u-dom-2", "appid": "testapp", "domain": "example.com", "action": "domain-remove"}),
        json.dumps({"uuid": "u-dom-3", "appid": "testapp", "domain": "bad.test", "action": "blacklist-remove"}),
        json.dumps({"uuid": "u-dom-4", "appid": "testapp", "domain": "worse.test", "action": "blacklist-update"})])
    got = by_uuid(wait_answers(broker, "redcrawl.outbound_firehose", ["u-dom-2", "u-dom-3", "u-dom-4"]))
    check(got["u-dom-2"][0]["changed"] and got["u-dom-3"][0]["changed"], "domain answers: %s" % got)
    check(redis_cmd(redis_port, "HEXISTS", "rc:domainconf", "example.com") == 0, "domain-remove did nothing")
    check(redis_cmd(redis_port, "SMEMBERS", "rc:blacklist") == ["worse.test"], "blacklist: %s" %
          redis_cmd(redis_port, "SMEMBERS", "rc:blacklist"))
    wait_for(lambda: len(events.messages) >= 5, 10, "5 events on rc:events")
    events.close()
    check([e["event"] for _, e in events.messages] == ["domain-update", "blacklist-update", "domain-remove",
                                                       "blacklist-remove", "blacklist-update"],
          "events: %s" % events.messages)
    check(events.messages[0][1]["hits"] == 10 and events.messages[0][1]["window"] == 60, "event fields")

    # stop, with kcat, on a job that still has queued URLs (a host the blacklist keeps from the
    # scheduler): purged from the frontier, refused afterwards
    kcat_produce(broker, "redcrawl.incoming", [json.dumps({"uuid": "u-crawl-w", "appid": "testapp",
                                                           "crawlid": "parked", "url": "http://worse.test/"})])
    wait_answers(broker, "redcrawl.outbound_firehose", ["u-crawl-w"])
    kcat_produce(broker, "redcrawl.incoming", [json.dumps({"uuid": "u-stop", "appid": "testapp", "spiderid": "link",
                                                           "action": "stop", "crawlid": "parked"})])
    a = by_uuid(wait_answers(broker, "redcrawl.outbound_firehose", ["u-stop"]))["u-stop"][0]
    check(a["action"] == "stop" and a["crawlid"] == "parked" and a["total_purged"] + int(
        redis_cmd(redis_port, "HGET", "rc:job:parked", "dropped") or 0) == 1, "stop answer: %s" % a)
    check(redis_cmd(redis_port, "HGET", "rc:job:parked", "state") == "stopped", "job not stopped")
    a = cli_json(kenv, "submit", "--crawlid", "parked", "http://worse.test/again", expect_rc=1)[0]
    check(a["status"] == "refused" and "stopped" in a["error"], "a stopped job took a URL: %s" % a)

    # a long wait shows progress on a terminal (script(1) gives the CLI one): no monitor reads
    # the topics of this prefix, so the answer never comes
    r = subprocess.run(["script", "-qec", "%s info --topic-prefix nomonitor --timeout 5 viacli" % REDCRAWL,
                        "/dev/null"], capture_output=True, text=True, env=kenv, timeout=60)
    check("waiting for 1 answer from redcrawl-monitor: 4 s of 5 s" in r.stdout and "no answer" in r.stdout,
          "no progress shown while waiting: %r" % r.stdout[-500:])


@with_kafka
def test_stop_and_expired(tmp, procs, broker):
    """No scheduler: URLs stay queued. `stop` purges them; a job whose `expires` passes is
    purged and announced with an unasked `expired` notification."""
    redis_port, _ = start_redis(procs, tmp)
    start_monitor(procs, tmp, broker, redis_port)
    kenv = env_for(broker)
    for i in range(3):
        cli(kenv, "submit", "--crawlid", "tostop", "--appid", "stopper", "http://h%d.test/" % i)
    check(frontier_len(redis_port, "tostop") == 3, "3 seeds expected")
    a = cli_json(kenv, "stop", "--appid", "stopper", "--uuid", "u-stop-cli", "tostop")[0]
    check(a["uuid"] == "u-stop-cli" and a["total_purged"] == 3 and a["appid"] == "stopper", "stop: %s" % a)
    check(frontier_len(redis_port, "tostop") == 0, "seeds not purged")
    check(redis_cmd(redis_port, "SISMEMBER", "rc:frontier", "tostop") == 0, "stopped job still in rc:frontier")
    check(redis_cmd(redis_port, "HGET", "rc:job:tostop", "state") == "stopped", "state")
    a = cli_json(kenv, "stop", "tostop")[0]  # again, with nothing left to purge
    check(a["total_purged"] == 0 and "error" not in a, "second stop: %s" % a)
    r = cli(kenv, "stop", "nosuchjob", expect_rc=1)
    check("no crawl" in r.stderr, "stopping a missing job: %s" % r.stderr)

    expires = int(time.time()) + 3
    kcat_produce(broker, "redcrawl.incoming", [json.dumps({
        "uuid": "u-exp", "appid": "expapp", "crawlid": "shortlived", "url": "http://e.test/", "expires": expires})])
    wait_answers(broker, "redcrawl.outbound_firehose", ["u-exp"])
    check(redis_cmd(redis_port, "ZSCORE", "rc:expires", "shortlived") == str(expires), "expiry not listed")
    check(redis_cmd(redis_port, "HGET", "rc:job:shortlived", "state") == "running", "job not running")

    def expired(msgs):
        return any(m.get("action") == "expired" and m.get("crawlid") == "shortlived" for m in msgs)
    msgs = wait_answers(broker, "redcrawl.outbound_firehose", [], timeout=20, pred=expired)
    note = [m for m in msgs if m.get("action") == "expired"][0]
    t_note = note["server_time"]
    check(note["appid"] == "expapp" and note["total_expired"] == 1 and note["spiderid"] == "link"
          and expires <= t_note <= expires + 3, "expired notification: %s" % note)
    check(expired(read_topic(broker, "redcrawl.outbound_expapp")), "no notification on the app topic")
    check(redis_cmd(redis_port, "HGET", "rc:job:shortlived", "state") == "expired", "state not expired")
    check(frontier_len(redis_port, "shortlived") == 0, "expired job's URL still queued")
    check(redis_cmd(redis_port, "ZCARD", "rc:expires") == 0, "expiry still listed")
    time.sleep(1.5)
    check(len([m for m in read_topic(broker, "redcrawl.outbound_firehose") if m.get("action") == "expired"]) == 1,
          "expired announced more than once")


def malformed_cases():
    """(message, expected field, reason substring): every refusal names the field and why."""
    ok = {"uuid": "x", "appid": "app", "crawlid": "c1", "url": "http://a.test/"}

    def crawl(uid, **kw):
        d = dict(ok, uuid=uid)
        for k, v in kw.items():
            if v is DROP:
                d.pop(k)
            else:
                d[k] = v
        return json.dumps(d)
    deep = {"a": 1}
    for _ in range(40):
        deep = {"n": deep}
    return [
        ("", "(root)", "empty"),
        ("   \n ", "(root)", "whitespace"),
        ("garbage", "(root)", "not valid JSON"),
        ("[1, 2]", "(root)", "must be a JSON object"),
        ('{"uuid": "m5", "appid": "app"} {}', "(root)", "trailing data"),
        ('{"uuid": "m6", "uuid": "m6b", "appid": "app"}', "(root)", "repeats a key"),
        ('{"foo": 1}', "(root)", "unknown request kind"),
        ('{"uuid": "m8", "appid": "app", "url": "http://a.test/", "crawlid": "c', "(root)", "cut short"),
        (crawl("m9", appid=DROP), "appid", "is required"),
        (crawl("m10", appid="ab"), "appid", "3 to 40 characters"),
        (crawl("m11", appid="my app"), "appid", "letters, digits"),
        (crawl("m12", crawlid="c" * 41), "crawlid", "1 to 40 characters"),
        (crawl("m13", crawlid="a:b"), "crawlid", "':'"),
        (crawl("m14", url="ftp://a.test/x"), "url", "not a \"ftp:\" URL"),
        (crawl("m15", url=""), "url", "empty string"),
        (crawl("m16", url=123), "url", "must be a string, not an integer"),
        (crawl("m17", url="http://"), "url", "not a usable http(s) URL"),
        (crawl("m18", priority=0), "priority", "from 1 to 100, not 0"),
        (crawl("m19", priority="high"), "priority", "not a string"),
        (crawl("m20", priority=5.5), "priority", "not the real number 5.5"),
        (crawl("m21", maxdepth=1001), "maxdepth", "from -1 to 1000, not 1001"),
        (crawl("m22", colour="blue"), "colour", "unknown field"),
        (crawl("m23", allowed_domains="a.test"), "allowed_domains", "array"),
        (crawl("m24", allow_regex=["("]), "allow_regex[0]", ""),
        (crawl("m25", expires=-1), "expires", "not -1"),
        (crawl("m26", useragent="bad\nagent"), "useragent", "printable ASCII"),
        (crawl("m27", attrs=5), "attrs", "must be an object"),
        (crawl("m28", attrs=deep), "attrs", "nested too deeply"),
        (crawl("m29", spiderid=None), "spiderid", "not null"),
        (crawl("m30", uuid=7), "uuid", "must be a string"),
        (json.dumps({"uuid": "m31", "appid": "app", "spiderid": "link", "action": "explode"}), "action",
         "must be one of"),
        (json.dumps({"uuid": "m32", "appid": "app", "spiderid": "link", "action": "stop"}), "crawlid",
         "required for the stop action"),
        (json.dumps({"uuid": "m33", "appid": "app", "action": "info"}), "spiderid", "is required"),
        (json.dumps({"appid": "app", "spiderid": "link", "action": "info"}), "uuid", "is required"),
        (json.dumps({"uuid": "m35", "appid": "app", "stats": "everything"}), "stats", "must be one of"),
        (json.dumps({"uuid": "m36", "appid": "app", "domain": "a.test", "action": "domain-update", "window": 60}),
         "hits", "at least 1"),
        (json.dumps({"uuid": "m37", "appid": "app", "domain": "a.test", "action": "domain-update", "hits": 5,
                     "window": 60, "scale": 2}), "scale", "from 0 to 1, not 2"),
        (json.dumps({"uuid": "m38", "appid": "app", "domain": "exa mple.com", "action": "blacklist-update"}),
         "domain", ""),
        (json.dumps({"uuid": "m39", "appid": "app", "domain": "a.test", "action": "frobnicate"}), "action",
         "must be one of"),
        (json.dumps({"uuid": "m40", "appid": "app", "domain": "a.test", "action": "domain-update", "hits": 5,
                     "window": 999999}), "window", "not 999999"),
        # rules that do not compile: refused like any other invalid value, not as a stopped job's crawl
        (crawl("m41", rules={"fields": {"x": "//a["}}), "rules", "fields.x: invalid XPath"),
        (crawl("m42", rules={"fields": {"t": "//title"}, "colour": 1}), "rules", "colour: unknown key"),
    ]


DROP = object()


@with_kafka
def test_malformed_requests(tmp, procs, broker):
    """45 malformed requests, each answered with the field and the reason, counted as rejected,
    none changing Redis; the consumer keeps going."""
    redis_port, _ = start_redis(procs, tmp)
    _, log = start_monitor(procs, tmp, broker, redis_port)
    kenv = env_for(broker)
    cli(kenv, "submit", "--crawlid", "before", "http://before.test/")
    cli(kenv, "domain", "blacklist", "before.test")
    before = dump(redis_port)
    check("rc:job:before" in before, "dump misses the job")

    cases = malformed_cases()
    messages = [c[0] for c in cases]
    kcat_produce(broker, "redcrawl.incoming", [m for m in messages if m])
    # an empty message and a NULL one (kcat -K: key "k", empty value; -Z sends it as NULL)
    kcat_produce_bytes(broker, "redcrawl.incoming", b"k1:\n", "-K:")
    kcat_produce_bytes(broker, "redcrawl.incoming", b"k2:\n", "-K:", "-Z")
    # invalid UTF-8, and a message over the 1 MiB limit (gzip keeps it under the broker's limit)
    kcat_produce_bytes(broker, "redcrawl.incoming", b'{"uuid": "m-utf8", "appid": "\xff\xfe"}')
    big = json.dumps({"uuid": "m-big", "appid": "app", "crawlid": "big", "url": "http://a.test/",
                      "attrs": {"pad": "x" * (1024 * 1024)}}).encode()
    kcat_produce_bytes(broker, "redcrawl.incoming", big, "-z", "gzip", "-X", "message.max.bytes=4000000")
    expected = [c for c in cases if c[0]] + [("", "(root)", "empty"), (None, "(root)", "empty"),
                                             ("utf8", "(root)", "not valid UTF-8"),
                                             ("big", "(root)", "larger than the limit")]
    n = len(expected)
    check(n >= 30, "too few cases")

    def enough(msgs):
        return len(msgs) >= 2 + n  # the two CLI answers first
    msgs = wait_answers(broker, "redcrawl.outbound_firehose", [], timeout=60, pred=enough)
    answers = msgs[2:]
    check(len(answers) == n, "want %d answers, got %d" % (n, len(answers)))
    for (msg, field, reason), a in zip(expected, answers):
        check("error" in a and a.get("field") == field and reason in a.get("reason", ""),
              "message %r: want field %s with %r, got %s" % ((msg or "")[:80], field, reason, a))
        check(a["error"].startswith("invalid ") and "server_time" in a, "answer shape: %s" % a)
        try:
            doc = json.loads(msg) if msg else None
        except ValueError:
            doc = None
        if field != "(root)" and isinstance(doc, dict) and isinstance(doc.get("uuid"), str):
            check(a["uuid"] == doc["uuid"], "answer carries uuid %s, want %s" % (a["uuid"], doc["uuid"]))
    check(answers[-2]["uuid"] == "m-utf8" or answers[-2]["uuid"] is None, "utf8 answer: %s" % answers[-2])
    check(answers[-1]["uuid"] is None, "an oversized message is refused unparsed: %s" % answers[-1])

    after = dump(redis_port)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    check(not changed, "malformed requests changed Redis: %s" %
          [(k, before.get(k), after.get(k)) for k in changed][:5])
    # the consumer keeps going: a valid request afterwards works
    a = cli_json(kenv, "submit", "--crawlid", "after", "http://after.test/")[0]
    check(a["added"] == 1 and redis_cmd(redis_port, "EXISTS", "rc:job:after") == 1, "valid request after: %s" % a)
    st = cli_json(kenv, "stats", "kafka-monitor")[0]
    check(st["fail"]["lifetime"] == n and st["fail"]["900"] == n, "rejected count: %s" % st["fail"])
    rej = st["requests"]
    check(rej["crawl"]["rejected"]["lifetime"] >= 20 and rej["unknown"]["rejected"]["lifetime"] >= 10
          and rej["domain"]["rejected"]["lifetime"] == 5, "rejected per kind: %s" %
          {k: v["rejected"]["lifetime"] for k, v in rej.items()})
    with open(log) as f:
        check("ERROR" not in f.read(), "the monitor logged errors: see %s" % log)


@with_kafka
def test_redis_outage(tmp, procs, broker):
    """Redis down: the monitor holds the request, answers nothing and consumes nothing past it;
    Redis back (same port, empty): every request is applied once, in order."""
    redis_port, rp = start_redis(procs, tmp)
    mon, log = start_monitor(procs, tmp, broker, redis_port)
    procs.stop(rp)
    kcat_produce(broker, "redcrawl.incoming", [json.dumps({"uuid": "o%d" % i, "appid": "app", "crawlid": "o%d" % i,
                                                           "url": "http://o%d.test/" % i}) for i in range(3)])
    time.sleep(3)
    check(mon.poll() is None, "the monitor died with Redis")
    check(not any(m.get("uuid", "").startswith("o") for m in read_topic(broker, "redcrawl.outbound_firehose")
                  if isinstance(m.get("uuid"), str)), "answered while Redis was down")
    procs.start(["redis-server", "--bind", "127.0.0.1", "--port", str(redis_port), "--save", "", "--appendonly",
                 "no", "--dir", tmp], os.path.join(tmp, "redis2.log"))
    msgs = wait_answers(broker, "redcrawl.outbound_firehose", ["o0", "o1", "o2"], timeout=30)
    check([m["uuid"] for m in msgs] == ["o0", "o1", "o2"], "answers: %s" % [m["uuid"] for m in msgs])
    check(sum(frontier_len(redis_port, "o%d" % i) for i in range(3)) == 3, "seeds after the outage")
    with open(log) as f:
        text = f.read()
    check("retrying every 1 s" in text and "after" in text, "the outage is not in the log")


@with_kafka
def test_broker_restart(tmp, procs, broker):
    """The broker restarted mid-run (same ports, same data): the monitor reconnects by itself and
    each of 20 crawl requests produced around the restart takes effect exactly once."""
    redis_port, _ = start_redis(procs, tmp)
    mon, log = start_monitor(procs, tmp, broker, redis_port)

    def req(i):
        return json.dumps({"uuid": "r%02d" % i, "appid": "app", "crawlid": "job%02d" % i,
                           "url": "http://h%02d.test/" % i})
    kcat_produce(broker, "redcrawl.incoming", [req(i) for i in range(10)])
    t0 = time.time()
    moved = []
    restart = threading.Thread(target=lambda: moved.append(kafka(tmp, "restart")))
    restart.start()
    time.sleep(1.0)  # the broker is going down: kcat gives up while it is, so retry until it is back
    deadline = time.time() + 60
    while True:
        try:
            kcat_produce(broker, "redcrawl.incoming", [req(i) for i in range(10, 15)])
            break
        except Failure:
            check(time.time() < deadline, "kcat could not produce for 60 s")
            time.sleep(0.5)
    restart.join()
    restart_s = time.time() - t0
    check(moved == [broker], "the broker moved: %s" % moved)
    kcat_produce(broker, "redcrawl.incoming", [req(i) for i in range(15, 20)])
    uuids = ["r%02d" % i for i in range(20)]
    msgs = wait_answers(broker, "redcrawl.outbound_firehose", uuids, timeout=90)
    check(mon.poll() is None, "the monitor died")
    answers = by_uuid(msgs)
    for u in uuids:
        added = [a["added"] for a in answers[u]]
        check(added[0] == 1 and all(x == 0 for x in added[1:]), "%s answered %s" % (u, added))
    for i in range(20):
        check(redis_cmd(redis_port, "HGET", "rc:job:job%02d" % i, "pending") == "1", "job%02d pending" % i)
    seeds = [c for c in sorted(redis_cmd(redis_port, "SMEMBERS", "rc:frontier"))
             for _ in frontier_records(redis_port, c)]
    check(seeds == ["job%02d" % i for i in range(20)],
          "seeds not added exactly once: %d" % len(seeds))
    # the CLI works through the restarted broker too, and nothing more is redelivered later
    a = cli_json(env_for(broker), "info", "job19")[0]
    check(a["total_pending"] == 1, "info after restart: %s" % a)
    time.sleep(2)
    final = by_uuid(read_topic(broker, "redcrawl.outbound_firehose"))
    dups = sum(len(v) - 1 for v in final.values())
    incoming = collections.Counter(json.loads(m)["uuid"] for m in read_raw(broker, "redcrawl.incoming"))
    produced_twice = sum(n - 1 for n in incoming.values())
    with open(log) as f:
        text = f.read()
    check("Kafka error" in text, "the broker outage was not logged")
    print("  broker restart took %.1f s; %d duplicate answer(s): %d request(s) produced twice by kcat's retry, "
          "%d redelivered to the monitor" % (restart_s, dups, produced_twice, dups - produced_twice), flush=True)


@with_kafka
def test_rate_change_reaches_workers(tmp, procs, broker):
    """A domain-update posted on Kafka throttles a running worker within a second, and a
    domain-remove lifts it (the test web server's request log)."""
    redis_port, _ = start_redis(procs, tmp)
    web_port, log, _ = start_web(procs, tmp, "--sites", "1", "--pages", "400", "--latency-ms", "10")
    start_monitor(procs, tmp, broker, redis_port)
    env = env_for(broker, redis_port)
    procs.start([SCHEDULER, "--worker-timeout", "3"], os.path.join(tmp, "scheduler.log"), env=env)
    procs.start([WORKER, "--out", os.path.join(tmp, "out"), "--delay", "0.02", "--connect-to",
                 "::127.0.0.1:%d" % web_port, "--allow-net", "127.0.0.0/8"], os.path.join(tmp, "worker.log"), env=env)
    kenv = env_for(broker)
    # unlimited depth (an embedded-mode convenience) keeps the worker busy long enough
    cli(env_for(None, redis_port), "submit", "--crawlid", "rate", "--maxdepth", "-1", "http://s0.site.test/")
    wait_for(lambda: len(read_requests(log)) >= 20, 20, "20 requests")
    cli(kenv, "domain", "update", "s0.site.test", "--hits", "2", "--window", "1")
    t_slow = time.time()
    time.sleep(4)
    t_removing = time.time()  # the removal takes effect between this and the CLI's answer
    cli(kenv, "domain", "remove", "s0.site.test")
    t_fast = time.time()
    time.sleep(2)
    rows = [r for r in read_requests(log) if r[3] != "/robots.txt"]
    starts = sorted(r[0] / 1e6 for r in rows)
    before = [t for t in starts if t_slow - 2 <= t < t_slow]
    throttled = [t for t in starts if t_slow + 1 <= t < t_removing]
    after = [t for t in starts if t_fast + 1 <= t < t_fast + 2]
    check(len(before) >= 10, "the crawl was too slow to show a change: %d requests/2 s" % len(before))
    # hits 2 per 1 s window: at most 2 starts in any second (one more may straddle the change)
    worst = max([sum(1 for u in throttled if t <= u < t + 1) for t in throttled] or [0])
    bound = 2 * (t_removing - t_slow - 1) + 2
    check(worst <= 3 and len(throttled) <= bound, "not throttled within a second: %d in %.1f s, %d in one second" %
          (len(throttled), t_removing - t_slow - 1, worst))
    check(len(after) >= 5 or redis_cmd(redis_port, "HGET", "rc:job:rate", "state") == "done",
          "the limit was not lifted: %d requests in the second after domain-remove" % len(after))
    print("  requests/s: %.1f before, %.1f throttled (2 hits/1 s), %d in the second after the removal" %
          (len(before) / 2, len(throttled) / (t_removing - t_slow - 1), len(after)), flush=True)


@with_kafka
def test_crawled_firehose(tmp, procs, broker):
    """Workers with --firehose produce every stored page record and item to
    redcrawl.crawled_firehose (key = _id): the stream holds exactly the pages of the crawl."""
    redis_port, _ = start_redis(procs, tmp)
    web_port, _, _ = start_web(procs, tmp, "--sites", "2", "--pages", "25")
    env = env_for(broker, redis_port)
    procs.start([SCHEDULER, "--worker-timeout", "3"], os.path.join(tmp, "scheduler.log"), env=env)
    out = os.path.join(tmp, "out")
    for i in range(2):
        procs.start([WORKER, "--out", out, "--firehose", "--delay", "0", "--connect-to", "::127.0.0.1:%d" % web_port],
                    os.path.join(tmp, "worker%d.log" % i), env=env)
    cli(env_for(None, redis_port), "submit", "--crawlid", "hose", "--maxdepth", "-1", "http://s0.site.test/")
    wait_for(lambda: redis_cmd(redis_port, "HGET", "rc:job:hose", "state") == "done", 60, "the crawl to finish")
    pages = [json.loads(line) for line in open(os.path.join(out, "pages.jsonl"))]
    stream = read_topic(broker, "redcrawl.crawled_firehose")
    check(len(pages) > 20, "too few pages crawled: %d" % len(pages))
    got = sorted(m["_id"] for m in stream if m.get("crawlid") == "hose")
    want = sorted(p["_id"] for p in pages)
    check(got == want, "firehose has %d records, pages.jsonl %d (missing %s)" %
          (len(got), len(want), sorted(set(want) - set(got))[:3]))
    keys = subprocess.run(["kcat", "-C", "-b", broker, "-t", "redcrawl.crawled_firehose", "-o", "beginning", "-e",
                           "-q", "-f", "%k\n"], capture_output=True, text=True, timeout=60).stdout.split()
    check(sorted(keys) == want, "message keys are not the documents' _id")


@with_kafka
def test_embedded_mode_same_answers(tmp, procs, broker):
    """The CLI without Kafka applies the same requests to Redis itself: the same answers (but
    uuid and server_time), the same validation."""
    redis_port, _ = start_redis(procs, tmp)
    start_monitor(procs, tmp, broker, redis_port)
    kenv, renv = env_for(broker), env_for(None, redis_port)
    for cid in ("e1", "e2"):
        cli(renv, "submit", "--crawlid", cid, "http://a-%s.test/" % cid, "http://b-%s.test/" % cid)
    # depth beyond Scrapy Cluster's 3: the same in embedded mode and over Kafka
    r = cli(renv, "submit", "--crawlid", "legacy", "--maxdepth", "-1", "http://s1.site.test/")
    check("1 new URL" in r.stdout, "legacy submit: %s" % r.stdout)
    spec = json.loads(redis_cmd(redis_port, "HGET", "rc:job:legacy", "spec"))
    check(spec["maxdepth"] == -1, "maxdepth -1 not applied: %s" % spec)
    r = cli(kenv, "submit", "--crawlid", "legacy2", "--maxdepth", "-1", "http://s1.site.test/")
    spec = json.loads(redis_cmd(redis_port, "HGET", "rc:job:legacy2", "spec") or "{}")
    check(spec.get("maxdepth") == -1, "Kafka mode did not take maxdepth -1: %s %s" % (r.stderr, spec))

    pairs = [
        (["info", "e1"], ["info", "e1"]),
        (["info"], ["info"]),
        (["info", "nosuch"], ["info", "nosuch"]),
        (["stop", "e1"], ["stop", "e2"]),
        (["domain", "update", "x.test", "--hits", "3", "--window", "10"],
         ["domain", "update", "x.test", "--hits", "3", "--window", "10"]),
        (["domain", "blacklist", "y.test"], ["domain", "blacklist", "z.test"]),
        (["submit", "--raw", '{"uuid": "bad", "appid": "ab"}'], ["submit", "--raw", '{"uuid": "bad", "appid": "ab"}']),
        (["submit", "--crawlid", "c", "--priority", "101", "http://a.test/"],
         ["submit", "--crawlid", "c", "--priority", "101", "http://a.test/"]),
    ]
    for emb, kaf in pairs:
        a = cli_json(renv, *emb, expect_rc=None)
        b = cli_json(kenv, *kaf, expect_rc=None)
        check(len(a) == 1 and len(b) == 1, "%s: %s / %s" % (emb, a, b))
        a, b = strip_volatile(a[0]), strip_volatile(b[0])
        if emb[0] == "stop":
            a.pop("crawlid"), b.pop("crawlid")
        if emb[0] == "domain" and emb[1] == "blacklist":
            a.pop("domain"), b.pop("domain")
        check(a == b, "%s: embedded and Kafka answers differ:\n  %s\n  %s" % (emb, a, b))
    check(redis_cmd(redis_port, "HGET", "rc:job:e2", "state") == "stopped", "stop via Kafka")
    # stats: the same sections and windows either way
    a = cli_json(renv, "stats", "all")[0]
    b = cli_json(kenv, "stats", "all")[0]
    check(set(a) == set(b) and set(a["kafka-monitor"]) == set(b["kafka-monitor"]), "stats differ in shape")
    check(a["kafka-monitor"]["fail"]["lifetime"] == 2, "embedded rejections not counted: %s" %
          a["kafka-monitor"]["fail"])
    r = cli(renv, "stats", "queue")
    check('"total_backlog": 2' in r.stdout, "readable stats: %s" % r.stdout[:500])  # legacy, legacy2


@with_kafka
def test_attrs_and_unlimited_depth(tmp, procs, broker):
    """A crawl request over Kafka with `attrs` and maxdepth -1 (Scrapy Cluster capped maxdepth at
    3; redcrawl takes what embedded mode takes): every page record carries the attrs, and the
    whole site is crawled, deeper than 3."""
    redis_port, _ = start_redis(procs, tmp)
    args = ["--sites", "1", "--pages", "60"]
    web_port, _, _ = start_web(procs, tmp, *args)
    start_monitor(procs, tmp, broker, redis_port)
    env = env_for(broker, redis_port)
    procs.start([SCHEDULER, "--worker-timeout", "3"], os.path.join(tmp, "scheduler.log"), env=env)
    out = os.path.join(tmp, "out")
    procs.start([WORKER, "--out", out, "--delay", "0", "--connect-to", "::127.0.0.1:%d" % web_port],
                os.path.join(tmp, "worker.log"), env=env)
    attrs = {"campaign": "spring", "n": 2, "tags": ["a", "b"]}
    kcat_produce(broker, "redcrawl.incoming", [json.dumps({
        "uuid": "u-deep", "appid": "testapp", "crawlid": "deep", "url": "http://s0.site.test/", "maxdepth": -1,
        "domain_max_pages": 5000, "attrs": attrs})])
    a = by_uuid(wait_answers(broker, "redcrawl.outbound_firehose", ["u-deep"]))["u-deep"][0]
    check(a.get("status") == "accepted", "maxdepth -1 over Kafka refused: %s" % a)
    wait_for(lambda: redis_cmd(redis_port, "HGET", "rc:job:deep", "state") == "done", 60, "the deep crawl")
    want = expected_pages(graph(*args), ["http://s0.site.test/"], -1, ["site.test"])
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    got = {p["url"] for p in pages}
    check(got == set(want), "page set over Kafka differs: %d of %d" % (len(got & set(want)), len(want)))
    deepest = max(p["depth"] for p in pages)
    check(deepest > 3, "nothing deeper than 3 was crawled (deepest %d)" % deepest)
    missing = [p["url"] for p in pages if p.get("attrs") != attrs]
    check(not missing, "%d page records lack the request's attrs, e.g. %s" % (len(missing), missing[:2]))
    print("  %d pages, deepest %d, attrs on every record" % (len(pages), deepest))


@with_kafka
def test_sasl_listener(tmp, procs, broker):
    """The monitor and the CLI authenticate to the broker's SASL/PLAIN over TLS listener with settings from
    REDCRAWL_KAFKA_CONFIG and REDCRAWL_KAFKA_PASSWORD_FILE; a wrong password is refused with a
    clear error; the password shows in no log or output."""
    d = os.path.join(tmp, "kafka", "kafka")
    with open(os.path.join(d, "sport")) as f:
        sasl = "127.0.0.1:%s" % f.read().strip()
    with open(os.path.join(d, "sasl-password")) as f:
        secret = f.read().strip()
    check(len(secret) >= 16, "no SASL password was made")
    auth = {"REDCRAWL_KAFKA_CONFIG": os.path.join(d, "client-sasl.properties"),
            "REDCRAWL_KAFKA_PASSWORD_FILE": os.path.join(d, "sasl-password")}
    redis_port, _ = start_redis(procs, tmp)
    saved = dict(os.environ)
    os.environ.update(auth)  # start_monitor builds its env from os.environ
    try:
        start_monitor(procs, tmp, sasl, redis_port)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    kenv = dict(env_for(sasl), **auth)
    a = cli_json(kenv, "stats", "--uuid", "u-sasl", "all")[0]
    check(a["uuid"] == "u-sasl" and a["stats"] == "all", "stats over SASL: %s" % str(a)[:300])
    # Without credentials the SASL listener is not served; with a wrong password, a clear refusal.
    bad = os.path.join(tmp, "wrong-password")
    with open(bad, "w") as f:
        f.write("wrong-" + secret + "\n")
    r = cli(dict(kenv, REDCRAWL_KAFKA_PASSWORD_FILE=bad), "stats", "--uuid", "u-bad", "all", expect_rc=None,
            timeout=60)
    check(r.returncode != 0 and "auth" in (r.stdout + r.stderr).lower(),
          "a wrong SASL password was not refused clearly: %d %s" % (r.returncode, (r.stdout + r.stderr)[-500:]))
    # The listener is TLS: a CA that did not sign the broker's certificate is refused, and said so.
    other_ca = os.path.join(tmp, "other-ca.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    "/CN=not the test CA", "-keyout", os.path.join(tmp, "other-ca.key"), "-out", other_ca],
                   check=True, capture_output=True, timeout=60)
    with open(auth["REDCRAWL_KAFKA_CONFIG"]) as f:
        props = re.sub(r"(?m)^ssl\.ca\.location=.*$", "ssl.ca.location=" + other_ca, f.read())
    bad_conf = os.path.join(tmp, "client-other-ca.properties")
    with open(bad_conf, "w") as f:
        f.write(props)
    t = cli(dict(kenv, REDCRAWL_KAFKA_CONFIG=bad_conf), "stats", "--uuid", "u-tls", "all", expect_rc=None,
            timeout=60)
    tls_err = [l for l in (t.stdout + t.stderr).splitlines() if "certificate verify failed" in l or "SSL" in l]
    check(t.returncode != 0 and tls_err, "an unverifiable broker certificate was not refused clearly: %d %s" %
          (t.returncode, (t.stdout + t.stderr)[-500:]))
    texts = [r.stdout, r.stderr, t.stdout, t.stderr]
    for name in os.listdir(tmp):
        if name.endswith(".log"):
            with open(os.path.join(tmp, name), errors="replace") as f:
                texts.append(f.read())
    check(not any(secret in t for t in texts), "the SASL password leaked into a log or output")
    print("  stats answered over SASL/PLAIN + TLS at %s; wrong password refused: %s; wrong CA refused: %s" %
          (sasl, [l for l in (r.stdout + r.stderr).splitlines() if "auth" in l.lower()][:1], tls_err[0][-200:]))


if __name__ == "__main__":
    run_tests([test_every_request_kind, test_stop_and_expired, test_malformed_requests, test_redis_outage,
               test_broker_restart, test_rate_change_reaches_workers, test_embedded_mode_same_answers,
               test_crawled_firehose, test_sasl_listener,
               test_attrs_and_unlimited_depth])
