#!/usr/bin/env python3
"""driver.py - runs the crawlers of scripts/bench.sh against the nginx-served bench web, one
after another, interleaved over rounds, and prints one JSON object per system, workload and
round, then the medians and the ratios against redcrawl (see scripts/bench.sh for the usage).

What each run measures (crawler side: the command's whole process tree):
  seconds      launch to the last response nginx logged for it (a crawler's exit, or an idle
               wait before closing as scrapy-redis does, is not counted; `wall` includes it)
  cpu_ms_per_page  user+sys CPU of the tree (rusage of reaped children, or /proc samples of
               the tree every 0.2 s if larger) over the pages crawled
  peak_rss_mb  the largest sum of RSS over the tree's processes, sampled every 0.2 s (the peak
               of the sums, not a sum of each process' peak). A page of a shared library (libc,
               libcrypto, ...) counts once in every process that maps it, so a tree of several
               processes (redcrawl's: its CLI with the scheduler's thread, Redis, workers) counts it several times
  peak_pss_mb  the same over PSS (/proc/PID/smaps_rollup: a shared page divided among the
               processes that map it), so each page the tree uses counts once: the figure to
               compare between one process and several. For one process it is its RSS less
               the share of its libraries other processes on the machine map too
What the server saw, from nginx's access log (host, end msec, request_time, status, URI):
  pages        distinct (host, page) fetched with 200; ok needs exactly HOSTS x PAGES
  duplicates   page fetches beyond the first
  max_inflight_per_host  the most requests one host had open at once (1 = polite), from
               nginx's start (end - request_time) and end times; they share one clock cached
               per event-loop turn, so a request sent after the previous response was logged
               never starts before that response's end. The resolution is nginx's millisecond:
               two requests of one host overlapping by less than that are not seen
  robots       /robots.txt fetches; disallowed  fetches under /private/ (must be 0)
  server_cpu_ms_per_page  nginx's own CPU per page (shows it is not the bottleneck)
  redis_us_per_page  CPU of the tree's redis-server processes (redcrawl's Redis; scrapy-redis'
               is not in its tree) over the pages, in microseconds, from the same 0.2 s samples
               (the last fraction of a second before it exits is missed)
"""
import argparse
import heapq
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time

PAGE_RE = re.compile(r"^/(p/\d+\.html)?$")
CLK = os.sysconf("SC_CLK_TCK")
PAGESIZE = os.sysconf("SC_PAGE_SIZE")


def proc_table():
    """pid -> (ppid, cpu seconds, rss bytes) for every process we can read."""
    table = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        rest = st[st.rindex(")") + 2:].split()
        # fields after the command: state ppid ... utime(12) stime(13) ... rss(22)
        table[int(d)] = (int(rest[1]), (int(rest[11]) + int(rest[12])) / CLK, int(rest[21]) * PAGESIZE)
    return table


def tree(table, root):
    kids = {}
    for pid, (ppid, _, _) in table.items():
        kids.setdefault(ppid, []).append(pid)
    out, stack = [], [root]
    while stack:
        p = stack.pop()
        if p in table:
            out.append(p)
        stack.extend(kids.get(p, ()))
    return out


def pss_bytes(pid):
    """The process' proportional set size (0 once it is gone)."""
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for ln in f:
                if ln.startswith("Pss:"):
                    return int(ln.split()[1]) * 1024
    except OSError:
        pass
    return 0


def nginx_cpu(master):
    t = proc_table()
    return sum(t[p][1] for p in tree(t, master))


def comm_of(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""


# CPU seconds of the last run's processes by name (measure), e.g. "redis-server".
LAST_CPU_BY_NAME = {}


def run_measured(cmd, env, timeout, cwd):
    """Runs cmd in cwd (its output in stdout.log, stderr.log); returns (rc, wall, cpu s, peak rss bytes,
    peak pss bytes, t0)."""
    t0 = time.time()
    with open(os.path.join(cwd, "stdout.log"), "w") as so, open(os.path.join(cwd, "stderr.log"), "w") as se:
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=so, stderr=se, start_new_session=True)
    peak, peak_pss, seen_cpu = 0, 0, {}
    try:
        return measure(proc, timeout, t0, peak, peak_pss, seen_cpu)
    finally:
        # the crawler's whole session goes with it, also when we are stopped early (SIGTERM,
        # ^C; a Scrapy process ignores a first SIGTERM, so -9)
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass


def measure(proc, timeout, t0, peak, peak_pss, seen_cpu):
    names = {}
    LAST_CPU_BY_NAME.clear()
    while True:
        # wait4 gives the child's own rusage (with its reaped descendants'): CPU, and the
        # largest single process's RSS for runs shorter than a sampling period
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        t = proc_table()
        pids = tree(t, proc.pid)
        peak = max(peak, sum(t[p][2] for p in pids))
        peak_pss = max(peak_pss, sum(pss_bytes(p) for p in pids))
        for p in pids:
            seen_cpu[p] = t[p][1]
            if p not in names:
                names[p] = comm_of(p)
        for p, c in seen_cpu.items():
            LAST_CPU_BY_NAME[names.get(p, "")] = 0.0
        for p, c in seen_cpu.items():
            LAST_CPU_BY_NAME[names.get(p, "")] += c
        if time.time() - t0 > timeout:
            os.killpg(proc.pid, 9)
            pid, status, ru = os.wait4(proc.pid, 0)
            break
        time.sleep(0.2)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.time() - t0
    cpu = ru.ru_utime + ru.ru_stime
    return proc.returncode, wall, max(cpu, sum(seen_cpu.values())), max(peak, ru.ru_maxrss * 1024), peak_pss, t0


def server_view(lines, prefix, hosts, pages, t0):
    """What nginx logged for this run: page set, duplicates, politeness, robots."""
    got, fetches, robots, disallowed, other = set(), 0, 0, 0, 0
    events = {}
    last_end = t0
    for ln in lines:
        f = ln.split(" ")
        if len(f) < 5 or not f[0].startswith(prefix):
            continue
        host, end_s, req_s, status, uri = f[0], float(f[1]), float(f[2]), f[3], f[4]
        end = round(end_s * 1000)
        start = end - round(req_s * 1000)
        events.setdefault(host, []).append((start, end))
        last_end = max(last_end, end_s)
        if uri == "/robots.txt":
            robots += 1
        elif uri.startswith("/private/"):
            disallowed += 1
        elif PAGE_RE.match(uri) and status == "200":
            fetches += 1
            got.add((host, uri))
        else:
            other += 1
    inflight = 0
    for reqs in events.values():
        reqs.sort()
        open_ends = []  # ends of the requests still open, a heap
        for start, end in reqs:
            # one that ended in the millisecond this one started is over: back to back is polite
            while open_ends and open_ends[0] <= start:
                heapq.heappop(open_ends)
            heapq.heappush(open_ends, end)
            inflight = max(inflight, len(open_ends))
    return {
        "pages": len(got), "expected": hosts * pages, "duplicates": fetches - len(got),
        "max_inflight_per_host": inflight, "robots": robots, "disallowed": disallowed,
        "other_requests": other, "last_end": last_end,
    }


def commands(system, a, seeds, seedfile, rundir):
    peers = a.peers
    if system == "scrapy":
        return [os.path.join(peers, "venv/bin/python"), "-m", "scrapy", "runspider",
                os.path.join(a.src, "tests/bench/peers/scrapy/benchspider.py"), "-a", "seeds=" + seedfile,
                # the reactor and resolver are installed before the spider's own settings are read
                "-s", "TWISTED_REACTOR=twisted.internet.epollreactor.EPollReactor",
                "-s", "DNS_RESOLVER=benchresolver.LoopbackResolver"]
    if system == "scrapy-redis":
        return [os.path.join(a.src, "tests/bench/peers/scrapy/run_scrapy_redis.sh"), os.path.join(peers, "venv/bin/python"),
                str(a.scrapy_procs), seedfile, rundir]
    if system == "colly":
        return [os.path.join(peers, "colly-bench"), "-port", str(a.port)] + seeds
    if system == "spider-rs":
        return [os.path.join(peers, "spider-bench")] + seeds
    if system.startswith("redcrawl"):
        # "redcrawl-links~X": a variant for before/after runs, its program and extra options
        # from REDCRAWL_BIN_X and REDCRAWL_ARGS_X
        system, _, tag = system.partition("~")
        prog = os.environ.get("REDCRAWL_BIN_" + tag, os.path.join(a.src, "build/cli/redcrawl"))
        extra = os.environ.get("REDCRAWL_ARGS_" + tag, "").split() if tag else []
        # no dashboard (--web-port -1): none of the peers serves one, and it only reads Redis.
        # Names resolved to 127.0.0.1 as spider-rs does (reqwest's resolve overrides): --resolve
        # feeds the workers' DNS cache, the path of a real crawl. --connect-to would file every
        # connection under its one target in curl's connection cache instead.
        resolve = [x for s in seeds for x in ("--resolve", "%s:%d:127.0.0.1" % (s.split("/")[2].split(":")[0], a.port))]
        workers = ["--workers", str(a.workers)] if a.workers else []  # else redcrawl's default
        cmd = [prog, "crawl", "--quiet", "--delay", "0", "--maxdepth", "-1", "--web-port", "-1",
               *workers, "--out", os.path.join(rundir, "out"), *resolve, "--allow-net", "127.0.0.0/8"]
        if system == "redcrawl-links":
            cmd.append("--dedup-content=0")
        return cmd + extra + seeds
    raise SystemExit("unknown system " + system)


def variant_env(system, env):
    """A variant "redcrawl-...~X" runs with the variables of REDCRAWL_ENV_X ("K=V K=V") added."""
    tag = system.partition("~")[2]
    pairs = os.environ.get("REDCRAWL_ENV_" + tag, "").split() if tag else []
    return dict(env, **dict(p.split("=", 1) for p in pairs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--peers", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--nginx-pid", type=int, required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--workers", type=int, default=0, help="redcrawl's --workers (0: its default)")
    ap.add_argument("--scrapy-procs", type=int, default=2)
    ap.add_argument("--workloads", required=True, help="NAME:HOSTS:PAGES,...")
    ap.add_argument("--systems", required=True)
    ap.add_argument("--machine", default="")
    a = ap.parse_args()
    workloads = [(w.split(":")[0], int(w.split(":")[1]), int(w.split(":")[2])) for w in a.workloads.split(",")]
    systems = a.systems.split(",")
    # the Scrapy spiders import benchcommon and benchresolver (DNS_RESOLVER) from their directory
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=os.path.join(a.src, "tests/bench/peers/scrapy"))
    results = []
    run_no = 0
    for rnd in range(1, a.rounds + 1):
        for name, hosts, pages in workloads:
            seeds = ["http://%s%d.bench.test:%d/" % (name, h, a.port) for h in range(hosts)]
            seedfile = os.path.join(a.work, "seeds-%s.txt" % name)
            with open(seedfile, "w") as f:
                f.write("\n".join(seeds) + "\n")
            # rotate the order each round so no system always runs first (or after the slowest)
            k = (rnd - 1) % len(systems)
            for system in systems[k:] + systems[:k]:
                run_no += 1
                rundir = os.path.join(a.work, "run%03d-%s-%s" % (run_no, system, name))
                os.makedirs(rundir)
                with open(a.log, "rb") as f:
                    f.seek(0, 2)
                    off = f.tell()
                load = os.getloadavg()[0]
                srv0 = nginx_cpu(a.nginx_pid)
                rc, wall, cpu, peak, peak_pss, t0 = run_measured(commands(system, a, seeds, seedfile, rundir), variant_env(system, env), a.timeout,
                                                            rundir)
                time.sleep(0.3)  # responses the crawler already read are logged by now
                srv1 = nginx_cpu(a.nginx_pid)
                with open(a.log, "rb") as f:
                    f.seek(off)
                    lines = f.read().decode(errors="replace").splitlines()
                v = server_view(lines, name, hosts, pages, t0)
                secs = max(v.pop("last_end") - t0, 1e-3)
                n = max(v["pages"], 1)
                r = {
                    "round": rnd, "workload": "%dx%d" % (hosts, pages), "system": system,
                    "ok": rc == 0 and v["pages"] == v["expected"] and v["max_inflight_per_host"] <= 1
                    and v["disallowed"] == 0,
                    "exit": rc, **v, "seconds": round(secs, 2), "wall": round(wall, 2),
                    "pages_per_s": round(v["pages"] / secs, 1), "cpu_ms_per_page": round(cpu * 1000 / n, 3),
                    "peak_rss_mb": round(peak / 2**20, 1), "peak_pss_mb": round(peak_pss / 2**20, 1),
                    "server_cpu_ms_per_page": round((srv1 - srv0) * 1000 / n, 3), "loadavg": round(load, 2),
                    "redis_us_per_page": round(LAST_CPU_BY_NAME.get("redis-server", 0.0) * 1e6 / n, 1),
                }
                print(json.dumps(r), flush=True)
                results.append(r)
    summarise(results, systems, workloads, a.machine)


def summarise(results, systems, workloads, machine):
    """Medians per system and workload, and how redcrawl's modes compare (ratio > 1: redcrawl
    is ahead; for CPU and RSS: the peer uses that many times redcrawl's)."""
    med = {}
    for s in systems:
        for name, hosts, pages in workloads:
            wl = "%dx%d" % (hosts, pages)
            rs = [r for r in results if r["system"] == s and r["workload"] == wl]
            if not rs:
                continue
            med[(s, wl)] = {
                "pages_per_s": statistics.median(r["pages_per_s"] for r in rs),
                "cpu_ms_per_page": statistics.median(r["cpu_ms_per_page"] for r in rs),
                "peak_rss_mb": statistics.median(r["peak_rss_mb"] for r in rs),
                "peak_pss_mb": statistics.median(r["peak_pss_mb"] for r in rs),
                "ok_runs": sum(r["ok"] for r in rs), "runs": len(rs),
                "max_inflight_per_host": max(r["max_inflight_per_host"] for r in rs),
                "duplicates": max(r["duplicates"] for r in rs),
            }
    for (s, wl), m in med.items():
        out = {"summary": True, "system": s, "workload": wl, **m}
        for ref in ("redcrawl-links", "redcrawl-full"):
            if ref in systems and (ref, wl) in med and ref != s:
                rm = med[(ref, wl)]
                out["%s_speedup" % ref] = round(rm["pages_per_s"] / max(m["pages_per_s"], 1e-9), 2)
                out["cpu_vs_%s" % ref] = round(m["cpu_ms_per_page"] / max(rm["cpu_ms_per_page"], 1e-9), 2)
                out["rss_vs_%s" % ref] = round(m["peak_rss_mb"] / max(rm["peak_rss_mb"], 1e-9), 2)
                out["pss_vs_%s" % ref] = round(m["peak_pss_mb"] / max(rm["peak_pss_mb"], 1e-9), 2)
        print(json.dumps(out), flush=True)
    # the README's table
    wls = ["%dx%d" % (h, p) for _, h, p in workloads]
    print("\nmedians (%s):\n" % machine, file=sys.stderr)
    print("| system | " + " | ".join("%s pages/s" % w for w in wls) + " | CPU ms/page | peak RSS MB | peak PSS MB | ok runs |",
          file=sys.stderr)
    print("|---" * (len(wls) + 5) + "|", file=sys.stderr)
    for s in systems:
        ms = [med.get((s, w)) for w in wls]
        ms = [m for m in ms if m]
        if not ms:
            continue
        cpu = "–".join(sorted({"%.2f" % m["cpu_ms_per_page"] for m in ms}, key=float))
        rss = "–".join(sorted({"%.0f" % m["peak_rss_mb"] for m in ms}, key=float))
        pss = "–".join(sorted({"%.0f" % m["peak_pss_mb"] for m in ms}, key=float))
        pps = " | ".join("%.0f" % med[(s, w)]["pages_per_s"] if (s, w) in med else "-" for w in wls)
        ok = "%d/%d" % (sum(m["ok_runs"] for m in ms), sum(m["runs"] for m in ms))
        print("| %s | %s | %s | %s | %s | %s |" % (s, pps, cpu, rss, pss, ok), file=sys.stderr)


def stop(signum, frame):
    sys.exit(128 + signum)  # unwinds through run_measured's finally


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, stop)
    main()
