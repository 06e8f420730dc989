#!/usr/bin/env python3
"""--sitemaps: a seed host's robots.txt Sitemap: lines and /sitemap.xml are read, an index is
expanded (one level, as sitemaps.org allows), gzip'd sitemaps are read, and the pages they list
(linked from nowhere) are fetched; out-of-scope entries are not. The server's log is the witness."""
import gzip
import http.server
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import REDCRAWL, check, read_pages, run_tests  # noqa: E402
from webfiles import TestHTTPServer  # noqa: E402


def urlset(urls):
    return ('<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">%s'
            '</urlset>' % "".join("<url><loc>%s</loc><lastmod>2026-01-01</lastmod></url>" % u for u in urls)).encode()


def index(urls):
    return ('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">%s</sitemapindex>'
            % "".join("<sitemap><loc>%s</loc></sitemap>" % u for u in urls)).encode()


FILES = {
    "/robots.txt": (b"User-agent: *\nDisallow: /private/\nSitemap: http://sm.test/maps/index.xml\n", "text/plain"),
    "/maps/index.xml": (index(["http://sm.test/maps/a.xml.gz", "http://sm.test/maps/b.xml",
                               "http://sm.test/maps/nested.xml"]), "application/xml"),
    "/maps/a.xml.gz": (gzip.compress(urlset(["http://sm.test/orphan/%d" % i for i in range(1, 6)])), "application/gzip"),
    "/maps/b.xml": (urlset(["http://sm.test/orphan/6", "http://other.test/nope", "http://sm.test/private/1"]),
                    "text/xml"),
    "/maps/nested.xml": (index(["http://sm.test/maps/too-deep.xml"]), "application/xml"),
    "/maps/too-deep.xml": (urlset(["http://sm.test/orphan/99"]), "application/xml"),
    "/sitemap.xml": (urlset(["http://sm.test/orphan/7"]), "application/xml"),
    "/": (b"<html><head><title>home</title></head><body>no links here</body></html>", "text/html"),
}


class Web(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log = []

    def do_GET(self):
        Web.log.append("http://%s%s" % (self.headers.get("Host", "").split(":")[0], self.path))
        body, ctype = FILES.get(self.path, (None, None))
        if body is None and self.path.startswith("/orphan/"):
            body, ctype = b"<html><head><title>orphan</title></head><body>found by a sitemap</body></html>", "text/html"
        if body is None:
            body, ctype, status = b"not here", "text/plain", 404
        else:
            status = 200
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


def test_sitemaps(tmp, procs):
    srv = TestHTTPServer(("127.0.0.1", 0), Web)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    out = os.path.join(tmp, "out")
    try:
        r = subprocess.run([REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % srv.server_address[1],
                            "--allow-net", "127.0.0.0/8", "--quiet", "--delay", "0", "--sitemaps", "http://sm.test/"],
                           capture_output=True, text=True, timeout=120)
    finally:
        srv.shutdown()
        srv.server_close()
    check(r.returncode == 0, "crawl failed: %s" % r.stderr[-2000:])
    asked = sorted(set(Web.log))
    orphans = ["http://sm.test/orphan/%d" % i for i in range(1, 8)]
    for u in orphans + ["http://sm.test/maps/index.xml", "http://sm.test/maps/a.xml.gz", "http://sm.test/maps/b.xml",
                        "http://sm.test/sitemap.xml", "http://sm.test/maps/nested.xml"]:
        check(u in asked, "%s was not requested: %s" % (u, asked))
    for u in ["http://sm.test/maps/too-deep.xml", "http://sm.test/orphan/99", "http://sm.test/private/1"]:
        check(u not in asked, "%s must not be requested (index in an index / robots.txt)" % u)
    check(not any("other.test" in u for u in asked), "an out-of-scope sitemap entry was fetched")
    check(len(Web.log) == len(set(Web.log)), "a URL was requested twice: %s" % Web.log)
    pages = {p["url"]: p for p in read_pages(os.path.join(out, "pages.jsonl"))}
    check(pages["http://sm.test/maps/a.xml.gz"].get("sitemap") == "urlset"
          and pages["http://sm.test/maps/a.xml.gz"].get("sitemap_urls") == 5, "gzip'd sitemap record: %s"
          % pages["http://sm.test/maps/a.xml.gz"])
    check(pages["http://sm.test/maps/index.xml"].get("sitemap") == "sitemapindex", "index record")
    check(all(pages[u]["depth"] == 1 for u in orphans), "sitemap pages enter one level below the seed")
    print("sitemaps: %d requests, %d pages found only through sitemaps" % (len(Web.log), len(orphans)))


class Changing(http.server.BaseHTTPRequestHandler):
    """/sitemap.xml lists /orphan/1 as modified just now (at every reading) and /orphan/2 as
    modified in 2020."""
    protocol_version = "HTTP/1.1"
    log = []

    def do_GET(self):
        Changing.log.append(self.path)
        if self.path == "/sitemap.xml":
            now = time.time()
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + ".%03dZ" % int(now % 1 * 1000)
            body = ('<urlset><url><loc>http://ch.test/orphan/1</loc><lastmod>%s</lastmod></url>'
                    '<url><loc>http://ch.test/orphan/2</loc><lastmod>2020-01-01</lastmod></url></urlset>' % stamp).encode()
            status = 200
        elif self.path == "/" or self.path.startswith("/orphan/"):
            body, status = b"<html><head><title>p</title></head><body>a page</body></html>", 200
        else:
            body, status = b"", 404
        self.send_response(status)
        self.send_header("Content-Type", "text/xml" if "xml" in self.path else "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


def test_lastmod_refetches_changed_pages(tmp, procs):
    """With --refresh, a sitemap read again brings back the pages whose <lastmod> is newer than
    its previous reading, data pages included; an unchanged one is not fetched again."""
    srv = TestHTTPServer(("127.0.0.1", 0), Changing)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        r = subprocess.run([REDCRAWL, "crawl", "--out", os.path.join(tmp, "out"), "--connect-to",
                            "::127.0.0.1:%d" % srv.server_address[1], "--allow-net", "127.0.0.0/8", "--quiet",
                            "--delay", "0", "--sitemaps", "--refresh", "1", "--data-pages", "/orphan/",
                            "--max-pages", "14", "http://ch.test/"], capture_output=True, text=True, timeout=120)
    finally:
        srv.shutdown()
        srv.server_close()
    check(r.returncode == 0, "crawl failed: %s" % r.stderr[-2000:])
    reads = Changing.log.count("/sitemap.xml")
    changed, same = Changing.log.count("/orphan/1"), Changing.log.count("/orphan/2")
    check(reads >= 3, "the sitemap should be read again with --refresh: %s" % Changing.log)
    check(same == 1, "/orphan/2 (lastmod 2020) fetched %d times, want once" % same)
    check(changed >= reads - 1, "/orphan/1 (modified at each reading) fetched %d times for %d readings"
          % (changed, reads))
    print("lastmod: sitemap read %d times; changed page fetched %d times, unchanged once" % (reads, changed))


if __name__ == "__main__":
    run_tests([test_sitemaps, test_lastmod_refetches_changed_pages])
