/* resume.h - what `redcrawl crawl` keeps in its output directory so that an interrupted crawl
 * can go on with `redcrawl crawl --resume OUT`: OUT/crawl.json holds the job's id, its settings
 * (every option's value, as the option table reads them), its URL arguments, whether its seeds
 * all went in, and how the last run ended; OUT/seeds.txt a --seeds list; OUT/redis/ the private
 * Redis' data (proc.h); OUT/crawl.pid the main process of the crawl that holds OUT's lock. */
#ifndef RC_CLI_RESUME_H
#define RC_CLI_RESUME_H

#include <stddef.h>

#include "config.h"

struct json_t;

/* How the last run on an OUT ended, as crawl.json says: "running" (still running, or it died:
 * resumable), "paused" (Ctrl-C: resumable), "stopped" (Ctrl-C with --redis: the job was stopped
 * in that Redis) or "finished" (done, or --max-pages). */
#define RC_RESUME_RUNNING "running"
#define RC_RESUME_PAUSED "paused"
#define RC_RESUME_STOPPED "stopped"
#define RC_RESUME_FINISHED "finished"

/* A crawl's saved state, a value (rc_resume_release frees its members). */
typedef struct rc_resume {
    char *crawlid;
    char *state;    /* one of RC_RESUME_* */
    int seeds_sent; /* every seed is in the job: a resume submits nothing */
    char **urls;    /* the URL arguments */
    size_t n_urls;
    struct json_t *options; /* {option: value}, owned */
    char *not_saved;        /* comma list of options not written (they held credentials), or NULL */
} rc_resume;

/* OUT/crawl.json's path and OUT/redis (malloc'd). */
char *rc_resume_file(const char *out);
char *rc_resume_redis_dir(const char *out);

/* Fills st from rows' values in conf (every row but "out" and "resume"; a string with
 * credentials, "user:pass@", left out and named in not_saved) and the URL arguments
 * (copied). */
void rc_resume_capture(rc_resume *st, const rc_conf_row *rows, size_t n, const void *conf, const char *crawlid,
                       char *const *urls, size_t n_urls);
/* Writes st to OUT/crawl.json (a temporary file renamed over it). 0, or -errno with err. */
int rc_resume_save(const char *out, const rc_resume *st, char *err, size_t cap);
/* Reads OUT/crawl.json into st. 0, or -errno (-ENOENT: no crawl there) with err. */
int rc_resume_load(const char *out, rc_resume *st, char *err, size_t cap);
/* Sets crawl.json's state (and seeds_sent when >= 0). 0, or -errno with err. */
int rc_resume_mark(const char *out, const char *state, int seeds_sent, char *err, size_t cap);
void rc_resume_release(rc_resume *st);

/* A row's value in conf as JSON (new reference); NULL for an unset string. */
struct json_t *rc_resume_row_json(const rc_conf_row *row, const void *conf);
/* Sets each saved option of st in conf (a list replaces the list there). 0, or -EINVAL with err. */
int rc_resume_apply(const rc_resume *st, const rc_conf_row *rows, size_t n, void *conf, char *err, size_t cap);
/* Copies option name's value from conf `from` to conf `to` (a list replaces the list). */
void rc_resume_copy_option(const rc_conf_row *rows, size_t n, const char *name, const void *from, void *to);
/* 1 when option name's value in conf equals the saved one (or both are unset). */
int rc_resume_same(const rc_resume *st, const rc_conf_row *rows, size_t n, const char *name, const void *conf);
/* Whether --name appears among the options argv[1..optind) (a value of another option aside). */
int rc_resume_given(const rc_conf_row *rows, size_t n, int optind, char **argv, const char *name);

/* Locks OUT for this crawl (flock on the directory, made if missing): the descriptor, which the
 * crawl's children inherit on purpose (the lock lasts until the last process of the crawl, its
 * Redis included, is gone), this process noted in OUT/crawl.pid as its holder; or -EBUSY when
 * another crawl holds it, -EAGAIN when a killed crawl's processes still hold it (its main process
 * gone: they are ending, a try again soon can succeed), -errno else, with err. */
int rc_resume_lock(const char *out, char *err, size_t cap);
/* Closes rc_resume_lock's descriptor at the crawl's end (its children gone), OUT/crawl.pid
 * removed. */
void rc_resume_unlock(const char *out, int fd);

/* Removes OUT/redis and what it holds (a finished crawl's state, no longer needed). 0 or -errno. */
int rc_resume_drop_redis(const char *out);

#endif
