/* config.c - see config.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const rc_conf_row *find_row(const rc_conf_row *rows, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(rows[i].name) == len && strncmp(rows[i].name, name, len) == 0)
            return &rows[i];
    return NULL;
}

static int set_row(const rc_conf_row *row, void *conf, const char *value, char *err, size_t cap)
{
    char *field = (char *)conf + row->offset;
    switch (row->type) {
    case RC_CONF_INT: {
        int64_t v;
        if (rc_parse_i64(value, (int64_t)row->min, (int64_t)row->max, &v) < 0) {
            snprintf(err, cap, "--%s: '%s' is not a whole number from %.0f to %.0f", row->name, value, row->min,
                     row->max);
            return -EINVAL;
        }
        *(int64_t *)field = v;
        return 0;
    }
    case RC_CONF_DOUBLE: {
        double v;
        if (rc_parse_double(value, row->min, row->max, &v) < 0) {
            snprintf(err, cap, "--%s: '%s' is not a number from %g to %g", row->name, value, row->min, row->max);
            return -EINVAL;
        }
        memcpy(field, &v, sizeof v); /* field points into the caller's struct at a double member */
        return 0;
    }
    case RC_CONF_STR: {
        char **s = (char **)field;
        free(*s);
        *s = rc_xstrdup(value);
        return 0;
    }
    case RC_CONF_LIST: {
        rc_strlist *l = (rc_strlist *)field;
        l->v = rc_xrealloc(l->v, (l->n + 1) * sizeof(char *));
        l->v[l->n++] = rc_xstrdup(value);
        return 0;
    }
    case RC_CONF_BOOL: {
        int v;
        if (strcmp(value, "1") == 0 || strcmp(value, "true") == 0 || strcmp(value, "yes") == 0)
            v = 1;
        else if (strcmp(value, "0") == 0 || strcmp(value, "false") == 0 || strcmp(value, "no") == 0)
            v = 0;
        else {
            snprintf(err, cap, "--%s: '%s' is not a boolean (1/0, true/false, yes/no)", row->name, value);
            return -EINVAL;
        }
        *(int *)field = v;
        return 0;
    }
    }
    return -EINVAL;
}

int rc_conf_init(const rc_conf_row *rows, size_t n, void *conf, char *err, size_t cap)
{
    for (size_t i = 0; i < n; i++) {
        int r;
        if (rows[i].def && (r = set_row(&rows[i], conf, rows[i].def, err, cap)) < 0)
            return r;
    }
    for (size_t i = 0; i < n; i++) {
        const char *v = rows[i].env ? getenv(rows[i].env) : NULL;
        if (!v || !*v)
            continue;
        if (rows[i].type == RC_CONF_LIST) {
            /* A list from the environment is comma-separated. */
            char *copy = rc_xstrdup(v), *save = NULL;
            for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
                set_row(&rows[i], conf, tok, err, cap);
            free(copy);
            continue;
        }
        if (set_row(&rows[i], conf, v, err, cap) < 0) {
            char inner[256];
            snprintf(inner, sizeof inner, "%s", err);
            snprintf(err, cap, "environment %s: %s", rows[i].env, inner);
            return -EINVAL;
        }
    }
    return 0;
}

int rc_conf_set(const rc_conf_row *rows, size_t n, void *conf, const char *name, const char *value, char *err,
                size_t cap)
{
    const rc_conf_row *row = find_row(rows, n, name, strlen(name));
    if (!row) {
        snprintf(err, cap, "unknown option --%s", name);
        return -ENOENT;
    }
    return set_row(row, conf, value, err, cap);
}

/* One option at argv[*i] (its value may be the next argument, *i then moves onto it). */
static int argv_option(const rc_conf_row *rows, size_t n, void *conf, int argc, char **argv, int *i, char *err,
                       size_t cap)
{
    const char *name = argv[*i] + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const rc_conf_row *row = find_row(rows, n, name, len);
    if (!row) {
        snprintf(err, cap, "unknown option --%.*s (see --help)", (int)len, name);
        return -ENOENT;
    }
    const char *value;
    if (eq)
        value = eq + 1;
    else if (row->type == RC_CONF_BOOL)
        value = "1";
    else if (*i + 1 < argc)
        value = argv[++*i];
    else {
        snprintf(err, cap, "--%s needs a value", row->name);
        return -EINVAL;
    }
    return set_row(row, conf, value, err, cap);
}

/* Options may come after the arguments too ("crawl URL --workers 2"), as with GNU getopt:
 * argv[1..] is reordered, options (with "--" if given) first, the arguments after them in
 * their order. */
int rc_conf_argv(const rc_conf_row *rows, size_t n, void *conf, int argc, char **argv, int *ret_optind, char *err,
                 size_t cap)
{
    char **args = rc_xmalloc((size_t)(argc > 0 ? argc : 1) * sizeof *args);
    int nargs = 0, o = 1, i = 1, r = 0;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            break;
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
            args[nargs++] = argv[i];
            continue;
        }
        int at = i;
        if ((r = argv_option(rows, n, conf, argc, argv, &i, err, cap)) < 0)
            break;
        for (int k = at; k <= i; k++) /* the option and its value: o <= at, nothing overwritten */
            argv[o++] = argv[k];
    }
    if (r == 0) {
        if (i < argc)
            argv[o++] = argv[i++]; /* "--": what follows is arguments */
        *ret_optind = o;
        memcpy(argv + o, args, (size_t)nargs * sizeof *args);
        if (i < argc) /* argc may be 0 (an empty argv) */
            memmove(argv + o + nargs, argv + i, (size_t)(argc - i) * sizeof *argv);
    }
    free(args);
    return r;
}

void rc_conf_release(const rc_conf_row *rows, size_t n, void *conf)
{
    for (size_t i = 0; i < n; i++) {
        char *field = (char *)conf + rows[i].offset;
        if (rows[i].type == RC_CONF_STR) {
            free(*(char **)field);
            *(char **)field = NULL;
        } else if (rows[i].type == RC_CONF_LIST) {
            rc_strlist *l = (rc_strlist *)field;
            for (size_t j = 0; j < l->n; j++)
                free(l->v[j]);
            free(l->v);
            l->v = NULL;
            l->n = 0;
        }
    }
}

void rc_conf_usage(FILE *f, const rc_conf_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const rc_conf_row *r = &rows[i];
        char left[64];
        snprintf(left, sizeof left, "--%s%s", r->name,
                 r->type == RC_CONF_BOOL   ? ""
                 : r->type == RC_CONF_LIST ? " X (repeatable)"
                                           : " X");
        fprintf(f, "  %-30s %s", left, r->help);
        if (r->def)
            fprintf(f, " (default %s)", r->def);
        if (r->env)
            fprintf(f, " [env %s]", r->env);
        fputc('\n', f);
    }
}

int rc_conf_cmdline(const rc_conf_row *rows, size_t n, void *conf, int argc, char **argv, const char *prog,
                    const char *usage, int *ret_optind, int *ret_status)
{
    char err[512];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            rc_conf_usage(stdout, rows, n);
            *ret_status = 0;
            return 1;
        }
    }
    if (rc_conf_init(rows, n, conf, err, sizeof err) < 0 ||
        rc_conf_argv(rows, n, conf, argc, argv, ret_optind, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        rc_conf_release(rows, n, conf); /* the options read before the bad one */
        *ret_status = 2;
        return 1;
    }
    return 0;
}
