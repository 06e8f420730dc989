/* test_json.c - rc_json_array_top: an array sorted in place and cut to its first N, the
 * elements kept being the very ones given (references, not copies), the others released. */
#include <jansson.h>
#include <stdio.h>

#include "json.h"
#include "rc_test.h"

static int by_n_desc(const json_t *a, const json_t *b)
{
    json_int_t x = json_integer_value(json_object_get(a, "n")), y = json_integer_value(json_object_get(b, "n"));
    return x < y ? 1 : x > y ? -1 : 0;
}

/* [{"n": 3}, {"n": 9}, {"n": 1}, {"n": 7}, {"n": 5}] */
static json_t *five(void)
{
    json_t *a = json_array();
    const int ns[] = {3, 9, 1, 7, 5};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        json_array_append_new(a, json_pack("{s:i}", "n", ns[i]));
    return a;
}

static long long n_at(const json_t *a, size_t i)
{
    return json_integer_value(json_object_get(json_array_get(a, i), "n"));
}

static void test_top_three(void)
{
    json_t *a = five();
    json_t *nine = json_incref(json_array_get(a, 1)), *one = json_incref(json_array_get(a, 2));
    rc_json_array_top(a, by_n_desc, 3);
    RC_CHECK_INT_EQ((long long)json_array_size(a), 3);
    RC_CHECK_INT_EQ(n_at(a, 0), 9);
    RC_CHECK_INT_EQ(n_at(a, 1), 7);
    RC_CHECK_INT_EQ(n_at(a, 2), 5);
    RC_CHECK(json_array_get(a, 0) == nine); /* the element itself, not a copy */
    RC_CHECK_INT_EQ((long long)nine->refcount, 2);
    RC_CHECK_INT_EQ((long long)one->refcount, 1); /* dropped: only this test holds it now */
    json_decref(nine);
    json_decref(one);
    json_decref(a);
}

/* N at or past the size sorts and keeps all; 0 keeps none; an empty array stays empty. */
static void test_bounds(void)
{
    json_t *a = five();
    rc_json_array_top(a, by_n_desc, 100);
    RC_CHECK_INT_EQ((long long)json_array_size(a), 5);
    for (size_t i = 0; i + 1 < json_array_size(a); i++)
        RC_CHECK(n_at(a, i) > n_at(a, i + 1));
    rc_json_array_top(a, by_n_desc, 5);
    RC_CHECK_INT_EQ((long long)json_array_size(a), 5);
    RC_CHECK_INT_EQ(n_at(a, 4), 1);
    rc_json_array_top(a, by_n_desc, 0);
    RC_CHECK_INT_EQ((long long)json_array_size(a), 0);
    rc_json_array_top(a, by_n_desc, 3);
    RC_CHECK_INT_EQ((long long)json_array_size(a), 0);
    json_decref(a);
}

int main(void)
{
    test_top_three();
    test_bounds();
    return rc_test_done("test_json");
}
