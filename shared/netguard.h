/* netguard.h - network address policy: CIDR parsing and matching, and --connect-to syntax.
 * The SSRF guard (which addresses a worker may connect to) builds on rc_cidr. */
#ifndef RC_NETGUARD_H
#define RC_NETGUARD_H

#include <stddef.h>
#include <stdint.h>

typedef struct rc_cidr {
    int family;       /* AF_INET or AF_INET6 */
    uint8_t addr[16]; /* network bytes */
    int prefix;       /* bits */
} rc_cidr;

/* Parses "A.B.C.D/N", "X::Y/N" or a bare address (a /32 or /128). 0 or -EINVAL. */
int rc_cidr_parse(const char *s, rc_cidr *ret);
/* True when the address (family, bytes) lies inside the CIDR. */
int rc_cidr_contains(const rc_cidr *c, int family, const uint8_t *addr);

/* ---- The SSRF guard ----------------------------------------------------------------------
 * Which addresses a worker may connect to. Refused unless inside an allowed CIDR: loopback,
 * private (RFC 1918, ULA), link-local, CGNAT, multicast, broadcast, documentation, benchmarking,
 * reserved and unspecified ranges, IPv4 and IPv6; an IPv6 address that embeds an IPv4 one
 * (v4-mapped, v4-compatible, NAT64 64:ff9b::/96, 6to4) is judged by the IPv4 address it carries.
 * Optionally only some ports. Immutable once built, so one guard may serve any thread. */
typedef struct rc_netguard rc_netguard;

/* allow: CIDRs let in although special (copied); ports: the only ports allowed, n_ports 0 = any.
 * NULL with a message in err when a CIDR or port does not parse. */
rc_netguard *rc_netguard_new(const char *const *allow, size_t n_allow, const char *const *ports, size_t n_ports,
                             char *err, size_t cap);
void rc_netguard_free(rc_netguard *g);

/* 0 when (family, network-order bytes, port) may be connected to; -EACCES with the reason in why
 * ("loopback address 127.0.0.1", ...). port 0 = not checked. */
int rc_netguard_check_addr(const rc_netguard *g, int family, const uint8_t *addr, int port, char *why, size_t cap);
/* The same for a struct sockaddr (AF_INET or AF_INET6; other families are refused). */
struct sockaddr;
int rc_netguard_check_sockaddr(const rc_netguard *g, const struct sockaddr *sa, char *why, size_t cap);
/* Before any DNS: a URL host that is an address in any spelling inet_aton takes (2130706433,
 * 0x7f.1, 0177.0.0.1), a bracketed IPv6 literal, or localhost / *.localhost (RFC 6761: always
 * loopback). 0 for other names (they are checked on the address connected to). */
int rc_netguard_check_host(const rc_netguard *g, const char *host, int port, char *why, size_t cap);

/* Validates a CIDR, with a message in err. */
int rc_netguard_check_cidr(const char *s, char *err, size_t cap);
/* Validates curl's CONNECT_TO form HOST:PORT:ADDR:PORT (HOST and PORT may be empty; IPv6 in
 * brackets). 0 or -EINVAL with a message. */
int rc_netguard_check_connect_to(const char *s, char *err, size_t cap);
/* Validates curl's RESOLVE form HOST:PORT:ADDR[,ADDR...] as the workers take it (HOST and PORT
 * given, each ADDR an IPv4 or IPv6 address, IPv6 in brackets or not; no "+" or "-" entries).
 * 0 or -EINVAL with a message. */
int rc_netguard_check_resolve(const char *s, char *err, size_t cap);

#endif
