/* sitemap.c - see sitemap.h. */
#include "sitemap.h"

#include <errno.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "util.h"
#include "xmlinit.h"

static int name_is(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* The trimmed text of the first child element called name, malloc'd, or NULL. */
static char *child_text(const xmlNode *parent, const char *name)
{
    for (const xmlNode *c = parent->children; c; c = c->next) {
        if (!name_is(c, name))
            continue;
        xmlChar *t = xmlNodeGetContent(c);
        if (!t)
            return NULL;
        const char *s = (const char *)t, *e = s + strlen(s);
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
            s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
            e--;
        char *out = e > s ? rc_xstrndup(s, (size_t)(e - s)) : NULL;
        xmlFree(t);
        return out;
    }
    return NULL;
}

static int walk(const xmlNode *root, int kind, size_t max_urls, rc_sitemap_cb cb, void *ud)
{
    size_t n = 0;
    for (const xmlNode *c = root->children; c && n < max_urls; c = c->next) {
        if (!name_is(c, kind == RC_SITEMAP_INDEX ? "sitemap" : "url"))
            continue;
        char *loc = child_text(c, "loc");
        if (!loc)
            continue;
        char *lastmod = child_text(c, "lastmod");
        int stop = cb(ud, kind, loc, lastmod);
        free(loc);
        free(lastmod);
        n++;
        if (stop)
            break;
    }
    return 0;
}

/* n digits at *p into *v; advances *p. */
static int digits(const char **p, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (**p < '0' || **p > '9')
            return -1;
        *v = *v * 10 + (**p - '0');
    }
    return 0;
}

int rc_sitemap_lastmod_ms(const char *s, int64_t *ret)
{
    int y, mo = 1, d = 1, h = 0, mi = 0, sec = 0, ms = 0, tzh = 0, tzm = 0, sign = 0;
    const char *p = s;
    if (digits(&p, 4, &y) < 0)
        return -EINVAL;
    if (*p == '-' && (p++, digits(&p, 2, &mo) < 0))
        return -EINVAL;
    if (*p == '-' && (p++, digits(&p, 2, &d) < 0))
        return -EINVAL;
    if (*p == 'T') {
        p++;
        if (digits(&p, 2, &h) < 0 || *p++ != ':' || digits(&p, 2, &mi) < 0)
            return -EINVAL;
        if (*p == ':' && (p++, digits(&p, 2, &sec) < 0))
            return -EINVAL;
        if (*p == '.') {
            p++;
            for (int scale = 100; *p >= '0' && *p <= '9'; p++, scale /= 10)
                ms += (*p - '0') * scale; /* milliseconds; finer digits add nothing */
        }
        if (*p == 'Z')
            p++;
        else if (*p == '+' || *p == '-') {
            sign = *p++ == '-' ? -1 : 1;
            if (digits(&p, 2, &tzh) < 0 || *p++ != ':' || digits(&p, 2, &tzm) < 0)
                return -EINVAL;
        } else
            return -EINVAL;
    }
    if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return -EINVAL;
    /* Days from civil (Howard Hinnant's algorithm): no timegm, no TZ environment. */
    int yy = y - (mo <= 2);
    int era = yy / 400, yoe = yy - era * 400;
    int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t days = (int64_t)era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
    int64_t t = days * 86400 + h * 3600 + mi * 60 + sec - sign * (tzh * 3600 + tzm * 60);
    *ret = t * 1000 + ms;
    return 0;
}

int rc_sitemap_parse(const char *body, size_t len, size_t max_urls, rc_sitemap_cb cb, void *ud, char *err, size_t cap)
{
    rc_buf plain;
    rc_buf_init(&plain);
    if (len >= 2 && (unsigned char)body[0] == 0x1f && (unsigned char)body[1] == 0x8b) {
        rc_decoder *d = rc_decoder_new("gzip", RC_SITEMAP_MAX_BYTES, err, cap);
        int r = d ? rc_decoder_feed(d, body, len, &plain, err, cap) : -EINVAL;
        if (r == RC_DECODE_FULL)
            snprintf(err, cap, "a gzip'd sitemap larger than %u bytes", RC_SITEMAP_MAX_BYTES);
        if (r == 0)
            r = rc_decoder_finish(d, err, cap);
        rc_decoder_free(d);
        if (r != 0) {
            rc_buf_release(&plain);
            return -EINVAL;
        }
        body = plain.ptr;
        len = plain.len;
    }
    if (len > RC_SITEMAP_MAX_BYTES || len > (size_t)INT32_MAX) {
        snprintf(err, cap, "a sitemap larger than %u bytes", RC_SITEMAP_MAX_BYTES);
        rc_buf_release(&plain);
        return -EINVAL;
    }
    rc_xml_init();
    /* No network, no DTD loading, no entity substitution: a sitemap is data from anyone. */
    xmlDoc *doc = xmlReadMemory(body, (int)len, NULL, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    const xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
    int r = -EINVAL;
    if (root && name_is(root, "urlset"))
        r = walk(root, RC_SITEMAP_URLSET, max_urls, cb, ud) == 0 ? RC_SITEMAP_URLSET : -EINVAL;
    else if (root && name_is(root, "sitemapindex"))
        r = walk(root, RC_SITEMAP_INDEX, max_urls, cb, ud) == 0 ? RC_SITEMAP_INDEX : -EINVAL;
    else
        snprintf(err, cap, "not a sitemap (%s)", root ? "the root is neither urlset nor sitemapindex" : "not XML");
    xmlFreeDoc(doc);
    rc_buf_release(&plain);
    return r;
}
