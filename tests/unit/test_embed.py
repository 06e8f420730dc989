#!/usr/bin/env python3
"""shared/lua/embed.py: the `--- args:` declaration becomes the Lua bindings and the C
positions, a script gets the prelude's definitions it reaches and no others, and a script
without a declaration (or with a bad one) fails the build with the reason."""
import os
import subprocess
import sys
import tempfile

EMBED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "lua", "embed.py")
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        sys.exit("FAIL: " + what)


def run(d, body, libs=()):
    common = os.path.join(d, "common.lua")
    script = os.path.join(d, "demo.lua")
    open(common, "w").write("local P = ARGV[1]\n")
    open(script, "w").write(body)
    lib_args = []
    for name, text in libs:
        open(os.path.join(d, name), "w").write(text)
        lib_args += ["--lib", os.path.join(d, name)]
    out_c, out_h = os.path.join(d, "out.c"), os.path.join(d, "out.h")
    p = subprocess.run([sys.executable, EMBED, out_c, out_h, common] + lib_args + [script], capture_output=True,
                       text=True)
    c = open(out_c).read() if p.returncode == 0 else ""
    h = open(out_h).read() if p.returncode == 0 else ""
    return p, c, h


LIB = """-- g: called by f
local function g()
  return 1
end
local LIMIT, SPARE = 5, 6
redis.setresp(3)

local function f()
  return g() + LIMIT
end
-- h: called by nobody
local function h()
  return 3
end
local T = {
  a = 1,
}
local ARGS_OF2 = h
"""


def prune_cases(d):
    """A script gets the prelude's definitions it reaches, directly or through others, in the
    prelude's order, each with its comment; a statement that defines nothing always."""
    p, c, _ = run(d, "#!lua\n--- args:\nreturn f() + T.a\n", [("work.lua", LIB)])
    check(p.returncode == 0, "pruning builds: " + p.stderr)
    for kept in ("-- g: called by f", "local function g()", "local LIMIT, SPARE = 5, 6", "redis.setresp(3)",
                 "local function f()", "local T = {\\n\"\n    \"  a = 1,"):
        check(kept in c, "kept: %r in %s" % (kept, c))
    for dropped in ("local function h()", "called by nobody", "ARGS_OF2", "local P = ARGV[1]", "local ARGS_OF ="):
        check(dropped not in c, "left out: %r in %s" % (dropped, c))
    check(c.index("local function g()") < c.index("local LIMIT") < c.index("local function f()") < c.index("local T"),
          "the prelude's order")
    # a name reached only through a definition kept drags in its own definition (h via ARGS_OF2)
    p, c, _ = run(d, "#!lua\n--- args:\nreturn ARGS_OF2()\n", [("work.lua", LIB)])
    check("local function h()" in c and "local ARGS_OF2 = h" in c and "local function f()" not in c,
          "reached through another definition: " + c)


def main():
    with tempfile.TemporaryDirectory() as d:
        p, c, h = run(d, "#!lua\n--- args: worker max ip? ...\nreturn P .. A.worker\n")
        check(p.returncode == 0, "a good declaration builds: " + p.stderr)
        check("#define RC_DEMO_WORKER 0" in h and "#define RC_DEMO_IP 2" in h, "positions by name")
        check("#define RC_DEMO_NARGS 3" in h, "argument count")
        check("worker = ARGV[3], max = ARGV[4], ip = ARGV[5]" in c, "Lua bindings after prefix, now")
        check("local A_REST = 6" in c, "the tail's first index")
        check('{"demo", src_demo, 2, 1, 1}' in c, "counts in the script table")
        check(c.index("#!lua") < c.index("local P = ARGV[1]"), "shebang stays the first line")
        # --lib: prepended after common.lua, before the script's bindings; ARGS_OF names every
        # script's arguments in order, for a script that reads another's (step.lua).
        p, c, h = run(d, "#!lua\n--- args: worker max ip? ...\nreturn P .. f(ARGS_OF)\n",
                      [("work.lua", "local function f()\nend\n")])
        check(p.returncode == 0, "a --lib builds: " + p.stderr)
        check(c.index("local P = ARGV[1]") < c.index("local function f()") < c.index("local A = {"),
              "the lib comes after common.lua and before the bindings")
        check("local ARGS_OF = {demo = {'worker', 'max', 'ip'}}" in c, "ARGS_OF: " + c[:600])
        prune_cases(d)
        bad = {
            "#!lua\nreturn 1\n": "the second line must declare the arguments",
            "#!lua\n--- args: a? b\n": "required argument 'b' after an optional one",
            "#!lua\n--- args: a a\n": "named twice",
            "#!lua\n--- args: Bad\n": "bad argument name 'Bad'",
            "--- args: a\n": "'#!lua' shebang",
        }
        for body, reason in bad.items():
            p, _, _ = run(d, body)
            check(p.returncode != 0 and reason in p.stderr, "refused (%s): %s" % (reason, p.stderr.strip()))
    print("test_embed: %d checks" % checks)
    check(checks >= 25, "every case ran")


main()
