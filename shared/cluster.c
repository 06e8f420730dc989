/* cluster.c - see cluster.h. */
#include "cluster.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The hash tag of a key: the text between its first '{' and the next '}', when not empty
 * (Redis Cluster hashes only that). 1 with its start and length, else 0. */
static int tag_span(const char *key, size_t len, const char **start, size_t *n)
{
    const char *open = memchr(key, '{', len);
    if (!open)
        return 0;
    const char *close = memchr(open + 1, '}', len - (size_t)(open + 1 - key));
    if (!close || close == open + 1)
        return 0;
    *start = open + 1;
    *n = (size_t)(close - open - 1);
    return 1;
}

int rc_cluster_has_tag(const char *key, size_t len)
{
    const char *start;
    size_t n;
    return tag_span(key, len, &start, &n);
}

int rc_cluster_tag_prefix(const char *prefix, char *buf, size_t cap)
{
    int wrap = !rc_cluster_has_tag(prefix, strlen(prefix));
    int n = wrap ? snprintf(buf, cap, "{%s}", prefix) : snprintf(buf, cap, "%s", prefix);
    if (n < 0 || (size_t)n >= cap)
        return -ENAMETOOLONG;
    return wrap;
}

/* CRC16-CCITT (XMODEM), the checksum Redis Cluster hashes keys with. */
static uint16_t crc16(const char *s, size_t len)
{
    uint16_t crc = 0;
    for (size_t i = 0; i < len; i++) {
        crc ^= (uint16_t)((uint16_t)(unsigned char)s[i] << 8);
        for (int b = 0; b < 8; b++)
            crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    return crc;
}

unsigned rc_cluster_keyslot(const char *key, size_t len)
{
    const char *start = key;
    size_t n = len;
    tag_span(key, len, &start, &n); /* no tag: the whole key */
    return crc16(start, n) & (RC_CLUSTER_SLOTS - 1);
}

int rc_cluster_enabled(const char *info)
{
    for (const char *p = info; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, "cluster_enabled:", 16) == 0)
            return p[16] == '1';
    return 0;
}

/* A node of a CLUSTER SLOTS range: [ip, port, id, ...]. */
static int node_endpoint(const redisReply *n, char *host, size_t cap, int *port)
{
    if (n->type != REDIS_REPLY_ARRAY || n->elements < 2 || n->element[0]->type != REDIS_REPLY_STRING ||
        n->element[1]->type != REDIS_REPLY_INTEGER || n->element[1]->integer <= 0 || n->element[1]->integer > 65535 ||
        n->element[0]->len >= cap)
        return -EPROTO;
    const char *ip = n->element[0]->str;
    snprintf(host, cap, "%s", strcmp(ip, "?") == 0 ? "" : ip);
    *port = (int)n->element[1]->integer;
    return 0;
}

int rc_cluster_slot_master(const redisReply *slots, unsigned slot, char *host, size_t cap, int *port)
{
    if (!slots || slots->type != REDIS_REPLY_ARRAY)
        return -EPROTO;
    for (size_t i = 0; i < slots->elements; i++) {
        const redisReply *r = slots->element[i];
        if (r->type != REDIS_REPLY_ARRAY || r->elements < 3 || r->element[0]->type != REDIS_REPLY_INTEGER ||
            r->element[1]->type != REDIS_REPLY_INTEGER)
            return -EPROTO;
        if ((long long)slot >= r->element[0]->integer && (long long)slot <= r->element[1]->integer)
            return node_endpoint(r->element[2], host, cap, port);
    }
    return -ENOENT;
}

static int known(const rc_cluster_node *out, int n, const rc_cluster_node *x)
{
    for (int i = 0; i < n; i++)
        if (out[i].port == x->port && strcmp(out[i].host, x->host) == 0)
            return 1;
    return 0;
}

int rc_cluster_nodes(const redisReply *slots, rc_cluster_node *out, int max)
{
    int n = 0;
    if (!slots || slots->type != REDIS_REPLY_ARRAY)
        return -EPROTO;
    for (size_t i = 0; i < slots->elements; i++) {
        const redisReply *r = slots->element[i];
        if (r->type != REDIS_REPLY_ARRAY || r->elements < 3)
            return -EPROTO;
        for (size_t j = 2; j < r->elements && n < max; j++) {
            rc_cluster_node x;
            if (node_endpoint(r->element[j], x.host, sizeof x.host, &x.port) < 0)
                return -EPROTO;
            if (!known(out, n, &x))
                out[n++] = x;
        }
    }
    return n;
}

int rc_cluster_is_moved(const char *err)
{
    return err && strncmp(err, "MOVED ", 6) == 0;
}

int rc_cluster_parse_moved(const char *err, unsigned *slot, char *host, size_t cap, int *port)
{
    int64_t s, p;
    char num[16];
    if (!rc_cluster_is_moved(err))
        return -EINVAL;
    const char *sp = err + 6, *ep = strchr(sp, ' ');
    if (!ep || (size_t)(ep - sp) >= sizeof num)
        return -EINVAL;
    snprintf(num, sizeof num, "%.*s", (int)(ep - sp), sp);
    const char *colon = strrchr(ep + 1, ':'); /* the last one: an IPv6 host has its own */
    if (rc_parse_i64(num, 0, RC_CLUSTER_SLOTS - 1, &s) < 0 || !colon || rc_parse_i64(colon + 1, 1, 65535, &p) < 0 ||
        (size_t)(colon - ep - 1) >= cap)
        return -EINVAL;
    snprintf(host, cap, "%.*s", (int)(colon - ep - 1), ep + 1);
    *slot = (unsigned)s;
    *port = (int)p;
    return 0;
}
