#!/usr/bin/env python3
"""The fleet-wide "fetched recently" decider: a job with --skip-recent-hours does not fetch a
URL another job fetched within that time (counted as recent in its summary), and does fetch one
nobody fetched. The test web's request log is the witness."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import REDCRAWL, Failure, check, read_requests, run_tests, start_redis, start_web  # noqa: E402


def crawl(tmp, rport, wport, crawlid, seed, *args):
    r = subprocess.run([REDCRAWL, "crawl", "--out", os.path.join(tmp, crawlid), "--redis",
                        "redis://127.0.0.1:%d" % rport, "--crawlid", crawlid, "--connect-to",
                        "::127.0.0.1:%d" % wport, "--allow-net", "127.0.0.0/8", "--delay", "0", "--maxdepth", "0"]
                       + list(args) + [seed], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise Failure("crawl %s exited %d: %s" % (crawlid, r.returncode, r.stderr[-2000:]))
    return r.stdout


def pages_asked(log):
    return [(h, p) for _, _, h, p, _ in read_requests(log) if p != "/robots.txt"]


def test_skip_recent(tmp, procs):
    rport, _ = start_redis(procs, tmp)
    wport, log, _ = start_web(procs, tmp, "--sites", "2", "--pages", "5")
    crawl(tmp, rport, wport, "first", "http://s0.site.test/", "--mark-recent")
    check(pages_asked(log) == [("s0.site.test", "/")], "the first job fetches its seed: %s" % pages_asked(log))
    out = crawl(tmp, rport, wport, "second", "http://s0.site.test/", "--skip-recent-hours", "1")
    check(pages_asked(log) == [("s0.site.test", "/")], "fetched again although recent: %s" % pages_asked(log))
    check("recent 1 URL(s) not fetched" in out, "the summary should count it: %s" % out)
    crawl(tmp, rport, wport, "third", "http://s1.site.test/", "--skip-recent-hours", "1", "--mark-recent")
    check(pages_asked(log)[-1] == ("s1.site.test", "/"), "a URL nobody fetched must be fetched: %s" % pages_asked(log))
    crawl(tmp, rport, wport, "fourth", "http://s0.site.test/")  # without the option: fetched again
    check(pages_asked(log).count(("s0.site.test", "/")) == 2, "a job without the option fetches as usual")
    # Workers that do not mark leave nothing behind: s1 page 1, fetched unmarked, is not skipped.
    crawl(tmp, rport, wport, "fifth", "http://s1.site.test/p/1")
    crawl(tmp, rport, wport, "sixth", "http://s1.site.test/p/1", "--skip-recent-hours", "1")
    check(pages_asked(log).count(("s1.site.test", "/p/1")) == 2, "an unmarked fetch must not count as recent")


if __name__ == "__main__":
    run_tests([test_skip_recent])
