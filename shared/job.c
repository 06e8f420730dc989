/* job.c - see job.h. */
#include "job.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain.h"
#include "reqfield.h"
#include "url.h"
#include "util.h"

/* "field reason", the sentence Kafka's answers carry after "invalid crawl request: ". */
static int fail(char *err, size_t cap, const char *field, const char *why)
{
    snprintf(err, cap, "%s %s", field, why);
    return -EINVAL;
}

static void add_unique(char ***list, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*list)[i], s) == 0)
            return;
    *list = rc_xrealloc(*list, (*n + 1) * sizeof(char *));
    (*list)[(*n)++] = rc_xstrdup(s);
}

/* Checks every field against the crawl request table (reqfield.c), the one Kafka's messages are
 * checked with, and fills the defaults of absent fields into root: the steps below read values
 * that are valid and present. */
static int check_fields(json_t *root, char *err, size_t cap)
{
    rc_reqfield_error e;
    for (size_t i = 0; i < rc_reqfield_crawl_len; i++) {
        const rc_reqfield *f = &rc_reqfield_crawl[i];
        if (f->flags & RC_REQFIELD_WIRE_ONLY)
            continue;
        json_t *v = json_object_get(root, f->name);
        if (v && rc_reqfield_check(f, v, &e) < 0)
            return fail(err, cap, e.field, e.reason);
        if (!v && (f->flags & RC_REQFIELD_REQUIRED))
            return fail(err, cap, f->name, "is required in a crawl request");
        json_t *d = v ? NULL : rc_reqfield_default(f);
        if (d)
            json_object_set_new(root, f->name, d);
    }
    return 0;
}

static char *str_of(const json_t *root, const char *key)
{
    const char *s = json_string_value(json_object_get(root, key));
    return s ? rc_xstrdup(s) : NULL;
}

static int64_t int_of(const json_t *root, const char *key)
{
    return json_integer_value(json_object_get(root, key));
}

static int flag_of(const json_t *root, const char *key)
{
    return json_is_true(json_object_get(root, key));
}

/* A checked array of strings (or null: none). */
static void list_of(const json_t *root, const char *key, char ***out, size_t *n)
{
    size_t i;
    json_t *s;
    json_array_foreach (json_object_get(root, key), i, s) {
        add_unique(out, n, json_string_value(s));
    }
}

/* A checked object as compact JSON, NULL when null or, for rules, {} (which asks for nothing). */
static char *object_of(const json_t *root, const char *key)
{
    json_t *o = json_object_get(root, key);
    if (!json_is_object(o) || (strcmp(key, "rules") == 0 && json_object_size(o) == 0))
        return NULL;
    return json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
}

static void add_seed(rc_job *j, const json_t *url)
{
    char *norm = NULL;
    rc_reqfield_error e;
    if (rc_reqfield_url(&e, "url", url, &norm) == 0) /* checked already: cannot fail */
        add_unique(&j->seeds, &j->n_seeds, norm);
    free(norm);
}

/* "url" and "urls" give the seeds: at least one. */
static int read_seeds(rc_job *j, const json_t *root, char *err, size_t cap)
{
    json_t *url = json_object_get(root, "url");
    if (url)
        add_seed(j, url);
    size_t i;
    json_t *u;
    json_array_foreach (json_object_get(root, "urls"), i, u) {
        add_seed(j, u);
    }
    if (j->n_seeds == 0)
        return fail(err, cap, "url", "is required in a crawl request: give url or urls (at least one http(s) URL)");
    return 0;
}

/* allowed_domains (normalised), else the registrable domains of every seed. */
static void read_scope(rc_job *j, const json_t *root)
{
    size_t i;
    json_t *d;
    json_array_foreach (json_object_get(root, "allowed_domains"), i, d) {
        char host[RC_REQFIELD_HOST_BUF];
        rc_reqfield_error e;
        if (rc_reqfield_host(&e, "allowed_domains", d, host, sizeof host) == 0)
            add_unique(&j->scope, &j->n_scope, host);
    }
    if (j->n_scope > 0)
        return;
    for (i = 0; i < j->n_seeds; i++) {
        char host[256], reg[256];
        if (rc_url_host(j->seeds[i], host, sizeof host) == 0 && rc_domain_registrable(host, reg, sizeof reg) == 0)
            add_unique(&j->scope, &j->n_scope, reg);
    }
}

/* The values of a checked spec (defaults filled in). */
static void read_fields(rc_job *j, const json_t *root)
{
    j->crawlid = str_of(root, "crawlid");
    j->appid = str_of(root, "appid");
    j->spiderid = str_of(root, "spiderid");
    j->useragent = str_of(root, "useragent");
    j->cookie = str_of(root, "cookie");
    j->maxdepth = (int)int_of(root, "maxdepth");
    j->priority = (int)int_of(root, "priority");
    j->max_pages = int_of(root, "max_pages");
    j->expires = int_of(root, "expires");
    j->domain_max_pages = int_of(root, "domain_max_pages");
    list_of(root, "allow_regex", &j->allow_regex, &j->n_allow_regex);
    list_of(root, "deny_regex", &j->deny_regex, &j->n_deny_regex);
    list_of(root, "deny_extensions", &j->deny_extensions, &j->n_deny_extensions);
    j->has_deny_extensions = json_is_array(json_object_get(root, "deny_extensions"));
    list_of(root, "data_pages", &j->data_pages, &j->n_data_pages);
    list_of(root, "jump_links", &j->jump_links, &j->n_jump_links);
    j->refresh_seconds = int_of(root, "refresh_seconds");
    j->expected_urls = int_of(root, "expected_urls");
    j->bloom_fp = json_number_value(json_object_get(root, "bloom_fp"));
    j->bloom_groups = int_of(root, "bloom_groups");
    /* Rules are compiled where the job is used (rc_page_job) and checked by its entry points
     * (rc_rules_check): this layer does not know XPath. */
    j->rules = object_of(root, "rules");
    j->attrs = object_of(root, "attrs");
    j->text = flag_of(root, "text");
    j->text_method = str_of(root, "text_method");
    j->dedup_content = flag_of(root, "dedup_content");
    j->warc = flag_of(root, "warc");
    j->body = flag_of(root, "body");
    j->sitemaps = flag_of(root, "sitemaps");
    j->dedup_canonical = flag_of(root, "dedup_canonical");
    j->skip_recent_hours = int_of(root, "skip_recent_hours");
    j->body_max = int_of(root, "body_max");
    j->meta_refresh_max = int_of(root, "meta_refresh_max");
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
    if ((r = check_fields(root, err, cap)) < 0)
        goto fail;
    read_fields(&j, root);
    if ((r = read_seeds(&j, root, err, cap)) < 0)
        goto fail;
    read_scope(&j, root);
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
    if (j->text_method)
        json_object_set_new(o, "text_method", json_string(j->text_method));
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
    free(j->text_method);
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
