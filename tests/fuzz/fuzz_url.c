/* fuzz_url.c - URL normalisation and resolution: "BASE\nREF" resolves REF against BASE (both
 * arbitrary), and any input is normalised on its own; a result must normalise to itself. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "url.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = rc_xstrndup((const char *)data, size);
    char *nl = strchr(s, '\n'), *out = NULL, *again = NULL;
    if (nl) {
        *nl = '\0';
        if (rc_url_resolve(s, nl + 1, strlen(nl + 1), &out) == 0) {
            if (rc_url_normalize(out, &again) != 0 || strcmp(out, again) != 0)
                abort(); /* normal form must be a fixed point */
        }
        *nl = '\n';
    }
    free(out);
    free(again);
    out = again = NULL;
    if (rc_url_normalize(s, &out) == 0) {
        char host[300];
        rc_url_host(out, host, sizeof host);
        if (rc_url_normalize(out, &again) != 0 || strcmp(out, again) != 0)
            abort();
    }
    free(out);
    free(again);
    free(s);
    return 0;
}
