/* netguard.c - see netguard.h. */
#include "netguard.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
