/* config.h - configuration as a table (redis static_configs[], nginx ngx_command_t): rows of
 * {name, type, offset, default, min, max, env, help} fill a plain struct from defaults, the
 * environment and argv alike, with errors that name the option. */
#ifndef RC_CONFIG_H
#define RC_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum rc_conf_type {
    RC_CONF_INT,    /* int64_t */
    RC_CONF_DOUBLE, /* double */
    RC_CONF_STR,    /* char * (malloc'd, NULL when unset) */
    RC_CONF_LIST,   /* rc_strlist, repeatable option */
    RC_CONF_BOOL,   /* int flag: --name sets 1, no value */
} rc_conf_type;

typedef struct rc_strlist {
    char **v;
    size_t n;
} rc_strlist;

typedef struct rc_conf_row {
    const char *name; /* option name without "--" */
    rc_conf_type type;
    size_t offset;   /* offsetof the field in the config struct */
    const char *def; /* default as text, NULL = none */
    double min, max; /* range for numbers */
    const char *env; /* environment variable read before argv, NULL = none */
    const char *help;
} rc_conf_row;

/* Applies defaults then the environment. 0 or -EINVAL with a message naming the option. */
int rc_conf_init(const rc_conf_row *rows, size_t n, void *conf, char *err, size_t cap);
/* Parses --name value / --name=value options anywhere in argv[1..] up to "--", and reorders
 * argv so that the other arguments come last, from *ret_optind, in their order. */
int rc_conf_argv(const rc_conf_row *rows, size_t n, void *conf, int argc, char **argv, int *ret_optind, char *err,
                 size_t cap);
/* Sets one option from text. -ENOENT for an unknown name, -EINVAL for a bad value. */
int rc_conf_set(const rc_conf_row *rows, size_t n, void *conf, const char *name, const char *value, char *err,
                size_t cap);
void rc_conf_release(const rc_conf_row *rows, size_t n, void *conf);
void rc_conf_usage(FILE *f, const rc_conf_row *rows, size_t n);
/* A program's option prologue, one for every command and daemon. --help or -h anywhere in
 * argv[1..] prints USAGE (the usage line and what the program does) and the option table to
 * stdout; else rc_conf_init then rc_conf_argv set conf and *ret_optind. 0 to go on, or 1 when
 * the program is to end with exit status *ret_status: 0 after the help, 2 after "PROG: message"
 * on stderr. Whatever it returns, conf is for rc_conf_release (the help leaves it untouched). */
int rc_conf_cmdline(const rc_conf_row *rows, size_t n, void *conf, int argc, char **argv, const char *prog,
                    const char *usage, int *ret_optind, int *ret_status);

#endif
