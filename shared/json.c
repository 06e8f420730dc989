/* json.c - see json.h. */
#include "json.h"

#include <jansson.h>
#include <stdlib.h>

#include "util.h"

/* qsort_r's context: the caller's order (a function pointer, which a void * may not hold). */
typedef struct json_order {
    rc_json_cmp cmp;
} json_order;

static int by_order(const void *a, const void *b, void *ctx)
{
    const json_order *o = ctx;
    return o->cmp(*(json_t *const *)a, *(json_t *const *)b);
}

void rc_json_array_top(json_t *arr, rc_json_cmp cmp, size_t n)
{
    size_t len = json_array_size(arr);
    json_t **v = rc_xcalloc(len ? len : 1, sizeof *v);
    for (size_t i = 0; i < len; i++)
        v[i] = json_incref(json_array_get(arr, i));
    json_order o = {cmp};
    qsort_r(v, len, sizeof *v, by_order, &o);
    json_array_clear(arr);
    for (size_t i = 0; i < len; i++) {
        if (i < n)
            json_array_append(arr, v[i]);
        json_decref(v[i]);
    }
    free(v);
}
