/* test_htmltok.c - the streaming tokenizer finds exactly what gumbo's tree gives (rc_html_* and
 * rc_maintext_meta): links with and without rel=nofollow, <base>, title, meta robots, meta
 * refresh, canonical and the whole metadata object. Over every HTML page under tests/data
 * (decoded to UTF-8 as the worker does) and the cases below: malformed markup, <template>,
 * comments, CDATA, foreign content, entities in hrefs, unclosed quotes, raw text elements. */
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "charset.h"
#include "html.h"
#include "htmltok.h"
#include "maintext.h"
#include "rc_test.h"
#include "util.h"

static const char *data_dir = "tests/data";
static size_t pages_compared, links_compared;

static int collect(void *ud, const char *href, size_t len)
{
    rc_buf *b = ud;
    rc_buf_append(b, href, len);
    rc_buf_append(b, "\n", 1);
    return 0;
}

static int opt_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Compares both parsers on one page; WHAT names it in failures. */
static void compare(const char *what, const char *html, size_t len)
{
    rc_html *doc = rc_html_parse(html, len);
    rc_htmltok *tok = rc_htmltok_scan(html, len);
    if (rc_html_degraded(doc)) { /* over gumbo's budget: its tree is not the reference */
        fprintf(stderr, "%s: gumbo degraded, not compared\n", what);
        goto done;
    }
    pages_compared++;
#define SAME_STR(field, a, b)                                                                                          \
    do {                                                                                                               \
        rc_test_checks++;                                                                                              \
        if (!opt_eq(a, b)) {                                                                                           \
            rc_test_failures++;                                                                                        \
            fprintf(stderr, "%s: %s: gumbo \"%s\" != htmltok \"%s\"\n", what, field, a ? a : "(null)",                 \
                    b ? b : "(null)");                                                                                 \
        }                                                                                                              \
    } while (0)
    SAME_STR("title", rc_html_title(doc), rc_htmltok_title(tok));
    SAME_STR("base", rc_html_base_href(doc), rc_htmltok_base_href(tok));
    SAME_STR("refresh", rc_html_meta_refresh(doc), rc_htmltok_meta_refresh(tok));
    RC_CHECK_INT_EQ(rc_html_robots_flags(doc), rc_htmltok_robots_flags(tok));
    for (int skip = 0; skip <= 1; skip++) {
        rc_buf a, b;
        rc_buf_init(&a);
        rc_buf_init(&b);
        size_t na = rc_html_links(doc, skip, SIZE_MAX, collect, &a);
        size_t nb = rc_htmltok_links(tok, skip, SIZE_MAX, collect, &b);
        RC_CHECK_INT_EQ(na, nb);
        rc_buf_putc(&a, '\0');
        rc_buf_putc(&b, '\0');
        char field[32];
        snprintf(field, sizeof field, "links (skip_nofollow=%d)", skip);
        SAME_STR(field, a.ptr, b.ptr);
        links_compared += na;
        rc_buf_release(&a);
        rc_buf_release(&b);
    }
    json_t *ma = json_object(), *mb = json_object();
    rc_maintext_meta(doc, "http://example.test/dir/page.html", ma);
    rc_htmltok_meta(tok, "http://example.test/dir/page.html", mb);
    char *ja = json_dumps(ma, JSON_COMPACT | JSON_SORT_KEYS), *jb = json_dumps(mb, JSON_COMPACT | JSON_SORT_KEYS);
    SAME_STR("meta", ja, jb);
    free(ja);
    free(jb);
    json_decref(ma);
    json_decref(mb);
done:
    rc_htmltok_free(tok);
    rc_html_free(doc);
}

static int is_html_name(const char *name)
{
    size_t n = strlen(name);
    return (n > 5 && strcmp(name + n - 5, ".html") == 0) || (n > 4 && strcmp(name + n - 4, ".htm") == 0);
}

/* Every .html/.htm file under DIR, decoded to UTF-8 as the worker does. */
static void walk_dir(const char *dir)
{
    DIR *d = opendir(dir);
    RC_CHECK(d != NULL);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *path = rc_xasprintf("%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            walk_dir(path);
        } else if (is_html_name(e->d_name)) {
            size_t len = 0, ulen = 0;
            char *raw = rc_read_file(path, 0, &len);
            RC_CHECK(raw != NULL);
            char cs[RC_CHARSET_NAME_MAX] = "";
            rc_charset_detect(raw, len, "text/html", cs, sizeof cs);
            char *utf8 = rc_charset_to_utf8(raw, len, cs, &ulen);
            compare(path, utf8, ulen);
            free(utf8);
            free(raw);
        }
        free(path);
    }
    closedir(d);
}

/* Cases that each exercise one tokenizer or tree-builder rule. */
static const char *const cases[] = {
    /* attributes: quoting, duplicates, case, entities */
    "<a href=x href=y rel=nofollow>1</a><a HREF='Up' REL=\"NoFollow\">2</a><a href=plain>3</a>",
    "<a href=\"&amp;&lt&notit;&notin &copy=x&#x41;&#0;&#128;&#xD800;&#x110000;&#39;\">e</a>",
    "<a href=\"?a=1&amp;b=2&copy;&copy=3&ampx=1&amp=2&AMP;&GT&Aacute&aacute;&nbsp\">q</a>",
    "<a href='/p?x=1&y=2&lang=en&reg=4&sect2'>q</a><a href=&#x2F;abs&#47;x>n</a><a href=\"&#\">h</a>",
    "<a href=\"x\" <b>bad</b><a href=x/>s</a><a href= >empty</a><a href>none</a><a name=n>no href</a>",
    "<a href=\"a\r\nb\rc\">cr</a><a href=' spaced '>s</a><a\thref\n=\n\"tabs\">t</a>",
    "<a href=\"unclosed>text<a href=later>x</a>",
    "<p><a href='unclosed single>text</a>",
    "<a href=x",
    "<a =y href=z \"q=1 'r=2>odd names</a><a/href=slash>s</a><a href=a b=c/ rel=nofollow>n</a>",
    /* comments, doctype, bogus comments, processing instructions */
    "<!DOCTYPE html PUBLIC \"-//W3C//DTD\" \"x>\"><a href=after-doctype>x</a>",
    "<!-- <a href=in-comment> --><a href=out1>x</a><!--> <a href=abrupt><!---><a href=abrupt2>",
    "<!-- a -- b --!> <a href=bang>x</a><!-- --- --><a href=dashes>y</a><!----!-><a href=c>",
    "<!--x--!-><a href=still-comment>--><a href=after>",
    "<? php <a href=pi> ?><a href=after-pi>x</a></ bogus <a href=bogus-end><a href=e>",
    "<!bogus <a href=b><a href=ok></><a href=ok2><!--unterminated <a href=never>",
    "text < a href=notatag> 1<2 <a href=real>r</a> <3 </3 <a href=x>",
    /* raw text elements */
    "<script>document.write('<a href=\"in-script\">')</script><a href=after-script>x</a>",
    "<script><!-- '<a href=s1>' <script>'</script>' <a href=s2> --></script><a href=after>",
    "<script><!--<script></script><a href=double-escaped>--></script><a href=out>",
    "<script>a<!--b--></script><a href=s3>x</a><SCRIPT type=text/x>x</SCRIPT ><a href=s4>",
    "<style>a[href='<a href=st>']{}</style><a href=after-style>",
    "<textarea><a href=ta></textarea><a href=after-ta><xmp><a href=x></xmp><a href=after-xmp>",
    "<iframe><a href=if></iframe><noembed><a href=ne></noembed><noframes><a href=nf></noframes><a href=ok>",
    "<noscript><a href=ns>x</a></noscript><head><noscript><a href=hn></noscript>",
    "<title>a &amp; <b> b</title><title>second</title><a href=x>",
    "<title>\n  Spaced\t title &lt;tag&gt;\n</title >",
    "<title></title><title>second</title>",
    "<title>never closed <a href=t>",
    "<title>x</titlex> still title</title><a href=y>",
    "<plaintext><a href=p>",
    "<a href=before><plaintext></plaintext><a href=p>",
    "<script>never closed <a href=x>",
    /* template, select, forms */
    "<template><a href=t><title>T</title><base href=/tb><meta name=robots content=noindex></template><a href=nt>",
    "<template><template><a href=t2></template><a href=t1></template><a href=out>",
    "<select><a href=s>x</a><title>T</title><option><a href=o></select><a href=after>",
    "<select><script>x</script><input><a href=after-input></select>",
    "<select><textarea><a href=ta></textarea><a href=t2>",
    "<form><form><a href=nested-form></form><a href=f2></form><a href=f3>",
    "<table><a href=foster><tr><td><a href=td></td></tr></table>",
    "<a href=1><a href=2><b><a href=3></b>x</a><p><a href=4>y</p>z</a>",
    "<a href=outer><div><a href=inner></div></a>",
    "<body><frameset><a href=fs>",
    /* foreign content */
    "<svg><a href=sv></a><foreignObject><a href=fo></a></foreignObject><a href=sv2></svg><a href=ok>",
    "<svg><title>S</title><script><a href=ss></script></svg><title>H</title>",
    "<svg><![CDATA[<a href=cd>]]></svg><![CDATA[<a href=hc>]]><a href=after-cdata>",
    "<math><mi><a href=mi></mi><a href=m></math><a href=out>",
    "<math><mi></mi><a href=m></math><a href=out>",
    "<math><annotation-xml encoding=text/html><a href=ax></annotation-xml><annotation-xml><a href=n>",
    "<svg><desc><a href=d></desc><a href=no>",
    "<svg><p><a href=breakout>",
    "<svg><font color=1><a href=fc>",
    "<svg><font><a href=f></svg><a href=o>",
    "<div><svg><path></div><a href=after>",
    "<svg><g><a href=x/><circle/></g></svg><a href=y>",
    "<svg/><a href=self-closed>",
    "<a href=x><svg><path></a><a href=y>",
    /* head things */
    "<base><base href=second><base href=third><a href=q>",
    "<meta name=ROBOTS content='NoIndex, nofollow'><a href=x rel=nofollow>",
    "<meta name=redcrawl content=none><meta name=robots content=noarchive>",
    "<meta http-equiv=refresh content=\"5; url='/next?a=1&amp;b=2'\"><meta http-equiv=refresh content=0;url=/2>",
    "<meta http-equiv=Refresh content=\"x\"><meta http-equiv=refresh content=\"3\"><meta http-equiv=refresh "
    "content=\"1;URL=/late\">",
    "<link rel=\"stylesheet canonical\" href=\"/c?x=1&amp;y\"><link rel=canonical href=/second>",
    "<html lang=en-GB><html lang=fr><meta property=og:title content=\"OG &amp; T\"><meta name=og:type content=article>",
    "<meta name=description content=\"  desc  ription \"><meta http-equiv=content-language content=\"de, en\">",
    "<h1>Head <span>line</span> <script>x</script>&amp; more</h1><h1>second</h1>",
    "<h1>unclosed heading <h2>sub</h2>",
    "<article><p><time datetime=2024-01-02>x</time></article><time datetime=2020>",
    "<time datetime=1999 itemprop=datePublished></time><article><article></article><time datetime=2001></article>",
    "<script type=application/ld+json>{\"@graph\":[{\"datePublished\":\"2023-05-06\"}]}</script>",
    "<meta name=DC.date content=2011><meta property=article:published_time content=2012>",
    "\xEF\xBB\xBF<title>BOM</title>",
    /* the input stream: controls, C1, noncharacters become U+FFFD, CR and CRLF LF */
    "<title>a\x01b\x7f c\xC2\x85"
    "d\xEF\xB7\x90"
    "e\xEF\xBF\xBE"
    "f\xF0\x9F\xBF\xBF"
    "g\xC2\xA9</title>"
    "<a href='x\x02y\x0B\x1Fz\rq\xF0\x9F\x98\x80'>c</a><meta name=description content='d\x0E\tx'>",
    /* tag soup that once differed (random fragments; the tree builder's view of svg/math, select
     * in table and the first <h1> as a title) */
    "<marquee></b><math></head></select><td><style><head><a href=x33><![CDATA[",
    "<p></font><col><time datetime=t64>'<svg></p><col>'</body></xmp><xmp><i><math><annotation-xml "
    "encoding=\"text/html\"><article><object>'</style><object><a href=x60></script><iframe><",
    "</font><table><select><g></object><br><b></a><table><title>t45</title></h1><applet><a href=x84>",
    "<a rel=nofollow href=nf30><mi><math>'</mi>text <title>t89</title><template>></h1><path/>",
    "<h1><plaintext><path/><tr></script><math></font>]]><p>]]></br><body><!DOCTYPE html>",
    "<h1><xmp><b></xmp> x <h2>nested</h2> tail</h1><h1>second</h1>",
    "",
};

int main(int argc, char **argv)
{
    if (argc > 1)
        data_dir = argv[1];
    for (size_t i = 0; i < RC_ARRAY_LEN(cases); i++) {
        char what[48];
        snprintf(what, sizeof what, "case %zu", i);
        compare(what, cases[i], strlen(cases[i]));
    }
    walk_dir(data_dir);
    fprintf(stderr, "htmltok: %zu pages and cases compared, %zu links equal to gumbo's\n", pages_compared,
            links_compared);
    RC_CHECK(pages_compared > 100);
    return rc_test_done("test_htmltok");
}
