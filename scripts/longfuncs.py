#!/usr/bin/env python3
"""Lists the longest C functions of the tree: lines from the opening line of the definition to
its closing brace (clang-format style: a definition starts in column 0, its body ends with "}" in
column 0).

Usage: scripts/longfuncs.py [--min N] [DIR|FILE...]   (default: --min 80, the project's C directories)"""
import os
import re
import sys

DIRS = ["shared", "worker", "scheduler", "cli", "web", "tests"]
DEF = re.compile(r"^(?!static\s+const\b)[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;]*$")


def functions(path):
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = DEF.match(lines[i])
        if m and not lines[i].startswith(("typedef", "struct", "enum", "#")):
            j = i
            while j < len(lines) and not lines[j].startswith("{") and not lines[j].rstrip().endswith(";"):
                j += 1
            if j < len(lines) and lines[j].startswith("{"):
                k = j + 1
                while k < len(lines) and not lines[k].startswith("}"):
                    k += 1
                out.append((k - i + 1, m.group(1), "%s:%d" % (path, i + 1)))
                i = k
        i += 1
    return out


def main():
    args = sys.argv[1:]
    lim = 80
    if "--min" in args:
        k = args.index("--min")
        lim = int(args[k + 1])
        del args[k:k + 2]
    found = []
    for d in args or DIRS:
        if os.path.isfile(d):
            found += functions(d)
        for root, _, files in os.walk(d):
            for name in files:
                if name.endswith(".c"):
                    found += functions(os.path.join(root, name))
    for n, name, where in sorted(found, reverse=True):
        if n >= lim:
            print("%5d  %-36s %s" % (n, name, where))


if __name__ == "__main__":
    main()
