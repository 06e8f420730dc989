/* strmap.h - a string-keyed hash map (open addressing, xxh3). Keys are copied; values are
 * borrowed pointers the caller owns. Used for the scheduler's domain owners and the worker's
 * job and host caches. */
#ifndef RC_STRMAP_H
#define RC_STRMAP_H

#include <stddef.h>

typedef struct rc_strmap rc_strmap;

rc_strmap *rc_strmap_new(void);
/* free_value (may be NULL) is called on every value. */
void rc_strmap_free(rc_strmap *m, void (*free_value)(void *));
/* Returns the value or NULL. */
void *rc_strmap_get(const rc_strmap *m, const char *key);
/* Sets key to value and returns the previous value (NULL if none). */
void *rc_strmap_put(rc_strmap *m, const char *key, void *value);
/* Removes key and returns its value (NULL if absent). */
void *rc_strmap_del(rc_strmap *m, const char *key);
/* Removes every key for which drop(key, value, ctx) is true, after calling free_value (may be
 * NULL) on its value; returns how many went. */
size_t rc_strmap_del_if(rc_strmap *m, int (*drop)(const char *key, void *value, const void *ctx), const void *ctx,
                        void (*free_value)(void *));
size_t rc_strmap_count(const rc_strmap *m);
/* Iteration: *it starts at 0; returns 0 at the end. */
int rc_strmap_next(const rc_strmap *m, size_t *it, const char **ret_key, void **ret_value);

#endif
