"""Shared pieces of the integration tests: real servers started per test in a temp dir
(redis-server, the project's test web server), the expected page set from the web server's
own link graph, and readers for the crawler's output and the server's request log.

Everything binds loopback only, is bounded in time, and is stopped by pid."""
import collections
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

BUILD = os.environ.get("REDCRAWL_BUILD") or os.path.join(os.path.dirname(__file__), "..", "..", "build")
BUILD = os.path.abspath(BUILD)
REDCRAWL = os.path.join(BUILD, "cli", "redcrawl")
WORKER = os.path.join(BUILD, "worker", "redcrawl-worker")
SCHEDULER = os.path.join(BUILD, "scheduler", "redcrawl-scheduler")
TESTWEB = os.path.join(BUILD, "tests", "testweb")
# A ThreadSanitizer build's daemons read this (what it ignores, and why, is in the file).
os.environ.setdefault("TSAN_OPTIONS", "suppressions=" + os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "tsan.supp")))


class Failure(Exception):
    pass


CHECKS = [0]  # check() calls so far: a test that made none checked nothing and fails


def check(cond, msg):
    CHECKS[0] += 1
    if not cond:
        raise Failure(msg)


class Procs:
    """Processes started by a test; all stopped (by pid) when the test ends."""

    def __init__(self):
        self.procs = []

    def start(self, argv, log_path, env=None):
        log = open(log_path, "ab")
        p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             env=env, start_new_session=True)
        log.close()
        self.procs.append(p)
        return p

    def stop(self, p, sig=signal.SIGTERM, timeout=20):
        if p.poll() is None:
            try:
                p.send_signal(sig)
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def stop_all(self):
        for p in reversed(self.procs):
            self.stop(p)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_redis(procs, tmp):
    port = free_port()
    p = procs.start(["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                     "--appendonly", "no", "--dir", tmp], os.path.join(tmp, "redis.log"))
    deadline = time.time() + 10
    while time.time() < deadline:
        if redis_cmd(port, "PING") == "PONG":
            return port, p
        time.sleep(0.05)
    raise Failure("redis-server did not start: see %s/redis.log" % tmp)


def redis_cmd(port, *args):
    """A tiny RESP client (no dependencies): one command, one reply."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            out = "*%d\r\n" % len(args) + "".join("$%d\r\n%s\r\n" % (len(str(a).encode()), a) for a in args)
            s.sendall(out.encode())
            f = s.makefile("rb")
            return _read_reply(f)
    except OSError:
        return None


def frontier_records(port, crawlid):
    """A job's frontier in order, as stored (shared/lua/common.lua): the zset an older version
    kept (rc:seeds:{crawlid}), then a list per bucket (rc:seeds:{crawlid}:{priority}:{depth}),
    the buckets in rc:seedb:{crawlid}'s order. Compact records there leave out the crawlid."""
    out = list(redis_cmd(port, "ZRANGE", "rc:seeds:" + crawlid, "0", "-1") or [])
    for b in redis_cmd(port, "ZRANGE", "rc:seedb:" + crawlid, "0", "-1") or []:
        out += redis_cmd(port, "LRANGE", "rc:seeds:%s:%s" % (crawlid, b), "0", "-1") or []
    return out


def frontier_len(port, crawlid):
    """How many URLs wait in a job's frontier (frontier_records, counted)."""
    n = redis_cmd(port, "ZCARD", "rc:seeds:" + crawlid) or 0
    for b in redis_cmd(port, "ZRANGE", "rc:seedb:" + crawlid, "0", "-1") or []:
        n += redis_cmd(port, "LLEN", "rc:seeds:%s:%s" % (crawlid, b)) or 0
    return n


def _read_reply(f):
    line = f.readline().rstrip(b"\r\n")
    kind, rest = line[:1], line[1:]
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        return Failure(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        n = int(rest)
        if n < 0:
            return None
        data = f.read(n + 2)[:-2]
        return data.decode()
    if kind == b"*":
        n = int(rest)
        return None if n < 0 else [_read_reply(f) for _ in range(n)]
    raise Failure("bad RESP reply %r" % line)


def start_web(procs, tmp, *args):
    log = os.path.join(tmp, "requests.log")
    out = os.path.join(tmp, "web.out")
    p = procs.start([TESTWEB, "--port", "0", "--log", log, "--max-seconds", "300"] + list(args), out)
    deadline = time.time() + 10
    while time.time() < deadline:
        with open(out) as f:
            first = f.readline()
        if first.startswith("PORT "):
            return int(first.split()[1]), log, p
        time.sleep(0.05)
    raise Failure("testweb did not start: see %s" % out)


def graph(*args):
    """The web server's link graph: url -> (kind, target, [links])."""
    out = subprocess.run([TESTWEB, "--print-graph"] + list(args), check=True, capture_output=True,
                         text=True, timeout=30).stdout
    g = {}
    for line in out.splitlines():
        parts = line.split("\t")
        links = parts[3].split() if len(parts) > 3 and parts[3] else []
        g[parts[0]] = (parts[1], parts[2], links)
    return g


def host_of(url):
    return urllib.parse.urlsplit(url).hostname


def in_scope(url, domains):
    h = host_of(url)
    return any(h == d or h.endswith("." + d) for d in domains)


def expected_pages(g, seeds, maxdepth, domains, skip=lambda url: False):
    """BFS over the graph as the crawler sees it: a redirect is fetched as it is (a 3xx) and its
    target enters the frontier at the SAME depth (a redirect is not a link hop); a URL with no
    node (e.g. a 404 path) is fetched but has no links."""
    depth = {}
    queue = collections.deque()
    for s in seeds:
        depth[s] = 0
        queue.append(s)
    while queue:
        url = queue.popleft()
        d = depth[url]
        kind, target, links = g.get(url, ("none", "-", []))
        if kind == "redirect":
            if target not in depth and in_scope(target, domains) and not skip(target):
                depth[target] = d
                queue.appendleft(target)
            continue
        if maxdepth >= 0 and d >= maxdepth:
            continue
        if kind != "html":
            continue
        for link in links:
            if link not in depth and in_scope(link, domains) and not skip(link):
                depth[link] = d + 1
                queue.append(link)
    return depth


def sbloom_filter(params, i):
    """Filter i of a job's growing bloom (shared/sbloom.c, common.lua): (bits per group, hashes
    per group, capacity). params is the job hash's "sbf:mg0:fp:groups:mg1" (an older job's has
    no mg1: plain doubling)."""
    import math
    f = params.split(":")
    mg0, fp, groups = int(f[1]), float(f[2]), int(f[3])
    mgmax = 1 << 32
    while mgmax * groups > (1 << 32):
        mgmax >>= 1
    mg1 = int(f[4]) if len(f) > 4 else min(mg0 * 2, mgmax)
    mg = mg0 if i == 0 else min(mg1 << (i - 1), mgmax)
    fpi = fp / 2.0 ** (i + 1)
    kt = min(math.ceil(math.log(1 / fpi) / math.log(2)), 16)
    k = min(max(int(kt // groups), 1), 16 // groups)
    cap = max(int(math.floor(-mg / k * math.log(1 - fpi ** (1 / (k * groups))))), 1)
    return mg, k, cap, groups


def check_page_set(pages, want, label):
    """Every URL of want stored, once, and nothing else."""
    urls = [p["url"] for p in pages]
    dups = [u for u, n in collections.Counter(urls).items() if n > 1]
    check(not dups, "%s: %d URLs stored more than once, e.g. %s" % (label, len(dups), dups[:3]))
    got = set(urls)
    missing, extra = set(want) - got, got - set(want)
    check(not missing and not extra, "%s: %d missing (e.g. %s), %d unexpected (e.g. %s)" %
          (label, len(missing), sorted(missing)[:3], len(extra), sorted(extra)[:3]))


def read_pages(path):
    pages = []
    with open(path) as f:
        for line in f:
            pages.append(json.loads(line))
    return pages


def read_requests(path):
    """Request log rows: (start_us, end_us, host, path, status)."""
    rows = []
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) >= 5:
                rows.append((int(p[0]), int(p[1]), p[2].split(":")[0].lower(), p[3], int(p[4])))
    return rows


def overlaps(rows):
    """Pairs of requests to one host whose [start, end] intervals overlap."""
    by_host = collections.defaultdict(list)
    for r in rows:
        by_host[r[2]].append(r)
    bad = []
    for host, rs in by_host.items():
        rs.sort()
        for a, b in zip(rs, rs[1:]):
            if b[0] < a[1]:
                bad.append((host, a, b))
    return bad


def sanitizer_reports(tmp):
    """Daemons built with ASan/UBSan (or TSan: meson setup -Db_sanitize=thread) report into their
    logs; any report fails the test."""
    found = []
    for root, _, files in os.walk(tmp):
        for name in files:
            if name.endswith((".log", ".out")):
                path = os.path.join(root, name)
                with open(path, errors="replace") as f:
                    text = f.read()
                for marker in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                               "WARNING: ThreadSanitizer", "ERROR: ThreadSanitizer"):
                    if marker in text:
                        found.append("%s: %s" % (path, marker))
    return found


def run_tests(tests):
    """Runs test functions (each gets a fresh temp dir); prints a summary line that the CI
    reads, and exits non-zero on any failure."""
    passed = failed = 0
    only = sys.argv[1:]
    for t in tests:
        if only and t.__name__ not in only:
            continue
        tmp = tempfile.mkdtemp(prefix="rc-it-")
        procs = Procs()
        t0 = time.time()
        try:
            before = CHECKS[0]
            t(tmp, procs)
            if CHECKS[0] == before:
                raise Failure("the test made no check: it shows nothing")
            procs.stop_all()
            reports = sanitizer_reports(tmp)
            check(not reports, "sanitizer reports: %s" % reports)
            passed += 1
            print("PASS %s (%.1fs)" % (t.__name__, time.time() - t0), flush=True)
            shutil.rmtree(tmp, ignore_errors=True)
        except Exception as e:  # a failing test reports and the others still run
            failed += 1
            print("FAIL %s (%.1fs): %s: %s\n  files kept in %s" % (t.__name__, time.time() - t0,
                  type(e).__name__, e, tmp), flush=True)
        finally:
            procs.stop_all()
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not passed else 0)


WARCIO_VENV = os.path.join(os.path.expanduser("~"), ".cache", "redcrawl", "warcio-venv")


def warcio_python():
    """The python of a venv holding warcio (PyPI), the WARC reader the tests check against;
    scripts/setup.sh makes it, and so does the first test that needs it on a clean machine."""
    py = os.path.join(WARCIO_VENV, "bin", "python")
    if not os.path.exists(os.path.join(WARCIO_VENV, "bin", "warcio")):
        subprocess.run([sys.executable, "-m", "venv", WARCIO_VENV], check=True, timeout=120)
        subprocess.run([py, "-m", "pip", "install", "-q", "warcio"], check=True, timeout=300)
    return py
