/* html.c - see html.h. */
#include "html.h"
#include "htmltok.h"
#include "htmltree.h"

#include "util.h"

#include <gumbo.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* ---- arena: gumbo allocates here, under a memory and CPU budget ---------------------------- */

#define ARENA_ALIGN 16
#define ARENA_HDR ((sizeof(struct arena_chunk) + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1))
#define ARENA_MIN_CHUNK ((size_t)32 * 1024)
#define ARENA_MAX_CHUNK ((size_t)1024 * 1024)
#define ARENA_CLOCK_EVERY 1024 /* allocations between CPU clock reads */

#define DEFAULT_MEM_BASE ((size_t)8 * 1024 * 1024)
#define DEFAULT_MEM_PER_BYTE 32
#define DEFAULT_CPU_MS_BASE 100
#define DEFAULT_CPU_MS_PER_MIB 100

struct arena_chunk {
    struct arena_chunk *next;
};

typedef struct arena {
    struct arena_chunk *chunks;
    char *cur, *end;
    size_t used; /* bytes taken from malloc */
    size_t max_mem;
    uint64_t deadline_ns; /* thread CPU time */
    unsigned nalloc;
    int armed;     /* budget enforced and jmp valid: only inside parse_budgeted() */
    int soft;      /* budget checked, overruns only noted (the light tree stops by itself) */
    int exhausted; /* a soft budget ran out */
    jmp_buf jmp;
} arena;

static uint64_t cpu_now_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void arena_init(arena *a)
{
    a->chunks = NULL;
    a->cur = a->end = NULL;
    a->used = 0;
    a->max_mem = SIZE_MAX;
    a->deadline_ns = UINT64_MAX;
    a->nalloc = 0;
    a->armed = 0;
    a->soft = 0;
    a->exhausted = 0;
}

static void arena_release(arena *a)
{
    struct arena_chunk *c = a->chunks;
    while (c) {
        struct arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    arena_init(a);
}

/* A budget ran out: gumbo's parse is abandoned at once, the light tree's stops at its next tag. */
static void arena_overrun(arena *a)
{
    if (a->armed)
        longjmp(a->jmp, 1);
    a->exhausted = 1;
}

static void *arena_alloc(void *ud, size_t n)
{
    arena *a = ud;
    int budget = a->armed || a->soft;
    if (budget && ++a->nalloc % ARENA_CLOCK_EVERY == 0 && cpu_now_ns() > a->deadline_ns)
        arena_overrun(a);
    if (n > SIZE_MAX / 2) {
        if (a->armed)
            longjmp(a->jmp, 1);
        return rc_xmalloc(n); /* aborts with the size */
    }
    n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (n == 0)
        n = ARENA_ALIGN;
    if ((size_t)(a->end - a->cur) >= n) {
        void *p = a->cur;
        a->cur += n;
        return p;
    }
    size_t size = RC_MIN(RC_MAX(a->used, ARENA_MIN_CHUNK), ARENA_MAX_CHUNK);
    int dedicated = n > size / 4;
    if (dedicated)
        size = n;
    size += ARENA_HDR;
    if (budget && (a->used + size > a->max_mem || a->used + size < a->used))
        arena_overrun(a);
    struct arena_chunk *c = rc_xmalloc(size);
    c->next = a->chunks;
    a->chunks = c;
    a->used += size;
    char *data = (char *)c + ARENA_HDR;
    if (dedicated)
        return data;
    a->cur = data + n;
    a->end = data + size - ARENA_HDR;
    return data;
}

static void arena_dealloc(void *ud, void *p)
{
    (void)ud;
    (void)p; /* freed wholesale by arena_release() */
}

static char *arena_strndup(arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

/* Returns NULL when the budget ran out; the arena then holds garbage to release. The function is
 * kept trivial so no local is live across setjmp(). */
static GumboOutput *parse_budgeted(arena *a, const char *data, size_t len)
{
    GumboOptions opts = kGumboDefaultOptions;
    opts.allocator = arena_alloc;
    opts.deallocator = arena_dealloc;
    opts.userdata = a;
    opts.max_errors = 0; /* we never read them; a broken page would fill memory with them */
    if (setjmp(a->jmp) != 0) {
        a->armed = 0;
        return NULL;
    }
    a->armed = 1;
    GumboOutput *out = gumbo_parse_with_options(&opts, data, len);
    a->armed = 0;
    return out;
}

static int arena_exhausted(void *ud)
{
    const arena *a = ud;
    return a->exhausted;
}

/* The light tree (htmltree.c) under the same budget; NULL when it ran out. */
static GumboOutput *parse_light(arena *a, const char *data, size_t len, int skip_script_text)
{
    rc_htmltree_mem mem = {arena_alloc, arena_exhausted, a};
    a->soft = 1;
    GumboOutput *out = rc_htmltree_build(data, len, skip_script_text, &mem);
    a->soft = 0;
    return a->exhausted ? NULL : out;
}

/* ---- the degraded fallback: keep a/area/base/meta/title tags and text ----------------------- */

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static int is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int name_is(const char *name, size_t len, const char *lit)
{
    return strlen(lit) == len && strncasecmp(name, lit, len) == 0;
}

static int name_in(const char *name, size_t len, const char *const *list)
{
    for (; *list; list++)
        if (name_is(name, len, *list))
            return 1;
    return 0;
}

/* I is just past a tag name; returns the index of the '>' ending the tag (or N), following the
 * tokenizer's attribute states so quoted '>' and stray quotes are handled as gumbo does. */
static size_t tag_end(const char *s, size_t n, size_t i)
{
    enum { BEFORE_NAME, NAME, AFTER_NAME, BEFORE_VALUE, UNQUOTED } st = BEFORE_NAME;
    while (i < n) {
        char c = s[i];
        if (c == '>' && st != BEFORE_VALUE)
            return i;
        switch (st) {
        case BEFORE_NAME:
            if (!is_ws(c) && c != '/')
                st = NAME;
            break;
        case NAME:
            if (is_ws(c))
                st = AFTER_NAME;
            else if (c == '/')
                st = BEFORE_NAME;
            else if (c == '=')
                st = BEFORE_VALUE;
            break;
        case AFTER_NAME:
            if (c == '/')
                st = BEFORE_NAME;
            else if (c == '=')
                st = BEFORE_VALUE;
            else if (!is_ws(c))
                st = NAME;
            break;
        case BEFORE_VALUE:
            if (c == '"' || c == '\'') {
                const char *q = memchr(s + i + 1, c, n - i - 1);
                if (!q)
                    return n;
                i = (size_t)(q - s);
                st = BEFORE_NAME;
            } else if (c == '>') {
                return i;
            } else if (!is_ws(c)) {
                st = UNQUOTED;
            }
            break;
        case UNQUOTED:
            if (is_ws(c))
                st = BEFORE_NAME;
            break;
        }
        i++;
    }
    return n;
}

/* Index of the "</NAME" ending a raw text element whose content starts at I, or N. */
static size_t rawtext_end(const char *s, size_t n, size_t i, const char *name, size_t nlen)
{
    while (i < n) {
        const char *lt = memchr(s + i, '<', n - i);
        if (!lt)
            return n;
        size_t j = (size_t)(lt - s);
        if (j + 2 + nlen <= n && s[j + 1] == '/' && strncasecmp(s + j + 2, name, nlen) == 0 &&
            (j + 2 + nlen == n || is_ws(s[j + 2 + nlen]) || s[j + 2 + nlen] == '/' || s[j + 2 + nlen] == '>'))
            return j;
        i = j + 1;
    }
    return n;
}

static size_t find_str(const char *s, size_t n, size_t i, const char *needle)
{
    size_t nl = strlen(needle);
    while (i + nl <= n) {
        const char *p = memchr(s + i, needle[0], n - i - nl + 1);
        if (!p)
            return n;
        if (memcmp(p, needle, nl) == 0)
            return (size_t)(p - s);
        i = (size_t)(p - s) + 1;
    }
    return n;
}

static const char *const kept_tags[] = {"a", "area", "base", "meta", "title", NULL};
static const char *const kept_end_tags[] = {"a", NULL};
static const char *const dropped_text_tags[] = {"script",  "style",    "xmp",      "iframe",
                                                "noembed", "noframes", "textarea", NULL};

/* Builds the degraded document: text and kept tags verbatim, every other tag, comment and
 * script/style body dropped. Without nesting elements gumbo's work stays linear. */
static void flatten(rc_buf *out, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        const char *lt = memchr(s + i, '<', n - i);
        size_t j = lt ? (size_t)(lt - s) : n;
        rc_buf_append(out, s + i, j - i);
        if (j + 1 >= n)
            return; /* a trailing '<' is text gumbo would emit; dropping it is harmless */
        char c = s[j + 1];
        if (c == '!' && j + 4 <= n && s[j + 2] == '-' && s[j + 3] == '-') {
            size_t e = find_str(s, n, j + 2, "-->"); /* from j+2: "<!-->" closes too */
            i = e < n ? e + 3 : n;
        } else if (c == '!' || c == '?' || (c == '/' && (j + 2 >= n || !is_alpha(s[j + 2])))) {
            const char *gt = memchr(s + j + 1, '>', n - j - 1);
            i = gt ? (size_t)(gt - s) + 1 : n;
        } else if (c == '/' || is_alpha(c)) {
            int end_tag = c == '/';
            size_t ns = j + 1 + (size_t)end_tag, ne = ns;
            while (ne < n && !is_ws(s[ne]) && s[ne] != '/' && s[ne] != '>')
                ne++;
            size_t e = tag_end(s, n, ne);
            i = e < n ? e + 1 : n;
            const char *name = s + ns;
            size_t nlen = ne - ns;
            if (end_tag) {
                if (name_in(name, nlen, kept_end_tags))
                    rc_buf_append(out, s + j, i - j);
            } else if (name_in(name, nlen, kept_tags)) {
                rc_buf_append(out, s + j, i - j);
                if (name_is(name, nlen, "title")) { /* RCDATA: keep its text and the end tag */
                    size_t te = rawtext_end(s, n, i, "title", 5);
                    rc_buf_append(out, s + i, te - i);
                    rc_buf_puts(out, "</title>");
                    i = te < n ? tag_end(s, n, te + 7) + 1 : n;
                }
            } else if (name_in(name, nlen, dropped_text_tags)) {
                size_t te = rawtext_end(s, n, i, name, nlen);
                i = te < n ? tag_end(s, n, te + 2 + nlen) + 1 : n;
            } else if (name_is(name, nlen, "plaintext")) {
                return;
            }
            if (i > n)
                i = n;
        } else {
            rc_buf_append(out, "<", 1);
            i = j + 1;
        }
    }
}

static const char *const copied_text_tags[] = {"title", "textarea", "xmp", "iframe", "noembed", "noframes", NULL};

/* Whether the start tag S[J..E) says type=application/ld+json (the one script we read). */
static int is_jsonld(const char *s, size_t j, size_t e)
{
    static const char want[] = "ld+json";
    for (size_t k = j; k + sizeof want - 1 <= e; k++)
        if (strncasecmp(s + k, want, sizeof want - 1) == 0)
            return 1;
    return 0;
}

/* Copies S to OUT without the bodies of <script> (but JSON-LD) and <style> elements. Only a body
 * the tokenizer surely reads as script data or raw text is left out: comments, attribute values
 * and RCDATA/RAWTEXT elements are copied whole, and a "<script/>" or "<style/>" (self-closed in
 * SVG) is left alone; wherever this scan and gumbo's could disagree, the bytes are copied. */
static void strip_script_text(rc_buf *out, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        const char *lt = memchr(s + i, '<', n - i);
        size_t j = lt ? (size_t)(lt - s) : n;
        if (j + 1 >= n) {
            rc_buf_append(out, s + i, n - i);
            return;
        }
        char c = s[j + 1];
        size_t end = j + 1;
        if (c == '!' && j + 4 <= n && s[j + 2] == '-' && s[j + 3] == '-') {
            size_t e = find_str(s, n, j + 2, "-->");
            end = e < n ? e + 3 : n;
        } else if (c == '!' || c == '?') {
            const char *gt = memchr(s + j + 1, '>', n - j - 1);
            end = gt ? (size_t)(gt - s) + 1 : n;
        } else if (is_alpha(c)) {
            size_t ns = j + 1, ne = ns;
            while (ne < n && !is_ws(s[ne]) && s[ne] != '/' && s[ne] != '>')
                ne++;
            size_t e = tag_end(s, n, ne);
            end = e < n ? e + 1 : n;
            const char *name = s + ns;
            size_t nlen = ne - ns;
            int closed = e < n && e > ns && s[e - 1] == '/';
            rc_buf_append(out, s + i, end - i);
            i = end;
            if (end >= n || closed)
                continue;
            size_t body_end = i;
            int skip = 0;
            if (name_is(name, nlen, "script")) {
                body_end = rc_htmltok_script_end(s, n, i);
                skip = !is_jsonld(s, j, e);
            } else if (name_is(name, nlen, "style")) {
                body_end = rawtext_end(s, n, i, name, nlen);
                skip = 1;
            } else if (name_in(name, nlen, copied_text_tags)) {
                body_end = rawtext_end(s, n, i, name, nlen);
            } else if (name_is(name, nlen, "plaintext")) {
                body_end = n;
            }
            if (!skip)
                rc_buf_append(out, s + i, body_end - i);
            i = body_end;
            continue;
        }
        rc_buf_append(out, s + i, end - i);
        i = end;
    }
}

/* ---- the document ------------------------------------------------------------------------- */

struct rc_html {
    arena arena; /* the gumbo tree and our strings */
    char *input; /* what gumbo parsed: its original_text pointers point here */
    GumboOutput *out;
    int degraded;
    const char *title;
    const char *base_href;
    rc_html_meta_seen meta; /* robots flags and the refresh, from the <meta> tags */
    const char *refresh;    /* its URL, copied into the arena */
    GumboNode **links;      /* <a href>/<area href> in document order */
    size_t nlinks, links_cap;
};

const char *rc_html_attr(const GumboNode *node, const char *name)
{
    const GumboVector *v = &node->v.element.attributes;
    for (unsigned i = 0; i < v->length; i++) {
        const GumboAttribute *at = v->data[i];
        unsigned char first = (unsigned char)at->name[0];
        if (first >= 'A' && first <= 'Z')
            first |= 0x20;
        if (first == (unsigned char)name[0] && strcasecmp(at->name, name) == 0)
            return at->value;
    }
    return NULL;
}

/* Splits S on commas and ASCII whitespace and ORs robots tokens. */
int rc_html_robots_tokens(const char *s)
{
    int flags = 0;
    while (*s) {
        while (*s && (is_ws(*s) || *s == ','))
            s++;
        const char *t = s;
        while (*s && !is_ws(*s) && *s != ',')
            s++;
        size_t len = (size_t)(s - t);
        if (name_is(t, len, "noindex"))
            flags |= RC_HTML_NOINDEX;
        else if (name_is(t, len, "nofollow"))
            flags |= RC_HTML_NOFOLLOW;
        else if (name_is(t, len, "none"))
            flags |= RC_HTML_NOINDEX | RC_HTML_NOFOLLOW;
    }
    return flags;
}

int rc_html_value_is(const char *v, const char *lit)
{
    if (!v)
        return 0;
    while (is_ws(*v))
        v++;
    size_t len = strlen(v);
    while (len && is_ws(v[len - 1]))
        len--;
    return name_is(v, len, lit);
}

void rc_html_meta_note(rc_html_meta_seen *m, const char *name, const char *http_equiv, const char *content)
{
    if (!content)
        return;
    if (rc_html_value_is(name, "robots") || rc_html_value_is(name, RC_HTML_AGENT))
        m->robots |= rc_html_robots_tokens(content);
    if (!m->refresh_seen && rc_html_value_is(http_equiv, "refresh") &&
        rc_html_parse_refresh(content, &m->refresh_url, &m->refresh_len, &m->refresh_delay) == 0)
        m->refresh_seen = 1;
}

int rc_html_token_in(const char *list, const char *token)
{
    size_t tl = strlen(token);
    const char *p = list;
    while (*p) {
        while (is_ws(*p))
            p++;
        const char *t = p;
        while (*p && !is_ws(*p))
            p++;
        if ((size_t)(p - t) == tl && strncasecmp(t, token, tl) == 0)
            return 1;
    }
    return 0;
}

/* The HTML spec's "shared declarative refresh steps" minus the timer: 0 and the URL span in
 * *RET_URL and *RET_LEN (len 0 = refresh of the page itself) and the delay in seconds in
 * *RET_DELAY (may be NULL), or -1 when unparsable. */
int rc_html_parse_refresh(const char *s, const char **ret_url, size_t *ret_len, double *ret_delay)
{
    while (is_ws(*s))
        s++;
    if (!(*s >= '0' && *s <= '9') && *s != '.')
        return -1;
    *ret_delay = 0;
    for (const char *d = s; *d >= '0' && *d <= '9' && *ret_delay < 1e9; d++)
        *ret_delay = *ret_delay * 10 + (*d - '0'); /* the integer part, as browsers use it */
    while ((*s >= '0' && *s <= '9') || *s == '.')
        s++;
    if (*s) {
        if (*s != ';' && *s != ',' && !is_ws(*s))
            return -1;
        while (is_ws(*s))
            s++;
        if (*s == ';' || *s == ',')
            s++;
        while (is_ws(*s))
            s++;
    }
    const char *url = s;
    if (strncasecmp(s, "url", 3) == 0) {
        const char *p = s + 3;
        while (is_ws(*p))
            p++;
        if (*p == '=') {
            p++;
            while (is_ws(*p))
                p++;
            url = p;
        }
    }
    size_t len;
    if (*url == '"' || *url == '\'') {
        const char *q = strchr(url + 1, *url);
        url++;
        len = q ? (size_t)(q - url) : strlen(url);
    } else {
        len = strlen(url);
    }
    while (len && (is_ws(url[len - 1]) || (unsigned char)url[len - 1] < 0x20))
        len--;
    *ret_url = url;
    *ret_len = len;
    return 0;
}

/* Text of NODE's text children with ASCII whitespace runs collapsed to one space and trimmed. */
static const char *collapsed_text(rc_html *doc, const GumboNode *node)
{
    rc_buf b;
    rc_buf_init(&b);
    int pending_space = 0;
    const GumboVector *kids = &node->v.element.children;
    for (unsigned i = 0; i < kids->length; i++) {
        const GumboNode *k = kids->data[i];
        if (k->type != GUMBO_NODE_TEXT && k->type != GUMBO_NODE_WHITESPACE && k->type != GUMBO_NODE_CDATA)
            continue;
        for (const char *p = k->v.text.text; *p; p++) {
            if (is_ws(*p)) {
                pending_space = b.len > 0;
                continue;
            }
            if (pending_space)
                rc_buf_append(&b, " ", 1);
            pending_space = 0;
            rc_buf_append(&b, p, 1);
        }
    }
    const char *s = arena_strndup(&doc->arena, b.ptr ? b.ptr : "", b.len);
    rc_buf_release(&b);
    return s;
}

#define CLONED (GUMBO_INSERTION_RECONSTRUCTED_FORMATTING_ELEMENT | GUMBO_INSERTION_ADOPTION_AGENCY_CLONED)

static void visit_element(rc_html *doc, GumboNode *node)
{
    const GumboElement *el = &node->v.element;
    if (el->tag_namespace != GUMBO_NAMESPACE_HTML)
        return;
    switch (el->tag) {
    case GUMBO_TAG_A:
    case GUMBO_TAG_AREA:
        /* The tree builder clones open <a>s (reconstruction, adoption agency): same href, and
         * on hostile pages thousands of them. Keep the one node per source tag. */
        if (node->parse_flags & CLONED || !rc_html_attr(node, "href"))
            return;
        if (doc->nlinks == doc->links_cap) {
            doc->links_cap = doc->links_cap ? doc->links_cap * 2 : 64;
            doc->links = rc_xrealloc(doc->links, doc->links_cap * sizeof(*doc->links));
        }
        doc->links[doc->nlinks++] = node;
        break;
    case GUMBO_TAG_TITLE:
        if (!doc->title)
            doc->title = collapsed_text(doc, node);
        break;
    case GUMBO_TAG_BASE:
        if (!doc->base_href)
            doc->base_href = rc_html_attr(node, "href");
        break;
    case GUMBO_TAG_META: {
        int had = doc->meta.refresh_seen;
        rc_html_meta_note(&doc->meta, rc_html_attr(node, "name"), rc_html_attr(node, "http-equiv"),
                          rc_html_attr(node, "content"));
        if (!had && doc->meta.refresh_seen && doc->meta.refresh_len)
            doc->refresh = arena_strndup(&doc->arena, doc->meta.refresh_url, doc->meta.refresh_len);
        break;
    }
    default:
        break;
    }
}

struct walk_frame {
    const GumboVector *kids;
    unsigned next;
};

/* Pre-order walk with an explicit stack: hostile pages nest deeper than the C stack allows.
 * Template contents are inert (not part of the document) and skipped. */
static void walk(rc_html *doc)
{
    size_t depth = 0, cap = 64;
    struct walk_frame *stack = rc_xmalloc(cap * sizeof(*stack));
    stack[depth++] = (struct walk_frame){&doc->out->document->v.document.children, 0};
    while (depth) {
        struct walk_frame *f = &stack[depth - 1];
        if (f->next >= f->kids->length) {
            depth--;
            continue;
        }
        GumboNode *node = f->kids->data[f->next++];
        if (node->type != GUMBO_NODE_ELEMENT)
            continue;
        visit_element(doc, node);
        if (node->v.element.children.length == 0)
            continue;
        if (depth == cap) {
            cap *= 2;
            stack = rc_xrealloc(stack, cap * sizeof(*stack));
        }
        stack[depth++] = (struct walk_frame){&node->v.element.children, 0};
    }
    free(stack);
}

static void limits_for(const rc_html_limits *lim, size_t len, size_t *ret_mem, uint64_t *ret_cpu_ns)
{
    size_t mem = SIZE_MAX;
    if (lim && lim->max_mem)
        mem = lim->max_mem;
    else if (len <= (SIZE_MAX - DEFAULT_MEM_BASE) / DEFAULT_MEM_PER_BYTE)
        mem = DEFAULT_MEM_BASE + DEFAULT_MEM_PER_BYTE * len;
    uint64_t ms = DEFAULT_CPU_MS_BASE + (uint64_t)len * DEFAULT_CPU_MS_PER_MIB / (1024 * 1024);
    if (lim && lim->max_cpu_ms)
        ms = lim->max_cpu_ms;
    *ret_mem = mem;
    *ret_cpu_ns = ms * 1000000u;
}

static GumboOutput *parse_attempt(rc_html *doc, size_t len, const rc_html_limits *lim)
{
    size_t mem;
    uint64_t cpu_ns;
    limits_for(lim, len, &mem, &cpu_ns);
    arena_release(&doc->arena);
    doc->arena.max_mem = mem;
    doc->arena.deadline_ns = cpu_now_ns() + cpu_ns;
    GumboOutput *out = lim && lim->tree == RC_HTML_TREE_LIGHT
                           ? parse_light(&doc->arena, doc->input, len, lim->skip_script_text)
                           : parse_budgeted(&doc->arena, doc->input, len);
    doc->arena.max_mem = SIZE_MAX;
    doc->arena.deadline_ns = UINT64_MAX;
    return out;
}

rc_html *rc_html_parse_limited(const char *data, size_t len, const rc_html_limits *lim)
{
    rc_html *doc = rc_xcalloc(1, sizeof(*doc));
    arena_init(&doc->arena);
    len = data ? len : 0;
    if (lim && lim->skip_script_text && lim->tree != RC_HTML_TREE_LIGHT) { /* the light tree skips it itself */
        rc_buf in;
        rc_buf_init(&in);
        strip_script_text(&in, data ? data : "", len);
        len = in.len;
        rc_buf_putc(&in, '\0'); /* a NUL past the end, as rc_xstrndup gives */
        doc->input = rc_buf_steal(&in);
    } else {
        doc->input = rc_xstrndup(data ? data : "", len);
    }

    doc->out = parse_attempt(doc, len, lim);
    if (!doc->out) {
        rc_buf flat;
        rc_buf_init(&flat);
        flatten(&flat, doc->input, len);
        free(doc->input);
        len = flat.len;
        doc->input = rc_buf_steal(&flat);
        doc->degraded = 1;
        doc->out = parse_attempt(doc, len, lim);
    }
    if (!doc->out) { /* unbudgeted, but an empty page is tiny */
        arena_release(&doc->arena);
        doc->input[0] = '\0';
        doc->out = parse_budgeted(&doc->arena, doc->input, 0);
    }
    walk(doc);
    return doc;
}

rc_html *rc_html_parse(const char *data, size_t len)
{
    return rc_html_parse_limited(data, len, NULL);
}

void rc_html_free(rc_html *doc)
{
    if (!doc)
        return;
    arena_release(&doc->arena);
    free(doc->links);
    free(doc->input);
    free(doc);
}

int rc_html_degraded(const rc_html *doc)
{
    return doc->degraded;
}

const char *rc_html_title(rc_html *doc)
{
    return doc->title;
}

const char *rc_html_base_href(rc_html *doc)
{
    return doc->base_href;
}

int rc_html_robots_flags(rc_html *doc)
{
    return doc->meta.robots;
}

const char *rc_html_meta_refresh(rc_html *doc)
{
    return doc->refresh;
}

double rc_html_meta_refresh_delay(rc_html *doc)
{
    return doc->meta.refresh_delay;
}

/* rel is a set of space-separated tokens; commas are accepted too, as sites write them. */
int rc_html_rel_nofollow(const char *s)
{
    while (s && *s) {
        while (*s && (is_ws(*s) || *s == ','))
            s++;
        const char *t = s;
        while (*s && !is_ws(*s) && *s != ',')
            s++;
        if (name_is(t, (size_t)(s - t), "nofollow"))
            return 1;
    }
    return 0;
}

size_t rc_html_links(rc_html *doc, int skip_nofollow, size_t max, rc_html_link_cb cb, void *ud)
{
    size_t calls = 0;
    for (size_t i = 0; i < doc->nlinks && calls < max; i++) {
        const GumboNode *node = doc->links[i];
        if (skip_nofollow && rc_html_rel_nofollow(rc_html_attr(node, "rel")))
            continue;
        const char *href = rc_html_attr(node, "href");
        calls++;
        if (cb(ud, href, strlen(href)) != 0)
            break;
    }
    return calls;
}

const struct GumboInternalOutput *rc_html_gumbo(const rc_html *doc)
{
    return doc->out;
}

int rc_html_tree_parse(const char *name)
{
    if (name && strcmp(name, "gumbo") == 0)
        return RC_HTML_TREE_GUMBO;
    if (name && strcmp(name, "light") == 0)
        return RC_HTML_TREE_LIGHT;
    return -1;
}
