/* domain.h - registrable domains (eTLD+1) and crawl-scope matching for normalised hosts. */
#ifndef RC_DOMAIN_H
#define RC_DOMAIN_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the registrable domain (eTLD+1) of HOST into buf, NUL-terminated, using libpsl's built-in
 * Public Suffix List, private suffixes included (alice.github.io is its own domain). An IP address,
 * "localhost" or a host that is itself a public suffix (co.uk) yields the host itself; a host under
 * an unlisted TLD follows the PSL default rule "*" (a.b.site.test -> site.test). HOST is lower-cased
 * and a trailing dot dropped. 0, -EINVAL for an empty or over-long host, -ERANGE when the result
 * does not fit cap bytes (buf untouched on error). */
int rc_domain_registrable(const char *host, char *buf, size_t cap);

/* True when HOST equals one of the N DOMAINS or is a subdomain of it, on a label boundary
 * (evil-example.com is not in example.com), ASCII case-insensitively. A leading dot on a domain is
 * ignored; empty or NULL entries match nothing. All borrowed. */
bool rc_domain_in_scope(const char *host, const char *const *domains, size_t n);

#endif
