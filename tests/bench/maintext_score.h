/* maintext_score.h - token precision / recall / F1 of an extracted main text against the one
 * written by hand, shared by tests/bench/maintext_eval.c and tests/unit/test_maintext.c.
 *
 * Tokens: words split at whitespace and punctuation (ASCII letters lower-cased), except that each
 * CJK character (Han, kana, Hangul) is a token by itself; punctuation is not a token. Texts are
 * compared as bags of tokens: matched = sum over tokens of min(count in extracted, count in
 * expected); precision = matched / extracted, recall = matched / expected. */
#ifndef MAINTEXT_SCORE_H
#define MAINTEXT_SCORE_H

#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mt_score {
    size_t got, expect, match; /* token counts */
} mt_score;

typedef struct mt_tokens {
    char **v;
    size_t n, cap;
} mt_tokens;

static uint32_t mt_decode(const unsigned char *s, size_t *ret_len)
{
    if (s[0] < 0x80) {
        *ret_len = 1;
        return s[0];
    }
    size_t n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 1;
    uint32_t cp = n == 4 ? s[0] & 0x07u : n == 3 ? s[0] & 0x0Fu : s[0] & 0x1Fu;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *ret_len = i;
            return 0xFFFD;
        }
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    *ret_len = n;
    return cp;
}

static int mt_is_cjk(uint32_t c)
{
    return (c >= 0x3040 && c <= 0x30FF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) ||
           (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x20000 && c <= 0x3FFFF);
}

static int mt_is_separator(uint32_t c)
{
    if (c < 0x80)
        return !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
    return c == 0xA0 ||
           (c >= 0xA1 && c <= 0xBF && c != 0xAA && c != 0xB2 && c != 0xB3 && c != 0xB5 && c != 0xB9 && c != 0xBA) ||
           c == 0xD7 || c == 0xF7 || (c >= 0x2000 && c <= 0x206F) || (c >= 0x3000 && c <= 0x303F) || c == 0x30FB ||
           (c >= 0xFF00 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) ||
           (c >= 0xFF5B && c <= 0xFF65);
}

static void mt_push(mt_tokens *t, const char *s, size_t n)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 256;
        t->v = rc_xrealloc(t->v, t->cap * sizeof(*t->v));
    }
    char *tok = rc_xstrndup(s, n);
    rc_ascii_lower(tok, n);
    t->v[t->n++] = tok;
}

static void mt_tokenize(const char *text, mt_tokens *t)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0, word = SIZE_MAX;
    while (s[i]) {
        size_t n;
        uint32_t c = mt_decode(s + i, &n);
        int cjk = mt_is_cjk(c);
        if (cjk || mt_is_separator(c)) {
            if (word != SIZE_MAX)
                mt_push(t, text + word, i - word);
            word = SIZE_MAX;
            if (cjk)
                mt_push(t, text + i, n);
        } else if (word == SIZE_MAX) {
            word = i;
        }
        i += n;
    }
    if (word != SIZE_MAX)
        mt_push(t, text + word, i - word);
}

static void mt_tokens_free(mt_tokens *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
}

static int mt_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void mt_score_texts(const char *got, const char *expect, mt_score *ret)
{
    mt_tokens g = {0}, e = {0};
    mt_tokenize(got, &g);
    mt_tokenize(expect, &e);
    if (g.n)
        qsort(g.v, g.n, sizeof(*g.v), mt_cmp);
    if (e.n)
        qsort(e.v, e.n, sizeof(*e.v), mt_cmp);
    size_t i = 0, j = 0, match = 0;
    while (i < g.n && j < e.n) {
        int c = strcmp(g.v[i], e.v[j]);
        if (c == 0) {
            match++;
            i++;
            j++;
        } else if (c < 0) {
            i++;
        } else {
            j++;
        }
    }
    ret->got = g.n;
    ret->expect = e.n;
    ret->match = match;
    mt_tokens_free(&g);
    mt_tokens_free(&e);
}

static double mt_precision(const mt_score *s)
{
    return s->got ? (double)s->match / (double)s->got : 0.0;
}

static double mt_recall(const mt_score *s)
{
    return s->expect ? (double)s->match / (double)s->expect : 0.0;
}

static double mt_f1(const mt_score *s)
{
    double p = mt_precision(s), r = mt_recall(s);
    return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

/* Reads DIR/NAME into a malloc'd NUL-terminated string; NULL if it cannot be read. */
static char *mt_read(const char *dir, const char *name)
{
    char *path = rc_xasprintf("%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    free(path);
    if (!f)
        return NULL;
    rc_buf b;
    rc_buf_init(&b);
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        rc_buf_append(&b, chunk, n);
    fclose(f);
    return rc_buf_steal(&b);
}

/* One row of pages.tsv: name and URL (pointers into LINE, which is modified). 0, or -1 for a
 * comment or malformed line. */
static int mt_parse_page(char *line, const char **ret_name, const char **ret_url)
{
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '#' || line[0] == '\0')
        return -1;
    char *tab = strchr(line, '\t');
    if (!tab)
        return -1;
    *tab = '\0';
    char *url = tab + 1;
    url[strcspn(url, "\t")] = '\0';
    *ret_name = line;
    *ret_url = url;
    return 0;
}

#endif
