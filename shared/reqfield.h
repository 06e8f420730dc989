/* reqfield.h - the fields of a crawl request: one table of names, types, ranges, defaults and notes,
 * and the checks that give a bad value its message.
 *
 * Every way a crawl is asked for validates with this table: Kafka and the REST API (rc_msg_parse),
 * `redcrawl submit` (rc_msg_parse too), `redcrawl crawl` and every job spec read back from Redis
 * (rc_job_parse). So one bad value gets the same field and reason everywhere, e.g. field "maxdepth",
 * reason "must be an integer from -1 to 1000, not 5000 (-1: no limit)". The other request kinds
 * (action, stats, domain: msg.c) use the same row type and checks with tables of their own. */
#ifndef RC_REQFIELD_H
#define RC_REQFIELD_H

#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct json_t;

#define RC_REQFIELD_PATH_BUF 128   /* "allow_regex[12]" */
#define RC_REQFIELD_REASON_BUF 768 /* a sentence for people: room for every crawl field's name */
#define RC_REQFIELD_HOST_BUF 256   /* a normalised host name + NUL */
#define RC_REQFIELD_MAX_DEPTH 32   /* nesting of arrays/objects, the request itself is level 1 */
#define RC_REQFIELD_ID_MAX 40      /* characters of appid, crawlid, spiderid, uuid */

typedef enum rc_reqfield_type {
    RC_REQFIELD_UUID,    /* string, any characters, min..max characters */
    RC_REQFIELD_ID,      /* min..max of [A-Za-z0-9._-], not starting with '.' (rc_id_check) */
    RC_REQFIELD_URL,     /* absolute http(s) URL that rc_url_normalize accepts, no credentials */
    RC_REQFIELD_URLS,    /* array of at most max such URLs */
    RC_REQFIELD_INT,     /* JSON integer in [min, max] */
    RC_REQFIELD_NUMBER,  /* JSON number in [lo, hi] */
    RC_REQFIELD_ENUM,    /* one of choices */
    RC_REQFIELD_HOST,    /* a host name (IDNA allowed) */
    RC_REQFIELD_HOSTS,   /* unique host names, at most max */
    RC_REQFIELD_REGEXES, /* unique PCRE2 patterns that compile, at most max */
    RC_REQFIELD_EXTS,    /* unique file extensions, at most max */
    RC_REQFIELD_HEADER,  /* printable ASCII, min..max characters: sent as an HTTP header value */
    RC_REQFIELD_OBJECT,  /* any JSON object nested at most RC_REQFIELD_MAX_DEPTH deep */
    RC_REQFIELD_BOOL,    /* true or false */
} rc_reqfield_type;

enum rc_reqfield_flags {
    RC_REQFIELD_REQUIRED = 1,      /* required everywhere */
    RC_REQFIELD_WIRE_REQUIRED = 2, /* required in a Kafka/REST request; a job spec takes the default */
    RC_REQFIELD_WIRE_ONLY = 4,     /* only in a Kafka/REST request (uuid), not part of the job */
    RC_REQFIELD_SPEC_ONLY = 8,     /* only in a job spec (urls: a Kafka request names one url) */
};

typedef struct rc_reqfield {
    const char *name;
    rc_reqfield_type type;
    unsigned flags;             /* enum rc_reqfield_flags */
    int64_t min, max;           /* characters (strings), value (integers) or items (lists) */
    double lo, hi;              /* RC_REQFIELD_NUMBER */
    const char *const *choices; /* RC_REQFIELD_ENUM, NULL-terminated */
    const char *def;            /* JSON text of the value an absent field takes; NULL: none */
    const char *note;           /* appended to the reason of a bad value, in parentheses; NULL: none */
} rc_reqfield;

/* Where and why a value was refused. NUL-terminated valid UTF-8 without control characters. */
typedef struct rc_reqfield_error {
    char field[RC_REQFIELD_PATH_BUF];    /* JSON path: "url", "allow_regex[2]" */
    char reason[RC_REQFIELD_REASON_BUF]; /* a predicate of the field: "must be ...", "is required ..." */
} rc_reqfield_error;

/* The crawl request's fields, in the order they are checked (so the error named is deterministic). */
extern const rc_reqfield rc_reqfield_crawl[];
extern const size_t rc_reqfield_crawl_len;

/* The row named NAME, NULL when none. */
const rc_reqfield *rc_reqfield_find(const rc_reqfield *rows, size_t n, const char *name);

/* Checks the present value V (borrowed; null is a type error: defaults apply to absent fields only)
 * against its row. 0, or -EINVAL with E filled. */
int rc_reqfield_check(const rc_reqfield *f, const struct json_t *v, rc_reqfield_error *e);

/* The value of an absent field: its row's default as a new JSON value, or NULL when it has none. */
struct json_t *rc_reqfield_default(const rc_reqfield *f);

/* The checks of RC_REQFIELD_URL and RC_REQFIELD_HOST that also give the normalised value: a
 * malloc'd URL in *ret_norm, a lower-case IDNA host in out. 0 or -EINVAL with E filled. */
int rc_reqfield_url(rc_reqfield_error *e, const char *path, const struct json_t *v, char **ret_norm);
int rc_reqfield_host(rc_reqfield_error *e, const char *path, const struct json_t *v, char *out, size_t cap);

/* Fills E (the reason is made valid UTF-8 without control characters) and returns -EINVAL. */
int rc_reqfield_fail(rc_reqfield_error *e, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same into any pair of buffers (a message error's field and reason): -EINVAL. */
int rc_reqfield_vset(char *field_out, size_t fcap, char *reason_out, size_t rcap, const char *field, const char *fmt,
                     va_list ap) __attribute__((format(printf, 6, 0)));
/* "an integer", "a string", "null", ... for reasons. */
const char *rc_reqfield_type_name(const struct json_t *v);
/* Copies valid UTF-8 SRC (n bytes) into dst (cap bytes), cut at a character boundary. True when all of
 * it fit. */
bool rc_reqfield_copy_utf8(char *dst, size_t cap, const char *src, size_t n);
/* Copies arbitrary bytes into dst as valid UTF-8 without control characters ('?' for each bad byte). */
void rc_reqfield_sanitize(char *dst, size_t cap, const char *src);

#endif
