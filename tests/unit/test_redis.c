/* test_redis.c - rc_redis_parse_url: the URL forms, credentials from the URL or the environment,
 * and every refusal (whose message must never show the password). */
#include <stdlib.h>
#include <string.h>

#include "rc_test.h"
#include "redis.h"

struct url_case {
    const char *url;
    int ok;
    const char *host, *path, *user, *password;
    int port, db;
    const char *msg; /* part of the refusal */
};

static const struct url_case cases[] = {
    {"redis://127.0.0.1:6380/2", 1, "127.0.0.1", "", "", "", 6380, 2, NULL},
    {"redis://localhost", 1, "localhost", "", "", "", 6379, 0, NULL},
    {"redis://h/", 1, "h", "", "", "", 6379, 0, NULL},
    {"redis://:s3cret@h:1", 1, "h", "", "", "s3cret", 1, 0, NULL},
    {"redis://alice:s3cret@h", 1, "h", "", "alice", "s3cret", 6379, 0, NULL},
    {"redis://s3cret@h", 1, "h", "", "", "s3cret", 6379, 0, NULL},
    {"unix:///run/redis.sock", 1, "", "/run/redis.sock", "", "", 6379, 0, NULL},
    {"unix:/run/r.sock", 1, "", "/run/r.sock", "", "", 6379, 0, NULL},
    {"unix://relative.sock", 0, NULL, NULL, NULL, NULL, 0, 0, "want unix:///absolute/path.sock"},
    {"http://h/", 0, NULL, NULL, NULL, NULL, 0, 0, "want redis://HOST:PORT[/DB]"},
    {"redis://:pw@", 0, NULL, NULL, NULL, NULL, 0, 0, "missing host"},
    {"redis://:s3cret@h:0", 0, NULL, NULL, NULL, NULL, 0, 0, "bad port"},
    {"redis://h:", 0, NULL, NULL, NULL, NULL, 0, 0, "bad port"},
    {"redis://h:99999999999999999", 0, NULL, NULL, NULL, NULL, 0, 0, "bad port"},
    {"redis://h:1/16", 0, NULL, NULL, NULL, NULL, 0, 0, "bad database number"},
    {"redis://:@h", 0, NULL, NULL, NULL, NULL, 0, 0, "credentials must be"},
    {NULL, 0, NULL, NULL, NULL, NULL, 0, 0, "no Redis URL"},
};

int main(void)
{
    unsetenv("REDCRAWL_REDIS_PASSWORD");
    unsetenv("REDCRAWL_REDIS_PASSWORD_FILE");
    unsetenv("REDCRAWL_REDIS_USER");
    size_t n = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++, n++) {
        const struct url_case *c = &cases[i];
        rc_redis_addr a;
        char err[256] = "";
        int r = rc_redis_parse_url(c->url, &a, err, sizeof err);
        RC_CHECK_INT_EQ(r == 0, c->ok);
        if (r == 0 && c->ok) {
            RC_CHECK_STR_EQ(a.host, c->host);
            RC_CHECK_STR_EQ(a.path, c->path);
            RC_CHECK_STR_EQ(a.user, c->user);
            RC_CHECK_STR_EQ(a.password, c->password);
            RC_CHECK_INT_EQ(a.port, c->port);
            RC_CHECK_INT_EQ(a.db, c->db);
        } else if (r < 0) {
            RC_CHECK(strstr(err, c->msg) != NULL);
            RC_CHECK(strstr(err, "s3cret") == NULL); /* messages show "***" */
            if (!strstr(err, c->msg))
                fprintf(stderr, "%s: \"%s\" lacks \"%s\"\n", c->url ? c->url : "(null)", err, c->msg);
        }
    }
    RC_CHECK_INT_EQ(n, 17); /* every case ran */

    /* Without credentials in the URL, the environment's. */
    setenv("REDCRAWL_REDIS_PASSWORD", "envpw", 1);
    setenv("REDCRAWL_REDIS_USER", "bob", 1);
    rc_redis_addr a;
    char err[256];
    RC_CHECK_INT_EQ(rc_redis_parse_url("redis://h:7", &a, err, sizeof err), 0);
    RC_CHECK_STR_EQ(a.password, "envpw");
    RC_CHECK_STR_EQ(a.user, "bob");
    RC_CHECK_INT_EQ(rc_redis_parse_url("redis://u:urlpw@h:7", &a, err, sizeof err), 0);
    RC_CHECK_STR_EQ(a.password, "urlpw");
    RC_CHECK_STR_EQ(a.user, "u");
    return rc_test_done("test_redis");
}
