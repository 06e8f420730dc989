/* fuzz_htmltok.c - the link-only fast path on any bytes: the streaming scan and everything the
 * worker reads from it (title, base, robots, refresh, canonical, links with and without
 * nofollow, the metadata object). Invariants checked besides the sanitizers: a link needs at
 * least "<a href" in the input, and a bounded walk stops where it was told. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "htmltok.h"

static int count_link(void *ud, const char *href, size_t len)
{
    if (strlen(href) != len) /* NUL-terminated, no embedded NUL (it became U+FFFD) */
        abort();
    (*(size_t *)ud)++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rc_htmltok *t = rc_htmltok_scan((const char *)data, size);
    (void)rc_htmltok_title(t);
    (void)rc_htmltok_base_href(t);
    (void)rc_htmltok_robots_flags(t);
    (void)rc_htmltok_meta_refresh(t);
    (void)rc_htmltok_canonical(t);
    size_t all = 0, followed = 0, capped = 0;
    rc_htmltok_links(t, 0, SIZE_MAX, count_link, &all);
    rc_htmltok_links(t, 1, SIZE_MAX, count_link, &followed);
    rc_htmltok_links(t, 0, 3, count_link, &capped);
    if (all > size / 7 || followed > all || capped > 3 || capped > all)
        abort();
    json_t *meta = json_object();
    rc_htmltok_meta(t, "http://fuzz.test/a/b", meta);
    json_decref(meta);
    rc_htmltok_free(t);
    return 0;
}
