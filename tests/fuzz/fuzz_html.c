/* fuzz_html.c - a page through what the worker does with it: parse (under limits) by gumbo and by
 * the light tree (htmltree.c; script text skipped when the first byte is odd, as the worker
 * parses for a job without rules), title, links, meta robots and refresh, main text and
 * metadata, and the libxml2 document XPath runs on (used on gumbo's tree only, but it walks
 * every node field). */
#include <jansson.h>
#include <stdlib.h>

#include "extract.h"
#include "fuzz.h"
#include "html.h"
#include "maintext.h"

static int count_link(void *ud, const char *href, size_t len)
{
    (*(size_t *)ud)++;
    return 0;
}

static void use(rc_html *doc)
{
    size_t n = 0;
    (void)rc_html_title(doc);
    (void)rc_html_base_href(doc);
    (void)rc_html_robots_flags(doc);
    (void)rc_html_meta_refresh(doc);
    rc_html_links(doc, 1, 5000, count_link, &n);
    free(rc_maintext_extract(doc));
    json_t *meta = json_object();
    rc_maintext_meta(doc, "http://fuzz.test/a/b", meta);
    json_decref(meta);
    rc_extract_doc_free(rc_extract_doc_new(doc));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rc_html *doc = rc_html_parse((const char *)data, size);
    use(doc);
    rc_html_free(doc);
    rc_html_limits light = {.tree = RC_HTML_TREE_LIGHT, .skip_script_text = size > 0 && (data[0] & 1)};
    doc = rc_html_parse_limited((const char *)data, size, &light);
    use(doc);
    rc_html_free(doc);
    return 0;
}
