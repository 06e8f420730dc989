#!/usr/bin/env python3
"""Main-text figures on labelled sets: redcrawl's methods and trafilatura, readability-lxml and
jusText on the same pages in the same run (scripts/bench_maintext.sh sets up and calls this).

Each argument is a data directory in one of three layouts, recognised by what it holds:
  ground-truth.json + html/ID.html.gz   Scrapinghub/Zyte article-extraction-benchmark: the whole
                                        article text per page -> token precision/recall/F1
  evaldata.json + eval/ and cache/      trafilatura's evaluation set: "with"/"without" snippets
                                        per page -> snippet precision/recall/F1 (a snippet counts
                                        when it occurs in the text, whitespace collapsed: the
                                        scoring of trafilatura's tests/eval_common.py)
  ground-truth/ID.json + html/ID.html.gz
                                        WCXB (Web Content eXtraction Benchmark) split: each JSON's
                                        ground_truth.main_content -> token precision/recall/F1
                                        (pages whose main_content is null are left out)
  maintext/pages.tsv + NAME.html/.txt   redcrawl's own hand-labelled pages -> token P/R/F1

Tokens: runs of Unicode letters and digits, lower-cased; each CJK character is a token by
itself. Texts are compared as bags (matched = sum of min counts), summed over the pages (micro).
Time per page: reading the bytes in memory to text, i.e. charset decoding + parse + extraction
(redcrawl: tests/bench/maintext_dump, one process for all pages, parsing as the crawler does for
a job without XPath rules; the Python tools in this process). "of which text": redcrawl's
extraction alone, what storing the text adds in a crawl, where the page is parsed anyway.
"""
import argparse
import collections
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import time

TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|[^\W_]+")


def tokens(text):
    return collections.Counter(TOKEN.findall(text.lower()))


def norm(text):
    return re.sub(r"\s+", " ", text).strip()


# ---- data sets -------------------------------------------------------------------------------

def load_set(path):
    """[(page id, html bytes, truth)] where truth is {"text": str} or {"with": [...], ...}."""
    if os.path.exists(os.path.join(path, "ground-truth.json")):
        with open(os.path.join(path, "ground-truth.json"), encoding="utf-8") as f:
            gt = json.load(f)
        pages = []
        for pid in sorted(gt):
            with gzip.open(os.path.join(path, "html", pid + ".html.gz"), "rb") as f:
                pages.append((pid, f.read(), {"text": gt[pid]["articleBody"]}))
        return "tokens", pages
    if os.path.isdir(os.path.join(path, "ground-truth")) and os.path.isdir(os.path.join(path, "html")):
        pages = []
        for name in sorted(os.listdir(os.path.join(path, "ground-truth"))):
            if not name.endswith(".json"):
                continue
            pid = name[:-5]
            with open(os.path.join(path, "ground-truth", name), encoding="utf-8") as f:
                doc = json.load(f)
            gt = doc["ground_truth"]
            # WCXB's page type (article, forum, product, listing ...), for --by-type
            ptype = ((doc.get("_internal") or {}).get("page_type") or {}).get("primary") or "?"
            if gt.get("main_content") is None:
                continue  # a few pages carry no main content to score against
            with gzip.open(os.path.join(path, "html", pid + ".html.gz"), "rb") as f:
                pages.append((pid, f.read(), {"text": gt["main_content"], "type": ptype}))
        return "tokens", pages
    if os.path.exists(os.path.join(path, "evaldata.json")):
        with open(os.path.join(path, "evaldata.json"), encoding="utf-8") as f:
            ev = json.load(f)
        pages = []
        for i, url in enumerate(sorted(ev)):
            item = ev[url]
            for sub in ("cache", "eval"):
                p = os.path.join(path, sub, item["file"])
                if os.path.isfile(p):
                    with open(p, "rb") as f:
                        pages.append(("%04d" % i, f.read(), item))
                    break
            else:
                sys.exit("%s: %s not found" % (path, item["file"]))
        return "snippets", pages
    tsv = os.path.join(path, "maintext", "pages.tsv")
    if os.path.exists(tsv):
        pages = []
        with open(tsv, encoding="utf-8") as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                name = line.split("\t")[0]
                base = os.path.join(path, "maintext", name)
                with open(base + ".html", "rb") as h, open(base + ".txt", encoding="utf-8") as t:
                    pages.append((name, h.read(), {"text": t.read()}))
        return "tokens", pages
    sys.exit("%s: no ground-truth.json, ground-truth/, evaldata.json or maintext/pages.tsv" % path)


# ---- scoring ---------------------------------------------------------------------------------

class Score:
    def __init__(self):
        self.tp = self.got = self.expect = 0
        self.ms = 0.0
        self.empty = 0

    def add(self, kind, truth, text):
        text = text or ""
        if not norm(text):
            self.empty += 1
        if kind == "tokens":
            g, e = tokens(text), tokens(truth["text"])
            self.tp += sum((g & e).values())
            self.got += sum(g.values())
            self.expect += sum(e.values())
        else:  # snippets: got = with found + without found, expect = all with
            t = norm(text)
            tp = sum(1 for w in truth["with"] if norm(w) in t)
            fp = sum(1 for w in truth["without"] if norm(w) in t)
            self.tp += tp
            self.got += tp + fp
            self.expect += len(truth["with"])

    def prf(self):
        p = self.tp / self.got if self.got else 0.0
        r = self.tp / self.expect if self.expect else 0.0
        return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def by_type(kind, pages, results):
    """P/R/F1 per page type (micro over the pages of the type) of each extractor in RESULTS."""
    types = sorted(collections.Counter(t.get("type", "?") for _, _, t in pages).items(), key=lambda x: -x[1])
    print("\n| page type | pages | " + " | ".join("%s P/R/F1" % r[0] for r in results) + " |")
    print("|---|---|" + "---|" * len(results))
    for ty, count in types:
        cells = []
        for r in results:
            s = Score()
            for (_, _, truth), text in zip(pages, r[1]):
                if truth.get("type", "?") == ty:
                    s.add(kind, truth, text)
            cells.append("%.3f / %.3f / **%.3f**" % s.prf())
        print("| %s | %d | %s |" % (ty, count, " | ".join(cells)))


def in_label(para, grams, words):
    """Whether half or more of PARA's word trigrams (of its words, when it has fewer than three)
    are in the label's."""
    w = TOKEN.findall(para.lower())
    if len(w) >= 3:
        g = list(zip(w, w[1:], w[2:]))
        return sum(1 for x in g if x in grams) * 2 >= len(g)
    return bool(w) and sum(1 for x in w if x in words) * 2 >= len(w)


def bounds(kind, pages, texts):
    """How far two label-reading oracles would take TEXTS (token sets only): cut each page's text
    to the paragraphs from its first to its last one in the label (a perfect model of where the
    label starts and ends), and keep only the paragraphs in the label (of where it starts, ends
    and what it leaves out in between). Blank lines separate paragraphs."""
    scores = collections.OrderedDict((m, Score()) for m in ("as is", "label start and end", "label paragraphs"))
    for (_, _, truth), text in zip(pages, texts):
        w = TOKEN.findall(truth["text"].lower())
        grams, words = set(zip(w, w[1:], w[2:])), set(w)
        paras = [p for p in (text or "").split("\n\n") if p.strip()]
        keep = [in_label(p, grams, words) for p in paras]
        ins = [i for i, k in enumerate(keep) if k] or [0, len(paras) - 1]
        scores["as is"].add(kind, truth, text)
        scores["label start and end"].add(kind, truth, "\n\n".join(paras[ins[0]:ins[-1] + 1]))
        scores["label paragraphs"].add(kind, truth, "\n\n".join(p for p, k in zip(paras, keep) if k) if any(keep) else text)
    print("\n| oracle on the first method's text | precision | recall | F1 |")
    print("|---|---|---|---|")
    for m, s in scores.items():
        print("| %s | %.5f | %.5f | **%.5f** |" % ((m,) + s.prf()))


def page_f1(kind, truth, text):
    s = Score()
    s.add(kind, truth, text)
    return s.prf()


# ---- extractors ------------------------------------------------------------------------------

def run_redcrawl(driver, methods, trees, pages, workdir):
    """{method[~tree]: ([text per page], ms per page, of which extraction)} from the C driver, per
    tree (gumbo, or the light tree as "~light")."""
    listing = []
    for pid, html, _ in pages:
        p = os.path.join(workdir, pid + ".html")
        with open(p, "wb") as f:
            f.write(html)
        listing.append(p)
    out = {}
    for m, tree in ((m, t) for m in methods for t in trees):
        key = m if tree == "gumbo" else m + "~" + tree
        od = os.path.join(workdir, key)
        os.makedirs(od, exist_ok=True)
        res = subprocess.run([driver, "-m", m, "-T", tree, od], input="\n".join(listing).encode(),
                             capture_output=True, check=True)
        total_ms, _, _, text_ms = (float(x) for x in res.stdout.decode().split()[:4])
        texts = []
        for pid, _, _ in pages:
            with open(os.path.join(od, pid + ".txt"), encoding="utf-8", errors="replace") as f:
                texts.append(f.read())
        out[key] = (texts, total_ms / len(pages), text_ms / len(pages))
    return out


JUSTEXT_LANG = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian",
                "pt": "Portuguese", "nl": "Dutch", "ru": "Russian", "pl": "Polish", "zh": "Chinese",
                "ja": "Japanese", "ko": "Korean", "sv": "Swedish", "da": "Danish", "fi": "Finnish",
                "cs": "Czech", "tr": "Turkish", "el": "Greek", "hu": "Hungarian", "no": "Norwegian",
                "uk": "Ukrainian", "ro": "Romanian", "id": "Indonesian", "vi": "Vietnamese"}
LANG = re.compile(rb"<html[^>]*\blang\s*=\s*[\"']?([a-zA-Z]{2})", re.I)


def python_extractors():
    import justext
    import trafilatura
    from readability import Document

    stoplists = set(justext.get_stoplists())

    def traf(html):
        return trafilatura.extract(html, include_comments=False, include_tables=True,
                                   include_formatting=False) or ""

    def readab(html):
        summary = Document(html).summary(html_partial=True)
        import lxml.html
        return lxml.html.fromstring(summary).text_content() if summary.strip() else ""

    def jt(html):
        m = LANG.search(html[:20000])
        lang = JUSTEXT_LANG.get(m.group(1).decode().lower(), "English") if m else "English"
        if lang not in stoplists:
            lang = "English"
        paras = justext.justext(html, justext.get_stoplist(lang))
        return "\n\n".join(p.text for p in paras if not p.is_boilerplate)

    return [("trafilatura " + trafilatura.__version__, traf),
            ("readability-lxml", readab), ("jusText", jt)]


def run_python(fn, pages):
    texts, t0 = [], time.perf_counter()
    for _, html, _ in pages:
        try:
            texts.append(fn(html))
        except Exception:  # a crash costs recall, as in production
            texts.append("")
    return texts, (time.perf_counter() - t0) * 1000 / len(pages)


# ---- main ------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--driver", required=True, help="tests/bench/maintext_dump")
    ap.add_argument("--methods", default="article,density,lineblock")
    ap.add_argument("--trees", default="gumbo,light",
                    help="redcrawl's trees: gumbo and/or light (htmltree.c), each method on each")
    ap.add_argument("--redcrawl-only", action="store_true", help="skip the Python extractors")
    ap.add_argument("--python", default="",
                    help="only these Python extractors (comma-separated name prefixes: trafilatura)")
    ap.add_argument("--worst", type=int, default=0, help="list the N worst pages of the first method")
    ap.add_argument("--by-type", action="store_true",
                    help="F1 per page type (WCXB) of the first method and trafilatura")
    ap.add_argument("--bounds", action="store_true",
                    help="token sets: what knowing where each label starts and ends (or which "
                         "paragraphs it keeps) would give the first method")
    ap.add_argument("sets", nargs="+")
    a = ap.parse_args()
    others = [] if a.redcrawl_only else python_extractors()
    if a.python:
        others = [o for o in others if o[0].startswith(tuple(a.python.split(",")))]
    for path in a.sets:
        kind, pages = load_set(path)
        unit = "token" if kind == "tokens" else "snippet"
        print("\n## %s (%d pages, %s P/R/F1)\n" % (os.path.basename(os.path.normpath(path)), len(pages), unit))
        print("| extractor | precision | recall | F1 | empty | ms/page | of which text |")
        print("|---|---|---|---|---|---|---|")
        results = []
        with tempfile.TemporaryDirectory(prefix="maintext.") as wd:
            for m, (texts, ms, text_ms) in run_redcrawl(a.driver, a.methods.split(","), a.trees.split(","), pages, wd).items():
                results.append(("redcrawl " + m, texts, ms, "%.2f" % text_ms))
        for name, fn in others:
            texts, ms = run_python(fn, pages)
            results.append((name, texts, ms, "-"))
        for name, texts, ms, text_ms in results:
            s = Score()
            for (_, _, truth), text in zip(pages, texts):
                s.add(kind, truth, text)
            p, r, f = s.prf()
            print("| %s | %.3f | %.3f | %.3f | %d | %.2f | %s |" % (name, p, r, f, s.empty, ms, text_ms))
        if a.by_type and any("type" in t for _, _, t in pages):
            by_type(kind, pages, [r for r in results if r[0].startswith(("redcrawl article", "trafilatura"))])
        if a.bounds and kind == "tokens":
            bounds(kind, pages, results[0][1])
        if a.worst:
            name, texts = results[0][:2]
            rows = sorted(((page_f1(kind, t, x), pid) for (pid, _, t), x in zip(pages, texts)),
                          key=lambda r: r[0][2])
            print("\nworst pages of %s:" % name)
            types = {pid: t.get("type") for pid, _, t in pages}
            for (p, r, f), pid in rows[:a.worst]:
                print("  %s P %.2f R %.2f F1 %.2f%s" % (pid, p, r, f, "  " + types[pid] if types[pid] else ""))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
