/* test_scripts.c - the C <-> Lua argument contract (shared/lua/embed.py, scripts.h): the
 * positions C sets by name are the ARGV indexes the script reads by the same name, and a call
 * with a wrong count is caught before it is sent. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "argv.h"
#include "rc_test.h"
#include "scripts.h"

/* The script binds `name = ARGV[pos + 3]` (prefix and now come first): C's position for the
 * name must be that index. */
static void check_binding(rc_lua_id id, const char *name, int pos)
{
    char want[96];
    snprintf(want, sizeof want, "%s = ARGV[%d]", name, pos + 3);
    const char *src = rc_lua_scripts[id].source;
    RC_CHECK(strstr(src, want) != NULL);
    if (!strstr(src, want))
        fprintf(stderr, "  %s.lua does not bind %s\n", rc_lua_scripts[id].name, want);
}

static void test_bindings(void)
{
    check_binding(RC_LUA_COMPLETE, "worker", RC_COMPLETE_WORKER);
    check_binding(RC_LUA_COMPLETE, "outcome", RC_COMPLETE_OUTCOME);
    check_binding(RC_LUA_COMPLETE, "revisit", RC_COMPLETE_REVISIT);
    check_binding(RC_LUA_COMPLETE, "n", RC_COMPLETE_N);
    check_binding(RC_LUA_COMPLETE, "denied", RC_COMPLETE_DENIED);
    check_binding(RC_LUA_COMPLETE, "away", RC_COMPLETE_AWAY);
    check_binding(RC_LUA_SUBMIT, "bloom", RC_SUBMIT_BLOOM);
    check_binding(RC_LUA_TAKE, "ip", RC_TAKE_IP);
    check_binding(RC_LUA_LOCK, "ttl_ms", RC_LOCK_TTL_MS);
    check_binding(RC_LUA_MOVE, "n", RC_MOVE_N);
    check_binding(RC_LUA_FRONTIER, "crawlid", RC_FRONTIER_CRAWLID);
    /* the variable tail starts right after the named arguments */
    char rest[48];
    snprintf(rest, sizeof rest, "local A_REST = %d", RC_COMPLETE_NARGS + 3);
    RC_CHECK(strstr(rc_lua_scripts[RC_LUA_COMPLETE].source, rest) != NULL);
    RC_CHECK(strstr(rc_lua_scripts[RC_LUA_TAKE].source, "A_REST") == NULL);
}

static void test_every_script_declares(void)
{
    int seen = 0;
    for (int i = 0; i < RC_LUA_COUNT; i++) {
        const rc_lua_script *s = &rc_lua_scripts[i];
        RC_CHECK(s->name && s->source && strncmp(s->source, "#!lua", 5) == 0);
        RC_CHECK(strstr(s->source, "local A = {") != NULL);
        RC_CHECK(s->nfixed >= 0 && s->nopt >= 0);
        seen++;
    }
    RC_CHECK_INT_EQ(seen, RC_LUA_COUNT);
    RC_CHECK(RC_LUA_COUNT >= 16);
}

static void test_counts(void)
{
    char err[160];
    RC_CHECK_INT_EQ(rc_lua_check(RC_LUA_TAKE, 3, err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_lua_check(RC_LUA_TAKE, 4, err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_lua_check(RC_LUA_TAKE, 2, err, sizeof err), -EINVAL);
    RC_CHECK_STR_EQ(err, "take.lua takes 3 to 4 arguments, got 2");
    RC_CHECK_INT_EQ(rc_lua_check(RC_LUA_TAKE, 5, err, sizeof err), -EINVAL);
    RC_CHECK_INT_EQ(rc_lua_check(RC_LUA_STOP, 2, err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_lua_check(RC_LUA_STOP, 3, err, sizeof err), -EINVAL);
    RC_CHECK_STR_EQ(err, "stop.lua takes 2 arguments, got 3");
    RC_CHECK_INT_EQ(rc_lua_check(RC_LUA_COMPLETE, RC_COMPLETE_NARGS, err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_lua_check(RC_LUA_COMPLETE, RC_COMPLETE_NARGS + 50, err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_lua_check(RC_LUA_COMPLETE, RC_COMPLETE_NARGS - 1, err, sizeof err), -EINVAL);
    RC_CHECK_STR_EQ(err, "complete.lua takes at least 15 arguments, got 14");
    RC_CHECK_INT_EQ(rc_lua_check(RC_LUA_STAT, 0, err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_lua_check(RC_LUA_FRONTIER, 0, err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_lua_check(RC_LUA_COUNT, 0, err, sizeof err), -EINVAL);
}

/* Arguments set by name in any order land where the script reads them. */
static void test_argv_set(void)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_setu(&a, RC_MOVE_N, 7);
    RC_CHECK_INT_EQ(a.n, RC_MOVE_NARGS);
    RC_CHECK_INT_EQ(a.len[RC_MOVE_FROM], 0);
    rc_argv_set(&a, RC_MOVE_TO, "w2");
    rc_argv_set(&a, RC_MOVE_FROM, "w1");
    rc_argv_set(&a, RC_MOVE_FROM, "w9"); /* set twice: the last wins */
    RC_CHECK_STR_EQ(a.v[RC_MOVE_FROM], "w9");
    RC_CHECK_STR_EQ(a.v[RC_MOVE_TO], "w2");
    RC_CHECK_STR_EQ(a.v[RC_MOVE_N], "7");
    rc_argv_seti(&a, RC_MOVE_N, -3);
    RC_CHECK_STR_EQ(a.v[RC_MOVE_N], "-3");
    RC_CHECK_INT_EQ(a.n, RC_MOVE_NARGS);
    rc_argv_add(&a, "tail");
    RC_CHECK_INT_EQ(a.n, RC_MOVE_NARGS + 1);
    rc_argv_release(&a);
}

int main(void)
{
    test_bindings();
    test_every_script_declares();
    test_counts();
    test_argv_set();
    return rc_test_done("test_scripts");
}
