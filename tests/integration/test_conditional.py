#!/usr/bin/env python3
"""Conditional GET for refreshed navigation pages, with the test web's request log as the
witness: a page's first visit asks plainly, every refresh sends If-None-Match and
If-Modified-Since with the validators of its last 200, a 304 is counted unchanged and not
stored again (WARC gets a revisit record); without validators an unchanged text digest marks
the new record unchanged."""
import collections
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import REDCRAWL, Failure, check, read_pages, run_tests, start_web, warcio_python  # noqa: E402


def crawl(tmp, port, *args):
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port, "--allow-net", "127.0.0.0/8",
           "--delay", "0", "--maxdepth", "-1", "--refresh", "1"] + list(args) + ["http://s0.site.test/"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise Failure("crawl exited %d: %s" % (r.returncode, r.stderr[-2000:]))
    return out, r.stdout


def log_rows(path):
    """(host/path, status, cond) per response, in order."""
    rows = []
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) >= 8 and p[3] != "/robots.txt":
                rows.append(("http://%s%s" % (p[2], p[3]), int(p[4]), p[7]))
    return rows


def test_refresh_asks_conditionally(tmp, procs):
    port, log, _ = start_web(procs, tmp, "--sites", "1", "--pages", "4", "--validators")
    out, stdout = crawl(tmp, port, "--max-pages", "16", "--warc")
    rows = log_rows(log)
    by_url = collections.defaultdict(list)
    for url, status, cond in rows:
        by_url[url].append((status, cond))
    revisited = [u for u, v in by_url.items() if len(v) > 1]
    check(len(revisited) >= 2, "too few pages were refreshed: %s" % dict(by_url))
    for url, visits in by_url.items():
        check(visits[0] == (200, "-"), "%s: first visit %s, want a plain 200" % (url, visits[0]))
        for v in visits[1:]:
            check(v == (304, "inm+ims"), "%s: a refresh got %s, want 304 to If-None-Match+If-Modified-Since" % (url, v))
    n304 = sum(len(v) - 1 for v in by_url.values())
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    urls = collections.Counter(p["url"] for p in pages)
    check(set(urls) == set(by_url) and max(urls.values()) == 1,
          "a 304 must not be stored again: records per URL %s" % dict(urls))
    check(("unchanged %d" % n304) in stdout, "the summary should count %d unchanged: %s" % (n304, stdout))
    # WARC: one response per 200, one revisit per 304.
    warcio = os.path.join(os.path.dirname(warcio_python()), "warcio")
    files = [os.path.join(out, "warc", f) for f in os.listdir(os.path.join(out, "warc"))]
    idx = subprocess.run([warcio, "index", "-f", "warc-type"] + files, capture_output=True, text=True, timeout=60)
    kinds = collections.Counter(line for line in idx.stdout.splitlines())
    check(kinds['{"warc-type": "revisit"}'] == n304 and kinds['{"warc-type": "response"}'] == len(by_url),
          "WARC records %s for %d 200s and %d 304s" % (dict(kinds), len(by_url), n304))
    chk = subprocess.run([warcio, "check"] + files, capture_output=True, text=True, timeout=60)
    check(chk.returncode == 0, "warcio check: %s" % chk.stdout[-1000:])
    print("conditional: %d pages, %d refreshes answered 304, none stored again" % (len(by_url), n304))


def test_unchanged_digest_marked(tmp, procs):
    port, log, _ = start_web(procs, tmp, "--sites", "1", "--pages", "3")
    out, _ = crawl(tmp, port, "--max-pages", "9")
    rows = log_rows(log)
    check(all(cond == "-" for _, _, cond in rows), "no validators were given, none may be sent back")
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    seen = set()
    marked = 0
    for p in pages:
        if p["url"] in seen and p.get("text_digest"):
            check(p.get("unchanged") is True, "%s: a refresh with the same text is not marked unchanged" % p["url"])
            marked += 1
        elif p["url"] not in seen:
            check("unchanged" not in p, "%s: a first visit marked unchanged" % p["url"])
        seen.add(p["url"])
    check(marked >= 2, "want refreshed pages marked unchanged, got %d" % marked)


if __name__ == "__main__":
    run_tests([test_refresh_asks_conditionally, test_unchanged_digest_marked])
