#!/usr/bin/env python3
"""Redirects, meta refresh and noindex, with the server's request log as the witness: a seed's
redirect chain is followed across domains hop by hop through the frontier (the chain's hosts
are in scope for the chain only), the seed's record ends up with final_url and the chain; a
quick meta refresh is followed like a redirect, a slow one is not; noindex pages are stored
without text (reason recorded)."""
import http.server
import os
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(__file__))
from harness import REDCRAWL, Failure, check, read_pages, run_tests  # noqa: E402
from webfiles import TestHTTPServer  # noqa: E402

PAGES = {
    # url: (status, headers, body)
    "http://short.test/x": (301, {"Location": "http://mid.test/y"}, ""),
    "http://mid.test/y": (302, {"Location": "http://target.test/article"}, ""),
    "http://target.test/article": (200, {}, '<title>article</title><p>%s</p>'
                                   '<a href="http://target.test/other">other</a> <a href="http://short.test/z">z</a>'
                                   % ("the article text " * 20)),
    "http://target.test/other": (200, {}, "<title>other</title>"),
    "http://short.test/z": (200, {}, '<meta http-equiv="refresh" content="0; url=/landing"><title>z</title>'
                            '<a href="/out">out</a>'),
    "http://short.test/out": (301, {"Location": "http://elsewhere.test/"}, ""),
    "http://elsewhere.test/": (200, {}, "<title>elsewhere</title>"),
    "http://short.test/landing": (200, {}, '<meta name="robots" content="noindex"><title>landing</title><p>%s</p>'
                                  '<a href="/slow">slow</a> <a href="/hdr">hdr</a>' % ("hidden words " * 20)),
    "http://short.test/slow": (200, {}, '<meta http-equiv="refresh" content="30; url=/never"><title>slow</title>'
                               '<p>%s</p>' % ("slow page text " * 20)),
    "http://short.test/never": (200, {}, "<title>never</title>"),
    "http://canon.test/": (200, {}, '<title>home</title><a href="/list?sort=1">1</a> <a href="/list?sort=2">2</a>'),
    "http://canon.test/list?sort=1": (200, {}, '<link rel="canonical" href="/list"><title>l1</title><p>%s</p>'
                                      % ("the list " * 30)),
    "http://canon.test/list?sort=2": (200, {}, '<link rel="canonical" href="http://canon.test/list"><title>l2</title>'
                                      '<p>%s</p>' % ("the list " * 30)),
    "http://canon.test/list": (200, {}, '<link rel="canonical" href="/list"><title>list</title><p>%s</p>'
                               % ("the list " * 30)),
    "http://serp.test/": (200, {}, '<title>results</title><a href="/link?url=abc">1</a> <a href="/link?url=def">2</a>'),
    "http://serp.test/link?url=abc": (302, {"Location": "http://faraway.test/story"}, ""),
    "http://serp.test/link?url=def": (302, {"Location": "http://serp.test/local"}, ""),
    "http://serp.test/local": (200, {}, "<title>local</title>"),
    "http://faraway.test/story": (200, {}, '<title>story</title><a href="/more">more</a>'),
    "http://short.test/hdr": (200, {"X-Robots-Tag": "noindex, nofollow"}, "<title>hdr</title><p>%s</p>"
                              % ("header hidden " * 20)),
}


class Web(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log = []

    def do_GET(self):
        url = "http://%s%s" % (self.headers.get("Host", "").split(":")[0], self.path)
        Web.log.append(url)
        status, headers, body = PAGES.get(url, (404, {}, "<title>404</title>"))
        data = ("<html><head></head><body>%s</body></html>" % body).encode() if body else b""
        self.send_response(status)
        self.send_header("Content-Type", "text/html")
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *a):
        pass


def last_records(pages):
    """The last record per _id (a later line supersedes an earlier one)."""
    by_id = {}
    for p in pages:
        by_id[p["_id"]] = p
    return {p["url"]: p for p in by_id.values()}


def test_redirect_chain_meta_refresh_noindex(tmp, procs):
    srv = TestHTTPServer(("127.0.0.1", 0), Web)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    out = os.path.join(tmp, "out")
    try:
        r = subprocess.run([REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % srv.server_address[1],
                            "--allow-net", "127.0.0.0/8", "--quiet", "--delay", "0", "--maxdepth", "3", "--text",
                            "http://short.test/x"], capture_output=True, text=True, timeout=120)
    finally:
        srv.shutdown()
        srv.server_close()
    check(r.returncode == 0, "crawl failed: %s" % r.stderr[-2000:])
    asked = [u for u in Web.log if not u.endswith("/robots.txt")]
    want = ["http://short.test/x", "http://mid.test/y", "http://target.test/article", "http://short.test/z",
            "http://short.test/landing", "http://short.test/out", "http://short.test/slow", "http://short.test/hdr"]
    check(sorted(asked) == sorted(want), "requested %s, want %s" % (sorted(asked), sorted(want)))
    for a, b in zip(want[:3], want[1:3]):
        check(asked.index(a) < asked.index(b), "hop %s requested before %s" % (b, a))
    check(len(set(asked)) == len(asked), "a URL was requested twice: %s" % asked)

    recs = last_records(read_pages(os.path.join(out, "pages.jsonl")))
    seed = recs["http://short.test/x"]
    chain = [{"url": "http://short.test/x", "status": 301}, {"url": "http://mid.test/y", "status": 302},
             {"url": "http://target.test/article", "status": 200}]
    check(seed.get("final_url") == "http://target.test/article" and seed.get("final_status") == 200,
          "the seed's record lacks its final URL: %s" % seed)
    check(seed.get("redirect_chain") == chain, "seed chain %s" % seed.get("redirect_chain"))
    art = recs["http://target.test/article"]
    check(art.get("redirected_from") == "http://short.test/x" and art["depth"] == 0 and art.get("text"),
          "the final page: %s" % art)
    check("http://target.test/other" not in recs, "the chain's host joined the scope beyond the chain")
    z = recs["http://short.test/z"]
    check(z.get("redirect_to") == "http://short.test/landing" and z.get("redirect_kind") == "meta refresh",
          "meta refresh not followed like a redirect: %s" % z)
    check(recs["http://short.test/landing"].get("redirected_from") == "http://short.test/z",
          "the meta refresh target does not name its source")
    check("final_url" not in z, "a meta refresh page keeps its own record (not replaced by a chain record)")
    check("final_url" not in recs["http://short.test/out"], "a redirect out of scope (not a seed's) was followed")
    slow = recs["http://short.test/slow"]
    check("redirect_to" not in slow and slow.get("text"), "a 30 s meta refresh must not be followed: %s" % slow)
    for url, why in (("http://short.test/landing", "meta robots noindex"), ("http://short.test/hdr", "X-Robots-Tag noindex")):
        p = recs[url]
        check(p.get("noindex") == why and "text" not in p and "text_digest" not in p,
              "%s: noindex page stored with text or without its reason: %s" % (url, p))
    print("redirects: %d requests, chain %s" % (len(asked), " -> ".join(h["url"] for h in chain)))


def crawl_canon(tmp, name, *args, seed="http://canon.test/"):
    Web.log = []
    srv = TestHTTPServer(("127.0.0.1", 0), Web)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    out = os.path.join(tmp, name)
    try:
        r = subprocess.run([REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % srv.server_address[1],
                            "--allow-net", "127.0.0.0/8", "--quiet", "--delay", "0", "--text", "--dedup-content=0"]
                           + list(args) + [seed], capture_output=True, text=True, timeout=120)
    finally:
        srv.shutdown()
        srv.server_close()
    check(r.returncode == 0, "crawl failed: %s" % r.stderr[-2000:])
    return last_records(read_pages(os.path.join(out, "pages.jsonl"))), [u for u in Web.log if "robots" not in u]


def test_canonical_dedup(tmp, procs):
    recs, asked = crawl_canon(tmp, "plain")
    check("http://canon.test/list" not in asked and all(recs[u].get("text") for u in recs if "sort" in u),
          "without --dedup-canonical every variant is a page of its own: %s" % asked)
    recs, asked = crawl_canon(tmp, "canon", "--dedup-canonical")
    check(asked.count("http://canon.test/list") == 1, "the canonical URL must be fetched once: %s" % asked)
    check(recs["http://canon.test/list"].get("text") and "duplicate_of" not in recs["http://canon.test/list"],
          "the canonical page keeps its text: %s" % recs["http://canon.test/list"])
    for u in ("http://canon.test/list?sort=1", "http://canon.test/list?sort=2"):
        p = recs[u]
        check(p.get("duplicate_of") == "http://canon.test/list" and p.get("duplicate_reason") == "canonical"
              and "text" not in p, "%s is not recorded as the canonical's duplicate: %s" % (u, p))


def test_jump_links(tmp, procs):
    """A search engine's result links (Octopus 5.1) redirect off-site: with --jump-link their chain
    may leave the scope like a seed's, and the link's record gets the final URL."""
    recs, asked = crawl_canon(tmp, "plain", seed="http://serp.test/")
    check("http://faraway.test/story" not in asked and "http://serp.test/local" in asked,
          "without --jump-link an off-site redirect of a link stays unfollowed: %s" % asked)
    recs, asked = crawl_canon(tmp, "jump", "--jump-link", r"^http://serp\.test/link\?url=", seed="http://serp.test/")
    check("http://faraway.test/story" in asked, "the jump link's target was not fetched: %s" % asked)
    check("http://faraway.test/more" not in asked, "the target's own links stay out of scope: %s" % asked)
    link = recs["http://serp.test/link?url=abc"]
    check(link.get("final_url") == "http://faraway.test/story" and link.get("final_status") == 200,
          "the jump link's record lacks its final URL: %s" % link)
    check(recs["http://faraway.test/story"].get("redirected_from") == "http://serp.test/link?url=abc",
          "the target does not name its jump link")


if __name__ == "__main__":
    run_tests([test_redirect_chain_meta_refresh_noindex, test_canonical_dedup, test_jump_links])
