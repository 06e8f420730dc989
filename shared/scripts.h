/* scripts.h - the Lua scripts of the hot paths, embedded at build time from shared/lua/. */
#ifndef RC_SCRIPTS_H
#define RC_SCRIPTS_H

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
    RC_LUA_COUNT
} rc_lua_id;

typedef struct rc_lua_script {
    const char *name;
    const char *source;
} rc_lua_script;

extern const rc_lua_script rc_lua_scripts[RC_LUA_COUNT];

#endif
