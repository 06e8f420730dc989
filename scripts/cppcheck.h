/* cppcheck.h - force-included by scripts/analyse.sh: the macros of system headers that cppcheck
 * does not read (missingIncludeSystem) but must understand to parse our code. A function-like
 * macro given with -D is not expanded by cppcheck 2.10: every file then failed to parse and was
 * skipped without a word. */
#define json_array_foreach(a, i, v) for (i = 0; (v = json_array_get(a, i)); i++)
#define json_object_foreach(o, k, v) for (k = json_object_iter_key(json_object_iter(o)); (v = 0);)
