/* seeds.h - a seed list of any length, read from a file or stdin (one URL a line): the URLs
 * normalised and kept in one buffer, and the set of their registrable domains (the job's
 * default scope). Bad lines are reported with their line number and skipped. */
#ifndef RC_SEEDS_H
#define RC_SEEDS_H

#include <stddef.h>
#include <stdio.h>

typedef struct rc_seeds rc_seeds;

/* Called for a line that is not an http(s) URL: its number (from 1), its text (borrowed, no
 * newline) and why. */
typedef void (*rc_seeds_bad_fn)(void *ud, size_t line, const char *text, const char *why);

rc_seeds *rc_seeds_new(void);
void rc_seeds_free(rc_seeds *s);

/* Adds one URL (copied, normalised). -EINVAL with why in err when it is not a seed. */
int rc_seeds_add(rc_seeds *s, const char *url, char *err, size_t cap);

/* Reads f to its end: a URL a line; surrounding blanks, empty lines and lines starting with
 * '#' are ignored; a bad line goes to bad (may be NULL) and is skipped. 0, or -errno when f
 * cannot be read. */
int rc_seeds_read(rc_seeds *s, FILE *f, rc_seeds_bad_fn bad, void *ud);

size_t rc_seeds_count(const rc_seeds *s);
/* The URLs in the order read, as an array of borrowed strings valid until the next add. */
const char *const *rc_seeds_urls(rc_seeds *s);
/* The distinct registrable domains of the URLs, in order of first appearance. */
size_t rc_seeds_ndomains(const rc_seeds *s);
const char *rc_seeds_domain(const rc_seeds *s, size_t i);

#endif
