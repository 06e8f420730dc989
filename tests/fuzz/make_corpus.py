#!/usr/bin/env python3
"""Seeds tests/fuzz/corpus/<target>/ from the project's own test data (run once; the fuzzers
add what they find, and crashing inputs are kept there too). Small files only."""
import glob
import gzip
import hashlib
import os
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")


def put(target, blob):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(blob).hexdigest()[:16]), "wb") as f:
        f.write(blob)


def tsv_first_fields(path, n=None):
    out = []
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        out.append(f[:n] if n else f[0])
    return out


for u in tsv_first_fields(os.path.join(DATA, "url_normalize.tsv")):
    put("url", u.encode())
for f in tsv_first_fields(os.path.join(DATA, "url_resolve.tsv"), 2):
    if len(f) == 2:
        put("url", ("%s\n%s" % (f[0], f[1])).encode())
for path in glob.glob(os.path.join(DATA, "robots", "files", "*")):
    if os.path.getsize(path) < 100000:
        put("robots", open(path, "rb").read())
for path in glob.glob(os.path.join(DATA, "msg", "*.tsv")):
    for m in tsv_first_fields(path):
        put("msg", m.encode())
for path in glob.glob(os.path.join(DATA, "extract", "**", "*.json"), recursive=True):
    put("rules", open(path, "rb").read())
pages = sorted(glob.glob(os.path.join(DATA, "maintext", "*.html")) +
               glob.glob(os.path.join(DATA, "extract", "**", "*.html"), recursive=True))
for path in pages[:25]:
    body = open(path, "rb").read()
    put("html", body)
    put("htmltok", body)
    put("charset", b"text/html; charset=utf-8\n" + body[:4000])
put("charset", b"text/html; charset=gbk\n<p>" + "中文内容".encode("gbk") + b"</p>")
put("charset", b"text/html\n<meta charset=shift_jis><p>" + "日本語".encode("shift_jis") + b"</p>")
text = open(pages[0], "rb").read()[:3000]
put("decode", b"\x00" + gzip.compress(text))
put("decode", b"\x01" + zlib.compress(text))
put("decode", b"\x04" + text)
