/* progress.h - a long wait of the command line says what it waits for: on a terminal (stderr),
 * after its first second, one line redrawn once a second with the seconds waited; nothing when
 * stderr is not a terminal (logs and scripts get only the outcome). Whoever ends the wait says
 * how it ended on a fresh line: rc_progress_end clears the progress line first. */
#ifndef RC_PROGRESS_H
#define RC_PROGRESS_H

#include <stdint.h>

typedef struct rc_progress {
    const char *who; /* "redcrawl crawl", borrowed */
    double limit_s;  /* shown as "of N s" when > 0 */
    uint64_t start_ms, shown_ms;
    int tty;
} rc_progress;

void rc_progress_init(rc_progress *p, const char *who, double limit_s);

/* Redraws the line "WHO: WHAT: 3 s of 30 s" when due (see above). */
void rc_progress_show(rc_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Seconds since rc_progress_init. */
double rc_progress_elapsed(const rc_progress *p);

/* Clears the line if one was drawn. */
void rc_progress_end(rc_progress *p);

#endif
