/* htmltok.c - see htmltok.h. State names follow the WHATWG "Tokenization" section. */
#include "htmltok.h"

#include "html.h"
#include "maintext.h"
#include "util.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "htmlent.inc"

#define NAME_CAP 24     /* tag and attribute names we compare are shorter; longer never match (x 8) */
#define MAX_ATTRS 16    /* attributes kept per tag: only those read_attrs[] names, each once */
#define MAX_FOREIGN 256 /* open elements tracked inside <svg>/<math> */
#define OPEN_SLOTS 64   /* hash table of HTML element names counted as open (power of 2) */
#define OPEN_MAX_NAMES 48
#define ARENA_BLOCK ((size_t)16 * 1024)

/* ---- an arena for the strings we keep: pointers stay valid for the life of the scan ---- */

struct block {
    struct block *next;
    size_t used, cap;
    char data[];
};

static char *keep(struct block **head, const char *s, size_t n)
{
    struct block *b = *head;
    if (!b || b->cap - b->used < n + 1) {
        size_t cap = RC_MAX(ARENA_BLOCK, n + 1);
        b = rc_xmalloc(sizeof(*b) + cap);
        b->next = *head;
        b->used = 0;
        b->cap = cap;
        *head = b;
    }
    char *p = b->data + b->used;
    memcpy(p, s, n);
    p[n] = '\0';
    b->used += n + 1;
    return p;
}

/* ---- character classes ---- */

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static int is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_alnum(char c)
{
    return is_alpha(c) || (c >= '0' && c <= '9');
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

static void put_utf8(rc_buf *b, uint32_t cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    rc_buf_append(b, u, n);
}

/* ---- character references ---- */

/* Windows-1252 for the C1 range, as the spec's numeric reference table maps it (0 = unchanged). */
static const uint16_t c1_map[32] = {
    0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0,      0x017D, 0,      0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178,
};

static int ent_cmp(const char *s, size_t n, const char *name)
{
    size_t nl = strlen(name);
    int c = memcmp(s, name, RC_MIN(n, nl));
    return c ? c : (n < nl ? -1 : n > nl);
}

static const struct htmlent *ent_find(const char *s, size_t n)
{
    size_t lo = 0, hi = RC_ARRAY_LEN(htmlents);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = ent_cmp(s, n, htmlents[mid].name);
        if (c == 0)
            return &htmlents[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* S[I] is just past '&'. Appends the reference's expansion (or a literal '&') to OUT and returns
 * the index after what was consumed. IN_ATTR applies the attribute-value rule: a named reference
 * without ';' followed by '=' or an alphanumeric stays literal. */
static size_t charref(const char *s, size_t n, size_t i, int in_attr, rc_buf *out)
{
    if (i < n && s[i] == '#') {
        size_t j = i + 1;
        int hex = j < n && (s[j] == 'x' || s[j] == 'X');
        if (hex)
            j++;
        size_t d0 = j;
        uint32_t cp = 0;
        for (; j < n; j++) {
            char c = s[j];
            int v = c >= '0' && c <= '9'                        ? c - '0'
                    : hex && lower(c) >= 'a' && lower(c) <= 'f' ? lower(c) - 'a' + 10
                                                                : -1;
            if (v < 0)
                break;
            cp = cp > 0x10FFFF ? cp : cp * (hex ? 16 : 10) + (uint32_t)v;
        }
        if (j == d0) { /* "&#" or "&#x" without digits: not a reference */
            rc_buf_putc(out, '&');
            return i;
        }
        if (j < n && s[j] == ';')
            j++;
        if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            cp = 0xFFFD;
        else if (cp >= 0x80 && cp <= 0x9F && c1_map[cp - 0x80])
            cp = c1_map[cp - 0x80];
        put_utf8(out, cp);
        return j;
    }
    size_t run = 0;
    while (i + run < n && run < HTMLENT_MAX_NAME && is_alnum(s[i + run]))
        run++;
    size_t len = run + (i + run < n && s[i + run] == ';' && run < HTMLENT_MAX_NAME);
    for (; len > 0; len--) { /* the longest name in the table wins */
        const struct htmlent *e = ent_find(s + i, len);
        if (!e)
            continue;
        size_t after = i + len;
        if (s[after - 1] != ';' && in_attr && after < n && (s[after] == '=' || is_alnum(s[after])))
            break;
        rc_buf_puts(out, e->utf8);
        return after;
    }
    rc_buf_putc(out, '&');
    return i;
}

/* Bytes that may start something the input stream's preprocessing changes: NUL, CR, the C0
 * controls gumbo reports as invalid (all but TAB, LF, FF), DEL, and the UTF-8 leads of C1
 * controls (C2), of noncharacters (EF: U+FDD0-FDEF, U+FFFE/F; F0-F4: U+nFFFE/F). '&' is 2. */
static const unsigned char special[256] = {
    [0] = 1,    [1] = 1,    [2] = 1,    [3] = 1,    [4] = 1,    [5] = 1,    [6] = 1,    [7] = 1,
    [8] = 1,    [0x0B] = 1, [0x0D] = 1, [0x0E] = 1, [0x0F] = 1, [0x10] = 1, [0x11] = 1, [0x12] = 1,
    [0x13] = 1, [0x14] = 1, [0x15] = 1, [0x16] = 1, [0x17] = 1, [0x18] = 1, [0x19] = 1, [0x1A] = 1,
    [0x1B] = 1, [0x1C] = 1, [0x1D] = 1, [0x1E] = 1, [0x1F] = 1, ['&'] = 2,  [0x7F] = 1, [0xC2] = 1,
    [0xEF] = 1, [0xF0] = 1, [0xF1] = 1, [0xF2] = 1, [0xF3] = 1, [0xF4] = 1,
};

/* The first index from J on (before TO) of a byte that is special, else TO. */
static size_t plain_end(const char *s, size_t j, size_t to)
{
#if defined(__SSE2__)
    /* 16 bytes at a time: a control byte (<= 0x1F) but TAB, LF, FF; '&', DEL, C2; EF-F4. */
    const __m128i c1f = _mm_set1_epi8(0x1F), tab = _mm_set1_epi8('\t'), lf = _mm_set1_epi8('\n');
    const __m128i ff = _mm_set1_epi8('\f'), amp = _mm_set1_epi8('&'), del = _mm_set1_epi8(0x7F);
    const __m128i c2 = _mm_set1_epi8((char)0xC2), ef = _mm_set1_epi8((char)0xEF), five = _mm_set1_epi8(5);
    for (; to - j >= 16; j += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + j));
        __m128i ctl = _mm_cmpeq_epi8(_mm_min_epu8(v, c1f), v);
        __m128i ok = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, lf)), _mm_cmpeq_epi8(v, ff));
        __m128i hi = _mm_sub_epi8(v, ef); /* EF-F4 -> 0-5 */
        __m128i sp = _mm_or_si128(_mm_andnot_si128(ok, ctl), _mm_cmpeq_epi8(_mm_min_epu8(hi, five), hi));
        sp = _mm_or_si128(
            sp, _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, amp), _mm_cmpeq_epi8(v, del)), _mm_cmpeq_epi8(v, c2)));
        unsigned m = (unsigned)_mm_movemask_epi8(sp);
        if (m)
            return j + (unsigned)__builtin_ctz(m);
    }
#endif
    while (j < to && !special[(unsigned char)s[j]])
        j++;
    return j;
}

/* S[J] is a special byte other than '&': appends what gumbo's input stream makes of it (U+FFFD
 * for NUL, controls and noncharacters, LF for CR and CRLF, the bytes themselves otherwise) and
 * returns the index after it. */
static size_t preprocess(const char *s, size_t j, size_t to, rc_buf *out)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = 1;
    int bad = 1;
    if (u[j] == '\r') {
        rc_buf_putc(out, '\n');
        return j + 1 < to && s[j + 1] == '\n' ? j + 2 : j + 1;
    }
    if (u[j] == 0xC2) {
        len = 2;
        bad = j + 1 < to && u[j + 1] >= 0x80 && u[j + 1] <= 0x9F;
    } else if (u[j] == 0xEF) {
        len = 3;
        bad = j + 2 < to &&
              ((u[j + 1] == 0xB7 && u[j + 2] >= 0x90 && u[j + 2] <= 0xAF) || (u[j + 1] == 0xBF && u[j + 2] >= 0xBE));
    } else if (u[j] >= 0xF0) {
        len = 4;
        bad = j + 3 < to && (u[j + 1] & 0x0F) == 0x0F && u[j + 2] == 0xBF && u[j + 3] >= 0xBE;
    }
    if (j + len > to)
        len = to - j;
    if (bad)
        rc_buf_puts(out, "\xEF\xBF\xBD");
    else
        rc_buf_append(out, s + j, len);
    return j + len;
}

/* Appends S[FROM..TO) to OUT as gumbo's tree holds it: references decoded (IN_ATTR: the
 * attribute-value rule), the input stream preprocessed. */
static void decode_span(const char *s, size_t from, size_t to, int in_attr, rc_buf *out)
{
    size_t i = from;
    while (i < to) {
        size_t j = plain_end(s, i, to);
        rc_buf_append(out, s + i, j - i);
        if (j >= to)
            break;
        if (s[j] == '&') /* a reference never reaches past TO: names are alphanumerics and ';' */
            i = charref(s, to, j + 1, in_attr, out);
        else
            i = preprocess(s, j, to, out);
    }
}

/* Raw text (script, RAWTEXT, PLAINTEXT): no references, only the preprocessing. */
static void append_raw(rc_buf *out, const char *s, size_t from, size_t to)
{
    size_t i = from;
    while (i < to) {
        size_t j = i;
        while (j < to && special[(unsigned char)s[j]] != 1)
            j++;
        rc_buf_append(out, s + i, j - i);
        if (j >= to)
            break;
        i = preprocess(s, j, to, out);
    }
}

/* ---- tag names ---- */

enum tag {
    T_OTHER,
    T_A,
    T_ANNOTATION_XML,
    T_AREA,
    T_ARTICLE,
    T_BASE,
    T_FONT,
    T_H1,
    T_HEADING,
    T_HTML,
    T_IFRAME,
    T_INPUT,
    T_KEYGEN,
    T_LINK,
    T_MATH,
    T_META,
    T_NOEMBED,
    T_NOFRAMES,
    T_OPTGROUP,
    T_OPTION,
    T_PLAINTEXT,
    T_SCRIPT,
    T_SELECT,
    T_STYLE,
    T_SVG,
    T_TEMPLATE,
    T_TEXTAREA,
    T_TIME,
    T_TITLE,
    T_XMP,
    T_VOID,
    T_BREAKOUT,
};

static const struct tagname {
    char name[NAME_CAP]; /* zero-padded, as scanned names are: compared as NAME_CAP bytes */
    enum tag tag;
    int is_void; /* never stays open */
} tagnames[] = {
    /* sorted by name */
    {"a", T_A, 0},
    {"annotation-xml", T_ANNOTATION_XML, 0},
    {"area", T_AREA, 1},
    {"article", T_ARTICLE, 0},
    {"b", T_BREAKOUT, 0},
    {"base", T_BASE, 1},
    {"basefont", T_VOID, 1},
    {"bgsound", T_VOID, 1},
    {"big", T_BREAKOUT, 0},
    {"blockquote", T_BREAKOUT, 0},
    {"body", T_BREAKOUT, 0},
    {"br", T_BREAKOUT, 1},
    {"center", T_BREAKOUT, 0},
    {"code", T_BREAKOUT, 0},
    {"col", T_VOID, 1},
    {"dd", T_BREAKOUT, 0},
    {"div", T_BREAKOUT, 0},
    {"dl", T_BREAKOUT, 0},
    {"dt", T_BREAKOUT, 0},
    {"em", T_BREAKOUT, 0},
    {"embed", T_BREAKOUT, 1},
    {"font", T_FONT, 0},
    {"frame", T_VOID, 1},
    {"h1", T_H1, 0},
    {"h2", T_HEADING, 0},
    {"h3", T_HEADING, 0},
    {"h4", T_HEADING, 0},
    {"h5", T_HEADING, 0},
    {"h6", T_HEADING, 0},
    {"head", T_BREAKOUT, 0},
    {"hr", T_BREAKOUT, 1},
    {"html", T_HTML, 0},
    {"i", T_BREAKOUT, 0},
    {"iframe", T_IFRAME, 0},
    {"img", T_BREAKOUT, 1},
    {"input", T_INPUT, 1},
    {"keygen", T_KEYGEN, 1},
    {"li", T_BREAKOUT, 0},
    {"link", T_LINK, 1},
    {"listing", T_BREAKOUT, 0},
    {"math", T_MATH, 0},
    {"menu", T_BREAKOUT, 0},
    {"meta", T_META, 1},
    {"nobr", T_BREAKOUT, 0},
    {"noembed", T_NOEMBED, 0},
    {"noframes", T_NOFRAMES, 0},
    {"ol", T_BREAKOUT, 0},
    {"optgroup", T_OPTGROUP, 0},
    {"option", T_OPTION, 0},
    {"p", T_BREAKOUT, 0},
    {"param", T_VOID, 1},
    {"plaintext", T_PLAINTEXT, 0},
    {"pre", T_BREAKOUT, 0},
    {"ruby", T_BREAKOUT, 0},
    {"s", T_BREAKOUT, 0},
    {"script", T_SCRIPT, 0},
    {"select", T_SELECT, 0},
    {"small", T_BREAKOUT, 0},
    {"source", T_VOID, 1},
    {"span", T_BREAKOUT, 0},
    {"strike", T_BREAKOUT, 0},
    {"strong", T_BREAKOUT, 0},
    {"style", T_STYLE, 0},
    {"sub", T_BREAKOUT, 0},
    {"sup", T_BREAKOUT, 0},
    {"svg", T_SVG, 0},
    {"table", T_BREAKOUT, 0},
    {"template", T_TEMPLATE, 0},
    {"textarea", T_TEXTAREA, 0},
    {"time", T_TIME, 0},
    {"title", T_TITLE, 0},
    {"track", T_VOID, 1},
    {"tt", T_BREAKOUT, 0},
    {"u", T_BREAKOUT, 0},
    {"ul", T_BREAKOUT, 0},
    {"var", T_BREAKOUT, 0},
    {"wbr", T_VOID, 1},
    {"xmp", T_XMP, 0},
};

/* Zero-padded names compared as three 64-bit words; the order is memcmp's (big-endian words). */
static int name_cmp(const char *a, const char *b)
{
    for (size_t k = 0; k < NAME_CAP; k += 8) {
        uint64_t x, y;
        memcpy(&x, a + k, 8);
        memcpy(&y, b + k, 8);
        if (x != y) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            x = __builtin_bswap64(x);
            y = __builtin_bswap64(y);
#endif
            return x < y ? -1 : 1;
        }
    }
    return 0;
}

/* The table row of NAME (zero-padded to NAME_CAP), or NULL. */
static const struct tagname *tag_find(const char *name)
{
    size_t lo = 0, hi = RC_ARRAY_LEN(tagnames);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = name_cmp(name, tagnames[mid].name);
        if (c == 0)
            return &tagnames[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* ---- the scan ---- */

enum ns { NS_HTML, NS_SVG, NS_MATH };
enum { IP_NONE, IP_HTML, IP_TEXT }; /* integration points */

typedef struct frame {
    char name[NAME_CAP];
    unsigned char ns, ip;
} frame;

typedef struct attr {
    char name[NAME_CAP];
    const char *value; /* in the arena */
} attr;

typedef struct link {
    const char *href;
    size_t len;
    int nofollow;
} link;

struct rc_htmltok {
    struct block *arena;
    const char *title, *base_href, *refresh;
    rc_html_meta_seen meta; /* robots flags and the refresh, from the <meta> tags */
    int base_seen;
    link *links;
    size_t nlinks, links_cap;
    rc_maintext_facts facts;
};

typedef struct scan {
    const char *s;
    size_t n;
    rc_htmltok *out;
    /* the current tag */
    char name[NAME_CAP];
    enum tag tag;
    int is_void;
    int end_tag, self_closing, keep_attrs;
    attr attrs[MAX_ATTRS];
    size_t nattrs;
    rc_buf tmp;
    /* the little of the tree builder that matters */
    frame stack[MAX_FOREIGN];
    size_t depth;
    /* HTML elements open outside svg/math, counted by name from start and end tags (elements
     * closed implicitly stay counted): enough to tell whether an end tag inside svg/math
     * closes something around it. */
    struct open_count {
        char name[NAME_CAP]; /* "" = free slot */
        unsigned count;
    } open[OPEN_SLOTS];
    size_t nopen;
    unsigned template_depth;
    int in_select;
    int h1_state;         /* 0 none yet, 1 collecting, 2 done */
    unsigned h1_open;     /* elements opened inside it and not closed: a heading then nests */
    unsigned h1_headings; /* headings nested inside it: a heading end tag closes those first */
    rc_buf h1;
    int article_state; /* 0 none yet, 1 inside the first <article>, 2 done */
    unsigned article_depth;
    int done; /* <plaintext>: the rest is text */
    /* rc_htmltok_tokenize: every token goes to SINK, with all of a tag's attributes */
    const rc_htmltok_sink *sink;
    void *ud;
    size_t name_from, name_to;
    rc_htmltok_attr *all;
    size_t nall, all_cap;
} scan;

static const char *get_attr(const scan *sc, const char *name)
{
    for (size_t i = 0; i < sc->nattrs; i++)
        if (strcmp(sc->attrs[i].name, name) == 0)
            return sc->attrs[i].value;
    return NULL;
}

static const char *facts_attr(const void *el, const char *name)
{
    return get_attr(el, name);
}

/* Appends C lower-cased to a bounded name; a name that overflows gets a byte no name has. */
static void name_putc(char *name, size_t *len, char c)
{
    if (*len + 1 < NAME_CAP) {
        name[(*len)++] = c == '\0' ? '\x01' : lower(c);
    } else {
        name[NAME_CAP - 2] = '\x01';
        *len = NAME_CAP - 1;
    }
    name[*len] = '\0';
}

/* The attributes anything here reads (sorted, zero-padded); values of others are not decoded. */
static const char read_attrs[][NAME_CAP] = {
    "color",    "content", "datetime", "encoding", "face", "href", "http-equiv",
    "itemprop", "lang",    "name",     "property", "rel",  "size", "type",
};

static int attr_is_read(const char *name)
{
    size_t lo = 0, hi = RC_ARRAY_LEN(read_attrs);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = name_cmp(name, read_attrs[mid]);
        if (c == 0)
            return 1;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}

/* An attribute as the input has it, for a sink. More than RC_HTMLTOK_MAX_ATTRS are dropped: a
 * tag with thousands would make the tree builder's duplicate check quadratic. */
static void add_raw_attr(scan *sc, size_t nfrom, size_t nto, int has_value, size_t vfrom, size_t vto)
{
    if (sc->nall == RC_HTMLTOK_MAX_ATTRS)
        return;
    if (sc->nall == sc->all_cap) {
        sc->all_cap = sc->all_cap ? sc->all_cap * 2 : 16;
        sc->all = rc_xrealloc(sc->all, sc->all_cap * sizeof(*sc->all));
    }
    sc->all[sc->nall++] = (rc_htmltok_attr){nfrom, nto, has_value ? vfrom : nto, has_value ? vto : nto, has_value};
}

static void add_attr(scan *sc, const char *name, size_t nfrom, size_t nto, int has_value, size_t vfrom, size_t vto)
{
    if (sc->sink)
        add_raw_attr(sc, nfrom, nto, has_value, vfrom, vto);
    if (!sc->keep_attrs || !attr_is_read(name))
        return;
    for (size_t i = 0; i < sc->nattrs; i++)
        if (name_cmp(sc->attrs[i].name, name) == 0)
            return; /* duplicate: the first wins */
    if (sc->nattrs == MAX_ATTRS)
        return;
    attr *a = &sc->attrs[sc->nattrs++];
    memcpy(a->name, name, NAME_CAP);
    rc_buf_reset(&sc->tmp);
    if (has_value)
        decode_span(sc->s, vfrom, vto, 1, &sc->tmp);
    a->value = keep(&sc->out->arena, sc->tmp.ptr ? sc->tmp.ptr : "", sc->tmp.len);
}

#define AT_EOF SIZE_MAX

/* I is at the first character of a tag's name. Parses name, attributes and the '>' into SC.
 * Returns the index after '>', or AT_EOF when the input ended inside the tag (it is dropped). */
static size_t parse_tag(scan *sc, size_t i, int (*want)(const scan *))
{
    const char *s = sc->s;
    size_t n = sc->n, len = 0;
    memset(sc->name, 0, NAME_CAP); /* names are zero-padded: compared as NAME_CAP bytes */
    sc->nattrs = sc->nall = 0;
    sc->self_closing = 0;
    sc->name_from = i;
    while (i < n && !is_ws(s[i]) && s[i] != '/' && s[i] != '>')
        name_putc(sc->name, &len, s[i++]);
    sc->name_to = i;
    const struct tagname *tn = tag_find(sc->name);
    sc->tag = tn ? tn->tag : T_OTHER;
    sc->is_void = tn && tn->is_void;
    sc->keep_attrs = want(sc);
    char aname[NAME_CAP];
    for (;;) { /* before attribute name */
        while (i < n && is_ws(s[i]))
            i++;
        if (i >= n)
            return AT_EOF;
        if (s[i] == '>')
            return i + 1;
        if (s[i] == '/') { /* self-closing start tag state */
            if (i + 1 < n && s[i + 1] == '>') {
                sc->self_closing = 1;
                return i + 2;
            }
            i++;
            continue;
        }
        size_t alen = 0, nfrom = i;
        memset(aname, 0, NAME_CAP);
        name_putc(aname, &alen, s[i++]); /* '=', quotes and '<' start a name here */
        while (i < n && !is_ws(s[i]) && s[i] != '/' && s[i] != '>' && s[i] != '=')
            name_putc(aname, &alen, s[i++]);
        size_t nto = i;
        while (i < n && is_ws(s[i])) /* after attribute name */
            i++;
        if (i >= n)
            return AT_EOF;
        if (s[i] != '=') {
            add_attr(sc, aname, nfrom, nto, 0, 0, 0);
            continue;
        }
        i++;
        while (i < n && is_ws(s[i])) /* before attribute value */
            i++;
        if (i >= n)
            return AT_EOF;
        if (s[i] == '>') {
            add_attr(sc, aname, nfrom, nto, 0, 0, 0);
            return i + 1;
        }
        if (s[i] == '"' || s[i] == '\'') {
            const char *q = memchr(s + i + 1, s[i], n - i - 1);
            if (!q)
                return AT_EOF;
            size_t e = (size_t)(q - s);
            add_attr(sc, aname, nfrom, nto, 1, i + 1, e);
            i = e + 1; /* after attribute value (quoted): anything else reconsumed as a name */
            continue;
        }
        size_t e = i;
        while (e < n && !is_ws(s[e]) && s[e] != '>')
            e++;
        if (e >= n)
            return AT_EOF;
        add_attr(sc, aname, nfrom, nto, 1, i, e);
        i = e;
    }
}

/* Index of "</NAME" (ASCII case-insensitive, then whitespace, '/' or '>') from I, or N. */
static size_t find_end_tag(const scan *sc, size_t i, const char *name)
{
    const char *s = sc->s;
    size_t n = sc->n, nl = strlen(name);
    while (i < n) {
        const char *lt = memchr(s + i, '<', n - i);
        if (!lt)
            return n;
        size_t j = (size_t)(lt - s);
        if (j + 2 + nl < n && s[j + 1] == '/' && strncasecmp(s + j + 2, name, nl) == 0 &&
            (is_ws(s[j + 2 + nl]) || s[j + 2 + nl] == '/' || s[j + 2 + nl] == '>'))
            return j;
        i = j + 1;
    }
    return n;
}

static int want_none(const scan *sc)
{
    (void)sc;
    return 0;
}

/* Skips the end tag at J ("</name..."): its attributes are tokenized too, quotes and all. */
static size_t skip_end_tag(scan *sc, size_t j)
{
    size_t i = j >= sc->n ? AT_EOF : parse_tag(sc, j + 2, want_none);
    return i == AT_EOF ? sc->n : i;
}

static int script_end_at(const char *s, size_t n, size_t j)
{
    return j + 8 < n && s[j + 1] == '/' && strncasecmp(s + j + 2, "script", 6) == 0 &&
           (is_ws(s[j + 8]) || s[j + 8] == '/' || s[j + 8] == '>');
}

/* "<script" or "</script" at J (with the slash when END) followed by whitespace, '/' or '>'. */
static int script_word_at(const char *s, size_t n, size_t j, int end)
{
    size_t k = j + 1 + (size_t)end;
    if (end && (k > n || s[k - 1] != '/'))
        return 0;
    return k + 6 < n && strncasecmp(s + k, "script", 6) == 0 && (is_ws(s[k + 6]) || s[k + 6] == '/' || s[k + 6] == '>');
}

size_t rc_htmltok_script_end(const char *s, size_t n, size_t i)
{
    enum { DATA, ESCAPED, DOUBLE } st = DATA;
    int dashes = 0; /* consecutive '-' just seen, in the escaped states */
    while (i < n) {
        if (st == DATA) {
            const char *lt = memchr(s + i, '<', n - i);
            if (!lt)
                return n;
            size_t j = (size_t)(lt - s);
            if (script_end_at(s, n, j))
                return j;
            if (j + 3 < n && s[j + 1] == '!' && s[j + 2] == '-' && s[j + 3] == '-') {
                st = ESCAPED;
                dashes = 2;
                i = j + 4;
            } else {
                i = j + 1;
            }
            continue;
        }
        char c = s[i];
        if (c == '-') {
            dashes++;
            i++;
            continue;
        }
        if (c == '>' && dashes >= 2) {
            st = DATA;
        } else if (c == '<') {
            if (st == ESCAPED && script_end_at(s, n, i))
                return i;
            if (st == ESCAPED && script_word_at(s, n, i, 0))
                st = DOUBLE;
            else if (st == DOUBLE && script_word_at(s, n, i, 1))
                st = ESCAPED;
        }
        dashes = 0;
        i++;
    }
    return n;
}

/* ---- what the tokens mean ---- */

/* The count of NAME (open addressing on an FNV-1a hash: every tag looks here). */
static struct open_count *open_slot(scan *sc, const char *name, int add)
{
    uint32_t h = 2166136261u;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    for (size_t k = h & (OPEN_SLOTS - 1);; k = (k + 1) & (OPEN_SLOTS - 1)) {
        struct open_count *o = &sc->open[k];
        if (o->name[0] == '\0') {
            if (!add || sc->nopen == OPEN_MAX_NAMES)
                return NULL;
            sc->nopen++;
            memcpy(o->name, name, NAME_CAP);
            o->count = 0;
            return o;
        }
        if (name_cmp(o->name, name) == 0)
            return o;
    }
}

static int is_open(scan *sc, const char *name)
{
    char key[NAME_CAP] = {0}; /* open_slot compares zero-padded names */
    memcpy(key, name, RC_MIN(strlen(name), NAME_CAP - 1));
    const struct open_count *o = open_slot(sc, key, 0);
    return o && o->count > 0;
}

static int in_foreign(const scan *sc)
{
    return sc->depth > 0 && sc->stack[sc->depth - 1].ns != NS_HTML;
}

static void push(scan *sc, const char *name, enum ns ns, int ip)
{
    if (sc->depth == MAX_FOREIGN)
        return;
    frame *f = &sc->stack[sc->depth++];
    memcpy(f->name, name, NAME_CAP);
    f->ns = (unsigned char)ns;
    f->ip = (unsigned char)ip;
}

static int html_encoding(const char *enc)
{
    return enc && (strcasecmp(enc, "text/html") == 0 || strcasecmp(enc, "application/xhtml+xml") == 0);
}

static int integration_point(const scan *sc, enum ns ns, enum tag tag)
{
    const char *nm = sc->name;
    if (ns == NS_SVG)
        return strcmp(nm, "foreignobject") == 0 || strcmp(nm, "desc") == 0 || strcmp(nm, "title") == 0 ? IP_HTML
                                                                                                       : IP_NONE;
    if (tag == T_ANNOTATION_XML)
        return html_encoding(get_attr(sc, "encoding")) ? IP_HTML : IP_NONE;
    return strcmp(nm, "mi") == 0 || strcmp(nm, "mo") == 0 || strcmp(nm, "mn") == 0 || strcmp(nm, "ms") == 0 ||
                   strcmp(nm, "mtext") == 0
               ? IP_TEXT
               : IP_NONE;
}

/* Whether the start tag in SC goes by the HTML rules (1) or is a foreign element (0). */
static int start_is_html(scan *sc, enum tag tag)
{
    while (in_foreign(sc)) {
        const frame *cur = &sc->stack[sc->depth - 1];
        if (cur->ip == IP_HTML)
            return 1;
        if (cur->ip == IP_TEXT && strcmp(sc->name, "mglyph") != 0 && strcmp(sc->name, "malignmark") != 0)
            return 1;
        int breakout = tag == T_BREAKOUT || tag == T_H1 || tag == T_HEADING || tag == T_META ||
                       (tag == T_FONT && (get_attr(sc, "color") || get_attr(sc, "face") || get_attr(sc, "size")));
        if (!breakout)
            return 0;
        while (in_foreign(sc) && !sc->stack[sc->depth - 1].ip)
            sc->depth--;
        if (in_foreign(sc)) /* stopped at an integration point */
            return 1;
    }
    return 1;
}

static void end_h1(scan *sc)
{
    if (sc->h1_state != 1)
        return;
    sc->h1_state = 2;
    rc_buf_putc(&sc->h1, '\0');
    rc_buf tmp;
    rc_buf_init(&tmp);
    int space = 0;
    for (const char *p = sc->h1.ptr; *p; p++) { /* collapse ASCII whitespace, as node_text does */
        if (is_ws(*p)) {
            space = tmp.len > 0;
            continue;
        }
        if (space)
            rc_buf_putc(&tmp, ' ');
        space = 0;
        rc_buf_putc(&tmp, *p);
    }
    sc->out->facts.h1 = rc_buf_steal(&tmp);
}

static void add_link(scan *sc, const char *href)
{
    rc_htmltok *t = sc->out;
    if (t->nlinks == t->links_cap) {
        t->links_cap = t->links_cap ? t->links_cap * 2 : 64;
        t->links = rc_xrealloc(t->links, t->links_cap * sizeof(*t->links));
    }
    t->links[t->nlinks++] = (link){href, strlen(href), rc_html_rel_nofollow(get_attr(sc, "rel"))};
}

static void on_meta(scan *sc)
{
    rc_htmltok *t = sc->out;
    if (!get_attr(sc, "content"))
        return;
    int had = t->meta.refresh_seen;
    rc_html_meta_note(&t->meta, get_attr(sc, "name"), get_attr(sc, "http-equiv"), get_attr(sc, "content"));
    if (!had && t->meta.refresh_seen && t->meta.refresh_len)
        t->refresh = keep(&t->arena, t->meta.refresh_url, t->meta.refresh_len);
    rc_maintext_facts_meta_tag(&t->facts, facts_attr, sc);
}

/* A start tag of an HTML element outside <template> and <select>: record what it says. */
static void record_start(scan *sc, enum tag tag)
{
    rc_htmltok *t = sc->out;
    rc_maintext_facts *f = &t->facts;
    const char *v;
    switch (tag) {
    case T_A:
    case T_AREA:
        if ((v = get_attr(sc, "href")))
            add_link(sc, v);
        break;
    case T_BASE:
        if (!t->base_seen && (v = get_attr(sc, "href"))) {
            t->base_seen = 1;
            t->base_href = f->base_href = v;
        }
        break;
    case T_LINK:
        v = get_attr(sc, "rel");
        if (!f->canonical && v && rc_html_token_in(v, "canonical"))
            f->canonical = get_attr(sc, "href");
        break;
    case T_META:
        on_meta(sc);
        break;
    case T_HTML:
        if (!f->lang)
            f->lang = get_attr(sc, "lang");
        break;
    case T_TIME:
        if (!(v = get_attr(sc, "datetime")))
            break;
        if (!f->published_itemprop && rc_html_value_is(get_attr(sc, "itemprop"), "datePublished"))
            f->published_itemprop = v;
        if (!f->published_time && sc->article_state == 1)
            f->published_time = v;
        break;
    default:
        break;
    }
}

static int want_attrs(const scan *sc)
{
    switch (sc->tag) {
    case T_A:
    case T_AREA:
    case T_BASE:
    case T_LINK:
    case T_META:
    case T_HTML:
    case T_TIME:
    case T_SCRIPT:
    case T_FONT:
    case T_ANNOTATION_XML:
        return !sc->end_tag;
    default:
        return 0;
    }
}

static void h1_text(scan *sc, size_t from, size_t to)
{
    if (sc->h1_state == 1 && sc->template_depth == 0 && to > from)
        decode_span(sc->s, from, to, 0, &sc->h1);
}

/* Title: RCDATA to "</title", references decoded, whitespace collapsed. */
static size_t rcdata_title(scan *sc, size_t i, int record)
{
    size_t e = find_end_tag(sc, i, "title");
    h1_text(sc, i, e);
    if (record && !sc->out->title) {
        rc_buf_reset(&sc->tmp);
        decode_span(sc->s, i, e, 0, &sc->tmp);
        rc_buf b;
        rc_buf_init(&b);
        int space = 0;
        for (size_t k = 0; k < sc->tmp.len; k++) {
            char c = sc->tmp.ptr[k];
            if (is_ws(c)) {
                space = b.len > 0;
                continue;
            }
            if (space)
                rc_buf_putc(&b, ' ');
            space = 0;
            rc_buf_putc(&b, c);
        }
        sc->out->title = keep(&sc->out->arena, b.ptr ? b.ptr : "", b.len);
        rc_buf_release(&b);
    }
    return skip_end_tag(sc, e);
}

static size_t script_data(scan *sc, size_t i, int record)
{
    size_t e = rc_htmltok_script_end(sc->s, sc->n, i);
    if (record && e > i && rc_html_value_is(get_attr(sc, "type"), "application/ld+json")) {
        rc_buf_reset(&sc->tmp);
        append_raw(&sc->tmp, sc->s, i, e);
        rc_maintext_facts_jsonld(&sc->out->facts, sc->tmp.ptr, sc->tmp.len);
    }
    return skip_end_tag(sc, e);
}

/* RCDATA (DECODE 1) or RAWTEXT (0) content from I to its end tag; inside the first <h1> it is
 * part of the heading's text, except style's (DECODE -1). */
static size_t raw_text(scan *sc, size_t i, const char *name, int decode)
{
    size_t e = find_end_tag(sc, i, name);
    if (decode > 0)
        h1_text(sc, i, e);
    else if (decode == 0 && sc->h1_state == 1 && sc->template_depth == 0)
        append_raw(&sc->h1, sc->s, i, e);
    return skip_end_tag(sc, e);
}

static int table_tag(const char *name)
{
    static const char *const names[] = {"caption", "table", "tbody", "tfoot", "thead", "tr", "td", "th", NULL};
    for (const char *const *p = names; *p; p++)
        if (strcmp(name, *p) == 0)
            return 1;
    return 0;
}

/* An HTML start tag; I is after its '>'. Returns where the data state resumes. */
static size_t html_start(scan *sc, enum tag tag, size_t i)
{
    if (sc->in_select) {
        if (tag == T_SELECT) {
            sc->in_select = 0;
            return i;
        }
        if (tag == T_INPUT || tag == T_KEYGEN || tag == T_TEXTAREA || (table_tag(sc->name) && is_open(sc, "table")))
            sc->in_select = 0; /* closes the select, then handled as usual */
        else if (tag != T_SCRIPT && tag != T_TEMPLATE && tag != T_HTML)
            return i; /* ignored by the "in select" insertion mode */
    }
    int record = sc->template_depth == 0;
    if (record)
        record_start(sc, tag);
    if (sc->h1_state == 1 && (tag == T_H1 || tag == T_HEADING)) {
        if (sc->h1_open == 0)
            end_h1(sc);
        else
            sc->h1_headings++;
    }
    switch (tag) {
    case T_TITLE:
        return rcdata_title(sc, i, record);
    case T_TEXTAREA:
        return raw_text(sc, i, "textarea", 1);
    case T_STYLE:
        return raw_text(sc, i, "style", -1);
    case T_XMP:
    case T_IFRAME:
    case T_NOEMBED:
    case T_NOFRAMES:
        return raw_text(sc, i, sc->name, 0);
    case T_SCRIPT:
        return script_data(sc, i, record);
    case T_PLAINTEXT: /* no references in PLAINTEXT */
        if (sc->h1_state == 1 && sc->template_depth == 0)
            append_raw(&sc->h1, sc->s, i, sc->n);
        sc->done = 1;
        return sc->n;
    case T_TEMPLATE:
        sc->template_depth++;
        break;
    case T_SELECT:
        sc->in_select = 1;
        break;
    case T_H1:
        if (record && sc->h1_state == 0)
            sc->h1_state = 1;
        break;
    case T_ARTICLE:
        if (record && sc->article_state == 0)
            sc->article_state = 1;
        if (sc->article_state == 1)
            sc->article_depth++;
        break;
    case T_SVG:
    case T_MATH:
        if (!sc->self_closing)
            push(sc, sc->name, tag == T_SVG ? NS_SVG : NS_MATH, IP_NONE);
        return i;
    default:
        break;
    }
    if (sc->is_void)
        return i;
    if (sc->h1_state == 1 && tag != T_H1)
        sc->h1_open++;
    if (sc->depth > 0) { /* HTML inside an integration point */
        push(sc, sc->name, NS_HTML, IP_NONE);
    } else {
        struct open_count *o = open_slot(sc, sc->name, 1);
        if (o)
            o->count++;
    }
    return i;
}

static void html_end(scan *sc, enum tag tag)
{
    if (sc->depth == 0) {
        struct open_count *o = open_slot(sc, sc->name, 0);
        if (o && o->count > 0)
            o->count--;
    }
    if (tag == T_TEMPLATE && sc->template_depth > 0)
        sc->template_depth--;
    if (sc->in_select) {
        if (tag == T_SELECT)
            sc->in_select = 0;
        else if (table_tag(sc->name) && is_open(sc, "table") && is_open(sc, sc->name))
            sc->in_select = 0; /* select in table: closed, the tag then goes on */
        else
            return;
    }
    if (tag == T_SELECT)
        sc->in_select = 0;
    if ((tag == T_H1 || tag == T_HEADING) && sc->h1_state == 1 && sc->h1_headings > 0) {
        sc->h1_headings--;
        if (sc->h1_open > 0)
            sc->h1_open--;
    } else if (tag == T_H1 || tag == T_HEADING)
        end_h1(sc);
    else if (sc->h1_state == 1 && sc->h1_open > 0)
        sc->h1_open--;
    if (tag == T_ARTICLE && sc->article_state == 1 && --sc->article_depth == 0)
        sc->article_state = 2;
}

/* An end tag while elements inside <svg>/<math> are open. Foreign rules first: pop to the
 * element of that name; reaching an HTML element hands the tag to the HTML rules, which close
 * the nearest HTML element of that name and stop at an integration point ("special"). An end
 * tag no open svg/math element matches is taken to close something outside them. */
static void nested_end(scan *sc, enum tag tag)
{
    size_t k = sc->depth;
    for (; k > 0 && sc->stack[k - 1].ns != NS_HTML; k--) {
        if (name_cmp(sc->stack[k - 1].name, sc->name) == 0) {
            sc->depth = k - 1;
            return;
        }
    }
    for (; k > 0 && sc->stack[k - 1].ns == NS_HTML; k--) {
        if (name_cmp(sc->stack[k - 1].name, sc->name) == 0) {
            sc->depth = k - 1;
            html_end(sc, tag);
            return;
        }
    }
    if (k > 0 || !is_open(sc, sc->name))
        return; /* stopped at an integration point, or nothing outside to close: ignored */
    sc->depth = 0;
    html_end(sc, tag);
}

/* A start or end tag at S[J] ('<'); returns where the data state resumes. */
static size_t on_tag(scan *sc, size_t j)
{
    sc->end_tag = sc->s[j + 1] == '/';
    size_t i = parse_tag(sc, j + 1 + (size_t)sc->end_tag, want_attrs);
    if (i == AT_EOF)
        return sc->n;
    enum tag tag = sc->tag;
    if (sc->end_tag) {
        if (sc->depth > 0)
            nested_end(sc, tag);
        else
            html_end(sc, tag);
        return i;
    }
    if (!start_is_html(sc, tag)) {
        if (!sc->self_closing) {
            const frame *cur = &sc->stack[sc->depth - 1];
            push(sc, sc->name, (enum ns)cur->ns, integration_point(sc, (enum ns)cur->ns, tag));
        }
        return i;
    }
    return html_start(sc, tag, i);
}

/* "<!" at J: comment, DOCTYPE, CDATA section (foreign content only) or bogus comment. Returns the
 * index after it; its kind and content span (a comment's text, a CDATA section's) in *D. */
typedef struct decl {
    int kind; /* RC_HTMLTOK_COMMENT, _DOCTYPE or _CDATA */
    size_t from, to;
} decl;

static size_t comment_end(const char *s, size_t n, size_t i, decl *d)
{
    d->from = i;
    /* comment start: "<!-->" and "<!--->" end at once */
    if (i < n && s[i] == '>') {
        d->to = i;
        return i + 1;
    }
    if (i + 1 < n && s[i] == '-' && s[i + 1] == '>') {
        d->to = i;
        return i + 2;
    }
    int dashes = 0;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '-') {
            dashes++;
        } else if (c == '>' && dashes >= 2) {
            d->to = i - 2;
            return i + 1;
        } else if (c == '!' && dashes >= 2 && i + 1 < n && s[i + 1] == '>') {
            d->to = i - 2;
            return i + 2; /* "--!>" */
        } else if (c == '!' && dashes >= 2 && i + 1 < n && s[i + 1] == '-') {
            dashes = 0; /* comment end bang: '-' goes to comment end dash */
        } else {
            dashes = 0;
        }
    }
    d->to = n;
    return n;
}

static int cdata_allowed(scan *sc)
{
    return sc->sink ? sc->sink->foreign(sc->ud) : in_foreign(sc);
}

static size_t markup_decl(scan *sc, size_t j, decl *d)
{
    const char *s = sc->s;
    size_t n = sc->n, i = j + 2;
    d->kind = RC_HTMLTOK_COMMENT;
    if (i + 1 < n && s[i] == '-' && s[i + 1] == '-')
        return comment_end(s, n, i + 2, d);
    if (i + 7 <= n && memcmp(s + i, "[CDATA[", 7) == 0 && cdata_allowed(sc)) {
        d->kind = RC_HTMLTOK_CDATA;
        d->from = i + 7;
        for (size_t k = i + 7; k + 2 < n; k++)
            if (s[k] == ']' && s[k + 1] == ']' && s[k + 2] == '>') {
                d->to = k;
                return k + 3;
            }
        d->to = n;
        return n;
    }
    if (i + 7 <= n && strncasecmp(s + i, "doctype", 7) == 0)
        d->kind = RC_HTMLTOK_DOCTYPE;
    const char *gt = memchr(s + i, '>', n - i); /* DOCTYPE or bogus comment */
    d->from = i;
    d->to = gt ? (size_t)(gt - s) : n;
    return gt ? d->to + 1 : n;
}

static void run(scan *sc)
{
    const char *s = sc->s;
    size_t n = sc->n, i = 0;
    while (i < n && !sc->done) {
        const char *lt = memchr(s + i, '<', n - i);
        size_t j = lt ? (size_t)(lt - s) : n;
        h1_text(sc, i, j);
        if (j + 1 >= n) {
            h1_text(sc, j, n);
            break;
        }
        char c = s[j + 1];
        if (c == '!') {
            decl d;
            i = markup_decl(sc, j, &d);
        } else if (c == '?') {
            const char *gt = memchr(s + j, '>', n - j);
            i = gt ? (size_t)(gt - s) + 1 : n;
        } else if (c == '/' && j + 2 < n && is_alpha(s[j + 2])) {
            i = on_tag(sc, j);
        } else if (c == '/' && j + 2 < n && s[j + 2] == '>') {
            i = j + 3;
        } else if (c == '/' && j + 2 < n) {
            const char *gt = memchr(s + j, '>', n - j);
            i = gt ? (size_t)(gt - s) + 1 : n;
        } else if (is_alpha(c)) {
            i = on_tag(sc, j);
        } else {
            h1_text(sc, j, j + 1);
            i = j + 1;
        }
    }
    end_h1(sc);
}

/* ---- the token interface: every token to a sink ---- */

static void emit_text(scan *sc, size_t from, size_t to, int state)
{
    if (to > from)
        sc->sink->text(sc->ud, from, to, state);
}

/* The tag at J to the sink; returns where tokenizing resumes: past the text of the state the sink
 * chose after a start tag, up to its end tag. */
static size_t sink_tag(scan *sc, size_t j)
{
    sc->end_tag = sc->s[j + 1] == '/';
    size_t i = parse_tag(sc, j + 1 + (size_t)sc->end_tag, want_none);
    if (i == AT_EOF)
        return sc->n; /* the input ended inside the tag: dropped, as the tokenizer does */
    rc_htmltok_tag t = {sc->name, j, i, sc->name_from, sc->name_to, sc->end_tag, sc->self_closing, sc->all, sc->nall};
    int next = sc->sink->tag(sc->ud, &t);
    size_t e = i;
    switch (next) {
    case RC_HTMLTOK_STOP:
        sc->done = 1;
        return sc->n;
    case RC_HTMLTOK_RCDATA:
    case RC_HTMLTOK_RAWTEXT:
        e = find_end_tag(sc, i, sc->name);
        break;
    case RC_HTMLTOK_SCRIPT:
        e = rc_htmltok_script_end(sc->s, sc->n, i);
        break;
    case RC_HTMLTOK_PLAINTEXT:
        e = sc->n;
        break;
    default:
        return i;
    }
    emit_text(sc, i, e, next);
    return e;
}

/* Markup at J that is not text: returns where tokenizing resumes. */
static size_t sink_markup(scan *sc, size_t j)
{
    const char *s = sc->s;
    size_t n = sc->n;
    char c = s[j + 1];
    decl d = {RC_HTMLTOK_COMMENT, j + 1, n};
    size_t i;
    if (c == '!') {
        i = markup_decl(sc, j, &d);
    } else if (c == '/' && is_alpha(s[j + 2])) {
        return sink_tag(sc, j);
    } else if (c == '/' && s[j + 2] == '>') {
        return j + 3;
    } else if (is_alpha(c)) {
        return sink_tag(sc, j);
    } else { /* "<?..." or "</ ...": a bogus comment */
        d.from = c == '/' ? j + 2 : j + 1;
        const char *gt = memchr(s + j, '>', n - j);
        d.to = gt ? (size_t)(gt - s) : n;
        i = gt ? d.to + 1 : n;
    }
    if (d.kind == RC_HTMLTOK_CDATA)
        emit_text(sc, d.from, d.to, RC_HTMLTOK_CDATA_TEXT);
    else
        sc->sink->markup(sc->ud, d.kind, d.from, d.to);
    return i;
}

/* Whether S[J] ('<') starts markup rather than being text. */
static int starts_markup(const char *s, size_t n, size_t j)
{
    char c = s[j + 1];
    return c == '!' || c == '?' || is_alpha(c) || (c == '/' && j + 2 < n);
}

void rc_htmltok_tokenize(const char *data, size_t len, const rc_htmltok_sink *sink, void *ud)
{
    scan *sc = rc_xcalloc(1, sizeof(*sc));
    const char *s = sc->s = data ? data : "";
    size_t n = sc->n = data ? len : 0, i = 0;
    sc->sink = sink;
    sc->ud = ud;
    rc_buf_init(&sc->tmp);
    while (i < n && !sc->done) {
        const char *lt = memchr(s + i, '<', n - i);
        size_t j = lt ? (size_t)(lt - s) : n;
        if (j + 1 >= n) {
            emit_text(sc, i, n, RC_HTMLTOK_DATA);
            break;
        }
        if (!starts_markup(s, n, j)) {
            emit_text(sc, i, j + 1, RC_HTMLTOK_DATA);
            i = j + 1;
            continue;
        }
        emit_text(sc, i, j, RC_HTMLTOK_DATA);
        i = sink_markup(sc, j);
    }
    rc_buf_release(&sc->tmp);
    free(sc->all);
    free(sc);
}

void rc_htmltok_decode(const char *s, size_t from, size_t to, int state, int in_attr, rc_buf *out)
{
    if (state == RC_HTMLTOK_DATA || state == RC_HTMLTOK_RCDATA)
        decode_span(s, from, to, in_attr, out);
    else
        append_raw(out, s, from, to);
}

rc_htmltok *rc_htmltok_scan(const char *data, size_t len)
{
    rc_htmltok *t = rc_xcalloc(1, sizeof(*t));
    rc_maintext_facts_init(&t->facts);
    scan *sc = rc_xcalloc(1, sizeof(*sc));
    sc->s = data ? data : "";
    sc->n = data ? len : 0;
    sc->out = t;
    rc_buf_init(&sc->tmp);
    rc_buf_init(&sc->h1);
    run(sc);
    rc_buf_release(&sc->tmp);
    rc_buf_release(&sc->h1);
    free(sc);
    return t;
}

void rc_htmltok_free(rc_htmltok *t)
{
    if (!t)
        return;
    struct block *b = t->arena;
    while (b) {
        struct block *next = b->next;
        free(b);
        b = next;
    }
    free(t->links);
    rc_maintext_facts_release(&t->facts);
    free(t);
}

const char *rc_htmltok_title(const rc_htmltok *t)
{
    return t->title;
}

const char *rc_htmltok_base_href(const rc_htmltok *t)
{
    return t->base_href;
}

int rc_htmltok_robots_flags(const rc_htmltok *t)
{
    return t->meta.robots;
}

const char *rc_htmltok_meta_refresh(const rc_htmltok *t)
{
    return t->refresh;
}

double rc_htmltok_meta_refresh_delay(const rc_htmltok *t)
{
    return t->meta.refresh_delay;
}

const char *rc_htmltok_canonical(const rc_htmltok *t)
{
    return t->facts.canonical;
}

size_t rc_htmltok_links(const rc_htmltok *t, int skip_nofollow, size_t max, rc_htmltok_link_cb cb, void *ud)
{
    size_t calls = 0;
    for (size_t i = 0; i < t->nlinks && calls < max; i++) {
        if (skip_nofollow && t->links[i].nofollow)
            continue;
        calls++;
        if (cb(ud, t->links[i].href, t->links[i].len) != 0)
            break;
    }
    return calls;
}

int rc_htmltok_meta(const rc_htmltok *t, const char *url, json_t *out)
{
    return rc_maintext_facts_write(&t->facts, t->title, url, out);
}
