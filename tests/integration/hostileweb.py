"""A hostile test web: one host per way a server can hurt a crawler, plus a well-behaved host to
show that the others are crawled at full speed meanwhile. Binds 127.0.0.1 on a free port, routes
by the Host header (clients use --connect-to), logs every request, and bounds every endless
answer in time. Runs in threads of the test process.

Hosts (all under .test):
  good            / and /p0../p{N-1}, small pages linking each other
  bomb0..bombK    / : gzip bomb, 100 MiB of zeros in ~100 KB, Content-Encoding: gzip
  endless         / : a chunked HTML body that never ends (until the client leaves or 60 s)
  trickle         / : one byte a second (60 s at most)
  hugeheader      / : a single 1 MB response header
  manyheaders     / : 2,000 response headers
  loop            / : 302 to itself; /a and /b redirect to each other
  reset           / : half a body, then a TCP reset
  mislabel        / : GBK bytes labelled charset=utf-8
  links           / : 100,000 links (to other sites: out of scope, but all parsed)
  deep            / : 200,000 nested <div>s
  garbage         /robots.txt is random bytes; / is a normal page
"""
import http.server
import os
import socket
import struct
import threading
import time
import urllib.parse
import zlib

from webfiles import TestHTTPServer

ENDLESS_SECONDS = 60


def _gzip_bomb(size):
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b"\0" * (1 << 20)
    parts = [c.compress(b"<html><body>")]
    for _ in range(size >> 20):
        parts.append(c.compress(chunk))
    parts.append(c.flush())
    return b"".join(parts)


def page(title, links=(), body=""):
    return ("<html><head><title>%s</title></head><body><h1>%s</h1><p>%s</p>%s</body></html>" %
            (title, title, body, "".join('<a href="%s">%s</a>' % (l, l) for l in links))).encode()


class HostileWeb:
    def __init__(self, good_pages=30, bombs=20):
        self.log = []  # (time, host, path)
        self.lock = threading.Lock()
        self.good_pages, self.bombs = good_pages, bombs
        self.bomb = _gzip_bomb(100 << 20)
        self.links_page = page("links", ["http://x%d.elsewhere.example/p" % i for i in range(100000)])
        self.deep_page = b"<html><body>" + b"<div>" * 200000 + b"deep" + b"</div>" * 200000 + b"</body></html>"
        self.gbk_page = ("<html><head><title>标题</title></head><body><p>%s</p></body></html>" %
                         ("中文内容，编码标错了。" * 50)).encode("gbk")
        self.stop = threading.Event()
        web = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                host = (self.headers.get("Host") or "").split(":")[0].lower()
                path = urllib.parse.urlsplit(self.path).path
                with web.lock:
                    web.log.append((time.time(), host, path))
                name = host[:-5] if host.endswith(".test") else host
                kind = "bomb" if name.startswith("bomb") else name
                getattr(self, "h_" + kind, self.h_missing)(path)

            def send(self, status, body, ctype="text/html", headers=()):
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def h_missing(self, path):
                self.send(404, b"not here")

            def h_good(self, path):
                if path == "/robots.txt":
                    return self.send(404, b"")
                links = ["/p%d" % i for i in range(web.good_pages)]
                self.send(200, page("good " + path, links))

            def h_bomb(self, path):
                if path == "/robots.txt":
                    return self.send(404, b"")
                self.send(200, web.bomb, headers=[("Content-Encoding", "gzip")])

            def h_endless(self, path):
                if path == "/robots.txt":
                    return self.send(404, b"")
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                chunk = b"<p>" + b"more " * 2000 + b"</p>"
                frame = b"%x\r\n%s\r\n" % (len(chunk), chunk)
                deadline = time.time() + ENDLESS_SECONDS
                try:
                    while time.time() < deadline and not web.stop.is_set():
                        self.wfile.write(frame)
                except OSError:
                    pass
                self.close_connection = True

            def h_trickle(self, path):
                if path == "/robots.txt":
                    return self.send(404, b"")
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", "1000")
                self.end_headers()
                try:
                    for _ in range(ENDLESS_SECONDS):
                        if web.stop.wait(1.0):
                            break
                        self.wfile.write(b"x")
                        self.wfile.flush()
                except OSError:
                    pass
                self.close_connection = True

            def h_hugeheader(self, path):
                if path == "/robots.txt":
                    return self.send(404, b"")
                self.send(200, page("huge"), headers=[("X-Huge", "h" * (1 << 20))])

            def h_manyheaders(self, path):
                if path == "/robots.txt":
                    return self.send(404, b"")
                self.send(200, page("many"), headers=[("X-Many-%d" % i, "v") for i in range(2000)])

            def h_loop(self, path):
                if path == "/robots.txt":
                    return self.send(404, b"")
                target = {"/": "/", "/a": "/b", "/b": "/a"}.get(path)
                if not target:
                    return self.send(200, page("loop", ["/a"]))
                self.send(302, b"", headers=[("Location", "http://loop.test" + target)])

            def h_reset(self, path):
                if path == "/robots.txt":
                    return self.send(404, b"")
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", "100000")
                self.end_headers()
                self.wfile.write(b"<html><body>" + b"half " * 1000)
                self.wfile.flush()
                # SO_LINGER 0: close() sends a RST instead of a FIN.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True

            def h_mislabel(self, path):
                if path == "/robots.txt":
                    return self.send(404, b"")
                self.send(200, web.gbk_page, ctype="text/html; charset=utf-8")

            def h_links(self, path):
                if path == "/robots.txt":
                    return self.send(404, b"")
                self.send(200, web.links_page)

            def h_deep(self, path):
                if path == "/robots.txt":
                    return self.send(404, b"")
                self.send(200, web.deep_page)

            def h_garbage(self, path):
                if path == "/robots.txt":
                    return self.send(200, os.urandom(4096) + b"\nDisallow: /\x00\xff\nUser-agent\n", ctype="text/plain")
                self.send(200, page("garbage robots"))

            def log_message(self, *args):
                pass

        self.server = TestHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def hosts(self):
        return (["good", "endless", "trickle", "hugeheader", "manyheaders", "loop", "reset", "mislabel", "links",
                 "deep", "garbage"] + ["bomb%d" % i for i in range(self.bombs)])

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()
