/* log.c - see log.h. */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

int rc_log_level_current = RC_LOG_INFO;

/* Per thread, so that one thread's lines can go to a file of their own (rc_log_to_fd). */
static _Thread_local int log_fd = -1;

void rc_log_to_fd(int fd)
{
    log_fd = fd;
}

int rc_log_set_level(const char *name)
{
    static const char *const names[] = {"debug", "info", "warn", "error"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(name, names[i]) == 0) {
            rc_log_level_current = i;
            return 0;
        }
    }
    return -EINVAL;
}

void rc_log_write(int level, const char *module, const char *fmt, ...)
{
    static const char *const tags[] = {"DEBUG", "INFO", "WARN", "ERROR"};
    char line[4096];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    int n = snprintf(line, sizeof line, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s %d %s ", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
                     tags[level < 0   ? 0
                          : level > 3 ? 3
                                      : level],
                     (int)getpid(), module);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof line)
        n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line - 1)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    /* One write() per line so lines from several processes sharing stderr do not interleave. */
    ssize_t w = write(log_fd >= 0 ? log_fd : STDERR_FILENO, line, (size_t)n);
    (void)w;
}
