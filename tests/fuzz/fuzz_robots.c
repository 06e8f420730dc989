/* fuzz_robots.c - robots.txt parsing, matching and the serialised form shared through Redis:
 * deserialize(serialize(rules)) must decide every probe path the same way. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "robots.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const probes[] = {"/", "/a", "/a/b?c=d", "/%7Ex", "/$", "/*", "/index.html"};
    rc_robots *r = rc_robots_parse((const char *)data, size, "redcrawl/0.1");
    if (!r)
        return 0;
    char *ser = rc_robots_serialize(r);
    rc_robots *back = ser ? rc_robots_deserialize(ser, strlen(ser)) : NULL;
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        int a = rc_robots_allowed(r, probes[i]);
        if (back && a != rc_robots_allowed(back, probes[i]))
            abort();
    }
    (void)rc_robots_crawl_delay(r);
    rc_robots_free(back);
    free(ser);
    rc_robots_free(r);
    return 0;
}
