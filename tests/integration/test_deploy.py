#!/usr/bin/env python3
"""The deployment files say only what the programs understand: the compose file validates with a
real compose implementation (Debian's docker-compose, which needs no engine for `config`), every
command it runs is one of the built programs with options they accept, every REDCRAWL_*
variable it sets is one they read, its images are pinned, the .env.example settings are all
used, and the systemd units start programs that exist, read the shared settings then their
own, and pass systemd-analyze verify. No container is started."""
import os
import re
import shutil
import json
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import BUILD, check, run_tests  # noqa: E402

SOURCE = os.path.abspath(os.environ.get("REDCRAWL_SOURCE") or os.path.join(os.path.dirname(__file__), "..", ".."))
DEPLOY = os.path.join(SOURCE, "deploy")
PROGRAMS = {"redcrawl": "cli/redcrawl", "redcrawl-worker": "worker/redcrawl-worker",
            "redcrawl-scheduler": "scheduler/redcrawl-scheduler", "redcrawl-monitor": "scheduler/redcrawl-monitor",
            "redcrawl-web": "web/redcrawl-web"}
# Read by shared code rather than an option table (credentials, client settings).
SHARED_ENV = {"REDCRAWL_REDIS_PASSWORD", "REDCRAWL_REDIS_PASSWORD_FILE", "REDCRAWL_REDIS_USER",
              "REDCRAWL_KAFKA_CONFIG", "REDCRAWL_KAFKA_PASSWORD", "REDCRAWL_KAFKA_PASSWORD_FILE"}
# Third-party images: official ones, pinned to a major version or release.
IMAGES = {"redis:7", "apache/kafka:3.9.1", "mongo:7"}


def program_help(name):
    """The program's --help; for the CLI, every command's."""
    runs = [["--help"]] + ([[c, "--help"] for c in ("crawl", "submit", "info", "stop", "stats", "domain")]
                           if name == "redcrawl" else [])
    out = ""
    for args in runs:
        r = subprocess.run([os.path.join(BUILD, PROGRAMS[name])] + args, capture_output=True, text=True, timeout=30)
        out += r.stdout + r.stderr
    return out


def compose_config(tmp, env_file=None):
    """`docker-compose config` on a copy of deploy/ (so an .env can be placed beside it)."""
    d = os.path.join(tmp, "deploy")
    shutil.copytree(DEPLOY, d, dirs_exist_ok=True)
    if env_file:
        shutil.copy(env_file, os.path.join(d, ".env"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("REDCRAWL_")}
    r = subprocess.run(["docker-compose", "-f", os.path.join(d, "docker-compose.yml"), "--project-directory", d,
                        "config"], capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode == 0, "docker-compose config failed: %s" % r.stderr[-2000:])
    # YAML to JSON with the Python docker-compose itself runs on (Debian's, which has PyYAML).
    j = subprocess.run(["/usr/bin/python3", "-c", "import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)"],
                       input=r.stdout, capture_output=True, text=True, timeout=30)
    check(j.returncode == 0, "cannot read docker-compose's output: %s" % j.stderr[-500:])
    return json.loads(j.stdout)


def test_compose_file(tmp, procs):
    cfg = compose_config(tmp)
    services = cfg["services"]
    for need in ("redis", "kafka", "mongo", "monitor", "scheduler", "worker"):
        check(need in services, "the compose file has no %s service" % need)
    checked = 0
    for name, svc in services.items():
        image = svc.get("image", "")
        if "build" not in svc:
            check(image in IMAGES, "%s: image %r is not one of the pinned official images %s" % (name, image, IMAGES))
            continue
        cmd = svc.get("command") or []
        prog = cmd[0] if cmd else None
        check(prog in PROGRAMS, "%s: command %r is not a redcrawl program" % (name, cmd))
        text = program_help(prog)
        for opt in [a.split("=")[0] for a in cmd[1:] if a.startswith("--")]:
            check(opt in text, "%s: %s does not take %s" % (name, prog, opt))
        for var in (svc.get("environment") or {}):
            if var.startswith("REDCRAWL_"):
                check(("env %s]" % var) in text or var in SHARED_ENV,
                      "%s: %s does not read %s" % (name, prog, var))
                checked += 1
        check(any("healthcheck" in services[d] for d in (svc.get("depends_on") or {})),
              "%s starts before what it needs is healthy" % name)
    check(services["scheduler"].get("deploy", {}).get("replicas", 1) >= 2, "no standby scheduler")
    check(all("healthcheck" in services[s] for s in ("redis", "kafka", "mongo")), "a store has no health check")
    check("appendonly" in " ".join(services["redis"]["command"]), "Redis without AOF loses the frontier on restart")
    check(not any(svc.get("ports") for svc in services.values()), "the compose file publishes ports by default")
    print("  %d services, %d REDCRAWL_* settings checked against the programs" % (len(services), checked))


def test_env_example_is_used(tmp, procs):
    example = os.path.join(DEPLOY, ".env.example")
    settings = {}
    for line in open(example):
        line = line.strip()
        if line and not line.startswith("#"):
            k, v = line.split("=", 1)
            settings[k] = v
    text = open(os.path.join(DEPLOY, "docker-compose.yml")).read()
    unused = [k for k in settings if "${%s" % k not in text]
    check(not unused, ".env.example sets what the compose file never reads: %s" % unused)
    # Values from .env reach the services.
    env_file = os.path.join(tmp, "env")
    with open(env_file, "w") as f:
        f.write("REDCRAWL_DELAY=2.5\nREDCRAWL_CONCURRENCY=7\n")
    w = compose_config(tmp, env_file)["services"]["worker"]["environment"]
    check(str(w["REDCRAWL_DELAY"]) == "2.5" and str(w["REDCRAWL_CONCURRENCY"]) == "7",
          "settings from .env do not reach the worker: %s" % w)
    # .env.example holds the defaults: copied to .env as it is (as its first line says), it changes
    # nothing, and every setting arrives as written (a value with braces, like {crawlid}, too).
    plain = compose_config(os.path.join(tmp, "plain"))["services"]
    same = compose_config(os.path.join(tmp, "example"), example)["services"]
    for name in plain:
        a, b = plain[name].get("environment") or {}, same[name].get("environment") or {}
        diff = {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if str(a.get(k)) != str(b.get(k))}
        check(not diff, "%s: .env.example as .env changes (without, with): %s" % (name, diff))
        for k, v in b.items():
            if k in settings and settings[k]:
                check(str(v) == settings[k], "%s: %s=%s in .env arrives as %r" % (name, k, settings[k], v))


def test_dockerfile_and_units(tmp, procs):
    df = open(os.path.join(DEPLOY, "Dockerfile")).read()
    stages = re.findall(r"^FROM (\S+)", df, re.M)
    check(stages[:1] == ["debian:bookworm"] and stages[-1] == "debian:bookworm-slim",
          "want a bookworm build stage and a bookworm-slim runtime: %s" % stages)
    users = re.findall(r"^USER (\S+)", df, re.M)
    check(users and users[-1].split(":")[0] not in ("0", "root"), "the image runs as root")
    runtime = df[df.rindex("FROM "):]
    check("-dev" not in runtime, "the runtime stage installs development packages")
    units = [f for f in os.listdir(os.path.join(DEPLOY, "systemd")) if f.endswith(".service")]
    check(len(units) >= 3, "systemd units missing: %s" % units)
    for u in units:
        text = open(os.path.join(DEPLOY, "systemd", u)).read()
        exe = re.search(r"^ExecStart=(\S+)", text, re.M).group(1)
        prog = os.path.basename(exe)
        check(prog in PROGRAMS and os.path.exists(os.path.join(BUILD, PROGRAMS[prog])),
              "%s starts %s, which is not built" % (u, exe))
        check(re.search(r"^User=(?!root)\S+", text, re.M), "%s runs as root" % u)
        # The shared file, then the daemon's own, which overrides it (systemd reads them in
        # order): a metrics port set in the shared file alone would be every daemon's, and all
        # but the first would exit with "Address already in use".
        envs = re.findall(r"^EnvironmentFile=(\S+)", text, re.M)
        check(envs == ["/etc/redcrawl/redcrawl.env", "-/etc/redcrawl/%N.env"],
              "%s reads %s, not the shared file then its own" % (u, envs))
        verify_unit(u, text.replace(exe, os.path.join(BUILD, PROGRAMS[prog])))


def verify_unit(name, text):
    """systemd's own reading of the unit (its ExecStart the built program), where systemd is."""
    if not shutil.which("systemd-analyze"):
        print("  systemd-analyze not installed: %s read by this test only" % name)
        return
    tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "rc-units-%d" % os.getpid())
    os.makedirs(tmp, exist_ok=True)
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    try:
        r = subprocess.run(["systemd-analyze", "verify", path], capture_output=True, text=True, timeout=60)
    finally:
        shutil.rmtree(tmp)
    # A line it cannot read is "ignoring"d with exit status 0: any word from it is a fault.
    said = (r.stdout + r.stderr).strip()
    check(r.returncode == 0 and not said, "systemd-analyze verify %s: %s" % (name, said))
    print("  %s: systemd-analyze verify passes" % name)


if __name__ == "__main__":
    run_tests([test_compose_file, test_env_example_is_used, test_dockerfile_and_units])
