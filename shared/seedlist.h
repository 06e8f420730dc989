/* seedlist.h - a seed list of any length, read from a file or stdin (one URL a line): the URLs
 * normalised and kept in one buffer, and the set of their registrable domains (the job's
 * default scope). Bad lines are reported with their line number and skipped. */
#ifndef RC_SEEDLIST_H
#define RC_SEEDLIST_H

#include <stddef.h>
#include <stdio.h>

typedef struct rc_seedlist rc_seedlist;

/* Called for a line that is not an http(s) URL: its number (from 1), its text (borrowed, no
 * newline) and why. */
typedef void (*rc_seedlist_bad_fn)(void *ud, size_t line, const char *text, const char *why);

rc_seedlist *rc_seedlist_new(void);
void rc_seedlist_free(rc_seedlist *s);

/* Adds one URL (copied, normalised). -EINVAL with why in err when it is not a seed. */
int rc_seedlist_add(rc_seedlist *s, const char *url, char *err, size_t cap);

/* Reads f to its end: a URL a line; a UTF-8 byte order mark opening it, surrounding blanks,
 * empty lines and lines starting with '#' are ignored; a bad line goes to bad (may be NULL)
 * and is skipped. 0, or -errno when f cannot be read. */
int rc_seedlist_read(rc_seedlist *s, FILE *f, rc_seedlist_bad_fn bad, void *ud);

size_t rc_seedlist_count(const rc_seedlist *s);
/* The URLs in the order read, as an array of borrowed strings valid until the next add. */
const char *const *rc_seedlist_urls(rc_seedlist *s);
/* The distinct registrable domains of the URLs, in order of first appearance. */
size_t rc_seedlist_ndomains(const rc_seedlist *s);
const char *rc_seedlist_domain(const rc_seedlist *s, size_t i);

#endif
