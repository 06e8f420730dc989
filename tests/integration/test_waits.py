#!/usr/bin/env python3
"""Long waits of the command line show progress on a terminal (script(1) gives the command one)
and end with a clear message: `redcrawl crawl --redis` waiting for a Redis that is not up yet
(and giving up at --redis-wait), `redcrawl crawl` stopped while its workers finish slow pages,
and `redcrawl stop --wait` waiting for a job's pages in flight (and giving up at --timeout on a
stalled worker). `redcrawl drain`'s wait is in test_drain.py, the Kafka waits in test_kafka.py."""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import (REDCRAWL, check, free_port, redis_cmd, run_tests, start_web)  # noqa: E402
from test_fleet import fleet  # noqa: E402


def on_tty(cmd, env, timeout=120):
    """Runs CMD (a shell command line) on a pseudo-terminal; (exit status, what it wrote)."""
    r = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True, text=True, env=env,
                       timeout=timeout)
    return r.returncode, r.stdout


def crawl_cmd(tmp, web_port, *args):
    return " ".join([REDCRAWL, "crawl", "--out", os.path.join(tmp, "out"), "--delay", "0.05", "--connect-to",
                     "::127.0.0.1:%d" % web_port, "--allow-net", "127.0.0.0/8", "--web-port", "-1"] + list(args))


def test_crawl_waits_for_redis(tmp, procs):
    """--redis names a port where nothing listens yet: the crawl waits, saying so, and runs once
    Redis comes up; with no Redis at all it gives up at --redis-wait, naming the last error."""
    web_port, _, _ = start_web(procs, tmp, "--sites", "1", "--pages", "20")
    port = free_port()
    code, out = on_tty(crawl_cmd(tmp, web_port, "--redis", "redis://127.0.0.1:%d" % port, "--redis-wait", "2",
                                 "--crawlid", "nored", "http://s0.site.test/"), os.environ)
    check(code != 0 and "waiting for Redis (cannot connect to Redis at redis://127.0.0.1:%d" % port in out and
          "1 s of 2 s" in out and "no Redis after 2 s (--redis-wait)" in out and "Connection refused" in out,
          "no Redis: rc %d, %r" % (code, out[-700:]))
    cmd = crawl_cmd(tmp, web_port, "--redis", "redis://127.0.0.1:%d" % port, "--redis-wait", "60", "--crawlid",
                    "late", "--maxdepth", "1", "http://s0.site.test/")
    p = subprocess.Popen(["script", "-qec", cmd, "/dev/null"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, env=os.environ, start_new_session=True)
    procs.procs.append(p)
    time.sleep(3)
    procs.start(["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"],
                os.path.join(tmp, "redis.log"))
    out, _ = p.communicate(timeout=120)
    check(p.returncode == 0 and "waiting for Redis" in out and "2 s of 60 s" in out and "job late finished" in out,
          "late Redis: rc %d, %r" % (p.returncode, out[-700:]))
    check(redis_cmd(port, "HGET", "rc:job:late", "state") == "done", "the job is not done")
    print("  no Redis: gave up after 2 s with the connection error; Redis up 3 s late: waited, then crawled")


def test_crawl_stop_shows_worker_wait(tmp, procs):
    """A crawl paused (SIGTERM, as Ctrl-C: it stops watching the job at once) while its workers
    fetch slow pages (2.5 s each) says that it waits for the workers to finish what they hold,
    then prints its summary."""
    web_port, _, _ = start_web(procs, tmp, "--sites", "4", "--pages", "20", "--latency-ms", "2500")
    pidfile = os.path.join(tmp, "pid")
    cmd = "echo $$ > %s; exec %s" % (pidfile, crawl_cmd(tmp, web_port, "--crawlid", "slow", "--workers", "2",
                                                          "http://s0.site.test/", "http://s1.site.test/",
                                                          "http://s2.site.test/", "http://s3.site.test/"))
    p = subprocess.Popen(["script", "-qec", cmd, "/dev/null"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         env=os.environ, start_new_session=True)
    procs.procs.append(p)
    out = []
    reader = threading.Thread(target=lambda: out.extend(iter(lambda: p.stdout.read1(4096), b"")), daemon=True)
    reader.start()
    deadline = time.time() + 30
    while time.time() < deadline and not re.search(rb"in flight [1-9]", b"".join(out)):
        time.sleep(0.05)
    check(re.search(rb"in flight [1-9]", b"".join(out)), "nothing in flight: %r" % b"".join(out)[-300:])
    with open(pidfile) as f:
        pid = int(f.read())
    os.kill(pid, signal.SIGTERM)
    p.wait(timeout=120)
    reader.join(timeout=10)
    text = b"".join(out).decode(errors="replace")
    check(re.search(r"waiting for [12] workers? to finish their pages in flight \(Ctrl-C to kill\): 1 s", text) and
          "job slow paused by user" in text, "rc %d, %r" % (p.returncode, text[-900:]))
    check("killed" not in text, "a worker was killed: %r" % text[-900:])
    print("  paused mid-fetch: the wait for the workers was shown, then the summary")


def lease_job(member):
    """The crawl id of a lease member ("host TAB record"; the record compact, "crawlid depth
    priority attempt url", or JSON)."""
    rec = member.split("\t", 1)[-1]
    if rec.startswith("{"):
        return json.loads(rec).get("crawlid")
    return rec.split(" ", 1)[0]


def test_stop_wait(tmp, procs):
    """`redcrawl stop --wait` waits for the job's pages in flight (shown on a terminal) and says
    when nothing is left; with the only worker stalled (SIGSTOP) it gives up at --timeout saying
    what may hold the pages."""
    web_port, _, _ = start_web(procs, tmp, "--sites", "2", "--pages", "30", "--latency-ms", "2500")
    redis_port, env = fleet(procs, tmp, web_port, 1, "--delay", "0.05")
    worker = [p for p in procs.procs if "w0" in p.args][0]
    for job in ("a", "b"):
        r = subprocess.run([REDCRAWL, "submit", "--crawlid", job, "--maxdepth", "-1", "http://s0.site.test/",
                            "http://s1.site.test/"], capture_output=True, text=True, env=env, timeout=60)
        check(r.returncode == 0, "submit: %s" % r.stderr)

    def wait_leases():
        deadline = time.time() + 30
        while time.time() < deadline and not [m for m in redis_cmd(redis_port, "ZRANGE", "rc:lease:w0", "0", "-1")
                                              if lease_job(m) in ("a", "b")]:
            time.sleep(0.05)
        check(redis_cmd(redis_port, "ZCARD", "rc:lease:w0") > 0, "no page in flight")

    wait_leases()
    code, out = on_tty("%s stop --wait a" % REDCRAWL, env)
    check(code == 0 and "waiting for" in out and "in flight of job a" in out and
          "job a: nothing in flight any more" in out, "stop --wait: rc %d, %r" % (code, out[-700:]))
    check(redis_cmd(redis_port, "HGET", "rc:job:a", "pending") == "0", "job a still pending")
    wait_leases()
    worker.send_signal(signal.SIGSTOP)
    try:
        code, out = on_tty("%s stop --wait --timeout 2 b" % REDCRAWL, env)
    finally:
        worker.send_signal(signal.SIGCONT)
    check(code == 1 and "1 s of 2 s" in out and "still has" in out and "after 2 s (--timeout)" in out and
          "stalled" in out, "stalled: rc %d, %r" % (code, out[-700:]))
    print("  stop --wait: waited for the slow page, done; a stalled worker: gave up after 2 s, saying why")



def test_progress_errors_agree_with_summary(tmp, procs):
    """The progress line's errors are the summary's fetch errors: two URLs that time out on each
    of their 3 attempts are 2 errors in both (the line counted each failure twice)."""
    web_port, _, _ = start_web(procs, tmp, "--sites", "2", "--pages", "20")
    code, out = on_tty(crawl_cmd(tmp, web_port, "--timeout", "0.5", "--maxdepth", "0",
                                 "http://s0.site.test/slow/3000/1", "http://s1.site.test/slow/3000/1"), os.environ)
    check(code == 0, "crawl: rc %d, %r" % (code, out[-1500:]))
    lines = re.findall(r"pages (\d+) \([0-9.]+/s\) \| queued \d+ \| in flight \d+ \| errors (\d+)", out)
    summary = re.search(r"errors +(\d+) fetch errors", out)
    check(lines and summary, "no progress line or summary: %r" % out[-1500:])
    check(summary.group(1) == "2", "summary: %s fetch errors, want 2" % summary.group(1))
    check(lines[-1] == ("2", "2"), "last progress line: pages %s, errors %s; want 2 and 2" % lines[-1])
    check(all(int(e) <= 2 for _, e in lines), "a progress line with more errors than URLs failed: %s" % lines)

if __name__ == "__main__":
    run_tests([test_crawl_waits_for_redis, test_crawl_stop_shows_worker_wait, test_stop_wait,
               test_progress_errors_agree_with_summary])
