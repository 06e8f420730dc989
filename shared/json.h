/* json.h - what several modules do to jansson values: an array's first N in an order (the
 * busiest hosts of every shard, the newest failures of every shard). */
#ifndef RC_JSON_H
#define RC_JSON_H

#include <stddef.h>

struct json_t;

/* An order of two array elements, as qsort's: negative when a goes first. */
typedef int (*rc_json_cmp)(const struct json_t *a, const struct json_t *b);

/* Sorts ARR (a JSON array, changed in place) by CMP and keeps its first N elements; the others
 * are dropped (their references released). Equal elements may come in any order. */
void rc_json_array_top(struct json_t *arr, rc_json_cmp cmp, size_t n);

#endif
