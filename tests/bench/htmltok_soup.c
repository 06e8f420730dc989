/* htmltok_soup.c - how often the streaming tokenizer and gumbo disagree on tag soup: random
 * documents of 3-25 fragments (links, svg/math, integration points, tables, select, template,
 * raw text elements, comments, CDATA, headings, stray quotes and brackets) from a fixed seed,
 * each compared on links (nofollow skipped), robots flags, title and the metadata object.
 * Prints the count and the first differing documents; asserts nothing (test_htmltok holds the
 * cases that must agree). With "light", the light tree (htmltree.c) is compared with gumbo instead.
 *   build/tests/bench/htmltok_soup [DOCS [SEED [light]]] */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "htmltok.h"
#include "maintext.h"
#include "util.h"

static const char *const frags[] = {
    "<a href=x%d>",
    "<a href=\"q?a=%d&amp;b=2\">",
    "</a>",
    "<svg>",
    "</svg>",
    "<math>",
    "</math>",
    "<mi>",
    "</mi>",
    "<foreignObject>",
    "</foreignObject>",
    "<desc>",
    "</desc>",
    "<p>",
    "</p>",
    "<div>",
    "</div>",
    "<table>",
    "</table>",
    "<tr>",
    "<td>",
    "</td>",
    "<select>",
    "</select>",
    "<option>",
    "<template>",
    "</template>",
    "<title>t%d</title>",
    "<title>",
    "</title>",
    "<script>",
    "</script>",
    "<!--",
    "-->",
    "<style>",
    "</style>",
    "<b>",
    "</b>",
    "<i>",
    "</i>",
    "<textarea>",
    "</textarea>",
    "<noscript>",
    "</noscript>",
    "<iframe>",
    "</iframe>",
    "<![CDATA[",
    "]]>",
    "<base href=b%d>",
    "<meta name=robots content=nofollow>",
    "<link rel=canonical href=/c%d>",
    "<h1>",
    "</h1>",
    "<article>",
    "</article>",
    "<time datetime=t%d>",
    "<html lang=l%d>",
    "<head>",
    "</head>",
    "<body>",
    "</body>",
    "<font color=red>",
    "<font>",
    "</font>",
    "<g>",
    "</g>",
    "<path/>",
    "<input>",
    "<form>",
    "</form>",
    "<area href=ar%d>",
    "text ",
    "&amp;",
    "<",
    ">",
    "\"",
    "'",
    "<annotation-xml encoding=\"text/html\">",
    "</annotation-xml>",
    "<br>",
    "</br>",
    "<img>",
    "<ul><li>",
    "<button>",
    "</button>",
    "<object>",
    "</object>",
    "<applet>",
    "<marquee>",
    "<nobr>",
    "</nobr>",
    "<a rel=nofollow href=nf%d>",
    "<caption>",
    "<col>",
    "<colgroup>",
    "<frame>",
    "<image href=im%d>",
    "<xmp>",
    "</xmp>",
    "<plaintext>",
    "<!DOCTYPE html>",
    "<h2>",
    "</h2>",
    "<span>",
    "</span>",
};

static uint64_t rng;

static unsigned next(unsigned bound)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng >> 33) % bound);
}

static int collect(void *ud, const char *href, size_t len)
{
    rc_buf_append(ud, href, len);
    rc_buf_putc(ud, '\n');
    return 0;
}

static char *facts(rc_html *doc, rc_htmltok *tok)
{
    rc_buf b;
    rc_buf_init(&b);
    json_t *meta = json_object();
    if (doc) {
        rc_html_links(doc, 1, SIZE_MAX, collect, &b);
        rc_buf_printf(&b, "robots=%d title=%s\n", rc_html_robots_flags(doc),
                      rc_html_title(doc) ? rc_html_title(doc) : "-");
        rc_maintext_meta(doc, "http://e.test/", meta);
    } else {
        rc_htmltok_links(tok, 1, SIZE_MAX, collect, &b);
        rc_buf_printf(&b, "robots=%d title=%s\n", rc_htmltok_robots_flags(tok),
                      rc_htmltok_title(tok) ? rc_htmltok_title(tok) : "-");
        rc_htmltok_meta(tok, "http://e.test/", meta);
    }
    char *j = json_dumps(meta, JSON_COMPACT | JSON_SORT_KEYS);
    rc_buf_puts(&b, j);
    free(j);
    json_decref(meta);
    return rc_buf_steal(&b);
}

int main(int argc, char **argv)
{
    long docs = argc > 1 ? strtol(argv[1], NULL, 10) : 3000;
    rng = argc > 2 ? strtoull(argv[2], NULL, 10) : 7;
    int light = argc > 3 && strcmp(argv[3], "light") == 0;
    rc_html_limits ll = {.tree = RC_HTML_TREE_LIGHT};
    long differ = 0, shown = 0;
    rc_buf page;
    rc_buf_init(&page);
    for (long d = 0; d < docs; d++) {
        rc_buf_reset(&page);
        unsigned k = 3 + next(23);
        for (unsigned i = 0; i < k; i++) {
            const char *f = frags[next(RC_ARRAY_LEN(frags))], *pct = strstr(f, "%d");
            if (pct) {
                rc_buf_append(&page, f, (size_t)(pct - f));
                rc_buf_printf(&page, "%u", next(100));
                rc_buf_puts(&page, pct + 2);
            } else {
                rc_buf_puts(&page, f);
            }
        }
        rc_html *doc = rc_html_parse(page.ptr, page.len);
        rc_html *tree = light ? rc_html_parse_limited(page.ptr, page.len, &ll) : NULL;
        rc_htmltok *tok = light ? NULL : rc_htmltok_scan(page.ptr, page.len);
        char *a = facts(doc, NULL), *b = facts(tree, tok);
        if (strcmp(a, b) != 0) {
            differ++;
            if (shown++ < 5)
                printf("differs: %.*s\n  gumbo:   %s\n  %s: %s\n", (int)page.len, page.ptr, a,
                       light ? "light" : "htmltok", b);
        }
        free(a);
        free(b);
        rc_htmltok_free(tok);
        rc_html_free(tree);
        rc_html_free(doc);
    }
    printf("%ld of %ld random tag soups differ (%.2f %%)\n", differ, docs, 100.0 * (double)differ / (double)docs);
    rc_buf_release(&page);
    return 0;
}
