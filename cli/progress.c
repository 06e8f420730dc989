/* progress.c - see progress.h. */
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "util.h"

void rc_progress_init(rc_progress *p, const char *who, double limit_s)
{
    p->who = who;
    p->limit_s = limit_s;
    p->start_ms = rc_mono_ms();
    p->shown_ms = 0;
    p->tty = isatty(STDERR_FILENO);
}

double rc_progress_elapsed(const rc_progress *p)
{
    return (double)(rc_mono_ms() - p->start_ms) / 1000.0;
}

void rc_progress_show(rc_progress *p, const char *fmt, ...)
{
    uint64_t now = rc_mono_ms();
    if (!p->tty || now - p->start_ms < 1000 || (p->shown_ms && now - p->shown_ms < 1000))
        return;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\r\033[K%s: %s: %.0f s", p->who, what, (double)(now - p->start_ms) / 1000.0);
    if (p->limit_s > 0)
        fprintf(stderr, " of %.0f s", p->limit_s);
    fflush(stderr);
    p->shown_ms = now;
}

void rc_progress_end(rc_progress *p)
{
    if (p->shown_ms)
        fputs("\r\033[K", stderr);
    p->shown_ms = 0;
}
