/* domain.c - see domain.h. */
#include "domain.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libpsl.h>
#include <string.h>
#include <strings.h>

#define HOST_MAX 253

static bool is_ip(const char *h)
{
    unsigned char addr[16];
    return inet_pton(AF_INET, h, addr) == 1 || inet_pton(AF_INET6, h, addr) == 1;
}

int rc_domain_registrable(const char *host, char *buf, size_t cap)
{
    char h[HOST_MAX + 3]; /* room for an IPv6 literal's brackets */
    size_t n = strlen(host);
    if (n && host[n - 1] == '.')
        n--;
    if (n == 0 || n >= sizeof h)
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        h[i] = host[i] >= 'A' && host[i] <= 'Z' ? (char)(host[i] + 32) : host[i];
    h[n] = '\0';

    const char *r = h;
    if (h[0] != '[' && !is_ip(h) && strcmp(h, "localhost") != 0) {
        /* psl_builtin() is static data compiled into libpsl: nothing to free. NULL when libpsl
         * was built without it; then every host stands for itself rather than guessing. */
        const psl_ctx_t *psl = psl_builtin();
        /* NULL means H is itself a public suffix; libpsl applies the default "*" rule to
         * unlisted TLDs, which gives a.b.site.test -> site.test. The result points into h. */
        const char *d = psl ? psl_registrable_domain(psl, h) : NULL;
        if (d)
            r = d;
    }
    size_t len = strlen(r);
    if (len >= cap)
        return -ERANGE;
    memcpy(buf, r, len + 1);
    return 0;
}

bool rc_domain_in_scope(const char *host, const char *const *domains, size_t n)
{
    size_t hl = strlen(host);
    for (size_t i = 0; i < n; i++) {
        const char *d = domains[i];
        if (!d)
            continue;
        if (d[0] == '.')
            d++;
        size_t dl = strlen(d);
        if (dl == 0 || dl > hl)
            continue;
        if (strcasecmp(host + hl - dl, d) == 0 && (hl == dl || host[hl - dl - 1] == '.'))
            return true;
    }
    return false;
}
