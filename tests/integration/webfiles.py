"""A static test web server for the integration tests: serves files from a map of
URL -> (file, content type), routed by the Host header (clients use --connect-to), on a free
127.0.0.1 port, logging every request. Runs in a thread of the test process."""
import http.server
import threading
import time
import urllib.parse


class TestHTTPServer(http.server.ThreadingHTTPServer):
    """The test servers' HTTP server: a listen backlog for a whole crawl's first requests at once
    (socketserver's default of 5 drops the rest, and their clients wait for a reply that never
    comes: a crawler opens one connection per host)."""
    request_queue_size = 1024
    daemon_threads = True


class StaticWeb:
    def __init__(self, routes, failing=None):
        """routes: {"http://host/path": (file_path, content_type or None)}; failing:
        {"http://host/path": (status, {header: value})} answered with an empty body."""
        self.routes = routes
        self.failing = failing or {}
        self.requests = []
        self.times = []  # (time.time(), url) of every request
        web = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                host = (self.headers.get("Host") or "").split(":")[0].lower()
                path = urllib.parse.urlsplit(self.path).path
                url = "http://%s%s" % (host, path)
                web.requests.append(url)
                web.times.append((time.time(), url))
                route = web.routes.get("http://%s%s" % (host, self.path)) or web.routes.get(url)
                if url in web.failing:
                    body = b""
                    self.send_response(web.failing[url][0])
                    for k, v in web.failing[url][1].items():
                        self.send_header(k, v)
                elif route is None:
                    body = b"<html><title>404</title>not here</html>"
                    self.send_response(404)
                    self.send_header("Content-Type", "text/html")
                else:
                    with open(route[0], "rb") as f:
                        body = f.read()
                    self.send_response(200)
                    if route[1]:
                        self.send_header("Content-Type", route[1])
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = TestHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
