#!/usr/bin/env python3
"""Extraction end to end: `redcrawl crawl --rules` on realistic pages (a government notice list
with detail pages, thesis fig. 4-22) gives exactly the expected items in items.jsonl; pages in
legacy encodings come out as correct UTF-8; `redcrawl extract` works offline on a saved page."""
import collections
import errno
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(__file__))
from harness import REDCRAWL, Failure, check, read_pages, run_tests  # noqa: E402
from webfiles import StaticWeb  # noqa: E402

SOURCE = os.environ.get("REDCRAWL_SOURCE") or os.path.join(os.path.dirname(__file__), "..", "..")
DATA = os.path.join(os.path.abspath(SOURCE), "tests", "data")
ADDED = ("_id", "crawlid", "detail_url", "detail_status", "_second_page_url")


def crawl(tmp, port, seeds, *args):
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port, "--quiet",
           "--delay", "0"] + list(args) + list(seeds)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise Failure("crawl exited %d: %s %s" % (r.returncode, r.stdout, r.stderr[-2000:]))
    return out, r


def strip(item):
    return {k: v for k, v in item.items() if k not in ADDED}


def test_gov_notice_list_with_detail_pages(tmp, procs):
    cases = json.load(open(os.path.join(DATA, "extract", "cases.json")))
    case = cases[0]
    routes = {case["url"]: (os.path.join(DATA, "extract", case["page"]), "text/html; charset=utf-8")}
    for url, page in case["second_pages"].items():
        routes[url] = (os.path.join(DATA, "extract", page), "text/html; charset=utf-8")
    with StaticWeb(routes) as web:
        out, r = crawl(tmp, web.port, [case["url"]], "--maxdepth", "2", "--rules",
                       os.path.join(DATA, "extract", case["rules"]))
        requested = list(web.requests)
    items = [json.loads(line) for line in open(os.path.join(out, "items.jsonl"))]
    want = json.load(open(os.path.join(DATA, "extract", case["expect"])))
    got = sorted((strip(i) for i in items), key=lambda i: json.dumps(i, sort_keys=True))
    want = sorted((strip(i) for i in want), key=lambda i: json.dumps(i, sort_keys=True))
    check(got == want, "items differ:\ngot  %s\nwant %s" % (json.dumps(got, ensure_ascii=False)[:1500],
                                                          json.dumps(want, ensure_ascii=False)[:1500]))
    check(len({i["_id"] for i in items}) == len(items), "item _ids are not unique")
    check(all(i["crawlid"] and i["detail_url"] for i in items), "items lack crawlid/detail_url")
    pdf = [i for i in items if i["detail_url"].endswith(".pdf")]
    check(len(pdf) == 1 and pdf[0]["detail_status"] == 404, "a detail page that is not HTML keeps its list item")
    for u in case["second_pages"]:
        check(u in requested, "detail page %s never fetched" % u)
    for link in json.load(open(os.path.join(DATA, "extract", case["links"]))):
        check(link["url"] in requested, "pagination link %s (continue: true) not followed" % link["url"])
    check("2 dropped" in r.stdout or "dropped" in r.stdout, "summary lacks the dropped count: %s" % r.stdout)
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check(any(p.get("items") == 0 for p in pages), "a list page records its item count")
    check(len({p["url"] for p in pages}) == len(pages), "a page was stored twice")


def test_encodings_come_out_as_utf8(tmp, procs):
    """Pages in legacy encodings, declared in the header, in <meta>, or not at all: the title
    and the main text in the page record are the correct UTF-8. The same article in several
    encodings is one text: all but the first are recorded as duplicates (content dedup)."""
    rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(DATA, "charset", "cases.tsv"))
            if line.strip() and not line.startswith("#")]
    routes, expect = {}, {}
    n = 0
    for f, ctype, source, name, utf8 in rows:
        if utf8 == "-" or source == "bom" or not f.endswith(".html"):
            continue
        text = open(os.path.join(DATA, "charset", utf8), encoding="utf-8").read()
        if len(text) < 200:
            continue  # a line or two: no main text to compare (test_charset covers those bytes)
        url = "http://enc.test/%d/%s" % (n, f)
        n += 1
        routes[url] = (os.path.join(DATA, "charset", f), None if ctype == "-" else ctype)
        expect[url] = text
    check(len(routes) >= 20, "too few encoding cases: %d" % len(routes))
    with StaticWeb(routes) as web:
        out, _ = crawl(tmp, web.port, list(routes), "--maxdepth", "0", "--text", "--allowed-domain", "enc.test")
    pages = {p["url"]: p for p in read_pages(os.path.join(out, "pages.jsonl"))}
    bad = []
    for url, text in expect.items():
        p = pages.get(url)
        if not p:
            bad.append("%s: not fetched" % url)
            continue
        title = p.get("title") or ""
        body = p.get("text") or ""
        if "\ufffd" in title or "\ufffd" in body:
            bad.append("%s: replacement characters in %r" % (url, title))
        elif title and title not in text:
            bad.append("%s: title %r is not in the expected text" % (url, title))
        elif "duplicate_of" in p:
            first = pages.get(p["duplicate_of"])
            if not first or first.get("text_digest") != p.get("text_digest") or "text" in p:
                bad.append("%s: a duplicate must point at a page with the same digest and not store text" % url)
        elif not body or body.split()[0] not in text:
            bad.append("%s: main text %r does not match" % (url, body[:40]))
        elif p.get("text_method") not in ("article", "density"):
            bad.append("%s: text_method %r" % (url, p.get("text_method")))
    check(not bad, "%d of %d pages wrong:\n  %s" % (len(bad), len(expect), "\n  ".join(bad[:10])))
    dups = sum(1 for p in pages.values() if "duplicate_of" in p)
    check(dups > 0, "the same text in several encodings should be recognised as duplicates")


def test_text_method_per_job(tmp, procs):
    """--text-method (the job's text_method) picks the main-text method of a whole crawl: every
    record says the method asked for and holds that method's text; an unknown name is refused
    before anything starts, naming the field."""
    names = ["en_blog_tech", "en_news_city"]
    routes = {"http://tm.test/%s" % n: (os.path.join(DATA, "maintext", n + ".html"), "text/html; charset=utf-8")
              for n in names}
    for method in ("lineblock", "article"):
        with StaticWeb(routes) as web:
            out, _ = crawl(os.path.join(tmp, method), web.port, list(routes), "--maxdepth", "0", "--text",
                           "--dedup-content=0", "--text-method", method)
        pages = {p["url"]: p for p in read_pages(os.path.join(out, "pages.jsonl"))}
        check(set(pages) == set(routes), "%s: pages %s" % (method, sorted(pages)))
        for url, p in pages.items():
            check(p.get("text_method") == method and p.get("text"),
                  "%s: %s has text_method %r" % (method, url, p.get("text_method")))
            saved = routes[url][0]
            r = subprocess.run([REDCRAWL, "extract", "--text", "--text-method", method, saved], capture_output=True,
                               text=True, timeout=30)
            check(r.returncode == 0 and r.stdout.strip() == p["text"].strip(),
                  "%s: %s: the crawl's text is not what extract --text-method gives" % (method, url))
    bad = subprocess.run([REDCRAWL, "crawl", "--out", os.path.join(tmp, "o"), "--text", "--text-method", "best",
                          "http://a.test/"], capture_output=True, text=True, timeout=30)
    check(bad.returncode == 2 and "text_method" in bad.stderr, "an unknown method: %s" % bad.stderr)


def test_duplicate_pages_keep_their_items(tmp, procs):
    """Rules with only `fields` (one item per page) over 20 pages whose main text is the same
    template: every page keeps its item (content dedup only keeps the text from being stored
    twice), the summary counts the duplicates, and --dedup-content=0 turns dedup off."""
    body = "<p>" + " ".join(["This notice template is the same on every page of the site."] * 30) + "</p>"
    routes = {}
    for i in range(20):
        path = os.path.join(tmp, "p%d.html" % i)
        with open(path, "w") as f:
            f.write("<html><head><title>Notice</title><meta name='no' content='No. %d'></head><body>%s%s</body></html>"
                    % (i, body, '<a href="/p%d">next</a>' % (i + 1) if i < 19 else ""))
        routes["http://tmpl.test/p%d" % i] = (path, "text/html; charset=utf-8")
    rules = os.path.join(tmp, "rules.json")
    with open(rules, "w") as f:
        json.dump({"fields": {"number": "//meta[@name='no']/@content", "tags": {"xpath": "//span[@class='tag']",
                                                                           "all": True}}}, f)
    with StaticWeb(routes) as web:
        out, r = crawl(tmp, web.port, ["http://tmpl.test/p0"], "--maxdepth", "-1", "--text", "--rules", rules)
    items = [json.loads(line) for line in open(os.path.join(out, "items.jsonl"))]
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    dups = [p for p in pages if "duplicate_of" in p]
    print("  %d pages, %d duplicates, %d items; summary: %s" % (len(pages), len(dups), len(items),
          [l.strip() for l in r.stdout.splitlines() if "duplicates" in l]))
    check(len(pages) == 20 and len(dups) == 19, "want 20 pages, 19 duplicates: %d, %d" % (len(pages), len(dups)))
    check(sorted(i["number"] for i in items) == sorted("No. %d" % i for i in range(20)),
          "a duplicate page lost its item: %d items" % len(items))
    check(all(i.get("tags") == [] for i in items), "an `all` field that matched nothing must be []")
    check("duplicates 19" in r.stdout, "the summary does not count the duplicates: %s" % r.stdout)
    # content dedup off: no page is a duplicate
    out2 = os.path.join(tmp, "out2")
    with StaticWeb(routes) as web:
        r2 = subprocess.run([REDCRAWL, "crawl", "--out", out2, "--connect-to", "::127.0.0.1:%d" % web.port, "--quiet",
                             "--delay", "0", "--maxdepth", "-1", "--text", "--dedup-content=0", "http://tmpl.test/p0"],
                            capture_output=True, text=True, timeout=120)
    check(r2.returncode == 0, "crawl --dedup-content=0 failed: %s" % r2.stderr[-1000:])
    pages2 = read_pages(os.path.join(out2, "pages.jsonl"))
    check(len(pages2) == 20 and not any("duplicate_of" in p for p in pages2) and all(p.get("text") for p in pages2),
          "--dedup-content=0 still deduplicated")


def test_extract_cli_offline(tmp, procs):
    cases = json.load(open(os.path.join(DATA, "extract", "cases.json")))
    case = next(c for c in cases if c["name"] == "news article")
    r = subprocess.run([REDCRAWL, "extract", "--rules", os.path.join(DATA, "extract", case["rules"]), "--url",
                        case["url"], os.path.join(DATA, "extract", case["page"])], capture_output=True, text=True,
                       timeout=30)
    check(r.returncode == 0, "extract failed: %s" % r.stderr)
    got = [strip(json.loads(line)) for line in r.stdout.splitlines() if line.strip()]
    want = [strip(i) for i in json.load(open(os.path.join(DATA, "extract", case["expect"])))]
    check(got == want, "extract output differs: %s" % r.stdout[:500])
    # --text: the main text the crawler would store, paragraphs separated by a blank line.
    page = os.path.join(DATA, "maintext", "en_blog_tech.html")
    want_text = open(os.path.join(DATA, "maintext", "en_blog_tech.txt"), encoding="utf-8").read().split("\n")
    r = subprocess.run([REDCRAWL, "extract", "--text", page], capture_output=True, text=True, timeout=30)
    check(r.returncode == 0 and "main text by article" in r.stderr, "extract --text failed: %s" % r.stderr)
    paras = r.stdout.rstrip("\n").split("\n\n")
    check(paras[0] == want_text[0] and all(line in paras for line in want_text[1:4]),
          "extract --text: %r, want paragraphs %r" % (paras[:4], want_text[:4]))
    r = subprocess.run([REDCRAWL, "extract", "--text", "--text-method", "density", page], capture_output=True,
                       text=True, timeout=30)
    check(r.returncode == 0 and r.stdout.split("\n")[:2] == want_text[:2], "extract --text-method density: %r"
          % r.stdout[:200])
    bad = subprocess.run([REDCRAWL, "extract", "--text-method", "best", "--text", page], capture_output=True,
                         text=True, timeout=30)
    check(bad.returncode == 2 and "--text-method" in bad.stderr, "an unknown method: %s" % bad.stderr)
    r = subprocess.run([REDCRAWL, "extract", page, "--text", "--text-method", "density"], capture_output=True,
                       text=True, timeout=30)
    check(r.returncode == 0 and r.stdout.split("\n")[:2] == want_text[:2], "options after PAGE: %r %s"
          % (r.stdout[:200], r.stderr[-300:]))
    bad = subprocess.run([REDCRAWL, "extract", "--text", DATA], capture_output=True, text=True, timeout=30)
    check(bad.returncode != 0 and os.strerror(errno.EISDIR) in bad.stderr, "a directory as PAGE: %s" % bad.stderr)
    bad = subprocess.run([REDCRAWL, "crawl", "--rules", "/nonexistent.json", "http://a.test/"], capture_output=True,
                         text=True, timeout=30)
    check(bad.returncode == 2 and "--rules" in bad.stderr, "a missing rules file: %s" % bad.stderr)
    rules = os.path.join(tmp, "bad.json")
    with open(rules, "w") as f:
        f.write('{"fields": {"x": {"xpath": "//a[", "required": true}}}')
    bad = subprocess.run([REDCRAWL, "crawl", "--out", os.path.join(tmp, "o"), "--rules", rules, "http://a.test/"],
                         capture_output=True, text=True, timeout=30)
    check(bad.returncode == 2 and "rules" in bad.stderr and "fields.x" in bad.stderr,
          "a rule that does not compile must be refused naming it: %s" % bad.stderr)


RECORD_KEYS = ("title", "charset", "text_digest", "meta", "links", "status_code", "length", "items")


def saved_pages():
    """Every page in tests/data/extract (with its rules) and tests/data/charset (with the
    Content-Type it is served with): (url, path, content type or None, rules or None)."""
    pages = []
    for case in json.load(open(os.path.join(DATA, "extract", "cases.json"))):
        if case.get("field_set"):
            continue
        rules = os.path.join(DATA, "extract", case["rules"])
        url = re.sub(r"^https:", "http:", case["url"])  # the test web speaks plain HTTP
        pages.append((url, os.path.join(DATA, "extract", case["page"]), "text/html; charset=utf-8", rules))
        for url, page in sorted(case.get("second_pages", {}).items()):
            if page.endswith(".html"):
                pages.append((url, os.path.join(DATA, "extract", page), "text/html; charset=utf-8", None))
    rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(DATA, "charset", "cases.tsv"))
            if line.strip() and not line.startswith("#")]
    for n, (f, ctype, _, _, _) in enumerate(rows):
        if f.endswith(".html"):
            pages.append(("http://enc%d.test/%s" % (n, f), os.path.join(DATA, "charset", f),
                          None if ctype == "-" else ctype, None))
    return pages


def test_extract_matches_crawl(tmp, procs):
    """`redcrawl extract` runs the crawler's page pipeline: for every saved page in tests/data
    the items and the record (title, charset, text digest, metadata, links) it prints are what a
    crawl of the same bytes served with the same Content-Type stores, and its output is UTF-8."""
    pages = saved_pages()
    by_rules = collections.defaultdict(list)
    for url, path, ctype, rules in pages:
        by_rules[rules].append((url, path, ctype))
    stored = {}
    items_by_url = collections.defaultdict(list)
    for k, (rules, group) in enumerate(sorted(by_rules.items(), key=lambda kv: kv[0] or "")):
        with StaticWeb({u: (p, c) for u, p, c in group}) as web:
            args = ["--maxdepth", "0"] + (["--rules", rules] if rules else [])
            for u, _, _ in group:
                args += ["--allowed-domain", urllib.parse.urlsplit(u).hostname]
            out, _ = crawl(os.path.join(tmp, "c%d" % k), web.port, [u for u, _, _ in group], *args)
        stored.update({p["url"]: p for p in read_pages(os.path.join(out, "pages.jsonl"))})
        if os.path.exists(os.path.join(out, "items.jsonl")):
            for line in open(os.path.join(out, "items.jsonl"), encoding="utf-8"):
                item = json.loads(line)
                items_by_url[item.get("detail_url") or item["url"]].append(strip(item))
    bad = []
    for url, path, ctype, rules in pages:
        cmd = [REDCRAWL, "extract", "--record", "--maxdepth", "0", "--url", url, "--content-type", ctype or "-"]
        r = subprocess.run(cmd + (["--rules", rules] if rules else []) + [path], capture_output=True, timeout=60)
        try:
            lines = [json.loads(l) for l in r.stdout.decode("utf-8").splitlines() if l.strip()]
        except UnicodeDecodeError as e:
            bad.append("%s: extract printed bytes that are not UTF-8 (%s)" % (path, e))
            continue
        if r.returncode != 0 or not lines or url not in stored:
            bad.append("%s: extract rc %d, crawl stored it: %s" % (path, r.returncode, url in stored))
            continue
        rec, items = lines[0], [strip(i) for i in lines[1:]]
        want = stored[url]
        diff = [k for k in RECORD_KEYS if rec.get(k) != want.get(k)]
        if diff:
            bad.append("%s: record differs in %s: %s vs %s" % (path, diff, [rec.get(k) for k in diff][:2],
                                                                 [want.get(k) for k in diff][:2]))
        key = lambda i: json.dumps(i, sort_keys=True)
        if rules and sorted(items, key=key) != sorted(items_by_url.get(url, []), key=key):
            bad.append("%s: items differ: %d vs %d stored" % (path, len(items), len(items_by_url.get(url, []))))
    print("  %d saved pages (%d with rules): extract = crawl for %d" %
          (len(pages), sum(1 for p in pages if p[3]), len(pages) - len(bad)))
    check(not bad, "; ".join(bad[:5]))


def test_navigation_pages_refresh(tmp, procs):
    """--refresh: navigation pages are fetched again and their new links followed; data pages
    (--data-pages) are fetched once."""
    index = os.path.join(tmp, "index.html")
    article = os.path.join(tmp, "article.html")

    def write_index(n):
        links = "".join('<li><a href="/article/%d">article %d</a></li>' % (i, i) for i in range(1, n + 1))
        with open(index, "w") as f:
            f.write("<html><head><title>news</title></head><body><ul>%s</ul></body></html>" % links)

    write_index(2)
    with open(article, "w") as f:
        f.write("<html><head><title>an article</title></head><body><p>text</p></body></html>")
    routes = {"http://news.test/": (index, "text/html")}
    for i in range(1, 4):
        routes["http://news.test/article/%d" % i] = (article, "text/html")
    with StaticWeb(routes) as web:
        out = os.path.join(tmp, "out")
        cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % web.port, "--quiet",
               "--delay", "0", "--maxdepth", "-1", "--refresh", "1", "--data-pages", "/article/",
               "--max-pages", "7", "http://news.test/"]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 20
        while time.time() < deadline and web.requests.count("http://news.test/article/2") == 0:
            time.sleep(0.05)
        write_index(3)  # a new article appears on the navigation page
        stdout, stderr = p.communicate(timeout=60)
        requested = list(web.requests)
    check(p.returncode == 0, "crawl failed: %s" % stderr[-1000:])
    check(requested.count("http://news.test/") >= 2, "the navigation page was not fetched again: %s" % requested)
    for i in range(1, 4):
        n = requested.count("http://news.test/article/%d" % i)
        check(n == 1, "article %d fetched %d times (want once): %s" % (i, n, requested))


if __name__ == "__main__":
    run_tests([test_duplicate_pages_keep_their_items, test_gov_notice_list_with_detail_pages, test_encodings_come_out_as_utf8, test_extract_cli_offline,
               test_extract_matches_crawl,
               test_navigation_pages_refresh, test_text_method_per_job])
