/* netguard.c - see netguard.h. */
#include "netguard.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "util.h"

int rc_cidr_parse(const char *s, rc_cidr *ret)
{
    char buf[64];
    rc_cidr c;
    memset(&c, 0, sizeof c);
    const char *slash = strchr(s, '/');
    size_t n = slash ? (size_t)(slash - s) : strlen(s);
    if (n == 0 || n >= sizeof buf)
        return -EINVAL;
    memcpy(buf, s, n);
    buf[n] = '\0';
    int max;
    if (inet_pton(AF_INET, buf, c.addr) == 1) {
        c.family = AF_INET;
        max = 32;
    } else if (inet_pton(AF_INET6, buf, c.addr) == 1) {
        c.family = AF_INET6;
        max = 128;
    } else {
        return -EINVAL;
    }
    c.prefix = max;
    if (slash) {
        int64_t p;
        if (rc_parse_i64(slash + 1, 0, max, &p) < 0)
            return -EINVAL;
        c.prefix = (int)p;
    }
    *ret = c;
    return 0;
}

int rc_cidr_contains(const rc_cidr *c, int family, const uint8_t *addr)
{
    if (family != c->family)
        return 0;
    int full = c->prefix / 8, rest = c->prefix % 8;
    if (memcmp(c->addr, addr, (size_t)full) != 0)
        return 0;
    if (rest == 0)
        return 1;
    uint8_t mask = (uint8_t)(0xff << (8 - rest));
    return (c->addr[full] & mask) == (addr[full] & mask);
}

int rc_netguard_check_cidr(const char *s, char *err, size_t cap)
{
    rc_cidr c;
    if (rc_cidr_parse(s, &c) < 0) {
        snprintf(err, cap, "'%s' is not a CIDR (like 127.0.0.0/8 or ::1/128)", s);
        return -EINVAL;
    }
    return 0;
}

/* One field of HOST:PORT:ADDR:PORT; brackets protect IPv6 colons. Returns the end or NULL. */
static const char *field_end(const char *p)
{
    if (*p == '[') {
        const char *close = strchr(p, ']');
        return close ? close + 1 : NULL;
    }
    return p + strcspn(p, ":");
}

static int port_ok(const char *p, size_t n)
{
    if (n == 0)
        return 1;
    char num[8];
    int64_t v;
    if (n >= sizeof num)
        return 0;
    memcpy(num, p, n);
    num[n] = '\0';
    return rc_parse_i64(num, 1, 65535, &v) == 0;
}

int rc_netguard_check_connect_to(const char *s, char *err, size_t cap)
{
    const char *f[4], *e[4], *p = s;
    for (int i = 0; i < 4; i++) {
        f[i] = p;
        e[i] = field_end(p);
        if (!e[i] || (i < 3 && *e[i] != ':') || (i == 3 && *e[i] != '\0'))
            goto bad;
        p = e[i] + 1;
    }
    if (!port_ok(f[1], (size_t)(e[1] - f[1])) || !port_ok(f[3], (size_t)(e[3] - f[3])) || e[2] == f[2])
        goto bad;
    return 0;
bad:
    snprintf(err, cap, "'%s' is not HOST:PORT:ADDR:PORT (HOST and PORT may be empty, e.g. ::127.0.0.1:8080)", s);
    return -EINVAL;
}

/* One address of a --resolve list: IPv4, or IPv6 with or without brackets. */
static int addr_ok(const char *p, size_t n)
{
    char buf[INET6_ADDRSTRLEN + 2];
    uint8_t a[16];
    if (n >= 2 && p[0] == '[' && p[n - 1] == ']')
        p++, n -= 2;
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return inet_pton(AF_INET, buf, a) == 1 || inet_pton(AF_INET6, buf, a) == 1;
}

int rc_netguard_check_resolve(const char *s, char *err, size_t cap)
{
    const char *host_end = field_end(s), *port_end = host_end && *host_end == ':' ? field_end(host_end + 1) : NULL;
    if (!port_end || *port_end != ':' || host_end == s || *s == '+' || *s == '-' || port_end == host_end + 1 ||
        !port_ok(host_end + 1, (size_t)(port_end - host_end - 1)))
        goto bad;
    for (const char *a = port_end + 1;; a += strcspn(a, ",") + 1) {
        if (!addr_ok(a, strcspn(a, ",")))
            goto bad;
        if (!a[strcspn(a, ",")])
            return 0;
    }
bad:
    snprintf(err, cap, "'%s' is not HOST:PORT:ADDR[,ADDR...] (e.g. a.test:80:127.0.0.1)", s);
    return -EINVAL;
}

/* ---- The SSRF guard ---------------------------------------------------------------------- */

/* Ranges a crawler has no business connecting to (IANA special-purpose registries). Those that
 * embed an IPv4 address are handled before this table. */
static const struct {
    const char *cidr;
    const char *kind;
} special[] = {
    {"0.0.0.0/8", "unspecified"},
    {"10.0.0.0/8", "private"},
    {"100.64.0.0/10", "CGNAT"},
    {"127.0.0.0/8", "loopback"},
    {"169.254.0.0/16", "link-local"},
    {"172.16.0.0/12", "private"},
    {"192.0.0.0/24", "reserved"},
    {"192.0.2.0/24", "documentation"},
    {"192.88.99.0/24", "reserved"},
    {"192.168.0.0/16", "private"},
    {"198.18.0.0/15", "benchmarking"},
    {"198.51.100.0/24", "documentation"},
    {"203.0.113.0/24", "documentation"},
    {"224.0.0.0/4", "multicast"},
    {"240.0.0.0/4", "reserved"}, /* includes 255.255.255.255 broadcast */
    {"::/128", "unspecified"},
    {"::1/128", "loopback"},
    {"64:ff9b:1::/48", "NAT64 local-use"},
    {"100::/64", "discard"},
    {"2001::/23", "reserved"},
    {"2001:db8::/32", "documentation"},
    {"fc00::/7", "private"},
    {"fe80::/10", "link-local"},
    {"fec0::/10", "site-local"},
    {"ff00::/8", "multicast"},
};
#define N_SPECIAL (sizeof special / sizeof special[0])

/* IPv6 forms that carry an IPv4 address: prefix bytes and where the IPv4 address sits. */
static const struct {
    uint8_t prefix[12];
    size_t plen, v4_at;
    const char *kind;
} embeds[] = {
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, 12, 12, "v4-mapped"},
    {{0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0}, 12, 12, "NAT64"},
    {{0x20, 0x02}, 2, 2, "6to4"},
};

struct rc_netguard {
    rc_cidr special[N_SPECIAL];
    rc_cidr *allow;
    size_t n_allow;
    int *ports;
    size_t n_ports;
};

rc_netguard *rc_netguard_new(const char *const *allow, size_t n_allow, const char *const *ports, size_t n_ports,
                             char *err, size_t cap)
{
    rc_netguard *g = rc_xcalloc(1, sizeof *g);
    for (size_t i = 0; i < N_SPECIAL; i++)
        if (rc_cidr_parse(special[i].cidr, &g->special[i]) < 0)
            abort(); /* the table above is wrong */
    g->allow = rc_xcalloc(n_allow + 1, sizeof *g->allow);
    for (; g->n_allow < n_allow; g->n_allow++)
        if (rc_netguard_check_cidr(allow[g->n_allow], err, cap) < 0 ||
            rc_cidr_parse(allow[g->n_allow], &g->allow[g->n_allow]) < 0)
            goto fail;
    g->ports = rc_xcalloc(n_ports + 1, sizeof *g->ports);
    for (; g->n_ports < n_ports; g->n_ports++) {
        int64_t p;
        if (rc_parse_i64(ports[g->n_ports], 1, 65535, &p) < 0) {
            snprintf(err, cap, "'%s' is not a port (1-65535)", ports[g->n_ports]);
            goto fail;
        }
        g->ports[g->n_ports] = (int)p;
    }
    return g;
fail:
    rc_netguard_free(g);
    return NULL;
}

void rc_netguard_free(rc_netguard *g)
{
    if (!g)
        return;
    free(g->allow);
    free(g->ports);
    free(g);
}

static int allowed_net(const rc_netguard *g, int family, const uint8_t *addr)
{
    for (size_t i = 0; i < g->n_allow; i++)
        if (rc_cidr_contains(&g->allow[i], family, addr))
            return 1;
    return 0;
}

static int refuse(char *why, size_t cap, const char *kind, const char *form, int family, const uint8_t *addr)
{
    char text[INET6_ADDRSTRLEN];
    if (!inet_ntop(family, addr, text, sizeof text))
        snprintf(text, sizeof text, "?");
    snprintf(why, cap, "%s%s address %s (not in --allow-net)", form, kind, text);
    return -EACCES;
}

/* The IPv4 address inside an IPv6 one, or NULL. ::a.b.c.d (v4-compatible) counts too. */
static const uint8_t *embedded_v4(const uint8_t *a, const char **kind)
{
    static const uint8_t zero[12];
    for (size_t i = 0; i < sizeof embeds / sizeof embeds[0]; i++)
        if (memcmp(a, embeds[i].prefix, embeds[i].plen) == 0) {
            *kind = embeds[i].kind;
            return a + embeds[i].v4_at;
        }
    /* :: and ::1 are in the table; any other ::/96 address is the old v4-compatible form. */
    if (memcmp(a, zero, 12) == 0 && (a[12] | a[13] | a[14] | (a[15] & 0xfe))) {
        *kind = "v4-compatible";
        return a + 12;
    }
    return NULL;
}

static int check_net(const rc_netguard *g, int family, const uint8_t *addr, const char *form, char *why, size_t cap)
{
    if (allowed_net(g, family, addr))
        return 0;
    const char *ekind;
    const uint8_t *v4 = family == AF_INET6 ? embedded_v4(addr, &ekind) : NULL;
    if (v4) {
        char f[48];
        snprintf(f, sizeof f, "%s ", ekind);
        return check_net(g, AF_INET, v4, f, why, cap);
    }
    for (size_t i = 0; i < N_SPECIAL; i++)
        if (rc_cidr_contains(&g->special[i], family, addr))
            return refuse(why, cap, special[i].kind, form, family, addr);
    return 0;
}

int rc_netguard_check_addr(const rc_netguard *g, int family, const uint8_t *addr, int port, char *why, size_t cap)
{
    if (family != AF_INET && family != AF_INET6) {
        snprintf(why, cap, "address family %d", family);
        return -EACCES;
    }
    int r = check_net(g, family, addr, "", why, cap);
    if (r < 0 || port == 0 || g->n_ports == 0)
        return r;
    for (size_t i = 0; i < g->n_ports; i++)
        if (g->ports[i] == port)
            return 0;
    snprintf(why, cap, "port %d (not in --allow-port)", port);
    return -EACCES;
}

int rc_netguard_check_sockaddr(const rc_netguard *g, const struct sockaddr *sa, char *why, size_t cap)
{
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)(const void *)sa;
        return rc_netguard_check_addr(g, AF_INET, (const uint8_t *)&s4->sin_addr, ntohs(s4->sin_port), why, cap);
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)sa;
        return rc_netguard_check_addr(g, AF_INET6, s6->sin6_addr.s6_addr, ntohs(s6->sin6_port), why, cap);
    }
    return rc_netguard_check_addr(g, sa->sa_family, NULL, 0, why, cap);
}

static int is_localhost(const char *host)
{
    size_t n = strlen(host);
    while (n && host[n - 1] == '.')
        n--; /* a trailing dot names the same host */
    static const char lh[] = "localhost";
    size_t l = sizeof lh - 1;
    return n >= l && strncasecmp(host + n - l, lh, l) == 0 && (n == l || host[n - l - 1] == '.');
}

int rc_netguard_check_host(const rc_netguard *g, const char *host, int port, char *why, size_t cap)
{
    char buf[256];
    uint8_t a[16];
    size_t n = strlen(host);
    if (n >= sizeof buf)
        return 0;
    if (is_localhost(host)) {
        inet_pton(AF_INET, "127.0.0.1", a);
        return rc_netguard_check_addr(g, AF_INET, a, port, why, cap);
    }
    if (n > 2 && host[0] == '[' && host[n - 1] == ']') {
        memcpy(buf, host + 1, n - 2);
        buf[n - 2] = '\0';
        char *zone = strchr(buf, '%'); /* fe80::1%eth0 */
        if (zone)
            *zone = '\0';
        if (inet_pton(AF_INET6, buf, a) == 1)
            return rc_netguard_check_addr(g, AF_INET6, a, port, why, cap);
        return 0;
    }
    struct in_addr in;
    /* inet_aton takes the legacy spellings browsers and curl also take: 2130706433, 0x7f.1. */
    if (inet_aton(host, &in) != 0)
        return rc_netguard_check_addr(g, AF_INET, (const uint8_t *)&in, port, why, cap);
    return 0;
}
