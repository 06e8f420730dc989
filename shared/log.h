/* log.h - one log module: "ts level pid module msg key=value" lines on stderr, or on a file a
 * thread chose for its own lines (rc_log_to_fd). The level is the only mutable global; it is
 * checked before formatting. */
#ifndef RC_LOG_H
#define RC_LOG_H

enum rc_log_level { RC_LOG_DEBUG = 0, RC_LOG_INFO, RC_LOG_WARN, RC_LOG_ERROR };

extern int rc_log_level_current;

/* Parses "debug|info|warn|error"; -EINVAL on anything else. */
int rc_log_set_level(const char *name);

/* The calling thread's lines go to fd from now on (-1: stderr again); other threads' are not
 * affected. For a daemon's loop run on a thread of another program (the scheduler inside
 * `redcrawl crawl`, cli/insched.c), whose lines belong in its own log. fd stays the caller's. */
void rc_log_to_fd(int fd);

void rc_log_write(int level, const char *module, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define rc_log(level, module, ...)                                                                                     \
    do {                                                                                                               \
        if ((level) >= rc_log_level_current)                                                                           \
            rc_log_write((level), (module), __VA_ARGS__);                                                              \
    } while (0)

#define rc_debug(mod, ...) rc_log(RC_LOG_DEBUG, mod, __VA_ARGS__)
#define rc_info(mod, ...) rc_log(RC_LOG_INFO, mod, __VA_ARGS__)
#define rc_warn(mod, ...) rc_log(RC_LOG_WARN, mod, __VA_ARGS__)
#define rc_error(mod, ...) rc_log(RC_LOG_ERROR, mod, __VA_ARGS__)

#endif
