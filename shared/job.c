/* job.c - see job.h. */
#include "job.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain.h"
#include "recent.h"
#include "url.h"
#include "util.h"

static int fail(char *err, size_t cap, const char *field, const char *why)
{
    snprintf(err, cap, "%s: %s", field, why);
    return -EINVAL;
}

/* An optional id (appid, spiderid); the same rule as crawlid and the Kafka validator. */
static int get_id(json_t *root, const char *key, char **out, char *err, size_t cap)
{
    char why[160];
    json_t *v = json_object_get(root, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v) || rc_id_check(json_string_value(v), RC_JOB_ID_MAX, why, sizeof why) < 0)
        return fail(err, cap, key, json_is_string(v) ? why : "must be a string");
    *out = rc_xstrdup(json_string_value(v));
    return 0;
}

static void add_unique(char ***list, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*list)[i], s) == 0)
            return;
    *list = rc_xrealloc(*list, (*n + 1) * sizeof(char *));
    (*list)[(*n)++] = rc_xstrdup(s);
}

static int get_int(json_t *root, const char *key, int64_t min, int64_t max, int64_t def, int64_t *out, char *err,
                   size_t cap)
{
    json_t *v = json_object_get(root, key);
    if (!v || json_is_null(v)) {
        *out = def;
        return 0;
    }
    if (!json_is_integer(v))
        return fail(err, cap, key, "must be an integer");
    int64_t x = json_integer_value(v);
    if (x < min || x > max) {
        char why[96];
        snprintf(why, sizeof why, "must be between %lld and %lld", (long long)min, (long long)max);
        return fail(err, cap, key, why);
    }
    *out = x;
    return 0;
}

/* An optional boolean, false when absent. */
static int get_flag(json_t *root, const char *key, int *out, char *err, size_t cap)
{
    json_t *v = json_object_get(root, key);
    if (v && !json_is_boolean(v) && !json_is_null(v))
        return fail(err, cap, key, "must be true or false");
    *out = json_is_true(v);
    return 0;
}

static int get_str(json_t *root, const char *key, size_t max, char **out, char *err, size_t cap)
{
    json_t *v = json_object_get(root, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return fail(err, cap, key, "must be a string");
    if (json_string_length(v) > max)
        return fail(err, cap, key, "too long");
    *out = rc_xstrdup(json_string_value(v));
    return 0;
}

/* An optional array of strings; each must pass ok() when given. */
static int get_str_list(json_t *root, const char *key, size_t max_n, char ***out, size_t *n, int *present, char *err,
                        size_t cap)
{
    json_t *v = json_object_get(root, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_array(v) || json_array_size(v) > max_n) {
        char why[96];
        snprintf(why, sizeof why, "must be an array of at most %zu strings", max_n);
        return fail(err, cap, key, why);
    }
    if (present)
        *present = 1;
    size_t i;
    json_t *e;
    json_array_foreach (v, i, e) {
        if (!json_is_string(e) || json_string_length(e) == 0 || json_string_length(e) > 1024)
            return fail(err, cap, key, "must contain only non-empty strings of at most 1024 bytes");
        add_unique(out, n, json_string_value(e));
    }
    return 0;
}

static int add_seed(rc_job *j, const char *url, char *err, size_t cap)
{
    char *norm = NULL;
    if (rc_url_has_userinfo(url))
        return fail(err, cap, "url", "must not carry credentials (user:password@): they would be dropped");
    int r = rc_url_normalize(url, &norm);
    if (r < 0) {
        char why[160];
        snprintf(why, sizeof why, "%s: %s", url, rc_url_strerror(r));
        return fail(err, cap, "url", why);
    }
    add_unique(&j->seeds, &j->n_seeds, norm);
    free(norm);
    return 0;
}

int rc_job_parse(const char *json, size_t len, rc_job *ret, char *err, size_t cap)
{
    json_error_t jerr;
    rc_job j;
    memset(&j, 0, sizeof j);
    int r = -EINVAL;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        snprintf(err, cap, "not valid JSON: %s at line %d column %d", jerr.text, jerr.line, jerr.column);
        return -EINVAL;
    }
    if (!json_is_object(root)) {
        r = fail(err, cap, "request", "must be a JSON object");
        goto fail;
    }
    json_t *v = json_object_get(root, "crawlid");
    if (!json_is_string(v)) {
        r = fail(err, cap, "crawlid", "required: 1-40 letters, digits, '.', '_' or '-'");
        goto fail;
    }
    if ((r = get_id(root, "crawlid", &j.crawlid, err, cap)) < 0 ||
        (r = get_id(root, "appid", &j.appid, err, cap)) < 0 ||
        (r = get_id(root, "spiderid", &j.spiderid, err, cap)) < 0 ||
        (r = get_str(root, "useragent", 1000, &j.useragent, err, cap)) < 0 ||
        (r = get_str(root, "cookie", 8192, &j.cookie, err, cap)) < 0)
        goto fail;
    if (!j.appid)
        j.appid = rc_xstrdup("redcrawl");
    if (!j.spiderid)
        j.spiderid = rc_xstrdup("link");

    v = json_object_get(root, "url");
    if (v && !json_is_string(v)) {
        r = fail(err, cap, "url", "must be a string");
        goto fail;
    }
    if (v && (r = add_seed(&j, json_string_value(v), err, cap)) < 0)
        goto fail;
    json_t *urls = json_object_get(root, "urls");
    if (urls) {
        size_t i;
        json_t *u;
        if (!json_is_array(urls) || json_array_size(urls) > RC_JOB_MAX_SEEDS) {
            r = fail(err, cap, "urls", "must be an array of at most 1000 URL strings");
            goto fail;
        }
        json_array_foreach (urls, i, u) {
            if (!json_is_string(u)) {
                r = fail(err, cap, "urls", "must contain only strings");
                goto fail;
            }
            if ((r = add_seed(&j, json_string_value(u), err, cap)) < 0)
                goto fail;
        }
    }
    if (j.n_seeds == 0) {
        r = fail(err, cap, "url", "required: at least one http(s) URL");
        goto fail;
    }

    int64_t x;
    if ((r = get_int(root, "maxdepth", -1, 1000, 0, &x, err, cap)) < 0)
        goto fail;
    j.maxdepth = (int)x;
    if ((r = get_int(root, "priority", 1, 100, 50, &x, err, cap)) < 0)
        goto fail;
    j.priority = (int)x;
    if ((r = get_int(root, "max_pages", 0, INT64_C(1) << 50, 0, &j.max_pages, err, cap)) < 0 ||
        (r = get_int(root, "expires", 0, INT64_C(1) << 40, 0, &j.expires, err, cap)) < 0)
        goto fail;

    if ((r = get_int(root, "domain_max_pages", 0, INT64_C(1) << 50, 0, &j.domain_max_pages, err, cap)) < 0 ||
        (r = get_str_list(root, "allow_regex", 100, &j.allow_regex, &j.n_allow_regex, NULL, err, cap)) < 0 ||
        (r = get_str_list(root, "deny_regex", 100, &j.deny_regex, &j.n_deny_regex, NULL, err, cap)) < 0 ||
        (r = get_str_list(root, "deny_extensions", 1000, &j.deny_extensions, &j.n_deny_extensions,
                          &j.has_deny_extensions, err, cap)) < 0 ||
        (r = get_str_list(root, "data_pages", 100, &j.data_pages, &j.n_data_pages, NULL, err, cap)) < 0 ||
        (r = get_str_list(root, "jump_links", 100, &j.jump_links, &j.n_jump_links, NULL, err, cap)) < 0 ||
        (r = get_int(root, "refresh_seconds", 0, 86400 * 365, 0, &j.refresh_seconds, err, cap)) < 0 ||
        (r = get_int(root, "expected_urls", 1000, INT64_C(100000000000), 0, &j.expected_urls, err, cap)) < 0 ||
        (r = get_int(root, "bloom_groups", 1, 4, 1, &j.bloom_groups, err, cap)) < 0)
        goto fail;
    json_t *fp = json_object_get(root, "bloom_fp");
    j.bloom_fp = 1e-6;
    if (fp && !json_is_null(fp)) {
        if (!json_is_number(fp) || json_number_value(fp) <= 0 || json_number_value(fp) >= 0.5) {
            r = fail(err, cap, "bloom_fp", "must be a number between 0 and 0.5 (e.g. 0.001)");
            goto fail;
        }
        j.bloom_fp = json_number_value(fp);
    }

    json_t *rules = json_object_get(root, "rules");
    if (rules && json_is_object(rules) && json_object_size(rules) == 0)
        rules = NULL; /* {} asks for nothing: the same as no rules */
    if (rules && !json_is_null(rules)) {
        if (!json_is_object(rules)) {
            r = fail(err, cap, "rules", "must be a JSON object (the rule document)");
            goto fail;
        }
        /* Compiled where the job is used (rc_page_job) and checked by its entry points
         * (rc_rules_check): this layer does not know XPath. */
        j.rules = json_dumps(rules, JSON_COMPACT | JSON_PRESERVE_ORDER);
    }
    json_t *attrs = json_object_get(root, "attrs");
    if (attrs && !json_is_null(attrs)) {
        if (!json_is_object(attrs)) {
            r = fail(err, cap, "attrs", "must be a JSON object (copied into every page record and item)");
            goto fail;
        }
        j.attrs = json_dumps(attrs, JSON_COMPACT | JSON_PRESERVE_ORDER);
    }
    json_t *flag = json_object_get(root, "text");
    if (flag && !json_is_boolean(flag)) {
        r = fail(err, cap, "text", "must be true or false");
        goto fail;
    }
    j.text = json_is_true(flag);
    flag = json_object_get(root, "dedup_content");
    if (flag && !json_is_boolean(flag)) {
        r = fail(err, cap, "dedup_content", "must be true or false");
        goto fail;
    }
    j.dedup_content = flag ? json_is_true(flag) : 1;
    if ((r = get_flag(root, "warc", &j.warc, err, cap)) < 0 || (r = get_flag(root, "body", &j.body, err, cap)) < 0 ||
        (r = get_flag(root, "sitemaps", &j.sitemaps, err, cap)) < 0 ||
        (r = get_flag(root, "dedup_canonical", &j.dedup_canonical, err, cap)) < 0 ||
        (r = get_int(root, "skip_recent_hours", 0, RC_RECENT_MAX_HOURS, 0, &j.skip_recent_hours, err, cap)) < 0 ||
        (r = get_int(root, "body_max", 1, 64 * 1024 * 1024, 1024 * 1024, &j.body_max, err, cap)) < 0 ||
        (r = get_int(root, "meta_refresh_max", -1, 86400, 5, &j.meta_refresh_max, err, cap)) < 0)
        goto fail;

    json_t *ad = json_object_get(root, "allowed_domains");
    if (ad && !json_is_null(ad)) {
        size_t i;
        json_t *d;
        if (!json_is_array(ad) || json_array_size(ad) > RC_JOB_MAX_DOMAINS) {
            r = fail(err, cap, "allowed_domains", "must be an array of at most 1000 domain names");
            goto fail;
        }
        json_array_foreach (ad, i, d) {
            const char *s = json_string_value(d);
            if (!s || !*s || strlen(s) > 253 || strchr(s, '/') || strchr(s, ' ')) {
                r = fail(err, cap, "allowed_domains", "must contain only domain names");
                goto fail;
            }
            char *low = rc_xstrdup(s);
            rc_ascii_lower(low, strlen(low));
            add_unique(&j.scope, &j.n_scope, low);
            free(low);
        }
    }
    if (j.n_scope == 0) {
        /* Default scope: the registrable domains of every seed. */
        for (size_t i = 0; i < j.n_seeds; i++) {
            char host[256], reg[256];
            if (rc_url_host(j.seeds[i], host, sizeof host) == 0 && rc_domain_registrable(host, reg, sizeof reg) == 0)
                add_unique(&j.scope, &j.n_scope, reg);
        }
    }
    json_decref(root);
    *ret = j;
    return 0;
fail:
    json_decref(root);
    rc_job_release(&j);
    return r;
}

static json_t *str_array(char **list, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(list[i]));
    return a;
}

char *rc_job_encode(const rc_job *j)
{
    json_t *o = json_object();
    json_object_set_new(o, "crawlid", json_string(j->crawlid));
    json_object_set_new(o, "appid", json_string(j->appid));
    json_object_set_new(o, "spiderid", json_string(j->spiderid));
    json_object_set_new(o, "urls", str_array(j->seeds, j->n_seeds));
    json_object_set_new(o, "allowed_domains", str_array(j->scope, j->n_scope));
    json_object_set_new(o, "maxdepth", json_integer(j->maxdepth));
    json_object_set_new(o, "priority", json_integer(j->priority));
    json_object_set_new(o, "max_pages", json_integer(j->max_pages));
    json_object_set_new(o, "expires", json_integer(j->expires));
    if (j->useragent)
        json_object_set_new(o, "useragent", json_string(j->useragent));
    if (j->cookie)
        json_object_set_new(o, "cookie", json_string(j->cookie));
    if (j->domain_max_pages)
        json_object_set_new(o, "domain_max_pages", json_integer(j->domain_max_pages));
    if (j->n_allow_regex)
        json_object_set_new(o, "allow_regex", str_array(j->allow_regex, j->n_allow_regex));
    if (j->n_deny_regex)
        json_object_set_new(o, "deny_regex", str_array(j->deny_regex, j->n_deny_regex));
    if (j->has_deny_extensions)
        json_object_set_new(o, "deny_extensions", str_array(j->deny_extensions, j->n_deny_extensions));
    if (j->rules)
        json_object_set_new(o, "rules", json_loads(j->rules, 0, NULL));
    if (j->attrs)
        json_object_set_new(o, "attrs", json_loads(j->attrs, 0, NULL));
    if (j->text)
        json_object_set_new(o, "text", json_true());
    if (!j->dedup_content)
        json_object_set_new(o, "dedup_content", json_false());
    if (j->warc)
        json_object_set_new(o, "warc", json_true());
    if (j->sitemaps)
        json_object_set_new(o, "sitemaps", json_true());
    if (j->dedup_canonical)
        json_object_set_new(o, "dedup_canonical", json_true());
    if (j->skip_recent_hours)
        json_object_set_new(o, "skip_recent_hours", json_integer(j->skip_recent_hours));
    if (j->meta_refresh_max != 5)
        json_object_set_new(o, "meta_refresh_max", json_integer(j->meta_refresh_max));
    if (j->body) {
        json_object_set_new(o, "body", json_true());
        json_object_set_new(o, "body_max", json_integer(j->body_max));
    }
    if (j->n_data_pages)
        json_object_set_new(o, "data_pages", str_array(j->data_pages, j->n_data_pages));
    if (j->n_jump_links)
        json_object_set_new(o, "jump_links", str_array(j->jump_links, j->n_jump_links));
    if (j->refresh_seconds)
        json_object_set_new(o, "refresh_seconds", json_integer(j->refresh_seconds));
    if (j->expected_urls)
        json_object_set_new(o, "expected_urls", json_integer(j->expected_urls));
    json_object_set_new(o, "bloom_fp", json_real(j->bloom_fp));
    if (j->bloom_groups > 1)
        json_object_set_new(o, "bloom_groups", json_integer(j->bloom_groups));
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!s)
        abort();
    return s;
}

static void free_list(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

void rc_job_release(rc_job *j)
{
    free(j->crawlid);
    free(j->appid);
    free(j->spiderid);
    free_list(j->seeds, j->n_seeds);
    free_list(j->scope, j->n_scope);
    free(j->useragent);
    free(j->cookie);
    free_list(j->allow_regex, j->n_allow_regex);
    free_list(j->deny_regex, j->n_deny_regex);
    free_list(j->deny_extensions, j->n_deny_extensions);
    free(j->rules);
    free(j->attrs);
    free_list(j->data_pages, j->n_data_pages);
    free_list(j->jump_links, j->n_jump_links);
    memset(j, 0, sizeof *j);
}

int rc_job_in_scope(const rc_job *j, const char *host)
{
    return rc_domain_in_scope(host, (const char *const *)j->scope, j->n_scope);
}
