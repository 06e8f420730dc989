#!/usr/bin/env python3
"""HTTPS against a real local server: nginx (Debian) with a certificate from a test CA made
here. With --cacert the pages are fetched over HTTP/2, the worker asks for gzip, deflate, br and
zstd (nginx's access log is the witness), the WARC keeps the gzip'd bytes; without it the
certificate does not verify and every page is recorded with that error, never fetched."""
import gzip
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import REDCRAWL, Failure, check, free_port, read_pages, run_tests, warcio_python  # noqa: E402

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"

PAGES = {
    "index.html": '<html><head><title>secure</title></head><body><a href="/a.html">a</a> <a href="/b.html">b</a>'
                  '<p>%s</p></body></html>' % ("secure words " * 100),
    "a.html": "<html><head><title>a</title></head><body><p>%s</p></body></html>" % ("page a " * 200),
    "b.html": "<html><head><title>b</title></head><body><p>%s</p></body></html>" % ("page b " * 200),
}


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True, capture_output=True, timeout=60)


def make_ca(tmp):
    """A CA and a certificate for secure.test it signed (SAN, as verifiers require)."""
    d = os.path.join(tmp, "pki")
    os.makedirs(d)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=redcrawl test CA", cwd=d)
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "srv.key", "-out", "srv.csr",
            "-subj", "/CN=secure.test", cwd=d)
    with open(os.path.join(d, "ext.cnf"), "w") as f:
        f.write("subjectAltName=DNS:secure.test\nbasicConstraints=CA:FALSE\n")
    openssl("x509", "-req", "-in", "srv.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
            "srv.pem", "-days", "2", "-extfile", "ext.cnf", cwd=d)
    return d


def start_nginx(procs, tmp, pki):
    root = os.path.join(tmp, "www")
    os.makedirs(root)
    for name, html in PAGES.items():
        with open(os.path.join(root, name), "w") as f:
            f.write(html)
    port = free_port()
    conf = os.path.join(tmp, "nginx.conf")
    with open(conf, "w") as f:
        f.write("""%(user)s
daemon off;
worker_processes 1;
pid %(tmp)s/nginx.pid;
error_log %(tmp)s/nginx-error.log;
events { worker_connections 64; }
http {
    log_format t '$server_protocol\\t$request_uri\\t$status\\t$http_accept_encoding';
    access_log %(tmp)s/nginx-access.log t;
    client_body_temp_path %(tmp)s/cbt; proxy_temp_path %(tmp)s/pt; fastcgi_temp_path %(tmp)s/ft;
    uwsgi_temp_path %(tmp)s/ut; scgi_temp_path %(tmp)s/st;
    types { text/html html; }
    gzip on; gzip_min_length 1; gzip_types text/html;
    server {
        listen 127.0.0.1:%(port)d ssl http2;
        server_name secure.test;
        ssl_certificate %(pki)s/srv.pem;
        ssl_certificate_key %(pki)s/srv.key;
        root %(root)s;
        location = /robots.txt { return 404; }
    }
}
""" % {"user": "user root;" if os.geteuid() == 0 else "", "tmp": tmp, "port": port, "pki": pki, "root": root})
    procs.start([NGINX, "-p", tmp, "-c", conf, "-e", os.path.join(tmp, "nginx-error.log")],
                os.path.join(tmp, "nginx.out"))
    deadline = time.time() + 10
    while time.time() < deadline:
        if os.path.exists(os.path.join(tmp, "nginx.pid")):
            return port
        time.sleep(0.05)
    raise Failure("nginx did not start: see %s/nginx-error.log" % tmp)


def crawl(tmp, port, name, *args):
    out = os.path.join(tmp, name)
    r = subprocess.run([REDCRAWL, "crawl", "--out", out, "--connect-to", "secure.test:443:127.0.0.1:%d" % port,
                        "--allow-net", "127.0.0.0/8", "--quiet", "--delay", "0"] + list(args) + ["https://secure.test/"],
                       capture_output=True, text=True, timeout=120)
    return out, r


def access_log(tmp):
    with open(os.path.join(tmp, "nginx-access.log")) as f:
        return [line.rstrip("\n").split("\t") for line in f]


def test_https_verified_http2_gzip(tmp, procs):
    check(os.path.exists(NGINX), "nginx is not installed (scripts/setup.sh installs nginx-light)")
    pki = make_ca(tmp)
    port = start_nginx(procs, tmp, pki)
    out, r = crawl(tmp, port, "good", "--cacert", os.path.join(pki, "ca.pem"), "--warc")
    check(r.returncode == 0, "crawl failed: %s" % r.stderr[-2000:])
    pages = {p["url"]: p for p in read_pages(os.path.join(out, "pages.jsonl"))}
    want = {"https://secure.test/", "https://secure.test/a.html", "https://secure.test/b.html"}
    check(set(pages) == want, "pages %s" % sorted(pages))
    for p in pages.values():
        check(p["status_code"] == 200 and p.get("http_version") == "HTTP/2" and "error" not in p,
              "not fetched over verified HTTP/2: %s" % p)
    rows = [row for row in access_log(tmp) if row[1] != "/robots.txt"]
    check(len(rows) == 3 and all(row[0] == "HTTP/2.0" and row[2] == "200" for row in rows), "nginx saw %s" % rows)
    for row in rows:
        asked = [x.strip() for x in row[3].split(",")]
        check(all(c in asked for c in ("gzip", "deflate", "br", "zstd")), "Accept-Encoding was %r" % row[3])
    # The WARC holds the gzip'd bytes nginx sent; they decode to the file.
    py = warcio_python()
    files = [os.path.join(out, "warc", f) for f in os.listdir(os.path.join(out, "warc"))]
    chk = subprocess.run([os.path.join(os.path.dirname(py), "warcio"), "check"] + files, capture_output=True,
                         text=True, timeout=60)
    check(chk.returncode == 0, "warcio check: %s %s" % (chk.stdout[-1500:], chk.stderr[-1500:]))
    reader = ("import sys, json\nfrom warcio.archiveiterator import ArchiveIterator\n"
              "for p in sys.argv[1:]:\n for r in ArchiveIterator(open(p,'rb')):\n"
              "  if r.rec_type=='response':\n"
              "   print(json.dumps([r.rec_headers.get_header('WARC-Target-URI'), r.http_headers.get_header('content-encoding'),"
              " r.raw_stream.read().hex()]))\n")
    got = subprocess.run([py, "-c", reader] + files, capture_output=True, text=True, timeout=60)
    check(got.returncode == 0, "reading WARC: %s" % got.stderr[-1500:])
    for line in got.stdout.splitlines():
        uri, enc, hexbody = json.loads(line)
        name = uri.rsplit("/", 1)[1] or "index.html"
        check(enc == "gzip" and gzip.decompress(bytes.fromhex(hexbody)).decode() == PAGES[name],
              "%s: WARC payload is not nginx's gzip of the file (coding %s)" % (uri, enc))


def test_https_unverified_is_an_error(tmp, procs):
    check(os.path.exists(NGINX), "nginx is not installed (scripts/setup.sh installs nginx-light)")
    pki = make_ca(tmp)
    port = start_nginx(procs, tmp, pki)
    out, r = crawl(tmp, port, "bad")  # the system's CAs do not know the test CA
    pages = read_pages(os.path.join(out, "pages.jsonl"))
    check(len(pages) == 1, "want the seed recorded once: %s" % pages)
    p = pages[0]
    check(p["status_code"] == 0 and "certificate" in p.get("error", "").lower() and p["attempt"] == 1,
          "a certificate that does not verify must be an error, at once: %s" % p)
    check(access_log(tmp) == [], "nothing may reach the server over an unverified connection")
    print("https: verification failure recorded as %r" % p["error"][:80])


if __name__ == "__main__":
    run_tests([test_https_verified_http2_gzip, test_https_unverified_is_an_error])
