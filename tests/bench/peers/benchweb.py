#!/usr/bin/env python3
"""benchweb.py - writes the synthetic web that scripts/bench.sh serves with nginx.

    benchweb.py OUTDIR PORT NAME:HOSTS:PAGES [NAME:HOSTS:PAGES ...]

For each workload NAME it writes OUTDIR/NAME/ with /robots.txt, / (page 0) and /p/<i>.html
(pages 1..PAGES-1). Every host NAME0.bench.test .. NAME<HOSTS-1>.bench.test serves the same
files (nginx picks the directory from the host name), so a workload of a thousand hosts costs
PAGES files on disk, and each host has exactly PAGES pages: the page set a crawl must cover
is HOSTS x PAGES.

Deterministic: the bytes depend only on NAME, HOSTS, PAGES and PORT (cross-host links carry
the port). Realistic: a nested layout (header, nested nav menus, breadcrumb, article, tables,
sidebar lists, footer), inline and external scripts, JSON-LD, stylesheets, mixed Chinese and
English text, ~30 KB per page and 100-300 <a href> per page in assorted forms (relative,
root-relative, absolute, to other hosts, with fragments), plus links no crawler may fetch or
that lead nowhere: mailto:, tel:, javascript:, bare fragments and /private/ (robots.txt
Disallow; nginx has no such files, so a fetch shows as a 404 in the log).
"""
import os
import random
import sys

TARGET_BYTES = 30000

EN_WORDS = (
    "the crawler fetches pages from many hosts while a frontier keeps every host polite and the "
    "scheduler hands out work in batches so that each worker stays busy data pipeline storage "
    "index search query latency throughput network server client request response header body "
    "document archive record market report city weather sport travel science health culture "
    "history economy policy energy transport education research company product review guide"
).split()
ZH_CHARS = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后"
    "多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合"
    "还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只"
    "没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边"
    "流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造"
    "百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例"
)
TOPICS_EN = ["News", "Products", "Solutions", "Support", "Community", "Docs", "Blog", "About",
             "Careers", "Investors", "Partners", "Events"]
TOPICS_ZH = ["新闻", "产品", "解决方案", "支持", "社区", "文档", "博客", "关于我们", "招聘", "投资者",
             "合作伙伴", "活动"]


def en_sentence(rng, n):
    words = [rng.choice(EN_WORDS) for _ in range(n)]
    return " ".join(words).capitalize() + "."


def zh_sentence(rng, n):
    return "".join(rng.choice(ZH_CHARS) for _ in range(n)) + "。"


def text(rng, sentences):
    out = []
    for _ in range(sentences):
        out.append(zh_sentence(rng, rng.randint(12, 40)) if rng.random() < 0.5 else en_sentence(rng, rng.randint(8, 24)))
    return "".join(out)


def page_path(i):
    return "/" if i == 0 else "/p/%d.html" % i


class Page:
    """One page's HTML: links are drawn from rng so the page is the same on every run."""

    def __init__(self, name, hosts, pages, port, i):
        self.name, self.hosts, self.pages, self.port, self.i = name, hosts, pages, port, i
        self.rng = random.Random("%s/%d/%d/%d" % (name, hosts, pages, i))
        self.links = 0

    def href(self, j):
        """A link to page j of this host, written in one of the forms sites use."""
        self.links += 1
        form = self.rng.random()
        if j == 0:
            return "/" if form < 0.7 else "/#top"
        if form < 0.55:
            return "/p/%d.html" % j
        if form < 0.75:
            # relative to this page's directory (/ for page 0, /p/ for the others)
            return ("p/%d.html" if self.i == 0 else "%d.html") % j
        if form < 0.9:
            return "/p/%d.html#section-%d" % (j, self.rng.randint(1, 9))
        return "../p/%d.html" % j if self.i else "./p/%d.html" % j

    def other_host(self):
        self.links += 1
        h = self.rng.randrange(self.hosts)
        j = self.rng.randrange(self.pages)
        return "http://%s%d.bench.test:%d%s" % (self.name, h, self.port, page_path(j))

    def dead_link(self):
        """A link no crawler should fetch: wrong scheme, fragment only, or robots-disallowed."""
        self.links += 1
        k = self.rng.randrange(5)
        return ("mailto:info@example.test", "tel:+86-10-5555-0100", "javascript:void(0)", "#top",
                "/private/%d.html" % self.rng.randrange(50))[k]

    def rand_page(self):
        return self.rng.randrange(self.pages)

    def a(self, href, label):
        return '<a href="%s">%s</a>' % (href, label)

    def nav(self):
        """Two-level menu: 12 sections, each with 3 sub-entries (48 links)."""
        out = ['<nav class="main-nav" aria-label="主菜单"><ul class="menu">']
        for k, (en, zh) in enumerate(zip(TOPICS_EN, TOPICS_ZH)):
            out.append('<li class="menu-item has-children"><a class="menu-link" href="%s">%s %s</a>'
                       '<ul class="sub-menu">' % (self.href((k + 1) % self.pages), zh, en))
            for s in range(3):
                out.append('<li class="sub-item">%s</li>' %
                           self.a(self.href((k * 3 + s + 13) % self.pages), "%s %d" % (zh, s + 1)))
            out.append("</ul></li>")
        out.append("</ul></nav>")
        return "".join(out)

    def head(self):
        rng = self.rng
        title = "%s | %s - %s" % (zh_sentence(rng, 10)[:-1], en_sentence(rng, 5)[:-1], self.name.upper())
        cfg = ",".join('"k%d":"%s"' % (k, "".join(rng.choice("abcdef0123456789") for _ in range(24)))
                       for k in range(40))
        return (
            '<!DOCTYPE html>\n<html lang="zh-CN"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            "<title>%s</title>"
            '<meta name="description" content="%s">'
            '<meta name="keywords" content="crawler,爬虫,benchmark,基准">'
            '<link rel="canonical" href="%s">'
            '<link rel="stylesheet" href="/static/site.css?v=3"><link rel="stylesheet" href="/static/print.css" media="print">'
            '<link rel="icon" href="/favicon.ico">'
            '<script>window.__CONFIG__={%s};(function(){var d=document,s=d.createElement("script");'
            's.async=true;s.src="/static/analytics.js";d.head.appendChild(s);if(1<2&&3>2){void 0;}})();</script>'
            '<script src="/static/app.js" defer></script>'
            '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article",'
            '"headline":"%s","inLanguage":"zh-CN"}</script>'
            '<style>.menu{display:flex}.sub-menu{display:none}.menu-item:hover .sub-menu{display:block}'
            'body{font-family:"PingFang SC",Arial,sans-serif;margin:0}</style>'
            "</head>" % (title, text(rng, 2).replace('"', ""), page_path(self.i), cfg, title)
        )

    def article(self, budget):
        """Paragraphs with inline links until the page is about `budget` bytes."""
        rng, out, size = self.rng, [], 0
        sec = 1
        while size < budget:
            part = ['<section id="section-%d"><h2>%s %s</h2>' % (sec, zh_sentence(rng, 8)[:-1], en_sentence(rng, 4)[:-1])]
            for _ in range(rng.randint(2, 4)):
                words = text(rng, rng.randint(3, 6))
                cut = rng.randrange(len(words))
                part.append("<p>%s%s%s</p>" % (words[:cut], self.a(self.href(self.rand_page()), words[cut:cut + 6] or "更多"),
                                               words[cut:]))
            if rng.random() < 0.3:
                part.append("<table class=\"data\"><thead><tr><th>指标 Metric</th><th>数值 Value</th></tr></thead><tbody>")
                for _ in range(rng.randint(3, 8)):
                    part.append("<tr><td>%s</td><td>%d</td></tr>" % (zh_sentence(rng, 4)[:-1], rng.randint(1, 99999)))
                part.append("</tbody></table>")
            if rng.random() < 0.3:
                part.append('<figure><img src="/img/%d.jpg" alt="%s" width="640" height="360" loading="lazy">'
                            "<figcaption>%s</figcaption></figure>" % (rng.randrange(1000), zh_sentence(rng, 6)[:-1],
                                                                      en_sentence(rng, 8)))
            part.append("</section>")
            s = "".join(part)
            out.append(s)
            size += len(s.encode())
            sec += 1
        return "".join(out)

    def link_list(self, cls, title, n, other_hosts=0):
        items = [self.a(self.href(self.rand_page()), text(self.rng, 1)[:18]) for _ in range(n)]
        items += [self.a(self.other_host(), "友情链接 partner %d" % k) for k in range(other_hosts)]
        self.rng.shuffle(items)
        return '<div class="widget %s"><h3>%s</h3><ul>%s</ul></div>' % (cls, title, "".join("<li>%s</li>" % x for x in items))

    def footer(self):
        cols = []
        for c in range(4):
            links = [self.a(self.href(self.rand_page()), "%s %d" % (TOPICS_ZH[(c * 3 + k) % 12], k)) for k in range(5)]
            links += [self.a(self.dead_link(), "联系 contact") for _ in range(2)]
            cols.append('<div class="col"><h4>%s</h4><ul>%s</ul></div>' % (TOPICS_EN[c], "".join("<li>%s</li>" % x for x in links)))
        return ('<footer id="footer"><div class="cols">%s</div><p class="copy">&copy; 2026 Bench 基准网 &middot; '
                '<a href="/private/terms.html">Terms</a> &middot; %s</p></footer>' % ("".join(cols), self.a("#top", "返回顶部")))

    def html(self):
        nxt = (self.i + 1) % self.pages  # a chain through every page: all are reachable from /
        head = self.head()
        top = ('<body><div id="top" class="page"><header class="site-header"><div class="container">'
               '<a class="logo" href="/">基准网 Bench</a>%s<form class="search" action="/search"><input name="q">'
               "</form></div></header>" % self.nav())
        crumbs = '<div class="breadcrumb">%s &gt; %s &gt; <span>%d</span></div>' % (
            self.a(self.href(0), "首页"), self.a(self.href(self.rand_page()), "栏目"), self.i)
        side = (self.link_list("related", "相关文章 Related", 30, other_hosts=6) +
                self.link_list("popular", "热门 Popular", 20, other_hosts=4) +
                self.link_list("more", "更多 More", self.rng.randint(0, 80)))
        pager = '<div class="pager">%s %s</div>' % (self.a(self.href(nxt), "下一页 Next &raquo;"),
                                                    self.a(self.href((self.i + 7) % self.pages), "跳转 Jump"))
        foot = self.footer()
        tail = ('<script>document.querySelectorAll(".menu-item").forEach(function(e){e.addEventListener("click",'
                'function(){e.classList.toggle("open")})});var t="</"+"div>";</script></div></body></html>\n')
        fixed = len((head + top + crumbs + side + pager + foot + tail).encode())
        body = '<main class="container"><article class="post"><h1>%s</h1>%s%s</article>' % (
            text(self.rng, 1), self.article(max(2000, TARGET_BYTES - fixed - 200)), pager)
        aside = '<aside class="sidebar">%s</aside></main>' % side
        return head + top + crumbs + body + aside + foot + tail


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, port = sys.argv[1], int(sys.argv[2])
    for spec in sys.argv[3:]:
        name, hosts, pages = spec.split(":")
        hosts, pages = int(hosts), int(pages)
        d = os.path.join(out, name)
        os.makedirs(os.path.join(d, "p"), exist_ok=True)
        with open(os.path.join(d, "robots.txt"), "w") as f:
            f.write("User-agent: *\nDisallow: /private/\nDisallow: /search\n")
        nlinks, nbytes = [], 0
        for i in range(pages):
            pg = Page(name, hosts, pages, port, i)
            data = pg.html().encode()
            nlinks.append(pg.links)
            nbytes += len(data)
            with open(os.path.join(d, "index.html" if i == 0 else "p/%d.html" % i), "wb") as f:
                f.write(data)
        print("%s: %d hosts x %d pages, %.1f KB/page, %d-%d links/page" %
              (name, hosts, pages, nbytes / pages / 1000, min(nlinks), max(nlinks)))


if __name__ == "__main__":
    main()
