/* seedlist.c - see seedlist.h. The URLs live back to back in one buffer (a 100,000-URL list is a few
 * MB, not 100,000 allocations); the pointer array is rebuilt only when asked for. */
#include "seedlist.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "domain.h"
#include "strmap.h"
#include "url.h"
#include "util.h"

/* A line longer than this is not a URL the crawler would take (rc_url_normalize's cap is lower). */
#define RC_SEEDS_LINE_MAX 8192

struct rc_seedlist {
    rc_buf text; /* the normalised URLs, each NUL-terminated */
    size_t *off; /* where each starts in text */
    size_t n, cap;
    const char **ptrs; /* rc_seedlist_urls' answer */
    size_t nptrs;
    rc_strmap *domset; /* registrable domain -> (void *)1 */
    char **domains;
    size_t ndomains;
};

rc_seedlist *rc_seedlist_new(void)
{
    rc_seedlist *s = rc_xcalloc(1, sizeof *s);
    rc_buf_init(&s->text);
    s->domset = rc_strmap_new();
    return s;
}

void rc_seedlist_free(rc_seedlist *s)
{
    if (!s)
        return;
    rc_buf_release(&s->text);
    free(s->off);
    free(s->ptrs);
    rc_strmap_free(s->domset, NULL);
    for (size_t i = 0; i < s->ndomains; i++)
        free(s->domains[i]);
    free(s->domains);
    free(s);
}

static void add_domain(rc_seedlist *s, const char *url)
{
    char host[256], reg[256];
    if (rc_url_host(url, host, sizeof host) < 0 || rc_domain_registrable(host, reg, sizeof reg) < 0)
        return;
    if (rc_strmap_get(s->domset, reg))
        return;
    rc_strmap_put(s->domset, reg, (void *)1);
    s->domains = rc_xrealloc(s->domains, (s->ndomains + 1) * sizeof *s->domains);
    s->domains[s->ndomains++] = rc_xstrdup(reg);
}

int rc_seedlist_add(rc_seedlist *s, const char *url, char *err, size_t cap)
{
    if (rc_url_has_userinfo(url)) {
        snprintf(err, cap, "carries credentials (user:password@): they would be dropped");
        return -EINVAL;
    }
    char *norm = NULL;
    int r = rc_url_normalize(url, &norm);
    if (r < 0) {
        snprintf(err, cap, "%s", rc_url_strerror(r));
        return -EINVAL;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->off = rc_xrealloc(s->off, s->cap * sizeof *s->off);
    }
    s->off[s->n++] = s->text.len;
    rc_buf_append(&s->text, norm, strlen(norm) + 1);
    add_domain(s, norm);
    free(norm);
    return 0;
}

/* The line without surrounding blanks (in place); NULL when there is nothing to read. */
static char *trim(char *line, size_t len)
{
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
        line[--len] = '\0';
    while (*line == ' ' || *line == '\t')
        line++;
    return *line && *line != '#' ? line : NULL;
}

int rc_seedlist_read(rc_seedlist *s, FILE *f, rc_seedlist_bad_fn bad, void *ud)
{
    char *line = NULL;
    size_t lcap = 0, lineno = 0;
    ssize_t len;
    char why[160];
    errno = 0;
    while ((len = getline(&line, &lcap, f)) >= 0) {
        lineno++;
        if ((size_t)len > RC_SEEDS_LINE_MAX) {
            if (bad)
                bad(ud, lineno, "", "line too long");
            continue;
        }
        if ((size_t)len != strlen(line)) {
            if (bad)
                bad(ud, lineno, "", "contains a NUL byte");
            continue;
        }
        char *start = line;
        if (lineno == 1 && len >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0) {
            start += 3; /* a UTF-8 byte order mark opening the file */
            len -= 3;
        }
        char *u = trim(start, (size_t)len);
        if (u && rc_seedlist_add(s, u, why, sizeof why) < 0 && bad)
            bad(ud, lineno, u, why);
    }
    int r = ferror(f) ? -(errno ? errno : EIO) : 0;
    free(line);
    return r;
}

size_t rc_seedlist_count(const rc_seedlist *s)
{
    return s->n;
}

const char *const *rc_seedlist_urls(rc_seedlist *s)
{
    if (s->nptrs != s->n) {
        s->ptrs = rc_xrealloc(s->ptrs, (s->n ? s->n : 1) * sizeof *s->ptrs);
        s->nptrs = s->n;
    }
    for (size_t i = 0; i < s->n; i++)
        s->ptrs[i] = s->text.ptr + s->off[i];
    return s->ptrs;
}

size_t rc_seedlist_ndomains(const rc_seedlist *s)
{
    return s->ndomains;
}

const char *rc_seedlist_domain(const rc_seedlist *s, size_t i)
{
    return i < s->ndomains ? s->domains[i] : NULL;
}
