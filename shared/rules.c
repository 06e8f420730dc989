/* rules.c - see rules.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "rules.h"

#include "url.h"
#include "urlfilter.h"
#include "util.h"
#include "xmlinit.h"

#include <errno.h>
#include <jansson.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Regex limits for every match (the subjects come from the network): the URL filters' steps and
 * depth (rc_urlfilter_match_limits), and a heap limit of the rules' own. */
#define HEAP_LIMIT_KIB 20000
#define XPATH_MAX_NEST 200 /* brackets open at once; libxml2's own limit is deeper */
#define TRIAL_OP_LIMIT 1000000

static void seterr(char *err, size_t cap, const char *path, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void seterr(char *err, size_t cap, const char *path, const char *fmt, ...)
{
    if (!err || cap == 0)
        return;
    int n = snprintf(err, cap, "%s: ", path && *path ? path : "rules");
    if (n < 0 || (size_t)n >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, cap - (size_t)n, fmt, ap);
    va_end(ap);
}

/* ---- XPath: a lexical pre-check, libxml2's compiler, a trial run ---------------------------- */

typedef struct xfn {
    const char *name;
    int min, max; /* max -1 = any */
} xfn;

/* XPath 1.0's core library and node-type tests: what libxml2 evaluates without extensions. */
static const xfn xpath_functions[] = {
    {"last", 0, 0},
    {"position", 0, 0},
    {"count", 1, 1},
    {"id", 1, 1},
    {"local-name", 0, 1},
    {"namespace-uri", 0, 1},
    {"name", 0, 1},
    {"string", 0, 1},
    {"concat", 2, -1},
    {"starts-with", 2, 2},
    {"contains", 2, 2},
    {"substring-before", 2, 2},
    {"substring-after", 2, 2},
    {"substring", 2, 3},
    {"string-length", 0, 1},
    {"normalize-space", 0, 1},
    {"translate", 3, 3},
    {"boolean", 1, 1},
    {"not", 1, 1},
    {"true", 0, 0},
    {"false", 0, 0},
    {"lang", 1, 1},
    {"number", 0, 1},
    {"sum", 1, 1},
    {"floor", 1, 1},
    {"ceiling", 1, 1},
    {"round", 1, 1},
    {"node", 0, 0},
    {"text", 0, 0},
    {"comment", 0, 0},
    {"processing-instruction", 0, 1},
};

static const xfn *xfn_find(const char *name, size_t len)
{
    for (size_t i = 0; i < RC_ARRAY_LEN(xpath_functions); i++)
        if (strlen(xpath_functions[i].name) == len && memcmp(xpath_functions[i].name, name, len) == 0)
            return &xpath_functions[i];
    return NULL;
}

static int xws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int xname_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static int xname_char(unsigned char c)
{
    return xname_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

struct xframe {
    char open;       /* '(' or '[' */
    const xfn *fn;   /* the function this '(' calls, NULL for grouping */
    size_t at;       /* offset of the bracket, or of the function name */
    int commas, any; /* top-level commas, and whether anything is inside */
};

/* The scanner of xpath_precheck: where it is, the open brackets, and where errors go. */
struct xscan {
    const char *s;
    size_t n, i;
    struct xframe stack[XPATH_MAX_NEST];
    size_t depth;
    int after_value;    /* the previous token was not @ :: ( [ , or an operator */
    const xfn *pending; /* a function name just read: the next '(' calls it */
    size_t pending_at;
    const char *path;
    char *err;
    size_t cap;
};

static int xscan_literal(struct xscan *x, char quote)
{
    const char *q = memchr(x->s + x->i + 1, quote, x->n - x->i - 1);
    if (!q) {
        seterr(x->err, x->cap, x->path, "invalid XPath: unfinished literal at offset %zu", x->i);
        return -EINVAL;
    }
    x->i = (size_t)(q - x->s) + 1;
    x->after_value = 1;
    return 0;
}

static int xscan_open(struct xscan *x, char c)
{
    if (x->depth == XPATH_MAX_NEST) {
        seterr(x->err, x->cap, x->path, "invalid XPath: brackets nested too deeply at offset %zu", x->i);
        return -EINVAL;
    }
    x->stack[x->depth++] =
        (struct xframe){c, c == '(' ? x->pending : NULL, c == '(' && x->pending ? x->pending_at : x->i, 0, 0};
    x->pending = NULL;
    x->i++;
    x->after_value = 0;
    return 0;
}

/* A function call's closing ')': the number of its arguments checked. */
static int xcheck_arity(const struct xscan *x, const struct xframe *f)
{
    int nargs = f->any ? f->commas + 1 : 0;
    if (nargs >= f->fn->min && (f->fn->max < 0 || nargs <= f->fn->max))
        return 0;
    char want[32];
    if (f->fn->max < 0)
        snprintf(want, sizeof(want), "%d or more arguments", f->fn->min);
    else if (f->fn->max == f->fn->min)
        snprintf(want, sizeof(want), "%d argument%s", f->fn->min, f->fn->min == 1 ? "" : "s");
    else
        snprintf(want, sizeof(want), "%d or %d arguments", f->fn->min, f->fn->max);
    seterr(x->err, x->cap, x->path, "invalid XPath: %s() takes %s, not %d (offset %zu)", f->fn->name, want, nargs,
           f->at);
    return -EINVAL;
}

static int xscan_close(struct xscan *x, char c)
{
    if (!x->depth || x->stack[x->depth - 1].open != (c == ')' ? '(' : '[')) {
        seterr(x->err, x->cap, x->path, "invalid XPath: unbalanced '%c' at offset %zu", c, x->i);
        return -EINVAL;
    }
    const struct xframe *f = &x->stack[--x->depth];
    if (f->fn && xcheck_arity(x, f) < 0)
        return -EINVAL;
    x->i++;
    x->after_value = 1;
    return 0;
}

/* A name: a function name (checked against XPath 1.0's), an axis name, a name test, or after a
 * value an operator name (and, or, div, mod: libxml2 judges the rest). */
static int xscan_name(struct xscan *x)
{
    const char *s = x->s;
    size_t n = x->n, start = x->i, i = x->i;
    while (i < n && xname_char((unsigned char)s[i]))
        i++;
    if (i + 1 < n && s[i] == ':' && s[i + 1] != ':') { /* prefix:name or prefix:* */
        i++;
        if (s[i] == '*')
            i++;
        else
            while (i < n && xname_char((unsigned char)s[i]))
                i++;
    }
    x->i = i;
    size_t len = i - start, j = i;
    if (x->after_value) {
        x->after_value = 0;
        return 0;
    }
    while (j < n && xws(s[j]))
        j++;
    if (j < n && s[j] == '(') {
        x->pending = xfn_find(s + start, len);
        x->pending_at = start;
        if (!x->pending) {
            seterr(x->err, x->cap, x->path, "invalid XPath: unknown function %.*s() at offset %zu (XPath 1.0 only)",
                   (int)RC_MIN(len, 64), s + start, start);
            return -EINVAL;
        }
        x->after_value = 0;
    } else if (j + 1 < n && s[j] == ':' && s[j + 1] == ':') {
        x->after_value = 0; /* an axis name; "::" follows */
    } else {
        x->after_value = 1;
    }
    return 0;
}

/* One token at x->i (not white space). */
static int xscan_token(struct xscan *x)
{
    const char *s = x->s;
    size_t n = x->n, i = x->i;
    unsigned char c = (unsigned char)s[i];
    if (x->depth && c != ')' && c != ']')
        x->stack[x->depth - 1].any = 1;
    if (c == '"' || c == '\'')
        return xscan_literal(x, (char)c);
    if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')) {
        while (x->i < n && ((s[x->i] >= '0' && s[x->i] <= '9') || s[x->i] == '.'))
            x->i++;
        x->after_value = 1;
        return 0;
    }
    if (c == '(' || c == '[')
        return xscan_open(x, (char)c);
    if (c == ')' || c == ']')
        return xscan_close(x, (char)c);
    if (c == '$') {
        seterr(x->err, x->cap, x->path, "invalid XPath: variables are not supported (offset %zu)", i);
        return -EINVAL;
    }
    if (xname_start(c))
        return xscan_name(x);
    if (c == ',') {
        if (x->depth)
            x->stack[x->depth - 1].commas++;
        x->i++;
        x->after_value = 0;
    } else if (c == '.') {
        x->i += i + 1 < n && s[i + 1] == '.' ? 2 : 1;
        x->after_value = 1;
    } else if (c == '*') {
        x->i++;
        x->after_value = !x->after_value; /* a name test after an operator, else multiplication */
    } else if (c == ':' && i + 1 < n && s[i + 1] == ':') {
        x->i += 2;
        x->after_value = 0;
    } else { /* / // | + - = != < <= > >= @ and anything libxml2 will reject */
        x->i++;
        x->after_value = 0;
    }
    return 0;
}

/* What libxml2 2.9 lets through: unbalanced brackets ("string(" compiles) and unknown functions
 * or wrong arities (only found when the call runs, which may be never on a test page). Follows
 * the XPath 1.0 lexical rules (section 3.7) to tell function names from name tests and operator
 * names. Syntax errors it does not look for are left to libxml2. */
static int xpath_precheck(const char *s, const char *path, char *err, size_t cap)
{
    struct xscan x = {.s = s, .n = strlen(s), .path = path, .err = err, .cap = cap};
    while (x.i < x.n) {
        if (xws(s[x.i]))
            x.i++;
        else if (xscan_token(&x) < 0)
            return -EINVAL;
    }
    if (x.depth) {
        const struct xframe *f = &x.stack[x.depth - 1];
        seterr(err, cap, path, "invalid XPath: '%s%s' at offset %zu is never closed", f->fn ? f->fn->name : "",
               f->open == '(' ? "(" : "[", f->at);
        return -EINVAL;
    }
    return 0;
}

/* libxml2 keeps its XPath messages private; these follow xmlXPathError's order. */
static const char *const xpath_messages[] = {
    "ok",
    "number encoding",
    "unfinished literal",
    "start of literal",
    "expected $ for variable reference",
    "undefined variable",
    "invalid predicate",
    "invalid expression",
    "missing closing curly brace",
    "unregistered function",
    "invalid operand",
    "invalid type",
    "invalid number of arguments",
    "invalid context size",
    "invalid context position",
    "memory allocation error",
    "syntax error",
    "resource error",
    "sub resource error",
    "undefined namespace prefix",
    "encoding error",
    "char out of XML range",
    "invalid or incomplete context",
    "stack usage error",
    "forbidden variable",
    "operation limit exceeded",
    "recursion limit exceeded",
};

typedef struct xerr {
    int code; /* xmlXPathError, 0 = none */
    int offset;
} xerr;

static void xerr_cb(void *ud, xmlErrorPtr e)
{
    xerr *x = ud;
    if (x->code)
        return; /* keep the first */
    x->code = e->code - XML_XPATH_EXPRESSION_OK;
    if (x->code <= 0)
        x->code = XPATH_EXPR_ERROR;
    x->offset = e->int1;
}

static const char *xerr_message(int code)
{
    if (code > 0 && (size_t)code < RC_ARRAY_LEN(xpath_messages))
        return xpath_messages[code]; /* cppcheck-suppress arrayIndexOutOfBoundsCond ; bounded above */
    return "XPath error";
}

typedef struct compiler {
    xmlXPathContextPtr cctx; /* compilation: no document, variables forbidden */
    xerr cerr;
    xmlDocPtr trial; /* a tiny page every expression runs on once */
    xmlXPathContextPtr tctx;
    xerr terr;
} compiler;

static void compiler_init(compiler *c)
{
    memset(c, 0, sizeof(*c));
    c->cctx = xmlXPathNewContext(NULL);
    c->trial = xmlNewDoc(BAD_CAST "1.0");
    if (!c->cctx || !c->trial)
        abort();
    c->cctx->flags = XML_XPATH_NOVAR;
    c->cctx->error = xerr_cb;
    c->cctx->userData = &c->cerr;
    xmlNodePtr html = xmlNewDocNode(c->trial, NULL, BAD_CAST "html", NULL);
    xmlAddChild((xmlNodePtr)c->trial, html);
    xmlNodePtr head = xmlNewChild(html, NULL, BAD_CAST "head", NULL);
    xmlNewChild(head, NULL, BAD_CAST "title", BAD_CAST "t");
    xmlNodePtr body = xmlNewChild(html, NULL, BAD_CAST "body", NULL);
    xmlNodePtr div = xmlNewChild(body, NULL, BAD_CAST "div", BAD_CAST "x");
    xmlNewProp(div, BAD_CAST "id", BAD_CAST "x");
    xmlNodePtr a = xmlNewChild(div, NULL, BAD_CAST "a", BAD_CAST "1");
    xmlNewProp(a, BAD_CAST "href", BAD_CAST "/");
    c->tctx = xmlXPathNewContext(c->trial);
    if (!c->tctx)
        abort();
    c->tctx->error = xerr_cb;
    c->tctx->userData = &c->terr;
}

static void compiler_release(compiler *c)
{
    xmlXPathFreeContext(c->tctx);
    xmlFreeDoc(c->trial);
    xmlXPathFreeContext(c->cctx);
}

/* Compiles S; with NEED_NODES the expression must select nodes. NULL on error (message in err). */
static xmlXPathCompExprPtr compile_xpath(compiler *c, const char *s, int need_nodes, const char *path, char *err,
                                         size_t cap)
{
    if (!*s) {
        seterr(err, cap, path, "empty XPath");
        return NULL;
    }
    if (strlen(s) > RC_RULES_MAX_EXPR) {
        seterr(err, cap, path, "XPath longer than %d bytes", RC_RULES_MAX_EXPR);
        return NULL;
    }
    if (xpath_precheck(s, path, err, cap) < 0)
        return NULL;
    c->cerr.code = 0;
    xmlXPathCompExprPtr comp = xmlXPathCtxtCompile(c->cctx, BAD_CAST s);
    if (!comp) {
        if (!c->cerr.code)
            c->cerr.code = XPATH_EXPR_ERROR;
        seterr(err, cap, path, "invalid XPath: %s at offset %d", xerr_message(c->cerr.code), c->cerr.offset);
        return NULL;
    }
    /* Run it once: type errors (count('a')) only show at run time. */
    c->terr.code = 0;
    c->tctx->node = (xmlNodePtr)c->trial;
    c->tctx->opLimit = TRIAL_OP_LIMIT;
    c->tctx->opCount = 0;
    xmlXPathObjectPtr res = xmlXPathCompiledEval(comp, c->tctx);
    if (!res || c->terr.code) {
        seterr(err, cap, path, "invalid XPath: %s", xerr_message(c->terr.code ? c->terr.code : XPATH_EXPR_ERROR));
        xmlXPathFreeObject(res);
        xmlXPathFreeCompExpr(comp);
        return NULL;
    }
    if (need_nodes && res->type != XPATH_NODESET) {
        seterr(err, cap, path, "must select nodes, but gives a %s",
               res->type == XPATH_NUMBER    ? "number"
               : res->type == XPATH_BOOLEAN ? "boolean"
                                            : "string");
        xmlXPathFreeObject(res);
        xmlXPathFreeCompExpr(comp);
        return NULL;
    }
    xmlXPathFreeObject(res);
    return comp;
}

/* ---- regexes -------------------------------------------------------------------------------- */

static pcre2_code *compile_re(const char *s, const char *path, char *err, size_t cap)
{
    size_t len = strlen(s);
    if (len > RC_RULES_MAX_EXPR) {
        seterr(err, cap, path, "regex longer than %d bytes", RC_RULES_MAX_EXPR);
        return NULL;
    }
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)s, len, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_NEVER_BACKSLASH_C,
                                   &code, &off, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
            snprintf((char *)msg, sizeof(msg), "error %d", code);
        seterr(err, cap, path, "%s at offset %zu", (const char *)msg, (size_t)off);
    }
    return re;
}

/* ---- the document ---------------------------------------------------------------------------- */

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

static int want_type(const json_t *v, json_type t, const char *what, const char *path, char *err, size_t cap)
{
    int ok = t == JSON_TRUE ? json_is_boolean(v) : json_typeof(v) == t;
    if (!ok) {
        seterr(err, cap, path, "expected %s, got %s", what, type_name(v));
        return -EINVAL;
    }
    return 0;
}

/* Keys of OBJ must all be in KNOWN (NULL-terminated). */
static int check_keys(const json_t *obj, const char *const *known, const char *path, char *err, size_t cap)
{
    const char *key;
    json_t *v;
    json_object_foreach ((json_t *)obj, key, v) {
        const char *const *k = known;
        while (*k && strcmp(*k, key) != 0)
            k++;
        if (!*k) {
            char *p = *path ? rc_xasprintf("%s.%s", path, key) : rc_xstrdup(key);
            seterr(err, cap, p, "unknown key");
            free(p);
            return -EINVAL;
        }
    }
    return 0;
}

static int check_field_name(const char *name, const char *path, char *err, size_t cap)
{
    if (!*name) {
        seterr(err, cap, path, "empty field name");
        return -EINVAL;
    }
    if (strcmp(name, "url") == 0 || strcmp(name, "crawlid") == 0 || name[0] == '_' || name[0] == '$' ||
        strchr(name, '.')) {
        seterr(err, cap, path, "reserved field name (url, crawlid, _*, $* and names with '.' are taken)");
        return -EINVAL;
    }
    if (strlen(name) > 256) {
        seterr(err, cap, path, "field name longer than 256 bytes");
        return -EINVAL;
    }
    return 0;
}

static void field_release(rc_rules_field *f)
{
    free(f->name);
    free(f->path);
    xmlXPathFreeCompExpr(f->xpath);
    pcre2_code_free(f->re);
    json_decref(f->def);
}

static const char *const field_keys[] = {"xpath", "re", "all", "required", "default", NULL};

/* Parses FIELD (an XPath string or an object) into F (zeroed) at PATH. */
static int parse_field(compiler *c, const json_t *v, const char *name, const char *path, rc_rules_field *f, char *err,
                       size_t cap)
{
    f->name = rc_xstrdup(name);
    f->path = rc_xstrdup(path);
    if (json_is_string(v)) {
        f->xpath = compile_xpath(c, json_string_value(v), 0, path, err, cap);
        return f->xpath ? 0 : -EINVAL;
    }
    if (!json_is_object(v)) {
        seterr(err, cap, path, "expected an XPath string or an object, got %s", type_name(v));
        return -EINVAL;
    }
    if (check_keys(v, field_keys, path, err, cap) < 0)
        return -EINVAL;
    int r = -EINVAL;
    char *p = rc_xasprintf("%s.xpath", path);
    const json_t *x = json_object_get(v, "xpath");
    if (!x) {
        seterr(err, cap, p, "missing (a field object needs an xpath)");
        goto fail;
    }
    if (want_type(x, JSON_STRING, "an XPath string", p, err, cap) < 0)
        goto fail;
    if (!(f->xpath = compile_xpath(c, json_string_value(x), 0, p, err, cap)))
        goto fail;
    free(p);
    p = rc_xasprintf("%s.re", path);
    if ((x = json_object_get(v, "re"))) {
        if (want_type(x, JSON_STRING, "a regex string", p, err, cap) < 0)
            goto fail;
        if (!(f->re = compile_re(json_string_value(x), p, err, cap)))
            goto fail;
    }
    free(p);
    p = rc_xasprintf("%s.all", path);
    if ((x = json_object_get(v, "all"))) {
        if (want_type(x, JSON_TRUE, "a boolean", p, err, cap) < 0)
            goto fail;
        f->all = json_is_true(x);
    }
    free(p);
    p = rc_xasprintf("%s.required", path);
    if ((x = json_object_get(v, "required"))) {
        if (want_type(x, JSON_TRUE, "a boolean", p, err, cap) < 0)
            goto fail;
        f->required = json_is_true(x);
    }
    free(p);
    p = rc_xasprintf("%s.default", path);
    if ((x = json_object_get(v, "default"))) {
        if (f->required) {
            seterr(err, cap, p, "a required field cannot have a default");
            goto fail;
        }
        f->def = json_deep_copy(x);
        if (!f->def)
            abort();
    }
    r = 0;
fail:
    free(p);
    return r;
}

static void set_release(rc_rules_set *s)
{
    for (size_t i = 0; i < s->nfields; i++)
        field_release(&s->fields[i]);
    free(s->fields);
    free(s->name);
    free(s->path);
    xmlXPathFreeCompExpr(s->list_from);
}

/* Parses the "fields" object V into S; PREFIX is S's path ("", "second_page.", ...). */
static int parse_fields(compiler *c, const json_t *v, rc_rules_set *s, char *err, size_t cap)
{
    char *path = rc_xasprintf("%sfields", s->path);
    int r = -EINVAL;
    if (want_type(v, JSON_OBJECT, "an object of fields", path, err, cap) < 0)
        goto fail;
    size_t n = json_object_size(v);
    if (n == 0) {
        seterr(err, cap, path, "no fields");
        goto fail;
    }
    if (n > RC_RULES_MAX_FIELDS) {
        seterr(err, cap, path, "more than %d fields", RC_RULES_MAX_FIELDS);
        goto fail;
    }
    s->fields = rc_xcalloc(n, sizeof(*s->fields));
    const char *key;
    json_t *fv;
    json_object_foreach ((json_t *)v, key, fv) {
        char *fp = rc_xasprintf("%s.%s", path, key);
        int rr = check_field_name(key, fp, err, cap);
        if (rr == 0) {
            s->nfields++;
            rr = parse_field(c, fv, key, fp, &s->fields[s->nfields - 1], err, cap);
        }
        free(fp);
        if (rr < 0)
            goto fail;
    }
    r = 0;
fail:
    free(path);
    return r;
}

static const char *const set_keys[] = {"list_from", "fields", NULL};

/* A field set object {"list_from"?, "fields"} (ALLOW_LIST: whether list_from is allowed). */
static int parse_set(compiler *c, const json_t *v, rc_rules_set *s, int allow_list, char *err, size_t cap)
{
    char *path = rc_xstrndup(s->path, strlen(s->path) ? strlen(s->path) - 1 : 0);
    int r = -EINVAL;
    if (want_type(v, JSON_OBJECT, "an object", path, err, cap) < 0)
        goto fail;
    if (check_keys(v, allow_list ? set_keys : set_keys + 1, path, err, cap) < 0)
        goto fail;
    const json_t *f = json_object_get(v, "fields");
    if (!f) {
        char *p = rc_xasprintf("%sfields", s->path);
        seterr(err, cap, p, "missing");
        free(p);
        goto fail;
    }
    const json_t *lf = json_object_get(v, "list_from");
    if (lf) {
        char *p = rc_xasprintf("%slist_from", s->path);
        if (want_type(lf, JSON_STRING, "an XPath string", p, err, cap) == 0)
            s->list_from = compile_xpath(c, json_string_value(lf), 1, p, err, cap);
        free(p);
        if (!s->list_from)
            goto fail;
    }
    r = parse_fields(c, f, s, err, cap);
fail:
    free(path);
    return r;
}

/* A string or an array of strings at PATH; *ret_n items, each checked by ITEM (which sets
 * err itself). ITEM gets the element's own path. */
typedef int (*item_fn)(compiler *c, const char *s, const char *path, void **ret, char *err, size_t cap);

static int parse_list(compiler *c, const json_t *v, const char *path, item_fn item, void ***ret_v, size_t *ret_n,
                      char *err, size_t cap)
{
    if (json_is_string(v)) {
        *ret_v = rc_xcalloc(1, sizeof(void *));
        if (item(c, json_string_value(v), path, &(*ret_v)[0], err, cap) < 0)
            return -EINVAL;
        *ret_n = 1;
        return 0;
    }
    if (!json_is_array(v)) {
        seterr(err, cap, path, "expected a string or an array of strings, got %s", type_name(v));
        return -EINVAL;
    }
    size_t n = json_array_size(v);
    if (n > RC_RULES_MAX_LIST) {
        seterr(err, cap, path, "more than %d entries", RC_RULES_MAX_LIST);
        return -EINVAL;
    }
    *ret_v = rc_xcalloc(n ? n : 1, sizeof(void *));
    for (size_t i = 0; i < n; i++) {
        char *p = rc_xasprintf("%s[%zu]", path, i);
        const json_t *e = json_array_get(v, i);
        int r = want_type(e, JSON_STRING, "a string", p, err, cap);
        if (r == 0)
            r = item(c, json_string_value(e), p, &(*ret_v)[i], err, cap);
        free(p);
        if (r < 0)
            return -EINVAL;
        *ret_n = i + 1;
    }
    return 0;
}

static int item_re(compiler *c, const char *s, const char *path, void **ret, char *err, size_t cap)
{
    *ret = compile_re(s, path, err, cap);
    return *ret ? 0 : -EINVAL;
}

static int item_xpath(compiler *c, const char *s, const char *path, void **ret, char *err, size_t cap)
{
    *ret = compile_xpath(c, s, 1, path, err, cap);
    return *ret ? 0 : -EINVAL;
}

/* A domain: "example.com", ".example.com" or "*.example.com", IDN allowed; stored as the host
 * rc_url_normalize() would produce. */
static int item_domain(compiler *c, const char *s, const char *path, void **ret, char *err, size_t cap)
{
    const char *d = s;
    if (strncmp(d, "*.", 2) == 0)
        d += 2;
    else if (*d == '.')
        d++;
    int bad = !*d || strlen(d) > 253;
    for (const char *p = d; *p && !bad; p++)
        bad = strchr("/?#@:\\[]%", *p) || (unsigned char)*p <= ' ';
    char *url = NULL, host[300];
    if (!bad) {
        url = rc_xasprintf("http://%s/", d);
        char *norm = NULL;
        bad = rc_url_normalize(url, &norm) != 0 || rc_url_host(norm, host, sizeof(host)) != 0;
        free(norm);
        free(url);
    }
    if (bad) {
        seterr(err, cap, path, "not a domain name: \"%.100s\"", s);
        return -EINVAL;
    }
    *ret = rc_xstrdup(host);
    return 0;
}

static void link_release(rc_rules_link *l)
{
    for (size_t i = 0; i < l->nallow; i++)
        pcre2_code_free(l->allow[i]);
    for (size_t i = 0; i < l->ndeny; i++)
        pcre2_code_free(l->deny[i]);
    for (size_t i = 0; i < l->nallow_domains; i++)
        free(l->allow_domains[i]);
    for (size_t i = 0; i < l->ndeny_domains; i++)
        free(l->deny_domains[i]);
    for (size_t i = 0; i < l->nrestrict; i++)
        xmlXPathFreeCompExpr(l->restrict_xpaths[i]);
    free(l->allow);
    free(l->deny);
    free(l->allow_domains);
    free(l->deny_domains);
    free(l->restrict_xpaths);
    free(l->callback);
}

static const char *const link_keys[] = {"allow",           "deny",   "allow_domains", "deny_domains",
                                        "restrict_xpaths", "follow", "callback",      NULL};

static int parse_link(compiler *c, const rc_rules *rules, const json_t *v, const char *path, rc_rules_link *l,
                      char *err, size_t cap)
{
    if (want_type(v, JSON_OBJECT, "an object", path, err, cap) < 0 || check_keys(v, link_keys, path, err, cap) < 0)
        return -EINVAL;
    static const struct {
        const char *key;
        item_fn fn;
        size_t vo, no;
    } lists[] = {
        {"allow", item_re, offsetof(rc_rules_link, allow), offsetof(rc_rules_link, nallow)},
        {"deny", item_re, offsetof(rc_rules_link, deny), offsetof(rc_rules_link, ndeny)},
        {"allow_domains", item_domain, offsetof(rc_rules_link, allow_domains), offsetof(rc_rules_link, nallow_domains)},
        {"deny_domains", item_domain, offsetof(rc_rules_link, deny_domains), offsetof(rc_rules_link, ndeny_domains)},
        {"restrict_xpaths", item_xpath, offsetof(rc_rules_link, restrict_xpaths), offsetof(rc_rules_link, nrestrict)},
    };
    for (size_t i = 0; i < RC_ARRAY_LEN(lists); i++) {
        const json_t *x = json_object_get(v, lists[i].key);
        if (!x)
            continue;
        char *p = rc_xasprintf("%s.%s", path, lists[i].key);
        int r = parse_list(c, x, p, lists[i].fn, (void ***)((char *)l + lists[i].vo),
                           (size_t *)((char *)l + lists[i].no), err, cap);
        free(p);
        if (r < 0)
            return r;
    }
    const json_t *cb = json_object_get(v, "callback");
    if (cb && !json_is_null(cb)) {
        char *p = rc_xasprintf("%s.callback", path);
        int r = want_type(cb, JSON_STRING, "a field set name", p, err, cap);
        if (r == 0 && !rc_rules_set_get(rules, json_string_value(cb))) {
            seterr(err, cap, p, "no field set named \"%.100s\" in field_sets", json_string_value(cb));
            r = -EINVAL;
        }
        free(p);
        if (r < 0)
            return r;
        l->callback = rc_xstrdup(json_string_value(cb));
    }
    l->follow = l->callback == NULL;
    const json_t *fo = json_object_get(v, "follow");
    if (fo) {
        char *p = rc_xasprintf("%s.follow", path);
        int r = want_type(fo, JSON_TRUE, "a boolean", p, err, cap);
        free(p);
        if (r < 0)
            return r;
        l->follow = json_is_true(fo);
    }
    return 0;
}

static const char *const top_keys[] = {"list_from",   "fields", "second_page_url", "continue",
                                       "second_page", "links",  "field_sets",      NULL};

/* "field_sets": named sets of fields that link rules' callbacks name. */
static int parse_field_sets(compiler *c, rc_rules *r, const json_t *v, char *err, size_t cap)
{
    if (want_type(v, JSON_OBJECT, "an object of field sets", "field_sets", err, cap) < 0)
        return -EINVAL;
    size_t n = json_object_size(v);
    if (n > RC_RULES_MAX_SETS) {
        seterr(err, cap, "field_sets", "more than %d field sets", RC_RULES_MAX_SETS);
        return -EINVAL;
    }
    r->sets = rc_xcalloc(n ? n : 1, sizeof(*r->sets));
    const char *key;
    json_t *sv;
    json_object_foreach ((json_t *)v, key, sv) {
        rc_rules_set *s = &r->sets[r->nsets++];
        s->name = rc_xstrdup(key);
        s->path = rc_xasprintf("field_sets.%s.", key);
        if (!*key) {
            seterr(err, cap, "field_sets", "empty field set name");
            return -EINVAL;
        }
        if (parse_set(c, sv, s, 1, err, cap) < 0)
            return -EINVAL;
    }
    return 0;
}

/* The page's own rules: list_from, fields, second_page_url, continue. */
static int parse_page_rules(compiler *c, rc_rules *r, const json_t *doc, char *err, size_t cap)
{
    const json_t *v;
    r->page.path = rc_xstrdup("");
    if ((v = json_object_get(doc, "list_from"))) {
        if (want_type(v, JSON_STRING, "an XPath string", "list_from", err, cap) < 0)
            return -EINVAL;
        if (!(r->page.list_from = compile_xpath(c, json_string_value(v), 1, "list_from", err, cap)))
            return -EINVAL;
    }
    if ((v = json_object_get(doc, "fields")) && parse_fields(c, v, &r->page, err, cap) < 0)
        return -EINVAL;
    if ((v = json_object_get(doc, "second_page_url"))) {
        r->second_page_url = rc_xcalloc(1, sizeof(*r->second_page_url));
        if (parse_field(c, v, "_second_page_url", "second_page_url", r->second_page_url, err, cap) < 0)
            return -EINVAL;
        if (r->second_page_url->all || r->second_page_url->required || r->second_page_url->def) {
            seterr(err, cap, "second_page_url", "only xpath and re apply here");
            return -EINVAL;
        }
    }
    if (r->page.list_from && !r->page.nfields && !r->second_page_url) {
        seterr(err, cap, "list_from", "needs fields or second_page_url to make items of");
        return -EINVAL;
    }
    if ((v = json_object_get(doc, "continue"))) {
        if (want_type(v, JSON_TRUE, "a boolean", "continue", err, cap) < 0)
            return -EINVAL;
        r->cont = json_is_true(v);
    }
    return 0;
}

/* "second_page": the detail page's fields, none named like a field of the list item. */
static int parse_second_page(compiler *c, rc_rules *r, const json_t *v, char *err, size_t cap)
{
    if (!r->second_page_url) {
        seterr(err, cap, "second_page", "needs second_page_url (the link to the detail page)");
        return -EINVAL;
    }
    if (parse_set(c, v, &r->second_page, 0, err, cap) < 0)
        return -EINVAL;
    for (size_t i = 0; i < r->second_page.nfields; i++)
        for (size_t j = 0; j < r->page.nfields; j++)
            if (strcmp(r->second_page.fields[i].name, r->page.fields[j].name) == 0) {
                seterr(err, cap, r->second_page.fields[i].path, "also a field of the list item");
                return -EINVAL;
            }
    r->has_second_page = 1;
    return 0;
}

static int parse_links(compiler *c, rc_rules *r, const json_t *v, char *err, size_t cap)
{
    if (want_type(v, JSON_ARRAY, "an array of link rules", "links", err, cap) < 0)
        return -EINVAL;
    size_t n = json_array_size(v);
    if (n > RC_RULES_MAX_LINKS) {
        seterr(err, cap, "links", "more than %d link rules", RC_RULES_MAX_LINKS);
        return -EINVAL;
    }
    r->links = rc_xcalloc(n ? n : 1, sizeof(*r->links));
    for (size_t i = 0; i < n; i++) {
        char *p = rc_xasprintf("links[%zu]", i);
        r->nlinks++;
        int rr = parse_link(c, r, json_array_get(v, i), p, &r->links[i], err, cap);
        free(p);
        if (rr < 0)
            return rr;
    }
    return 0;
}

static int parse_doc(compiler *c, rc_rules *r, const json_t *doc, char *err, size_t cap)
{
    if (want_type(doc, JSON_OBJECT, "an object", "rules", err, cap) < 0 || check_keys(doc, top_keys, "", err, cap) < 0)
        return -EINVAL;
    const json_t *v;
    /* field_sets first: link callbacks refer to them. */
    if ((v = json_object_get(doc, "field_sets")) && parse_field_sets(c, r, v, err, cap) < 0)
        return -EINVAL;
    if (parse_page_rules(c, r, doc, err, cap) < 0)
        return -EINVAL;
    r->second_page.path = rc_xstrdup("second_page.");
    if ((v = json_object_get(doc, "second_page")) && parse_second_page(c, r, v, err, cap) < 0)
        return -EINVAL;
    int rr;
    if ((v = json_object_get(doc, "links")) && (rr = parse_links(c, r, v, err, cap)) < 0)
        return rr;
    if (!r->page.nfields && !r->second_page_url && !r->nlinks && !r->nsets) {
        seterr(err, cap, "rules", "nothing to do: no fields, second_page_url, links or field_sets");
        return -EINVAL;
    }
    return 0;
}

rc_rules *rc_rules_parse(const char *json, size_t len, char *err, size_t cap)
{
    if (err && cap)
        err[0] = '\0';
    if (len > RC_RULES_MAX_LEN) {
        seterr(err, cap, "rules", "%zu bytes, more than the limit of %zu", len, RC_RULES_MAX_LEN);
        return NULL;
    }
    json_error_t jerr;
    json_t *doc = json_loadb(json ? json : "", json ? len : 0, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc) {
        seterr(err, cap, "rules", "invalid JSON at line %d column %d: %s", jerr.line, jerr.column, jerr.text);
        return NULL;
    }
    rc_rules *r = rc_xcalloc(1, sizeof(*r));
    compiler c;
    rc_xml_init(); /* the compiler's XPath contexts and trial document are libxml2's */
    compiler_init(&c);
    int rr = parse_doc(&c, r, doc, err, cap);
    compiler_release(&c);
    json_decref(doc);
    if (rr < 0) {
        rc_rules_free(r);
        return NULL;
    }
    r->mctx = rc_urlfilter_match_limits();
    pcre2_set_heap_limit(r->mctx, HEAP_LIMIT_KIB);
    return r;
}

void rc_rules_free(rc_rules *r)
{
    if (!r)
        return;
    set_release(&r->page);
    set_release(&r->second_page);
    if (r->second_page_url) {
        field_release(r->second_page_url);
        free(r->second_page_url);
    }
    for (size_t i = 0; i < r->nlinks; i++)
        link_release(&r->links[i]);
    free(r->links);
    for (size_t i = 0; i < r->nsets; i++)
        set_release(&r->sets[i]);
    free(r->sets);
    pcre2_match_context_free(r->mctx);
    free(r);
}

const rc_rules_set *rc_rules_set_get(const rc_rules *r, const char *name)
{
    if (!name)
        return &r->page;
    for (size_t i = 0; i < r->nsets; i++)
        if (strcmp(r->sets[i].name, name) == 0)
            return &r->sets[i];
    return NULL;
}

int rc_rules_check(const char *json, char *err, size_t cap)
{
    char why[400];
    rc_rules *r = rc_rules_parse(json, strlen(json), why, sizeof why);
    if (!r) {
        snprintf(err, cap, "rules: %s", why);
        return -EINVAL;
    }
    rc_rules_free(r);
    return 0;
}
