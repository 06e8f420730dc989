/* rc_tsv.h - decoding the escaped fields of the table-driven test data (the TSV files in tests/data):
 * \t \n \r \\ \xHH, and \{N}c for N copies of c (long inputs without long files). */
#ifndef RC_TSV_H
#define RC_TSV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Decodes the escapes of one field into B. Returns -1 on a malformed escape. */
static int rc_tsv_unescape(const char *s, size_t n, rc_buf *b)
{
    rc_buf_reset(b);
    rc_buf_append(b, "", 0);
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c != '\\') {
            rc_buf_append(b, &c, 1);
            continue;
        }
        if (++i == n)
            return -1;
        switch (s[i]) {
        case 't':
            c = '\t';
            break;
        case 'n':
            c = '\n';
            break;
        case 'r':
            c = '\r';
            break;
        case '\\':
            c = '\\';
            break;
        case 'x':
            if (i + 2 >= n || rc_hexval((unsigned char)s[i + 1]) < 0 || rc_hexval((unsigned char)s[i + 2]) < 0)
                return -1;
            c = (char)(rc_hexval((unsigned char)s[i + 1]) << 4 | rc_hexval((unsigned char)s[i + 2]));
            i += 2;
            break;
        case '{': {
            char *end;
            long count = strtol(s + i + 1, &end, 10);
            if (*end != '}' || count < 0 || (size_t)(end + 1 - s) >= n)
                return -1;
            i = (size_t)(end + 1 - s);
            for (long k = 0; k < count; k++)
                rc_buf_append(b, s + i, 1);
            continue;
        }
        default:
            return -1;
        }
        rc_buf_append(b, &c, 1);
    }
    return 0;
}

/* The next case of data file f: the next line that is neither blank nor a '#' comment (*lineno
 * counts every line read), split at tabs into at most max fields, each decoded into fields[].
 * The number of fields, -2 when one has a malformed escape, or -1 at the end of the file. */
static inline int rc_tsv_read(FILE *f, char **line, size_t *cap, int *lineno, rc_buf *fields, int max)
{
    ssize_t len;
    while ((len = getline(line, cap, f)) >= 0) {
        char *l = *line;
        ++*lineno;
        while (len > 0 && (l[len - 1] == '\n' || l[len - 1] == '\r'))
            l[--len] = '\0';
        if (len == 0 || l[0] == '#')
            continue;
        int k = 0, bad = 0;
        for (const char *s = l; k < max;) {
            const char *tab = strchr(s, '\t');
            size_t n = tab ? (size_t)(tab - s) : strlen(s);
            bad |= rc_tsv_unescape(s, n, &fields[k++]) < 0;
            if (!tab)
                break;
            s = tab + 1;
        }
        return bad ? -2 : k;
    }
    return -1;
}

#endif
