#!/usr/bin/env python3
"""The SSRF guard, tried as an attacker would: a page on evil.a.test links to names that its
DNS points at the machine itself (internal.evil.a.test, redis.evil.a.test:6379), redirects there,
and the crawl gets seeds that are special addresses in every spelling. None of them may be
connected to unless --allow-net lets them in; each is recorded with its reason, once.

The whole test runs inside a network namespace it creates with nothing but a loopback interface
(and removes afterwards), so a regression cannot put a packet anywhere else. Inside it the test
web answers on every loopback address; the attacker's site is reached at 127.0.0.5, the one
address allowed, and the "internal" names at 127.0.0.1."""
import http.server
import json
import os
import subprocess
import sys
import threading
import urllib.parse

sys.path.insert(0, os.path.dirname(__file__))
from harness import REDCRAWL, Failure, check, run_tests  # noqa: E402
from webfiles import TestHTTPServer  # noqa: E402

NETNS_MARK = "REDCRAWL_SSRF_NETNS"


class LoggingWeb:
    """Serves fixed pages by Host and path on 0.0.0.0 (inside the namespace: loopback only) and
    logs (local address, host, path) of every request."""

    def __init__(self, routes, port=0):
        self.routes, self.log = routes, []
        web = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                host = (self.headers.get("Host") or "").split(":")[0].lower()
                path = urllib.parse.urlsplit(self.path).path
                web.log.append((self.connection.getsockname()[0], host, path))
                status, headers, body = web.routes.get((host, path), (404, {}, b"not here"))
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = TestHTTPServer(("0.0.0.0", port), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def html(*links):
    return (b"<html><head><title>t</title></head><body>" +
            b"".join(b'<a href="%s">x</a>' % l.encode() for l in links) + b"</body></html>")


def site(port):
    page = {"Content-Type": "text/html"}
    return {
        ("evil.a.test", "/"): (200, page, html("/public", "/go", "http://internal.evil.a.test/admin",
                                               "http://redis.evil.a.test:6379/")),
        ("evil.a.test", "/public"): (200, page, html()),
        ("evil.a.test", "/go"): (302, {"Location": "http://internal.evil.a.test/secret2"}, b""),
        ("internal.evil.a.test", "/admin"): (200, page, b"<html><body>SECRET-ADMIN-TOKEN</body></html>"),
        ("internal.evil.a.test", "/secret2"): (200, page, b"<html><body>SECRET-2</body></html>"),
    }


def attack_seeds(port):
    return ["http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", "http://[::1]:%d/" % port,
            "http://[::ffff:127.0.0.1]:%d/" % port, "http://0.0.0.0:%d/" % port, "http://2130706433:%d/" % port,
            "http://0x7f.1:%d/" % port, "http://localhost:%d/" % port]


def crawl(tmp, web, allow, extra_seeds=(), resolve=False):
    """resolve: the names get their addresses from the worker's DNS cache (--resolve, as a DNS
    answer would put them there; web listens on port 80) instead of --connect-to."""
    out = os.path.join(tmp, "out")
    env = dict(os.environ)
    env.pop("REDCRAWL_ALLOW_NET", None)  # only what this test says
    cmd = [REDCRAWL, "crawl", "--out", out, "--quiet", "--delay", "0", "--workers", "1"]
    if resolve:
        for r in ["evil.a.test:80:127.0.0.5", "internal.evil.a.test:80:127.0.0.1", "redis.evil.a.test:6379:127.0.0.1"]:
            cmd += ["--resolve", r]
    else:
        for c in ["evil.a.test:80:127.0.0.5:%d" % web.port, "internal.evil.a.test:80:127.0.0.1:%d" % web.port,
                  "redis.evil.a.test:6379:127.0.0.1:%d" % web.port]:
            cmd += ["--connect-to", c]
    for a in allow:
        cmd += ["--allow-net", a]
    cmd += ["http://evil.a.test/"] + list(extra_seeds)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    if r.returncode != 0:
        raise Failure("redcrawl crawl exited %d\nstdout:\n%s\nstderr:\n%s" % (r.returncode, r.stdout, r.stderr[-3000:]))
    with open(os.path.join(out, "pages.jsonl")) as f:
        rows = [json.loads(line) for line in f]
    pages = {p["url"]: p for p in rows}
    check(len(pages) == len(rows), "a URL was recorded twice: %d records, %d URLs" % (len(rows), len(pages)))
    return pages


def test_refused_before_any_connection(tmp, procs):
    web = LoggingWeb(site(0))
    try:
        pages = crawl(tmp, web, ["127.0.0.5/32"], attack_seeds(web.port))
    finally:
        web.close()
    hits = sorted(set(web.log))
    print("  requests the server saw: %s" % hits)
    check(all(ip == "127.0.0.5" and host == "evil.a.test" for ip, host, _ in web.log),
          "the guard let a connection through: %s" % [h for h in hits if h[1] != "evil.a.test"])
    check(("127.0.0.5", "evil.a.test", "/public") in web.log, "the allowed site was not crawled: %s" % hits)
    blocked = {u: p for u, p in pages.items() if str(p.get("error", "")).startswith("blocked:")}
    for u, p in sorted(blocked.items()):
        print("  %-48s %s" % (u, p["error"]))
    want = ["http://internal.evil.a.test/admin", "http://redis.evil.a.test:6379/",
            "http://internal.evil.a.test/secret2"]
    missing = [u for u in want if u not in blocked]
    check(not missing, "not recorded as blocked: %s (records: %s)" % (missing, sorted(pages)))
    # Every attack seed is recorded as blocked, in the form the URL normaliser gives it: the
    # legacy spellings 2130706433 and 0x7f.1 both become 127.0.0.1 (one URL, deduplicated).
    seeds = {"http://127.0.0.1:%d/" % web.port if ("2130706433" in u or "0x7f" in u) else
             u.replace("[::ffff:127.0.0.1]", "[::ffff:7f00:1]") for u in attack_seeds(web.port)}
    missing = sorted(seeds - set(blocked))
    check(not missing, "attack seeds not recorded as blocked: %s (blocked: %s)" % (missing, sorted(blocked)))
    check(len(blocked) == len(want) + len(seeds), "unexpected blocked records: %s" % sorted(blocked))
    check(not any("SECRET" in json.dumps(p) for p in pages.values()), "a secret body was stored")
    retried = [u for u, p in blocked.items() if p.get("attempt") != 1]  # 1 = the first try
    check(not retried, "blocked URLs were retried: %s" % retried)


def test_allowed_range_still_crawls(tmp, procs):
    web = LoggingWeb(site(0))
    try:
        pages = crawl(tmp, web, ["127.0.0.0/8"])
    finally:
        web.close()
    got = {(host, path) for _, host, path in web.log}
    for want in [("evil.a.test", "/public"), ("internal.evil.a.test", "/admin"), ("internal.evil.a.test", "/secret2")]:
        check(want in got, "allowed range: %s not fetched (server saw %s)" % (want, sorted(got)))
    check(not any(str(p.get("error", "")).startswith("blocked:") for p in pages.values()),
          "something was blocked inside the allowed range")


def test_names_from_the_dns_cache(tmp, procs):
    """The names' addresses come from the worker's own DNS cache (what a DNS answer would put
    there) rather than --connect-to: the guard still judges the address each connection is
    opened to, so the internal names are refused, and let in by --allow-net."""
    web = LoggingWeb(site(0), port=80)
    try:
        pages = crawl(os.path.join(tmp, "refused"), web, ["127.0.0.5/32"], resolve=True)
        refused_log = list(web.log)
        web.log.clear()
        allowed = crawl(os.path.join(tmp, "allowed"), web, ["127.0.0.0/8"], resolve=True)
    finally:
        web.close()
    check(("127.0.0.5", "evil.a.test", "/public") in refused_log, "the allowed site was not crawled: %s" % refused_log)
    check(all(ip == "127.0.0.5" and host == "evil.a.test" for ip, host, _ in refused_log),
          "the guard let a connection through: %s" % refused_log)
    blocked = sorted(u for u, p in pages.items() if str(p.get("error", "")).startswith("blocked:"))
    check(blocked == ["http://internal.evil.a.test/admin", "http://internal.evil.a.test/secret2",
                      "http://redis.evil.a.test:6379/"], "blocked through the DNS cache: %s" % blocked)
    got = {(ip, host, path) for ip, host, path in web.log}
    check(("127.0.0.1", "internal.evil.a.test", "/admin") in got and ("127.0.0.5", "evil.a.test", "/public") in got,
          "allowed range through the DNS cache: server saw %s" % sorted(got))
    check(not any(str(p.get("error", "")).startswith("blocked:") for u, p in allowed.items() if ":6379" not in u),
          "something was blocked inside the allowed range: %s" % allowed)


def in_private_netns():
    """Re-runs this file inside a fresh namespace with only loopback; returns its exit code."""
    name = "rcssrf%d" % os.getpid()
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        subprocess.run(["ip", "netns", "exec", name, "ip", "link", "set", "lo", "up"], check=True)
        env = dict(os.environ, **{NETNS_MARK: name})
        return subprocess.run(["ip", "netns", "exec", name, sys.executable, os.path.abspath(__file__)] + sys.argv[1:],
                              env=env, timeout=600).returncode
    finally:
        subprocess.run(["ip", "netns", "del", name])


if __name__ == "__main__":
    if not os.environ.get(NETNS_MARK):
        sys.exit(in_private_netns())
    run_tests([test_refused_before_any_connection, test_allowed_range_still_crawls, test_names_from_the_dns_cache])
