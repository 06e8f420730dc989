/* charset.c - see charset.h. */
#include "charset.h"

#include "util.h"

#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uchardet.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- the encodings ------------------------------------------------------------------------ */

enum kind {
    K_UTF8,
    K_ICONV,
    K_1252,         /* windows-1252 by table */
    K_USER_DEFINED, /* x-user-defined: 0x80..0xFF -> U+F780..U+F7FF */
    K_REPLACEMENT,  /* a non-empty body decodes to one U+FFFD */
};

typedef struct encoding {
    const char *name;  /* canonical (WHATWG) name */
    const char *iconv; /* glibc iconv name, for K_ICONV */
    enum kind kind;
    unsigned unit;      /* bytes skipped after an invalid sequence: 2 for UTF-16 */
    const char *labels; /* WHATWG labels, space-separated, lower-case */
} encoding;

/* The WHATWG Encoding Standard's table (encodings.json), plus names uchardet reports. Decisions:
 * GBK is folded into GB18030 (WHATWG's GBK decoder *is* the gb18030 decoder). Big5 decodes as
 * glibc BIG5-HKSCS: WHATWG's Big5 index is Big5 plus the HKSCS-2008 extensions, and glibc's plain
 * BIG5 would turn those (common on Hong Kong pages) into U+FFFD. Shift_JIS decodes as CP932
 * (Windows-31J: NEC and IBM extensions such as circled digits, as WHATWG's index has); the one
 * visible difference from WHATWG is 0x8160, which CP932 maps to U+FF5E and WHATWG to U+301C.
 * EUC-KR decodes as CP949 (the Unified Hangul Code superset, as WHATWG). ISO-8859-8-I is
 * ISO-8859-8 (the I only concerns bidi). */
static const encoding encodings[] = {
    {"UTF-8", NULL, K_UTF8, 1, "utf-8 utf8 unicode-1-1-utf-8 unicode11utf8 unicode20utf8 x-unicode20utf8"},
    {"windows-1252", NULL, K_1252, 1,
     "windows-1252 ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 "
     "iso8859-1 iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii x-cp1252"},
    {"GB18030", "GB18030", K_ICONV, 1,
     "gb18030 gbk chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 iso-ir-58 x-gbk"},
    {"Big5", "BIG5-HKSCS", K_ICONV, 1, "big5 big5-hkscs cn-big5 csbig5 x-x-big5"},
    {"Shift_JIS", "CP932", K_ICONV, 1, "shift_jis csshiftjis ms932 ms_kanji shift-jis sjis windows-31j x-sjis"},
    {"EUC-JP", "EUC-JP", K_ICONV, 1, "euc-jp cseucpkdfmtjapanese x-euc-jp"},
    {"ISO-2022-JP", "ISO-2022-JP", K_ICONV, 1, "iso-2022-jp csiso2022jp"},
    {"EUC-KR", "CP949", K_ICONV, 1,
     "euc-kr cseuckr csksc56011987 iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601 "
     "ksc_5601 windows-949"},
    {"UTF-16LE", "UTF-16LE", K_ICONV, 2, "utf-16le csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16"},
    {"UTF-16BE", "UTF-16BE", K_ICONV, 2, "utf-16be unicodefffe"},
    {"IBM866", "IBM866", K_ICONV, 1, "ibm866 866 cp866 csibm866"},
    {"ISO-8859-2", "ISO-8859-2", K_ICONV, 1,
     "iso-8859-2 csisolatin2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2 latin2"},
    {"ISO-8859-3", "ISO-8859-3", K_ICONV, 1,
     "iso-8859-3 csisolatin3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 iso_8859-3:1988 l3 latin3"},
    {"ISO-8859-4", "ISO-8859-4", K_ICONV, 1,
     "iso-8859-4 csisolatin4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 iso_8859-4:1988 l4 latin4"},
    {"ISO-8859-5", "ISO-8859-5", K_ICONV, 1,
     "iso-8859-5 csisolatincyrillic cyrillic iso-ir-144 iso8859-5 iso88595 iso_8859-5 "
     "iso_8859-5:1988"},
    {"ISO-8859-6", "ISO-8859-6", K_ICONV, 1,
     "iso-8859-6 arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6-e "
     "iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 iso_8859-6:1987"},
    {"ISO-8859-7", "ISO-8859-7", K_ICONV, 1,
     "iso-8859-7 csisolatingreek ecma-118 elot_928 greek greek8 iso-ir-126 iso8859-7 iso88597 "
     "iso_8859-7 iso_8859-7:1987 sun_eu_greek"},
    {"ISO-8859-8", "ISO-8859-8", K_ICONV, 1,
     "iso-8859-8 csiso88598e csisolatinhebrew hebrew iso-8859-8-e iso-ir-138 iso8859-8 iso88598 "
     "iso_8859-8 iso_8859-8:1988 visual"},
    {"ISO-8859-8-I", "ISO-8859-8", K_ICONV, 1, "iso-8859-8-i csiso88598i logical"},
    {"ISO-8859-10", "ISO-8859-10", K_ICONV, 1, "iso-8859-10 csisolatin6 iso-ir-157 iso8859-10 iso885910 l6 latin6"},
    {"ISO-8859-13", "ISO-8859-13", K_ICONV, 1, "iso-8859-13 iso8859-13 iso885913"},
    {"ISO-8859-14", "ISO-8859-14", K_ICONV, 1, "iso-8859-14 iso8859-14 iso885914"},
    {"ISO-8859-15", "ISO-8859-15", K_ICONV, 1, "iso-8859-15 csisolatin9 iso8859-15 iso885915 iso_8859-15 l9"},
    {"ISO-8859-16", "ISO-8859-16", K_ICONV, 1, "iso-8859-16"},
    {"KOI8-R", "KOI8-R", K_ICONV, 1, "koi8-r cskoi8r koi koi8 koi8_r"},
    {"KOI8-U", "KOI8-RU", K_ICONV, 1, "koi8-u koi8-ru"},
    {"macintosh", "MACINTOSH", K_ICONV, 1, "macintosh csmacintosh mac x-mac-roman"},
    {"windows-874", "CP874", K_ICONV, 1, "windows-874 dos-874 iso-8859-11 iso8859-11 iso885911 tis-620"},
    {"windows-1250", "CP1250", K_ICONV, 1, "windows-1250 cp1250 x-cp1250"},
    {"windows-1251", "CP1251", K_ICONV, 1, "windows-1251 cp1251 x-cp1251"},
    {"windows-1253", "CP1253", K_ICONV, 1, "windows-1253 cp1253 x-cp1253"},
    {"windows-1254", "CP1254", K_ICONV, 1,
     "windows-1254 cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 "
     "iso_8859-9:1989 l5 latin5 x-cp1254"},
    {"windows-1255", "CP1255", K_ICONV, 1, "windows-1255 cp1255 x-cp1255"},
    {"windows-1256", "CP1256", K_ICONV, 1, "windows-1256 cp1256 x-cp1256"},
    {"windows-1257", "CP1257", K_ICONV, 1, "windows-1257 cp1257 x-cp1257"},
    {"windows-1258", "CP1258", K_ICONV, 1, "windows-1258 cp1258 x-cp1258"},
    {"x-mac-cyrillic", "MAC-CYRILLIC", K_ICONV, 1, "x-mac-cyrillic x-mac-ukrainian"},
    {"x-user-defined", NULL, K_USER_DEFINED, 1, "x-user-defined"},
    {"replacement", NULL, K_REPLACEMENT, 1,
     "replacement csiso2022kr hz-gb-2312 iso-2022-cn iso-2022-cn-ext iso-2022-kr"},
};

#define ENC_UTF8 (&encodings[0])
#define ENC_1252 (&encodings[1])

static int is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static int is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Looks up LABEL[0..len) after trimming ASCII whitespace; NULL when unknown. */
static const encoding *find_label(const char *label, size_t len)
{
    while (len && is_ws((unsigned char)*label)) {
        label++;
        len--;
    }
    while (len && is_ws((unsigned char)label[len - 1]))
        len--;
    if (len == 0 || len >= RC_CHARSET_NAME_MAX)
        return NULL;
    for (size_t i = 0; i < RC_ARRAY_LEN(encodings); i++) {
        const char *p = encodings[i].labels;
        while (*p) {
            const char *end = strchr(p, ' ');
            size_t n = end ? (size_t)(end - p) : strlen(p);
            if (n == len && strncasecmp(p, label, len) == 0)
                return &encodings[i];
            p += n;
            while (*p == ' ')
                p++;
        }
    }
    return NULL;
}

const char *rc_charset_canonical(const char *label)
{
    const encoding *e = label ? find_label(label, strlen(label)) : NULL;
    return e ? e->name : NULL;
}

const char *rc_charset_source_name(int source)
{
    switch (source) {
    case RC_CHARSET_BOM:
        return "bom";
    case RC_CHARSET_HEADER:
        return "header";
    case RC_CHARSET_META:
        return "meta";
    case RC_CHARSET_SNIFF:
        return "sniff";
    case RC_CHARSET_DEFAULT:
        return "default";
    default:
        return "?";
    }
}

/* The encoding a BOM at the start of S names, and the BOM's length in *RET_LEN; NULL if none. */
static const encoding *bom_sniff(const unsigned char *s, size_t len, size_t *ret_len)
{
    if (len >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) {
        *ret_len = 3;
        return ENC_UTF8;
    }
    if (len >= 2 && s[0] == 0xFE && s[1] == 0xFF) {
        *ret_len = 2;
        return find_label("utf-16be", 8);
    }
    if (len >= 2 && s[0] == 0xFF && s[1] == 0xFE) {
        *ret_len = 2;
        return find_label("utf-16le", 8);
    }
    return NULL;
}

/* ---- UTF-8 validation ---------------------------------------------------------------------- */

/* Length of the valid sequence at S[0..n) (n >= 1), or 0 when it is invalid, with *RET_BAD the
 * length of the maximal subpart to replace by one U+FFFD and *RET_TRUNC 1 when that subpart is
 * a valid prefix cut short by the end of the input. */
static size_t utf8_seq(const unsigned char *s, size_t n, size_t *ret_bad, int *ret_trunc)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xBF;
    size_t need;
    *ret_trunc = 0;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F; /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F; /* nothing past U+10FFFF */
    } else {
        *ret_bad = 1;
        return 0;
    }
    for (size_t i = 1; i <= need; i++) {
        if (i >= n) {
            *ret_bad = i;
            *ret_trunc = 1;
            return 0;
        }
        if (s[i] < lo || s[i] > hi) {
            *ret_bad = i;
            return 0;
        }
        lo = 0x80;
        hi = 0xBF;
    }
    return need + 1;
}

/* The length of a common valid sequence at S (2 bytes, or 3 outside E0's and ED's narrower
 * second bytes), else 0: CJK text is mostly these, checked inline; utf8_seq does the rest. */
static inline size_t utf8_common(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c >= 0xC2 && c <= 0xDF)
        return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE1 && c <= 0xEF && c != 0xED)
        return n >= 3 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80 ? 3 : 0;
    return 0;
}

/* How many of S's first bytes are ASCII, eight at a time (has_non_ascii on sniffed text). */
static size_t ascii_run(const unsigned char *s, size_t len)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t v;
        memcpy(&v, s + i, 8);
        if (v & 0x8080808080808080ULL)
            break;
    }
    while (i < len && s[i] < 0x80)
        i++;
    return i;
}

/* How many of S's first bytes are plain ASCII (0x01..0x7F), sixteen at a time with SSE2, else
 * eight: markup is, and the survey below stops only at NULs and non-ASCII bytes. */
static inline size_t plain_run(const unsigned char *s, size_t len)
{
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    for (; i + 16 <= len; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        unsigned plain = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(v, zero)); /* signed: 1..127 */
        if (plain != 0xFFFFu)
            return i + (size_t)__builtin_ctz(~plain);
    }
#endif
    for (; i + 8 <= len; i += 8) {
        uint64_t v;
        memcpy(&v, s + i, 8);
        /* with no high bit set, v - 0x01.. borrows (and sets one) only below a zero byte */
        if ((v | (v - 0x0101010101010101ULL)) & 0x8080808080808080ULL)
            break;
    }
    while (i < len && s[i] - 1u < 0x7Fu)
        i++;
    return i;
}

/* What one pass over a body tells about it as UTF-8: what the label's check and sniffing ask
 * (utf8_plausible) and what the copy asks (all valid, no NUL), so each page is read once. */
typedef struct utf8_survey {
    size_t valid;     /* length of the longest valid prefix (NUL counts as valid) */
    size_t good, bad; /* non-ASCII sequences valid and invalid, before one cut short by the end */
    int non_ascii;    /* a byte >= 0x80 */
    int nul;          /* a NUL byte */
    int done;         /* 0: not made yet (see surveyed) */
} utf8_survey;

static void survey_utf8(const unsigned char *s, size_t len, utf8_survey *u)
{
    size_t i = 0;
    *u = (utf8_survey){.valid = len, .done = 1};
    while (i < len) {
        if (s[i] - 1u < 0x7Fu) {
            i += plain_run(s + i, len - i);
            continue;
        }
        if (s[i] == 0) {
            u->nul = 1;
            i++;
            continue;
        }
        u->non_ascii = 1;
        /* a run of three-byte sequences (CJK text) without going round the loop each time */
        while (len - i >= 3 && s[i] >= 0xE1 && s[i] <= 0xEF && s[i] != 0xED && (s[i + 1] & 0xC0) == 0x80 &&
               (s[i + 2] & 0xC0) == 0x80) {
            u->good++;
            i += 3;
        }
        if (i >= len || s[i] < 0x80)
            continue;
        size_t bad_len;
        int trunc;
        size_t n = utf8_common(s + i, len - i);
        if (n == 0)
            n = utf8_seq(s + i, len - i, &bad_len, &trunc);
        if (n == 0) {
            if (u->valid == len)
                u->valid = i;
            if (trunc)
                break;
            u->bad++;
            n = bad_len;
        } else {
            u->good++;
        }
        i += n;
    }
}

/* U, surveying S[0..len) first if that was not done yet: a page labelled UTF-8 or sniffed is
 * surveyed by detection and the survey reused by the conversion. */
static const utf8_survey *surveyed(const unsigned char *s, size_t len, utf8_survey *u)
{
    if (!u->done)
        survey_utf8(s, len, u);
    return u;
}

/* 1 when the surveyed bytes read as UTF-8: they have non-ASCII characters, all valid but for at
 * most one bad sequence in twenty (a stray Latin-1 byte in a UTF-8 page should not turn the
 * whole page into mojibake; GBK, Big5, Shift_JIS or Latin text is almost never valid UTF-8 by
 * accident) and but for a sequence cut short at the end (bodies are often truncated at a size
 * limit). */
static int utf8_plausible(const utf8_survey *u)
{
    return u->good > 0 && u->bad * 20 <= u->good;
}

/* 1 when the surveyed bytes are valid UTF-8 without NUL: copied as they are. */
static int utf8_clean(const utf8_survey *u, size_t len)
{
    return u->valid == len && !u->nul;
}

/* The survey's valid prefix: one UTF-8 walk in this file, not two. */
size_t rc_charset_utf8_valid_prefix(const char *str, size_t len)
{
    utf8_survey u;
    survey_utf8((const unsigned char *)str, len, &u);
    return u.valid;
}

static const char replacement_char[] = "\xEF\xBF\xBD";

/* Where the first invalid sequence (or NUL) at or after i starts, with its length in *bad;
 * len when there is none. */
static size_t utf8_next_bad(const unsigned char *s, size_t len, size_t i, size_t *bad)
{
    while (i < len) {
        if (s[i] >= 0x01 && s[i] < 0x80) {
            i++;
            continue;
        }
        size_t n = 0;
        int trunc;
        *bad = 1;
        if (s[i] != 0)
            n = utf8_seq(s + i, len - i, bad, &trunc);
        if (!n)
            return i;
        i += n;
    }
    return len;
}

static void utf8_repair_into(rc_buf *out, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i, run = 0, bad; /* valid bytes s[run..i) not yet copied */
    while ((i = utf8_next_bad(s, len, run, &bad)) < len) {
        rc_buf_append(out, s + run, i - run);
        rc_buf_append(out, replacement_char, 3);
        run = i + bad;
    }
    rc_buf_append(out, s + run, len - run);
}

char *rc_charset_utf8_repair(const char *s, size_t len, size_t *ret_len)
{
    rc_buf out;
    rc_buf_init(&out);
    utf8_repair_into(&out, s, len);
    if (ret_len)
        *ret_len = out.len;
    return rc_buf_steal(&out);
}

size_t rc_charset_utf8_scrub(char *str, size_t len)
{
    unsigned char *s = (unsigned char *)str;
    size_t i = 0, fixed = 0, bad;
    while ((i = utf8_next_bad(s, len, i, &bad)) < len) {
        memset(s + i, '?', bad);
        fixed += bad;
        i += bad;
    }
    return fixed;
}

/* ---- Content-Type and the <meta> prescan --------------------------------------------------- */

/* The charset parameter of a Content-Type value (RFC 9110: params after ';', token or
 * quoted-string values, names case-insensitive). First one wins. */
static const encoding *header_charset(const char *ct)
{
    const char *p = strchr(ct, ';');
    while (p && *p == ';') {
        p++;
        while (is_ws((unsigned char)*p))
            p++;
        const char *name = p;
        while (*p && *p != '=' && *p != ';')
            p++;
        size_t nlen = (size_t)(p - name);
        while (nlen && is_ws((unsigned char)name[nlen - 1]))
            nlen--;
        if (*p != '=')
            continue;
        p++;
        while (is_ws((unsigned char)*p))
            p++;
        char val[RC_CHARSET_NAME_MAX];
        const char *v = val;
        size_t vlen = 0;
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1])
                    p++;
                if (vlen < sizeof val)
                    val[vlen++] = *p;
                else
                    v = NULL; /* longer than any label */
            }
            if (*p == '"')
                p++;
            while (*p && *p != ';')
                p++;
        } else {
            v = p;
            while (*p && *p != ';')
                p++;
            vlen = (size_t)(p - v);
        }
        if (nlen == 7 && strncasecmp(name, "charset", 7) == 0)
            return v ? find_label(v, vlen) : NULL;
    }
    return NULL;
}

/* The HTML spec's "algorithm for extracting a character encoding from a meta element". */
static const encoding *meta_content_charset(const char *s)
{
    for (;;) {
        const char *c = strcasestr(s, "charset");
        if (!c)
            return NULL;
        s = c + 7;
        while (is_ws((unsigned char)*s))
            s++;
        if (*s != '=')
            continue;
        s++;
        while (is_ws((unsigned char)*s))
            s++;
        if (*s == '"' || *s == '\'') {
            const char *q = strchr(s + 1, *s);
            return q ? find_label(s + 1, (size_t)(q - s - 1)) : NULL;
        }
        const char *v = s;
        while (*s && !is_ws((unsigned char)*s) && *s != ';')
            s++;
        return s > v ? find_label(v, (size_t)(s - v)) : NULL;
    }
}

#define ATTR_NAME_MAX 32
#define ATTR_VALUE_MAX 256

typedef struct prescan {
    const unsigned char *s;
    size_t n, pos;
    char name[ATTR_NAME_MAX];
    char value[ATTR_VALUE_MAX];
    int cut; /* name or value was longer than its buffer */
} prescan;

static void put_lower(prescan *p, char *buf, size_t cap, size_t *len, unsigned char c)
{
    if (*len < cap - 1) {
        buf[(*len)++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        buf[*len] = '\0';
    } else {
        p->cut = 1;
    }
}

/* The spec's "get an attribute": 1 with p->name / p->value set, 0 when there is none (at '>'),
 * -1 when the input ran out (the prescan then gives up). Over-long names and values are cut. */
static int get_attribute(prescan *p)
{
    const unsigned char *s = p->s;
    size_t nlen = 0, vlen = 0;
    p->name[0] = p->value[0] = '\0';
    p->cut = 0;
    while (p->pos < p->n && (is_ws(s[p->pos]) || s[p->pos] == '/'))
        p->pos++;
    if (p->pos >= p->n)
        return -1;
    if (s[p->pos] == '>')
        return 0;
    for (;;) {
        if (p->pos >= p->n)
            return -1;
        unsigned char c = s[p->pos];
        if (c == '=' && nlen > 0)
            break;
        if (is_ws(c)) {
            while (p->pos < p->n && is_ws(s[p->pos]))
                p->pos++;
            if (p->pos >= p->n)
                return -1;
            if (s[p->pos] != '=')
                return 1;
            break;
        }
        if (c == '/' || c == '>')
            return 1;
        put_lower(p, p->name, sizeof p->name, &nlen, c);
        p->pos++;
    }
    p->pos++; /* the '=' */
    while (p->pos < p->n && is_ws(s[p->pos]))
        p->pos++;
    if (p->pos >= p->n)
        return -1;
    unsigned char c = s[p->pos];
    if (c == '"' || c == '\'') {
        for (p->pos++; p->pos < p->n; p->pos++) {
            if (s[p->pos] == c) {
                p->pos++;
                return 1;
            }
            put_lower(p, p->value, sizeof p->value, &vlen, s[p->pos]);
        }
        return -1;
    }
    if (c == '>')
        return 1;
    for (; p->pos < p->n; p->pos++) {
        if (is_ws(s[p->pos]) || s[p->pos] == '>')
            return 1;
        put_lower(p, p->value, sizeof p->value, &vlen, s[p->pos]);
    }
    return -1;
}

/* Attributes of one <meta>, P at the character after "<meta". NULL, or the declared encoding. */
static const encoding *prescan_meta(prescan *p, int *ret_abort)
{
    enum { SEEN_HTTP_EQUIV = 1, SEEN_CONTENT = 2, SEEN_CHARSET = 4 };
    unsigned seen = 0;
    int got_pragma = 0, need_pragma = -1, r;
    const encoding *charset = NULL;
    while ((r = get_attribute(p)) == 1) {
        if (p->cut) /* no attribute we look at has a name or value that long */
            continue;
        if (strcmp(p->name, "http-equiv") == 0 && !(seen & SEEN_HTTP_EQUIV)) {
            seen |= SEEN_HTTP_EQUIV;
            got_pragma = strcmp(p->value, "content-type") == 0;
        } else if (strcmp(p->name, "content") == 0 && !(seen & SEEN_CONTENT)) {
            seen |= SEEN_CONTENT;
            const encoding *e = meta_content_charset(p->value);
            if (e && !charset) {
                charset = e;
                need_pragma = 1;
            }
        } else if (strcmp(p->name, "charset") == 0 && !(seen & SEEN_CHARSET)) {
            seen |= SEEN_CHARSET;
            charset = find_label(p->value, strlen(p->value));
            need_pragma = 0;
        }
    }
    if (r < 0) {
        *ret_abort = 1;
        return NULL;
    }
    if (need_pragma < 0 || (need_pragma == 1 && !got_pragma) || !charset)
        return NULL;
    if (charset->kind == K_ICONV && charset->unit == 2)
        return ENC_UTF8;
    if (charset->kind == K_USER_DEFINED)
        return ENC_1252;
    return charset;
}

static int at_ci(const prescan *p, const char *lit)
{
    size_t n = strlen(lit);
    return p->pos + n <= p->n && strncasecmp((const char *)p->s + p->pos, lit, n) == 0;
}

/* The spec's "prescan a byte stream to determine its encoding", over the first PRESCAN bytes. */
static const encoding *prescan_meta_charset(const unsigned char *s, size_t len)
{
    prescan p = {.s = s, .n = RC_MIN(len, (size_t)RC_CHARSET_PRESCAN), .pos = 0};
    while (p.pos < p.n) {
        if (at_ci(&p, "<!--")) {
            const char *e = memmem(s + p.pos + 2, p.n - p.pos - 2, "-->", 3);
            if (!e)
                return NULL;
            p.pos = (size_t)((const unsigned char *)e - s) + 3;
            continue;
        }
        if (at_ci(&p, "<meta") && p.pos + 5 < p.n && (is_ws(s[p.pos + 5]) || s[p.pos + 5] == '/')) {
            p.pos += 5;
            int abort = 0;
            const encoding *e = prescan_meta(&p, &abort);
            if (e)
                return e;
            if (abort)
                return NULL;
        } else if (s[p.pos] == '<' && p.pos + 1 < p.n &&
                   (is_alpha(s[p.pos + 1]) || (s[p.pos + 1] == '/' && p.pos + 2 < p.n && is_alpha(s[p.pos + 2])))) {
            while (p.pos < p.n && !is_ws(s[p.pos]) && s[p.pos] != '>')
                p.pos++;
            int r;
            while ((r = get_attribute(&p)) == 1)
                ;
            if (r < 0)
                return NULL;
        } else if (s[p.pos] == '<' && p.pos + 1 < p.n &&
                   (s[p.pos + 1] == '!' || s[p.pos + 1] == '/' || s[p.pos + 1] == '?')) {
            const unsigned char *gt = memchr(s + p.pos, '>', p.n - p.pos);
            if (!gt)
                return NULL;
            p.pos = (size_t)(gt - s);
        }
        p.pos++;
    }
    return NULL;
}

/* ---- sniffing ------------------------------------------------------------------------------ */

/* Appends the text outside tags, comments, scripts and styles to OUT (up to max bytes): markup
 * is ASCII and only dilutes the statistics uchardet works from. */
static void strip_markup(rc_buf *out, const unsigned char *s, size_t len, size_t max)
{
    size_t i = 0;
    while (i < len && out->len < max) {
        const unsigned char *lt = memchr(s + i, '<', len - i);
        size_t j = lt ? (size_t)(lt - s) : len;
        rc_buf_append(out, s + i, RC_MIN(j - i, max - out->len));
        if (j >= len)
            return;
        const char *skip_to = ">";
        if (j + 4 <= len && memcmp(s + j, "<!--", 4) == 0)
            skip_to = "-->";
        else if (j + 7 <= len && strncasecmp((const char *)s + j, "<script", 7) == 0)
            skip_to = "</script";
        else if (j + 6 <= len && strncasecmp((const char *)s + j, "<style", 6) == 0)
            skip_to = "</style";
        else if (j + 1 < len && !is_alpha(s[j + 1]) && s[j + 1] != '/' && s[j + 1] != '!' && s[j + 1] != '?') {
            rc_buf_append(out, "<", 1);
            i = j + 1;
            continue;
        }
        size_t k = j + 1;
        if (skip_to[0] != '>') {
            size_t n = strlen(skip_to);
            for (; k + n <= len; k++)
                if (strncasecmp((const char *)s + k, skip_to, n) == 0)
                    break;
            if (k + n > len)
                return;
            k += n;
        }
        if (skip_to[0] != '-') { /* a tag, or the end tag closing a script or style */
            const unsigned char *gt = k < len ? memchr(s + k, '>', len - k) : NULL;
            if (!gt)
                return;
            k = (size_t)(gt - s) + 1;
        }
        i = k;
        rc_buf_append(out, " ", 1);
    }
}

static int has_non_ascii(const unsigned char *s, size_t len)
{
    return ascii_run(s, len) < len;
}

/* Names uchardet reports that are not WHATWG labels. */
static const struct {
    const char *uchardet, *label;
} uchardet_names[] = {
    {"UHC", "euc-kr"},
    {"MAC-CYRILLIC", "x-mac-cyrillic"},
};

/* ISO-8859-x verdicts whose windows-125x superset uses 0x80..0x9F for letters and punctuation:
 * those bytes are C1 controls in ISO-8859-x and never occur in real ISO text, so their presence
 * means the page is really windows-125x (uchardet 0.0.7 calls Czech windows-1250 "ISO-8859-2"). */
static const struct {
    const char *iso, *windows;
} c1_supersets[] = {
    {"ISO-8859-2", "windows-1250"}, {"ISO-8859-4", "windows-1257"}, {"ISO-8859-6", "windows-1256"},
    {"ISO-8859-7", "windows-1253"}, {"ISO-8859-8", "windows-1255"}, {"ISO-8859-13", "windows-1257"},
};

static int has_c1(const unsigned char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] >= 0x80 && s[i] <= 0x9F)
            return 1;
    return 0;
}

/* uchardet's verdict on S, mapped to an encoding; NULL when it has none we can use. */
static const encoding *uchardet_guess(const char *s, size_t len)
{
    uchardet_t ud = uchardet_new();
    if (!ud)
        return NULL;
    const encoding *e = NULL;
    if (uchardet_handle_data(ud, s, len) == 0) {
        uchardet_data_end(ud);
        const char *name = uchardet_get_charset(ud);
        for (size_t i = 0; name && i < RC_ARRAY_LEN(uchardet_names); i++)
            if (strcasecmp(name, uchardet_names[i].uchardet) == 0)
                name = uchardet_names[i].label;
        if (name && *name)
            e = find_label(name, strlen(name));
    }
    uchardet_delete(ud);
    /* A guess is no reason to discard the page; and we already know S is not UTF-8 (uchardet
     * 0.0.7 answers "UTF-8" for some short GBK and windows-1251 texts). */
    if (e && (e->kind == K_REPLACEMENT || e->kind == K_UTF8))
        return NULL;
    for (size_t i = 0; e && i < RC_ARRAY_LEN(c1_supersets); i++)
        if (strcmp(e->name, c1_supersets[i].iso) == 0 && has_c1((const unsigned char *)s, len))
            e = find_label(c1_supersets[i].windows, strlen(c1_supersets[i].windows));
    return e;
}

/* A UTF-8 label on bytes that are not UTF-8 (servers that label every page utf-8) is a lie the
 * bytes give away: they are sniffed instead. Other labels cannot be checked this way. */
static int label_contradicted(const encoding *e, const unsigned char *s, size_t len, utf8_survey *u)
{
    if (e != ENC_UTF8)
        return 0;
    const utf8_survey *su = surveyed(s, len, u);
    return su->non_ascii && !utf8_plausible(su);
}

static const encoding *sniff(const unsigned char *s, size_t len, utf8_survey *u)
{
    if (utf8_plausible(surveyed(s, len, u)))
        return ENC_UTF8;
    rc_buf text;
    rc_buf_init(&text);
    strip_markup(&text, s, len, RC_CHARSET_SNIFF_MAX);
    const encoding *e = NULL;
    if (text.len && has_non_ascii((const unsigned char *)text.ptr, text.len))
        e = uchardet_guess(text.ptr, text.len);
    else if (has_non_ascii(s, len)) /* non-ASCII only in attributes: use the whole body */
        e = uchardet_guess((const char *)s, RC_MIN(len, (size_t)RC_CHARSET_SNIFF_MAX));
    rc_buf_release(&text);
    return e;
}

/* rc_charset_detect on S[0..len) (not NULL), with U the survey of those bytes (made here when
 * a step needs it); the source in *RET_SOURCE. */
static const encoding *detect(const unsigned char *s, size_t len, const char *content_type, utf8_survey *u,
                              int *ret_source)
{
    const encoding *e;
    size_t bom_len;
    if ((e = bom_sniff(s, len, &bom_len)))
        *ret_source = RC_CHARSET_BOM;
    else if (content_type && (e = header_charset(content_type)) && !label_contradicted(e, s, len, u))
        *ret_source = RC_CHARSET_HEADER;
    else if ((e = prescan_meta_charset(s, len)) && !label_contradicted(e, s, len, u))
        *ret_source = RC_CHARSET_META;
    else if ((e = sniff(s, len, u)))
        *ret_source = RC_CHARSET_SNIFF;
    else {
        e = ENC_1252;
        *ret_source = RC_CHARSET_DEFAULT;
    }
    return e;
}

int rc_charset_detect(const char *body, size_t len, const char *content_type, char *name, size_t cap)
{
    utf8_survey u = {0};
    int source;
    if (cap < RC_CHARSET_NAME_MAX)
        return -ERANGE;
    const encoding *e = detect((const unsigned char *)(body ? body : ""), body ? len : 0, content_type, &u, &source);
    memcpy(name, e->name, strlen(e->name) + 1);
    return source;
}

/* ---- decoding ------------------------------------------------------------------------------ */

static void put_cp(rc_buf *out, unsigned cp)
{
    char u[3];
    if (cp < 0x80) {
        u[0] = (char)cp;
        rc_buf_append(out, u, 1);
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | cp >> 6);
        u[1] = (char)(0x80 | (cp & 0x3F));
        rc_buf_append(out, u, 2);
    } else {
        u[0] = (char)(0xE0 | cp >> 12);
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        rc_buf_append(out, u, 3);
    }
}

static const unsigned short cp1252_high[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
};

static void decode_single(rc_buf *out, const encoding *e, const unsigned char *s, size_t len)
{
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = s[i];
        if (c >= 0x01 && c < 0x80)
            continue;
        rc_buf_append(out, s + run, i - run);
        run = i + 1;
        if (c == 0)
            rc_buf_append(out, replacement_char, 3);
        else if (e->kind == K_USER_DEFINED)
            put_cp(out, 0xF780u + c - 0x80u);
        else
            put_cp(out, c < 0xA0 ? cp1252_high[c - 0x80] : c);
    }
    rc_buf_append(out, s + run, len - run);
}

/* Runs glibc iconv, replacing what it rejects. Returns -1 if the converter cannot be opened. */
static int decode_iconv(rc_buf *out, const encoding *e, const char *in, size_t len)
{
    iconv_t cd = iconv_open("UTF-8", e->iconv);
    if (cd == (iconv_t)-1)
        return -1;
    int is_gb18030 = strcmp(e->name, "GB18030") == 0;
    char *ip = (char *)in;
    size_t ileft = len;
    char tmp[4096];
    while (ileft) {
        char *op = tmp;
        size_t oleft = sizeof tmp;
        size_t r = iconv(cd, &ip, &ileft, &op, &oleft);
        rc_buf_append(out, tmp, (size_t)(op - tmp));
        if (r != (size_t)-1)
            break;
        if (errno == E2BIG)
            continue;
        if (errno == EINVAL) { /* a sequence cut short by the end */
            rc_buf_append(out, replacement_char, 3);
            break;
        }
        /* EILSEQ: WHATWG's gb18030 decoder maps the lone byte 0x80 to the euro sign (cp936). */
        if (is_gb18030 && (unsigned char)*ip == 0x80)
            rc_buf_append(out, "\xE2\x82\xAC", 3);
        else
            rc_buf_append(out, replacement_char, 3);
        size_t skip = RC_MIN((size_t)e->unit, ileft);
        ip += skip;
        ileft -= skip;
    }
    char *op = tmp;
    size_t oleft = sizeof tmp;
    iconv(cd, NULL, NULL, &op, &oleft); /* flush a stateful decoder's pending output */
    rc_buf_append(out, tmp, (size_t)(op - tmp));
    iconv_close(cd);
    return 0;
}

/* rc_charset_to_utf8 of BODY[0..len) (not NULL) from the encoding LABEL (NULL = UTF-8), with U
 * the survey of those bytes if one was made. */
static char *to_utf8(const char *body, size_t len, const encoding *label, utf8_survey *u, size_t *ret_len)
{
    const char *s = body;
    size_t bom_len = 0;
    utf8_survey stripped = {0};
    const encoding *e = bom_sniff((const unsigned char *)s, len, &bom_len);
    if (!e)
        e = label ? label : ENC_UTF8;
    if (bom_len) /* U is of the bytes with the BOM */
        u = &stripped;
    s += bom_len;
    len -= bom_len;

    rc_buf out;
    rc_buf_init(&out);
    switch (e->kind) {
    case K_UTF8:
        if (utf8_clean(surveyed((const unsigned char *)s, len, u), len))
            rc_buf_append(&out, s, len);
        else
            utf8_repair_into(&out, s, len);
        break;
    case K_1252:
    case K_USER_DEFINED:
        decode_single(&out, e, (const unsigned char *)s, len);
        break;
    case K_REPLACEMENT:
        if (len)
            rc_buf_append(&out, replacement_char, 3);
        break;
    case K_ICONV: {
        utf8_survey decoded = {0};
        if (decode_iconv(&out, e, s, len) < 0) {
            rc_buf_reset(&out);
            utf8_repair_into(&out, s, len);
        } else if (out.len && !utf8_clean(surveyed((const unsigned char *)out.ptr, out.len, &decoded), out.len)) {
            /* NULs decoded from the input; a converter bug must not leak either */
            char *fixed = rc_charset_utf8_repair(out.ptr, out.len, NULL);
            rc_buf_reset(&out);
            rc_buf_puts(&out, fixed);
            free(fixed);
        }
        break;
    }
    }
    if (ret_len)
        *ret_len = out.len;
    return rc_buf_steal(&out);
}

char *rc_charset_to_utf8(const char *body, size_t len, const char *charset, size_t *ret_len)
{
    utf8_survey u = {0};
    return to_utf8(body ? body : "", body ? len : 0, charset ? find_label(charset, strlen(charset)) : NULL, &u,
                   ret_len);
}

int rc_charset_decode(const char *body, size_t len, const char *content_type, char *name, size_t cap, char **ret_utf8,
                      size_t *ret_len)
{
    utf8_survey u = {0};
    int source;
    if (cap < RC_CHARSET_NAME_MAX)
        return -ERANGE;
    const char *s = body ? body : "";
    if (!body)
        len = 0;
    const encoding *e = detect((const unsigned char *)s, len, content_type, &u, &source);
    memcpy(name, e->name, strlen(e->name) + 1);
    /* as rc_charset_to_utf8(body, len, name) would: the name's encoding, the BOM's if any */
    *ret_utf8 = to_utf8(s, len, find_label(name, strlen(name)), &u, ret_len);
    return source;
}
