/* scripts.h - the Lua scripts of the hot paths, embedded at build time from shared/lua/. */
#ifndef RC_SCRIPTS_H
#define RC_SCRIPTS_H

#include <stddef.h>

#include "scripts_args.h"

typedef enum rc_lua_id {
    RC_LUA_SUBMIT,
    RC_LUA_TAKE,
    RC_LUA_COMPLETE,
    RC_LUA_ASSIGN,
    RC_LUA_REAP,
    RC_LUA_EXPIRE,
    RC_LUA_LOCK,
    RC_LUA_STOP,
    RC_LUA_MOVE,
    RC_LUA_REFRESH,
    RC_LUA_STAT,
    RC_LUA_HB,
    RC_LUA_HOSTS,
    RC_LUA_DRAIN,
    RC_LUA_WINDOW,
    RC_LUA_FRONTIER,
    RC_LUA_STEP,
    RC_LUA_FORWARD,
    RC_LUA_BUDGET,
    RC_LUA_BUDGETS,
    RC_LUA_ALLOW,
    RC_LUA_COUNT
} rc_lua_id;

/* A script and its argument contract, from its `--- args:` line (shared/lua/embed.py): the
 * required and optional arguments after prefix and now, and whether a variable tail follows.
 * Positions by name are in the generated scripts_args.h (RC_<SCRIPT>_<NAME>). */
typedef struct rc_lua_script {
    const char *name;
    const char *source;
    int nfixed, nopt, rest;
} rc_lua_script;

extern const rc_lua_script rc_lua_scripts[RC_LUA_COUNT];

/* Whether n arguments (after prefix and now) fit script id's declaration. A mismatch is a bug
 * in the caller: returns -EINVAL with "take.lua takes 3 to 4 arguments, got 2" in err, and the
 * call must not be sent (the script would read a missing argument as nil). */
int rc_lua_check(rc_lua_id id, int n, char *err, size_t cap);

/* rc_lua_check, for the eval paths: a mismatch aborts with the message (a bug, never data). */
void rc_lua_require(rc_lua_id id, int n);

#endif
