"""A small W3C WebDriver client (stdlib only) for Debian's chromedriver driving headless
Chromium: start a session, find elements, type, click, run a script, take a screenshot. Enough
for test_dashboard.py; nothing from PyPI, nothing fetched."""
import base64
import json
import os
import subprocess
import time
import urllib.error
import urllib.request

from harness import Failure, free_port

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1800"]
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # the W3C element reference key


class Browser:
    def __init__(self, procs, tmp):
        self.port = free_port()
        self.driver = procs.start([CHROMEDRIVER, "--port=%d" % self.port, "--allowed-ips=127.0.0.1",
                                   "--log-path=" + os.path.join(tmp, "chromedriver.log")],
                                  os.path.join(tmp, "chromedriver.out"))
        deadline = time.time() + 20
        while True:
            try:
                if self._call("GET", "/status")["ready"]:
                    break
            except (OSError, Failure):
                pass
            if time.time() > deadline:
                raise Failure("chromedriver did not start: see %s/chromedriver.out" % tmp)
            time.sleep(0.1)
        profile = os.path.join(tmp, "chromium-profile")  # fresh: nothing from another run
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": CHROMIUM, "args": FLAGS + ["--user-data-dir=" + profile]}}}}
        self.session = self._call("POST", "/session", caps)["sessionId"]

    def _call(self, method, path, body=None, timeout=60):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path), data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.loads(r.read())["value"]
        except urllib.error.HTTPError as e:
            raise Failure("webdriver %s %s: %s" % (method, path, e.read()[:500]))

    def cmd(self, method, path, body=None):
        return self._call(method, "/session/%s%s" % (self.session, path), body)

    def get(self, url):
        self.cmd("POST", "/url", {"url": url})

    def find(self, css):
        return self.cmd("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def type(self, css, text):
        el = self.find(css)
        self.cmd("POST", "/element/%s/clear" % el, {})
        self.cmd("POST", "/element/%s/value" % el, {"text": text})

    def click(self, css):
        self.cmd("POST", "/element/%s/click" % self.find(css), {})

    def js(self, script, *args):
        return self.cmd("POST", "/execute/sync", {"script": script, "args": list(args)})

    def text(self, css):
        return self.js("const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", css)

    def wait(self, what, fn, timeout=60):
        deadline = time.time() + timeout
        while True:
            v = fn()
            if v:
                return v
            if time.time() > deadline:
                raise Failure("timed out waiting for %s" % what)
            time.sleep(0.2)

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.cmd("GET", "/screenshot")))
        return path

    def close(self):
        try:
            self._call("DELETE", "/session/%s" % self.session, timeout=20)
        except (OSError, Failure):
            pass
