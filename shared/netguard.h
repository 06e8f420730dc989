/* netguard.h - network address policy: CIDR parsing and matching, and --connect-to syntax.
 * The SSRF guard (which addresses a worker may connect to) builds on rc_cidr. */
#ifndef RC_NETGUARD_H
#define RC_NETGUARD_H

#include <stddef.h>
#include <stdint.h>

typedef struct rc_cidr {
    int family;        /* AF_INET or AF_INET6 */
    uint8_t addr[16];  /* network bytes */
    int prefix;        /* bits */
} rc_cidr;

/* Parses "A.B.C.D/N", "X::Y/N" or a bare address (a /32 or /128). 0 or -EINVAL. */
int rc_cidr_parse(const char *s, rc_cidr *ret);
/* True when the address (family, bytes) lies inside the CIDR. */
int rc_cidr_contains(const rc_cidr *c, int family, const uint8_t *addr);

/* Validates a CIDR, with a message in err. */
int rc_netguard_check_cidr(const char *s, char *err, size_t cap);
/* Validates curl's CONNECT_TO form HOST:PORT:ADDR:PORT (HOST and PORT may be empty; IPv6 in
 * brackets). 0 or -EINVAL with a message. */
int rc_netguard_check_connect_to(const char *s, char *err, size_t cap);

#endif
