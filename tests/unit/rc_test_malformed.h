/* rc_test_malformed.h - markup that each exercises one tokenizer or tree-builder rule
 * (attributes, comments, raw text, template, select, foreign content, head things, the input
 * stream, tag soup that once differed): the corpus test_htmltok and test_htmltree compare their
 * parser with gumbo on. Ends with "". */
#ifndef RC_TEST_MALFORMED_H
#define RC_TEST_MALFORMED_H

#include <stdio.h>
#include <string.h>

static const char *const rc_test_malformed[] = {
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

/* Calls FN(WHAT, HTML, LEN) for each case, WHAT naming it ("case N") in failures. */
static inline void rc_test_each_malformed(void (*fn)(const char *what, const char *html, size_t len))
{
    for (size_t i = 0; i < sizeof rc_test_malformed / sizeof rc_test_malformed[0]; i++) {
        char what[48];
        snprintf(what, sizeof what, "case %zu", i);
        fn(what, rc_test_malformed[i], strlen(rc_test_malformed[i]));
    }
}

#endif
