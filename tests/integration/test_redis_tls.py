#!/usr/bin/env python3
"""Redis over TLS (rediss://) against a real redis-server that has no plain port at all
(`--port 0 --tls-port P`, a test CA from `scripts/services.sh tls`, client certificates
required, an ACL user with a password): a fleet started by hand crawls the exact page set
through a Redis restart, `redcrawl crawl`, `submit` and `status` work, a wrong CA is refused
with a message naming the verify failure, and the password shows in no log or output."""
import collections
import glob
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from harness import (REDCRAWL, SCHEDULER, WORKER, Failure, _read_reply, check, expected_pages,  # noqa: E402
                     free_port, graph, read_pages, run_tests, start_web)

SOURCE = os.environ.get("REDCRAWL_SOURCE") or os.path.join(os.path.dirname(__file__), "..", "..")
WEB = os.path.join(os.path.dirname(REDCRAWL), "..", "web", "redcrawl-web")
SERVICES = os.path.join(os.path.abspath(SOURCE), "scripts", "services.sh")
SECRET = "tls-PW-9c2d41"


def make_tls(tmp, name):
    """A test CA and certificates it signed (server: 127.0.0.1 and localhost; a client one)."""
    r = subprocess.run([SERVICES, "tls", os.path.join(tmp, name)], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise Failure("services.sh tls failed: %s" % r.stderr[-1000:])
    return r.stdout.strip()


class TlsRedis:
    """redis-server with only a TLS port, AOF on (a restart keeps the crawl), ACL user crawler."""

    def __init__(self, procs, tmp, tls):
        self.procs, self.tmp, self.tls = procs, tmp, tls
        self.port = free_port()
        self.data = os.path.join(tmp, "redis-data")
        os.makedirs(self.data)
        self.start()

    def start(self):
        t = self.tls
        self.p = self.procs.start(
            ["redis-server", "--bind", "127.0.0.1", "--port", "0", "--tls-port", str(self.port),
             "--tls-cert-file", t + "/server.crt", "--tls-key-file", t + "/server.key",
             "--tls-ca-cert-file", t + "/ca.pem", "--tls-auth-clients", "yes",
             "--save", "", "--appendonly", "yes", "--appendfsync", "everysec", "--dir", self.data,
             "--requirepass", "admin-" + SECRET, "--user", "crawler", "on", ">" + SECRET, "~*", "&*", "+@all"],
            os.path.join(self.tmp, "redis.log"))
        deadline = time.time() + 15
        while time.time() < deadline:
            if self.cmd("PING") == "PONG":
                return
            time.sleep(0.1)
        raise Failure("redis-server with TLS did not start: see %s/redis.log" % self.tmp)

    def restart(self):
        self.procs.stop(self.p)  # SIGTERM: Redis writes its AOF out before it exits
        self.start()

    def cmd(self, *args):
        """One command over TLS, as the ACL user (the test's own client, with the client cert)."""
        ctx = ssl.create_default_context(cafile=self.tls + "/ca.pem")
        ctx.load_cert_chain(self.tls + "/client.crt", self.tls + "/client.key")
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=5) as raw:
                with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                    out = ""
                    for c in [("AUTH", "crawler", SECRET), args]:
                        out += "*%d\r\n" % len(c) + "".join("$%d\r\n%s\r\n" % (len(str(a).encode()), a) for a in c)
                    s.sendall(out.encode())
                    f = s.makefile("rb")
                    if _read_reply(f) != "OK":
                        return None
                    return _read_reply(f)
        except (OSError, ssl.SSLError):
            return None

    def url(self):
        return "rediss://crawler:%s@127.0.0.1:%d" % (SECRET, self.port)


def tls_env(tls, ca=None, **more):
    env = dict(os.environ, REDCRAWL_REDIS_CACERT=ca or tls + "/ca.pem", REDCRAWL_REDIS_CERT=tls + "/client.crt",
               REDCRAWL_REDIS_KEY=tls + "/client.key")
    env.update(more)
    return env


def no_secret_anywhere(tmp, texts):
    leaks = [t[:80] for t in texts if SECRET in t]
    for path in glob.glob(os.path.join(tmp, "**", "*"), recursive=True):
        if os.path.isfile(path) and "redis-data" not in path:
            with open(path, errors="replace") as f:
                if SECRET in f.read():
                    leaks.append(path)
    check(not leaks, "the password leaked into: %s" % leaks)


def check_exact(pages, want, label):
    urls = [p["url"] for p in pages]
    dups = [u for u, n in collections.Counter(urls).items() if n > 1]
    check(not dups, "%s: %d URLs stored more than once, e.g. %s" % (label, len(dups), dups[:3]))
    missing, extra = set(want) - set(urls), set(urls) - set(want)
    check(not missing and not extra, "%s: %d missing (e.g. %s), %d unexpected (e.g. %s)" %
          (label, len(missing), sorted(missing)[:3], len(extra), sorted(extra)[:3]))


def wait_for(cond, secs, what):
    deadline = time.time() + secs
    while time.time() < deadline:
        if cond():
            return
        time.sleep(0.2)
    raise Failure("timed out after %ds waiting for %s" % (secs, what))


def log_text(path):
    with open(path, errors="replace") as f:
        return f.read()


def test_fleet_over_tls_through_restart(tmp, procs):
    """A scheduler and two workers over rediss:// (client certificate, ACL user): the exact page
    set, each page once, although Redis restarts mid-crawl; `status` and `info` read it too."""
    args = ["--sites", "3", "--pages", "60", "--latency-ms", "20"]
    web_port, _, _ = start_web(procs, tmp, *args)
    tls = make_tls(tmp, "tls")
    redis = TlsRedis(procs, tmp, tls)
    env = tls_env(tls, REDCRAWL_REDIS=redis.url())
    procs.start([SCHEDULER, "--worker-timeout", "5"], os.path.join(tmp, "scheduler.log"), env=env)
    out = os.path.join(tmp, "out")
    for i in range(2):
        procs.start([WORKER, "--out", out, "--delay", "0.02", "--heartbeat", "0.5", "--connect-to",
                     "::127.0.0.1:%d" % web_port, "--allow-net", "127.0.0.0/8"],
                    os.path.join(tmp, "worker%d.log" % i), env=env)
    r = subprocess.run([REDCRAWL, "submit", "--crawlid", "tls", "--maxdepth", "-1", "http://s0.site.test/"],
                       capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0 and "1 new URL" in r.stdout, "submit over TLS failed: %s %s" % (r.stdout, r.stderr))
    wait_for(lambda: int(redis.cmd("HGET", "rc:job:tls", "fetched") or 0) >= 20, 90, "20 pages")
    before = int(redis.cmd("HGET", "rc:job:tls", "fetched") or 0)
    redis.restart()
    wait_for(lambda: redis.cmd("HGET", "rc:job:tls", "state") == "done", 120, "the job to finish after the restart")
    for i in range(2):  # both workers came back on their own, through new TLS connections
        text = log_text(os.path.join(tmp, "worker%d.log" % i))
        check(text.count("connected to Redis") >= 2, "worker%d did not reconnect: %s" % (i, text[-1500:]))
    g = graph(*args)
    want = expected_pages(g, ["http://s0.site.test/"], -1, ["site.test"])
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check_exact(pages, want, "fleet over TLS")
    r = subprocess.run([REDCRAWL, "status", "--json", "--count", "1"], capture_output=True, text=True, env=env,
                       timeout=30)
    check(r.returncode == 0, "status over TLS failed: %s" % r.stderr)
    doc = json.loads(r.stdout)
    check(len(doc["workers"]) == 2, "status shows %d workers, want 2" % len(doc["workers"]))
    ips = {w.get("ip") for w in doc["workers"]}
    check(ips == {"127.0.0.1"}, "workers' ip (their TLS connection's address) is %s" % ips)
    web_out = os.path.join(tmp, "web.out")
    procs.start([WEB, "--port", "0"], web_out, env=env)
    wait_for(lambda: "redcrawl-web: http://" in log_text(web_out), 30, "redcrawl-web")
    api = log_text(web_out).split("redcrawl-web: ")[1].split()[0] + "api/status"
    with urllib.request.urlopen(api, timeout=10) as resp:
        st = json.loads(resp.read())
    check(len(st["workers"]) == 2, "redcrawl-web over TLS shows %d workers" % len(st["workers"]))
    r = subprocess.run([REDCRAWL, "info", "--json", "tls"], capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0 and json.loads(r.stdout)["fetched"] == len(want), "info over TLS: %s %s" %
          (r.stdout, r.stderr))
    no_secret_anywhere(tmp, [r.stdout, r.stderr])
    print("  %d pages over TLS, Redis restarted after %d; status and info read it" % (len(pages), before))


def test_crawl_cli_over_tls(tmp, procs):
    """`redcrawl crawl --redis rediss://...`: its own connection, the scheduler, the workers
    and redcrawl-web all go through TLS; nothing shows the password, not even `ps`."""
    args = ["--sites", "1", "--pages", "40"]
    web_port, _, _ = start_web(procs, tmp, *args)
    tls = make_tls(tmp, "tls")
    redis = TlsRedis(procs, tmp, tls)
    cmd = [REDCRAWL, "crawl", "--redis", redis.url(), "--out", os.path.join(tmp, "out"), "--delay", "0",
           "--quiet", "--maxdepth", "-1", "--connect-to", "::127.0.0.1:%d" % web_port, "http://s0.site.test/"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=tls_env(tls))
    cmdlines = []
    while p.poll() is None:
        for d in glob.glob("/proc/[0-9]*/cmdline"):
            if d == "/proc/%d/cmdline" % p.pid:
                continue
            try:
                with open(d, "rb") as f:
                    line = f.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if line != " ".join(cmd) + " ":  # a child between fork and exec shows crawl's line
                cmdlines.append(line)
        time.sleep(0.2)
    out, err = p.communicate(timeout=120)
    check(p.returncode == 0, "crawl over TLS failed (%d): %s %s" % (p.returncode, out, err[-2000:]))
    want = expected_pages(graph(*args), ["http://s0.site.test/"], -1, ["site.test"])
    pages = read_pages(os.path.join(tmp, "out", "pages.jsonl"))
    check_exact(pages, want, "crawl over TLS")
    # redcrawl-web connects at start and exits if it cannot: its address line means it could.
    web_log = log_text(os.path.join(tmp, "out", "logs", "web.log"))
    check("redcrawl-web: http://" in web_log, "redcrawl-web did not start over rediss://: %s" % web_log[-800:])
    no_secret_anywhere(tmp, [out, err] + cmdlines)
    print("  %d pages; %d command lines checked" % (len(pages), len(cmdlines)))


def test_wrong_ca_refused(tmp, procs):
    """A client that trusts another CA stops at the handshake, saying why; a worker keeps
    retrying (and says why each time) instead of dying or talking without verification."""
    web_port, _, _ = start_web(procs, tmp, "--sites", "1", "--pages", "5")
    tls = make_tls(tmp, "tls")
    other = make_tls(tmp, "other")
    redis = TlsRedis(procs, tmp, tls)
    env = tls_env(tls, ca=other + "/ca.pem")
    r = subprocess.run([REDCRAWL, "crawl", "--redis", redis.url(), "--out", os.path.join(tmp, "out"), "--quiet",
                        "--connect-to", "::127.0.0.1:%d" % web_port, "http://s0.site.test/"],
                       capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode != 0, "a crawl trusting another CA went ahead")
    check("certificate verify failed" in r.stderr and "REDCRAWL_REDIS_CACERT" in r.stderr,
          "the refusal does not name the verify failure: %s" % r.stderr[-600:])
    print("  crawl: %s" % r.stderr.strip().splitlines()[-1][:220])
    r = subprocess.run([REDCRAWL, "status", "--redis", redis.url(), "--count", "1"], capture_output=True, text=True,
                       env=env, timeout=30)
    check(r.returncode != 0 and "certificate verify failed" in r.stderr, "status: %s" % r.stderr[-400:])
    # A name the certificate does not carry is refused the same way.
    r = subprocess.run([REDCRAWL, "status", "--redis", redis.url(), "--count", "1"], capture_output=True, text=True,
                       env=tls_env(tls, REDCRAWL_REDIS_SERVERNAME="redis.example.test"), timeout=30)
    check(r.returncode != 0 and "hostname mismatch" in r.stderr, "wrong name: %s" % r.stderr[-400:])
    # A worker that starts right and then meets a server it must not trust keeps refusing it.
    good = tls_env(tls, REDCRAWL_REDIS=redis.url())
    wlog = os.path.join(tmp, "worker.log")
    w = procs.start([WORKER, "--out", os.path.join(tmp, "wout"), "--connect-to", "::127.0.0.1:%d" % web_port,
                     "--allow-net", "127.0.0.0/8"], wlog, env=good)
    wait_for(lambda: "connected to Redis" in log_text(wlog), 30, "the worker to connect")
    procs.stop(redis.p)
    redis.tls = other  # the same port now serves a certificate of the other CA
    redis.start()
    wait_for(lambda: log_text(wlog).count("certificate verify failed") >= 2, 30,
             "the worker to refuse the other server twice")
    check(w.poll() is None, "the worker died instead of retrying")
    check(log_text(wlog).count("connected to Redis") == 1, "the worker talked to an untrusted server")
    no_secret_anywhere(tmp, [r.stdout, r.stderr])
    line = [l for l in log_text(wlog).splitlines() if "certificate verify failed" in l][0]
    print("  worker: %s" % line[line.find("cannot"):][:200])


if __name__ == "__main__":
    run_tests([test_fleet_over_tls_through_restart, test_crawl_cli_over_tls, test_wrong_ca_refused])
