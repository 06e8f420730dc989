/* scripts.c - see scripts.h. */
#include "scripts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int rc_lua_check(rc_lua_id id, int n, char *err, size_t cap)
{
    if (id < 0 || id >= RC_LUA_COUNT) {
        snprintf(err, cap, "no Lua script number %d", (int)id);
        return -EINVAL;
    }
    const rc_lua_script *s = &rc_lua_scripts[id];
    int lo = s->nfixed, hi = s->nfixed + s->nopt;
    if (n >= lo && (s->rest || n <= hi))
        return 0;
    if (s->rest)
        snprintf(err, cap, "%s.lua takes at least %d arguments, got %d", s->name, lo, n);
    else if (lo == hi)
        snprintf(err, cap, "%s.lua takes %d arguments, got %d", s->name, lo, n);
    else
        snprintf(err, cap, "%s.lua takes %d to %d arguments, got %d", s->name, lo, hi, n);
    return -EINVAL;
}

void rc_lua_require(rc_lua_id id, int n)
{
    char err[160];
    if (rc_lua_check(id, n, err, sizeof err) == 0)
        return;
    /* A caller out of step with the script's declaration: sending it would run the script on
     * nils (or on the wrong values), so stop here, loudly, where the bug is. */
    fprintf(stderr, "redcrawl: internal error: %s\n", err);
    abort();
}
