#!/usr/bin/env python3
"""Credentials for Redis: an ACL user with a password in the URL (or REDCRAWL_REDIS_PASSWORD_FILE)
reaches every process of a crawl, a wrong one fails with a clear message, and the password
never shows in any log, any output or any process's command line."""
import glob
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import (REDCRAWL, Failure, check, expected_pages, free_port, graph, read_pages, redis_cmd,  # noqa: E402
                     run_tests, start_web)

SECRET = "s3cret-PW-7f1e"


def start_redis_acl(procs, tmp):
    port = free_port()
    procs.start(["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
                 "--dir", tmp, "--requirepass", "admin-" + SECRET,
                 "--user", "crawler", "on", ">" + SECRET, "~*", "&*", "+@all"], os.path.join(tmp, "redis.log"))
    deadline = time.time() + 10
    while time.time() < deadline:
        if redis_cmd(port, "PING") is not None:
            return port
        time.sleep(0.05)
    raise Failure("redis-server did not start")


def no_secret_anywhere(tmp, texts):
    leaks = [t[:80] for t in texts if SECRET in t]
    for path in glob.glob(os.path.join(tmp, "**", "*"), recursive=True):
        if os.path.isfile(path) and not path.endswith((".rdb", ".aof")) and "pwfile" not in path:
            with open(path, errors="replace") as f:
                if SECRET in f.read():
                    leaks.append(path)
    check(not leaks, "the password leaked into: %s" % leaks)


def crawl(tmp, web_port, redis_url, env=None, out="out"):
    cmd = [REDCRAWL, "crawl", "--redis", redis_url, "--out", os.path.join(tmp, out), "--delay", "0", "--quiet", "--maxdepth", "-1",
           "--connect-to", "::127.0.0.1:%d" % web_port, "http://s0.site.test/"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    own = " ".join(cmd) + " "
    cmdlines = []
    while p.poll() is None:  # what `ps` shows of its children while it runs (the test itself
        for d in glob.glob("/proc/[0-9]*/cmdline"):  # chose to put the URL on crawl's own line)
            if d == "/proc/%d/cmdline" % p.pid:
                continue
            try:
                with open(d, "rb") as f:
                    line = f.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            # A child between fork and exec still shows crawl's own line: not a line of its own.
            if line != own:
                cmdlines.append(line)
        time.sleep(0.2)
    out_, err_ = p.communicate(timeout=120)
    return p.returncode, out_, err_, cmdlines


def test_redis_acl_user(tmp, procs):
    web_port, _, _ = start_web(procs, tmp, "--sites", "1", "--pages", "20")
    port = start_redis_acl(procs, tmp)
    rc, out, err, cmdlines = crawl(tmp, web_port, "redis://crawler:%s@127.0.0.1:%d" % (SECRET, port))
    check(rc == 0, "crawl with an ACL user failed (%d): %s %s" % (rc, out, err[-2000:]))
    want = expected_pages(graph("--sites", "1", "--pages", "20"), ["http://s0.site.test/"], -1, ["site.test"])
    got = {p["url"] for p in read_pages(os.path.join(tmp, "out", "pages.jsonl"))}
    check(got == set(want), "page set differs: %d of %d" % (len(got & set(want)), len(want)))
    no_secret_anywhere(tmp, [out, err] + cmdlines)
    print("  crawled %d pages as ACL user 'crawler'; %d command lines checked" % (len(got), len(cmdlines)))


def test_password_file_and_wrong_password(tmp, procs):
    web_port, _, _ = start_web(procs, tmp, "--sites", "1", "--pages", "5")
    port = start_redis_acl(procs, tmp)
    pwfile = os.path.join(tmp, "pwfile")
    with open(pwfile, "w") as f:
        f.write(SECRET + "\n")
    env = dict(os.environ, REDCRAWL_REDIS_USER="crawler", REDCRAWL_REDIS_PASSWORD_FILE=pwfile)
    rc, out, err, cmdlines = crawl(tmp, web_port, "redis://127.0.0.1:%d" % port, env=env)
    check(rc == 0, "crawl with REDCRAWL_REDIS_PASSWORD_FILE failed (%d): %s" % (rc, err[-2000:]))
    rc, out, err, cmdlines2 = crawl(tmp, web_port, "redis://crawler:wrong-%s@127.0.0.1:%d" % (SECRET, port),
                                    out="out2")
    check(rc != 0, "a wrong password was accepted")
    check("refused the credentials" in err, "the refusal does not say what is wrong: %s" % err[-500:])
    no_secret_anywhere(tmp, [out, err] + cmdlines + cmdlines2)


if __name__ == "__main__":
    run_tests([test_redis_acl_user, test_password_file_and_wrong_password])
