#!/usr/bin/env python3
"""Bodies kept in WARC/1.1: a crawl with --warc is read back by warcio (a reader archives
use): `warcio check` and `warcio index` pass on every file, every response payload is the
bytes the server sent, every page record's warc_file/warc_offset opens its response record,
files rotate by size and are named per process."""
import gzip
import http.client
import http.server
import io
import json
import os
import re
import socket
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(__file__))
from harness import (REDCRAWL, Failure, check, expected_pages, graph, read_pages, run_tests,  # noqa: E402
                     start_web, warcio_python)
from webfiles import TestHTTPServer  # noqa: E402

NAME = re.compile(r"^REDCRAWL-\d{14}-\d{5}-[^-/]+-(\d+)\.warc\.gz$")


def crawl(tmp, port, seeds, *args, timeout=240):
    out = os.path.join(tmp, "out")
    cmd = [REDCRAWL, "crawl", "--out", out, "--connect-to", "::127.0.0.1:%d" % port,
           "--allow-net", "127.0.0.0/8", "--quiet", "--warc"] + list(args) + list(seeds)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise Failure("redcrawl crawl exited %d\nstdout:\n%s\nstderr:\n%s" % (r.returncode, r.stdout, r.stderr[-3000:]))
    return out


# Runs inside warcio's venv: every record of every file as JSON lines (type, uri, ids, the raw
# HTTP payload in hex, and the HTTP headers).
READER = r"""
import json, sys
from warcio.archiveiterator import ArchiveIterator
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        it = ArchiveIterator(f)
        for rec in it:
            h = rec.rec_headers
            payload = rec.raw_stream.read().hex()  # before the offset, which reads to the record's end
            row = {"file": path, "offset": it.get_record_offset(), "type": rec.rec_type,
                   "uri": h.get_header("WARC-Target-URI"), "id": h.get_header("WARC-Record-ID"),
                   "to": h.get_header("WARC-Concurrent-To"), "truncated": h.get_header("WARC-Truncated")}
            if rec.http_headers:
                row["status"] = rec.http_headers.get_statuscode()
                row["http"] = rec.http_headers.headers
                row["line"] = [rec.http_headers.protocol, rec.http_headers.statusline]
            row["payload"] = payload
            print(json.dumps(row))
"""

# Opens one record at an offset, as a page record says.
AT = r"""
import json, sys
from warcio.archiveiterator import ArchiveIterator
with open(sys.argv[1], "rb") as f:
    for line in sys.stdin:
        off = int(line)
        f.seek(off)
        rec = next(iter(ArchiveIterator(f)))
        print(json.dumps([off, rec.rec_type, rec.rec_headers.get_header("WARC-Target-URI")]))
"""


def warc_files(out):
    d = os.path.join(out, "warc")
    check(os.path.isdir(d), "no %s" % d)
    return sorted(os.path.join(d, n) for n in os.listdir(d))


def check_and_index(py, files):
    warcio = os.path.join(os.path.dirname(py), "warcio")
    r = subprocess.run([warcio, "check", "-v"] + files, capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "warcio check failed (%d): %s %s" % (r.returncode, r.stdout[-2000:], r.stderr[-2000:]))
    r = subprocess.run([warcio, "index", "-f", "warc-type,warc-target-uri,offset,length"] + files,
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "warcio index failed: %s" % r.stderr[-2000:])
    return [json.loads(line) for line in r.stdout.splitlines()]


def read_records(py, files):
    r = subprocess.run([py, "-c", READER] + files, capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "reading the WARC files failed: %s" % r.stderr[-2000:])
    return [json.loads(line) for line in r.stdout.splitlines()]


def check_offsets(py, out, pages, by_name):
    """Every page record's offset opens a response record for its URL."""
    per_file = {}
    for p in pages:
        check("warc_file" in p and "warc_offset" in p, "page record without warc_file/offset: %s" % p["url"])
        per_file.setdefault(p["warc_file"], []).append(p)
    for name, ps in per_file.items():
        path = by_name.get(name)
        check(path is not None, "page names %s, which is not in OUT/warc" % name)
        r = subprocess.run([py, "-c", AT, path], input="".join("%d\n" % p["warc_offset"] for p in ps),
                           capture_output=True, text=True, timeout=120)
        check(r.returncode == 0, "opening %s at an offset failed: %s" % (name, r.stderr[-2000:]))
        got = [json.loads(line) for line in r.stdout.splitlines()]
        for p, (off, kind, uri) in zip(ps, got):
            check(kind == "response" and uri == p["url"],
                  "offset %d of %s opens a %s record for %s, not %s's response" % (off, name, kind, uri, p["url"]))
        check(len(got) == len(ps), "%s: %d offsets read of %d" % (name, len(got), len(ps)))


def server_body(port, url):
    """What the test web sends for url (it is deterministic; only Date differs)."""
    u = url.split("/", 3)
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", "/" + (u[3] if len(u) > 3 else ""), headers={"Host": u[2]})
    body = c.getresponse().read()
    c.close()
    return body


def test_warc_round_trip(tmp, procs):
    """~200 pages with --warc over two workers: readable, complete, exact, and findable."""
    py = warcio_python()
    args = ["--sites", "4", "--pages", "55"]
    port, log, _ = start_web(procs, tmp, *args)
    want = expected_pages(graph(*args), ["http://s0.site.test/"], -1, ["site.test"])
    out = crawl(tmp, port, ["http://s0.site.test/"], "--maxdepth", "-1", "--delay", "0", "--workers", "2",
                "--warc-size", "150000")
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check(len(pages) == len(want) and len(pages) >= 200, "%d page records, want %d (>= 200)" % (len(pages), len(want)))
    files = warc_files(out)
    names = [os.path.basename(f) for f in files]
    for n in names:
        check(NAME.match(n), "WARC file name %s is not REDCRAWL-TIMESTAMP-SERIAL-HOST-PID.warc.gz" % n)
    # Each process writes its own files: a page's file carries the pid of the worker that stored it
    # (worker ids are HOST-PID-RANDOM), and as many pids as workers stored pages.
    pids = {NAME.match(n).group(1) for n in names}
    writers = {p["worker"].split("-")[-2] for p in pages}
    check(pids == writers, "file pids %s, workers' pids %s" % (sorted(pids), sorted(writers)))
    for p in pages:
        check(NAME.match(p["warc_file"]).group(1) == p["worker"].split("-")[-2],
              "%s stored by %s went to %s" % (p["url"], p["worker"], p["warc_file"]))
    check(len(files) > 2, "files did not rotate at --warc-size: %d files" % len(files))
    for f in files[:-1]:
        check(os.path.getsize(f) < 150000 + 60000, "%s grew far past --warc-size" % f)

    index = check_and_index(py, files)
    kinds = {}
    for row in index:
        kinds[row["warc-type"]] = kinds.get(row["warc-type"], 0) + 1
    check(kinds.get("warcinfo") == len(files), "one warcinfo per file: %s" % kinds)
    for k in ("response", "request", "metadata"):
        check(kinds.get(k) == len(pages), "%d %s records for %d pages" % (kinds.get(k, 0), k, len(pages)))

    recs = read_records(py, files)
    responses = {r["uri"]: r for r in recs if r["type"] == "response"}
    check(set(responses) == set(want), "response records != the page set")
    requests = {r["to"]: r for r in recs if r["type"] == "request"}
    mismatched = []
    for url, r in responses.items():
        q = requests.get(r["id"])
        check(q is not None and q["uri"] == url, "no request record concurrent to %s's response" % url)
        sent = {k.lower(): v for k, v in q.get("http", [])}
        check(q.get("line", [""])[0] == "GET" and sent.get("host") == url.split("/")[2] and "user-agent" in sent,
              "request record of %s is not the request sent: %s %s" % (url, q.get("line"), q.get("http")))
        if bytes.fromhex(r["payload"]) != server_body(port, url):
            mismatched.append(url)
    check(not mismatched, "%d payloads differ from the server's bytes, e.g. %s" % (len(mismatched), mismatched[:3]))
    check_offsets(py, out, pages, dict(zip(names, files)))
    total = sum(os.path.getsize(f) for f in files)
    print("warc: %d pages, %d files from %d worker process(es), %d records, %.1f KB per page (%.1f MB per 1,000 pages)"
          % (len(pages), len(files), len(pids), len(index), total / 1024 / len(pages), total / len(pages) * 1000 / 1e6))


class Wire(http.server.BaseHTTPRequestHandler):
    """Sends gzip bodies, some chunked: the WARC must keep the coded bytes, not the chunks."""
    protocol_version = "HTTP/1.1"
    sent = {}

    def do_GET(self):
        if self.path == "/robots.txt":
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        n = int(self.path.strip("/") or 0)
        links = "".join('<a href="/%d">%d</a> ' % (k, k) for k in (n + 1, n + 2) if k < 6)
        html = ("<html><head><title>p%d</title></head><body>%s %s</body></html>" % (n, "word " * 50 * n, links)).encode()
        body = gzip.compress(html, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Encoding", "gzip")
        if n % 2:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(0, len(body), 17):
                part = body[i:i + 17]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        Wire.sent["http://gz.test" + self.path] = body

    def log_message(self, *a):
        pass


def test_warc_keeps_coded_bytes(tmp, procs):
    """gzip bodies (chunked or not) are kept as sent; the record is readable and decodes."""
    py = warcio_python()
    srv = TestHTTPServer(("127.0.0.1", 0), Wire)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        out = crawl(tmp, srv.server_address[1], ["http://gz.test/"], "--delay", "0", "--body")
    finally:
        srv.shutdown()
        srv.server_close()
    files = warc_files(out)
    check_and_index(py, files)
    recs = [r for r in read_records(py, files) if r["type"] == "response"]
    check(len(recs) == 6, "want 6 responses, got %d" % len(recs))
    for r in recs:
        uri = r["uri"]
        check(bytes.fromhex(r["payload"]) == Wire.sent.get(uri), "%s: payload is not the gzip bytes sent" % uri)
        names = [k.lower() for k, _ in r["http"]]
        check("transfer-encoding" not in names, "%s: a de-chunked payload still says chunked" % uri)
    chunked = [r for r in recs if any(k == "X-Crawler-Transfer-Encoding" for k, _ in r["http"])]
    check(len(chunked) == 3, "want 3 chunked responses marked X-Crawler-Transfer-Encoding, got %d" % len(chunked))
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check(all(p.get("body", "").startswith("<html><head><title>p") for p in pages), "--body: decoded HTML missing")
    check_offsets(py, out, pages, {os.path.basename(f): f for f in files})


if __name__ == "__main__":
    run_tests([test_warc_round_trip, test_warc_keeps_coded_bytes])
