#!/usr/bin/env python3
"""Embeds the Lua scripts into C, and builds the C <-> Lua argument contract in one place.

Every script starts with its Redis 7 shebang (`#!lua` or `#!lua flags=...`), moved above
common.lua since Redis reads the flags only from the first line (with a shebang and without
`allow-oom`, Redis refuses a script up front at maxmemory instead of half-running it).
The next line declares the script's arguments after the two every script takes (prefix, now):

    --- args: worker lease host k n ...

`name?` is optional (may be left off, from the end), a final `...` is a variable tail. From it
this makes, for the script, `local A = {worker = ARGV[3], ...}` and `A_REST` (the tail's first
ARGV index); for C, scripts_args.h with each argument's position in the caller's vector
(RC_<SCRIPT>_<NAME>) and its count (RC_<SCRIPT>_NARGS), and the counts in rc_lua_scripts that
rc_lua_check holds every call to. So a name, not a number, ties the two sides.
Each `--lib FILE` is prepended after common.lua too (functions several scripts share, e.g.
work.lua: complete, take and the heartbeat, called by their own scripts and by step.lua), and
every script gets `ARGS_OF`, each script's argument names in order (ARGS_OF.complete[2] is
"lease"), so that a script reading another's arguments (step.lua) reads them by name.

A script gets only the prelude's definitions it reaches (`prune`): the prelude is cut into its
top-level definitions (`local function f`, `local X = ...`, each with the comment above it), and
one is kept when a name it defines appears in the script or in a definition kept. They are all
locals, reachable by name alone, so what is left out cannot be called; what stays is in the
prelude's order. Redis keeps every loaded script compiled in its Lua VM and runs the whole
chunk, closures and all, on each call: the 17 scripts took ~2 MB of Redis (INFO memory's
used_memory_vm_eval + used_memory_scripts) with the whole prelude each, 0.4 MB pruned.

    embed.py OUT.c OUT.h common.lua [--lib FILE]... script.lua..."""
import os
import re
import sys

HEAD = 2  # ARGV[1] prefix and ARGV[2] now, from common.lua
NAME = re.compile(r"^[a-z][a-z0-9_]*\??$")
# a top-level definition of the prelude: `local function NAME` or `local NAME[, NAME] =`
DEFINITION = re.compile(r"^local\s+(?:function\s+([A-Za-z_]\w*)|([A-Za-z_][\w, ]*?)\s*=)")
WORD = re.compile(r"[A-Za-z_]\w*")


def c_string(text):
    lines = []
    for line in text.splitlines(keepends=True):
        esc = line.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        lines.append('    "' + esc + '"')
    return "\n".join(lines) if lines else '    ""'


def definitions(prelude):
    """The prelude cut into [names, text]: each top-level definition with the comments and blank
    lines above it and its indented body up to its `end` (names None: any other top-level
    statement, always kept). Joined in order they give the prelude back."""
    out, pending = [], []
    for line in prelude.splitlines(keepends=True):
        m = DEFINITION.match(line)
        if m:
            names = {m.group(1)} if m.group(1) else {n.strip() for n in m.group(2).split(",")}
            out.append([names, "".join(pending) + line])
        elif line.strip() == "" or line.startswith("--"):
            pending.append(line)
            continue
        elif out and (line[0] in " \t" or line.rstrip() == "end" or line.startswith("}")):
            out[-1][1] += "".join(pending) + line
        else:
            out.append([None, "".join(pending) + line])
        pending = []
    if pending:
        out.append([None, "".join(pending)])
    if "".join(text for _, text in out) != prelude:
        sys.exit("embed.py: cutting the prelude into definitions lost text")
    return out


def prune(defs, body):
    """The prelude's definitions that body reaches, directly or through others, in order."""
    keep = [names is None for names, _ in defs]
    need = set(WORD.findall(body))
    for (names, text), kept in zip(defs, keep):
        if kept:
            need |= set(WORD.findall(text))
    grew = True
    while grew:
        grew = False
        for i, (names, text) in enumerate(defs):
            if not keep[i] and names & need:
                keep[i] = grew = True
                need |= set(WORD.findall(text))
    return "".join(text for (_, text), kept in zip(defs, keep) if kept)


def parse_args(path, line):
    """(fixed names, optional names, has tail) from a script's `--- args:` line."""
    if not line.startswith("--- args:"):
        sys.exit("%s: the second line must declare the arguments: '--- args: name name? ...'" % path)
    words = line[len("--- args:"):].split()
    rest = bool(words) and words[-1] == "..."
    if rest:
        words = words[:-1]
    fixed, opt = [], []
    for w in words:
        if not NAME.match(w):
            sys.exit("%s: bad argument name '%s' (lower case, digits, _; '?' marks optional)" % (path, w))
        if w.endswith("?"):
            opt.append(w[:-1])
        elif opt:
            sys.exit("%s: required argument '%s' after an optional one" % (path, w))
        else:
            fixed.append(w)
    if len(set(fixed + opt)) != len(fixed + opt):
        sys.exit("%s: an argument is named twice" % path)
    return fixed, opt, rest


def lua_args(fixed, opt, rest):
    names = fixed + opt
    fields = ", ".join("%s = ARGV[%d]" % (n, HEAD + 1 + i) for i, n in enumerate(names))
    text = "local A = {%s}\n" % fields
    if rest:
        text += "local A_REST = %d\n" % (HEAD + 1 + len(names))
    return text


def lua_args_of(decls):
    """ARGS_OF: every script's argument names after prefix and now, in order."""
    rows = ", ".join("%s = {%s}" % (name, ", ".join("'%s'" % n for n in names)) for name, names in decls)
    return "local ARGS_OF = {%s}\n" % rows


def read_decl(path):
    text = open(path, encoding="utf-8").read()
    shebang, _, rest_text = text.partition("\n")
    if not shebang.startswith("#!lua"):
        sys.exit("%s: the first line must be a '#!lua' shebang declaring the script's flags" % path)
    decl, _, body = rest_text.partition("\n")
    return shebang, decl, body, parse_args(path, decl)


def main():
    out_c, out_h, common = sys.argv[1], sys.argv[2], sys.argv[3]
    libs, scripts, argv = [], [], sys.argv[4:]
    while argv:
        if argv[0] == "--lib" and len(argv) > 1:
            libs.append(argv[1])
            argv = argv[2:]
        else:
            scripts.append(argv[0])
            argv = argv[1:]
    prelude = "".join(open(p, encoding="utf-8").read() + "\n" for p in [common] + libs)
    parsed = [(p, read_decl(p)) for p in scripts]
    prelude += lua_args_of([(os.path.splitext(os.path.basename(p))[0], d[3][0] + d[3][1]) for p, d in parsed])
    defs = definitions(prelude)
    table, header = [], []
    with open(out_c, "w", encoding="utf-8") as f:
        f.write("/* Generated by shared/lua/embed.py from the scripts in shared/lua: do not edit. */\n")
        f.write('#include "scripts.h"\n\n')
        for path, (shebang, decl, body, (fixed, opt, rest)) in parsed:
            name = os.path.splitext(os.path.basename(path))[0]
            own = "\n-- " + name + ".lua\n" + lua_args(fixed, opt, rest) + body
            src = shebang + "\n" + prune(defs, own) + own
            f.write("static const char src_%s[] =\n%s;\n\n" % (name, c_string(src)))
            table.append('    [RC_LUA_%s] = {"%s", src_%s, %d, %d, %d},'
                         % (name.upper(), name, name, len(fixed), len(opt), int(rest)))
            up = name.upper()
            header.append("/* %s.lua: %s */" % (name, decl[len("--- args:"):].strip() or "(none)"))
            for i, n in enumerate(fixed + opt):
                header.append("#define RC_%s_%s %d" % (up, n.upper(), i))
            header.append("#define RC_%s_NARGS %d\n" % (up, len(fixed) + len(opt)))
        f.write("const rc_lua_script rc_lua_scripts[RC_LUA_COUNT] = {\n%s\n};\n" % "\n".join(table))
    with open(out_h, "w", encoding="utf-8") as f:
        f.write("/* Generated by shared/lua/embed.py from the `--- args:` lines of shared/lua: do not edit.\n"
                " * Positions in the argument vector given to rc_redis_eval (after prefix and now). */\n")
        f.write("#ifndef RC_SCRIPTS_ARGS_H\n#define RC_SCRIPTS_ARGS_H\n\n")
        f.write("\n".join(header))
        f.write("\n#endif\n")


main()
