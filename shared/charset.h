/* charset.h - find a page's character encoding and turn its bytes into valid UTF-8.
 *
 * Encoding names and labels follow the WHATWG Encoding Standard (what browsers do), so a label a
 * page or server uses means what it means in a browser: "iso-8859-1" and "us-ascii" decode as
 * windows-1252, "gb2312" and "gbk" as GB18030, "euc-kr" as windows-949 (CP949), "shift_jis" as
 * Windows-31J (CP932), "big5" as Big5-HKSCS, "utf-16" as UTF-16LE. Decoding goes through glibc
 * iconv, with windows-1252 and x-user-defined done by table (glibc rejects 1252's five unmapped
 * bytes, WHATWG maps them to C1 controls).
 *
 * Canonical names are the Encoding Standard's, except that its "GBK" and "gb18030" are one
 * decoder and are both reported as "GB18030". */
#ifndef RC_CHARSET_H
#define RC_CHARSET_H

#include <stddef.h>

#define RC_CHARSET_NAME_MAX 32 /* longest canonical name + NUL, with room to spare */
#define RC_CHARSET_PRESCAN                                                                                             \
    4096                            /* bytes searched for <meta charset>; WHATWG says 1024, but                        \
                                     * heads often put scripts and links first */
#define RC_CHARSET_SNIFF_MAX 262144 /* bytes of markup-stripped text fed to uchardet */

/* Which step of rc_charset_detect() decided. */
typedef enum rc_charset_source {
    RC_CHARSET_DEFAULT = 0, /* nothing did: windows-1252 (also for pure-ASCII bodies) */
    RC_CHARSET_BOM,         /* a UTF-8 / UTF-16LE / UTF-16BE byte order mark */
    RC_CHARSET_HEADER,      /* the charset parameter of the Content-Type header */
    RC_CHARSET_META,        /* <meta charset> or <meta http-equiv=content-type> in the prescan */
    RC_CHARSET_SNIFF,       /* content sniffing: valid non-ASCII UTF-8, else uchardet */
} rc_charset_source;

/* Detects the encoding of the HTML body BODY[0..len) (borrowed; need not be NUL-terminated):
 * BOM, then the Content-Type header's charset (CONTENT_TYPE may be NULL; an unknown label is
 * ignored, and so is a UTF-8 label on a body that is plainly not UTF-8), then <meta charset> / <meta
 * http-equiv="Content-Type"> found by the HTML5 prescan over the first RC_CHARSET_PRESCAN bytes (utf-16 labels there
 * mean UTF-8, x-user-defined means windows-1252, as in the spec), then sniffing, then windows-1252. Sniffing: a body
 * with non-ASCII characters that is valid UTF-8 but for a sequence cut short at the end and at most one bad sequence in
 * twenty good ones is UTF-8; otherwise uchardet judges the text outside tags, scripts and styles (a "UTF-8" verdict is
 * then discarded as impossible, an ISO-8859-x verdict on text using bytes 0x80..0x9F becomes the windows-125x superset;
 * short CJK snippets of a few characters are often missed, see tests/data/charset/generate.py). Writes the canonical
 * name NUL-terminated into NAME and returns the rc_charset_source that decided, or -ERANGE
 * (NAME untouched) if CAP < RC_CHARSET_NAME_MAX. */
int rc_charset_detect(const char *body, size_t len, const char *content_type, char *name, size_t cap);

/* The canonical name for an encoding label (ASCII case-insensitive, surrounding whitespace
 * ignored), e.g. "latin1" -> "windows-1252"; NULL for an unknown label. Static string. */
const char *rc_charset_canonical(const char *label);

/* A static name for a rc_charset_source value ("bom", "header", "meta", "sniff", "default"). */
const char *rc_charset_source_name(int source);

/* Converts BODY[0..len) from CHARSET (any label; NULL or unknown = UTF-8) to UTF-8. A leading
 * BOM overrides CHARSET and is stripped, as WHATWG "decode" does. Bytes that are invalid in the
 * encoding, and a multibyte sequence truncated at the end, become U+FFFD; so do NUL bytes, so
 * the result is a C string. The "replacement" encoding (iso-2022-kr, hz-gb-2312 ...) yields one
 * U+FFFD for a non-empty body. Returns a malloc'd, NUL-terminated, valid UTF-8 string (caller
 * frees) and its length in *RET_LEN (RET_LEN may be NULL). Never fails; aborts on OOM. Valid
 * UTF-8 input is validated and copied. */
char *rc_charset_to_utf8(const char *body, size_t len, const char *charset, size_t *ret_len);

/* rc_charset_detect then rc_charset_to_utf8(BODY, LEN, NAME) in one, the same results, with a
 * body labelled or sniffed as UTF-8 read once for both (validity, plausibility, NULs). Writes
 * the name into NAME and the malloc'd UTF-8 (caller frees) into *RET_UTF8, its length into
 * *RET_LEN (may be NULL); returns the rc_charset_source, or -ERANGE (nothing written) if
 * CAP < RC_CHARSET_NAME_MAX. */
int rc_charset_decode(const char *body, size_t len, const char *content_type, char *name, size_t cap, char **ret_utf8,
                      size_t *ret_len);

/* Length of the longest prefix of S[0..len) that is valid UTF-8 (no overlongs, surrogates or
 * code points past U+10FFFF; NUL counts as valid); == LEN when S is all valid. */
size_t rc_charset_utf8_valid_prefix(const char *s, size_t len);

/* A malloc'd NUL-terminated copy of S[0..len) with each maximal invalid subpart (Unicode 3.9 /
 * WHATWG practice) and each NUL byte replaced by U+FFFD; length in *RET_LEN (may be NULL). */
char *rc_charset_utf8_repair(const char *s, size_t len, size_t *ret_len);

/* Repairs in place without growing: every byte of an invalid sequence and every NUL becomes
 * '?'. For fixed-size buffers; returns the number of bytes replaced. */
size_t rc_charset_utf8_scrub(char *s, size_t len);

#endif
