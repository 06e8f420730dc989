#!/usr/bin/env python3
"""Fails the build when a file of shared/ includes a header of a higher layer.

Usage: checklayers.py SRCDIR STAMP --layer NAME FILE.c... [--layer ...] [--header NAME.h=LAYER...]
Layers are given lowest first (shared/meson.build). A header belongs to the layer of the .c file
of the same name; header-only files are named with --header. Every .c file in SRCDIR must be in
a layer. On success STAMP is written."""
import os
import re
import sys


def main():
    argv = sys.argv
    # "--layer NAME files..." groups: re-split so that each --layer starts a new group
    srcdir, stamp = argv[1], argv[2]
    layers, order, headers = {}, [], {}
    i = 3
    while i < len(argv):
        if argv[i] == "--layer":
            name = argv[i + 1]
            order.append(name)
            i += 2
            while i < len(argv) and not argv[i].startswith("--"):
                layers[os.path.basename(argv[i])] = name
                i += 1
        elif argv[i] == "--header":
            i += 1
            while i < len(argv) and not argv[i].startswith("--"):
                h, _, layer = argv[i].partition("=")
                headers[h] = layer
                i += 1
        else:
            raise SystemExit("checklayers: bad argument %s" % argv[i])
    rank = {n: k for k, n in enumerate(order)}

    def layer_of(header):
        if header in headers:
            return headers[header]
        return layers.get(header[:-2] + ".c")

    errors = []
    for f in sorted(os.listdir(srcdir)):
        if not f.endswith((".c", ".h")):
            continue
        mine = layers.get(f) if f.endswith(".c") else layer_of(f)
        if mine is None:
            errors.append("shared/%s is in no layer (shared/meson.build)" % f)
            continue
        with open(os.path.join(srcdir, f), errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m or m.group(1).endswith(".inc"):
                    continue
                theirs = layer_of(m.group(1))
                if theirs is None:
                    errors.append("shared/%s:%d includes %s, which is in no layer" % (f, n, m.group(1)))
                elif rank[theirs] > rank[mine]:
                    errors.append("shared/%s:%d (%s layer) includes %s (%s layer): a lower layer may not "
                                  "use a higher one" % (f, n, mine, m.group(1), theirs))
    if errors:
        sys.stderr.write("\n".join(errors) + "\n")
        return 1
    with open(stamp, "w") as fh:
        fh.write("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
