"""Helpers for the tests of redcrawl-web (test_rest.py, test_dashboard.py): start it, call it."""
import http.client
import json
import os
import time

from harness import BUILD, Failure

WEBAPP = os.path.join(BUILD, "web", "redcrawl-web")


def start_webapp(procs, tmp, redis_port, *args, name="webapp"):
    """redcrawl-web on a free loopback port; (port, process, log path)."""
    log = os.path.join(tmp, name + ".log")
    env = dict(os.environ, REDCRAWL_REDIS="redis://127.0.0.1:%d" % redis_port)
    p = procs.start([WEBAPP, "--port", "0"] + list(args), log, env=env)
    deadline = time.time() + 15
    while time.time() < deadline:
        with open(log) as f:
            for line in f:
                if line.startswith("redcrawl-web: http://"):
                    return int(line.rstrip().rstrip("/").rsplit(":", 1)[1]), p, log
        if p.poll() is not None:
            break
        time.sleep(0.05)
    raise Failure("redcrawl-web did not start: see %s" % log)


def call(port, method, path, body=None, headers=None, host="127.0.0.1"):
    """One HTTP request; (status, parsed JSON or text). BODY: bytes, str or a JSON value."""
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    if body is not None and not isinstance(body, (bytes, str)):
        body = json.dumps(body)
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogateescape")
    c = http.client.HTTPConnection(host, port, timeout=30)
    try:
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        data = r.read()
    finally:
        c.close()
    try:
        return r.status, json.loads(data)
    except ValueError:
        return r.status, data.decode(errors="replace")
