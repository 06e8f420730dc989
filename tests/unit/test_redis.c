/* test_redis.c - rc_redis_parse_url: the URL forms, credentials from the URL or the environment,
 * and every refusal (whose message must never show the password); what the components read
 * from INFO: run_id and the maxmemory refusal. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rc_test.h"
#include "redis.h"
#include "util.h"

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

static const char *const memory_info = "# Memory\r\n"
                                       "used_memory:23068672\r\n"
                                       "used_memory_human:22.00M\r\n"
                                       "used_memory_rss:30000000\r\n"
                                       "maxmemory:20971520\r\n"
                                       "maxmemory_human:20.00M\r\n"
                                       "maxmemory_policy:noeviction\r\n";

static void check_info(void)
{
    char buf[160], id[48];
    RC_CHECK_INT_EQ(rc_redis_parse_memory_full(memory_info, buf, sizeof buf), 1);
    RC_CHECK_STR_EQ(buf, "OOM used_memory 22.0 MB over maxmemory 20.0 MB (noeviction)");
    /* Another policy evicts instead of refusing; no maxmemory means no limit. */
    RC_CHECK_INT_EQ(rc_redis_parse_memory_full("used_memory:30\r\nmaxmemory:20\r\nmaxmemory_policy:allkeys-lru\r\n",
                                               buf, sizeof buf),
                    0);
    RC_CHECK_INT_EQ(
        rc_redis_parse_memory_full("used_memory:30\r\nmaxmemory:0\r\nmaxmemory_policy:noeviction\r\n", buf, sizeof buf),
        0);
    RC_CHECK_INT_EQ(rc_redis_parse_memory_full("used_memory:19\r\nmaxmemory:20\r\nmaxmemory_policy:noeviction\r\n", buf,
                                               sizeof buf),
                    0);
    /* The _human and _rss lines are other fields, not the ones asked for. */
    RC_CHECK_INT_EQ(rc_redis_parse_memory_full("used_memory_rss:30\r\nmaxmemory_human:1M\r\n", buf, sizeof buf),
                    -EINVAL);
    RC_CHECK_INT_EQ(rc_redis_parse_memory_full(NULL, buf, sizeof buf), -EINVAL);
    rc_redis_parse_run_id("# Server\r\nredis_version:7.0.15\r\nrun_id:abc123\r\ntcp_port:6379\r\n", id, sizeof id);
    RC_CHECK_STR_EQ(id, "abc123");
    rc_redis_parse_run_id("# Server\r\n", id, sizeof id);
    RC_CHECK_STR_EQ(id, "");
}

/* Messages show a Redis URL with its secret hidden, in every form the parser takes. */
static void check_redact(void)
{
    static const char *const redact_cases[][2] = {
        {"redis://:s3cret@h:1/2", "redis://:***@h:1/2"}, {"redis://alice:s3cret@h", "redis://alice:***@h"},
        {"redis://s3cret@h:6379", "redis://***@h:6379"}, {"rediss://s3cret@h", "rediss://***@h"},
        {"redis://h:6379/0", "redis://h:6379/0"},        {"unix:///run/r.sock", "unix:///run/r.sock"},
    };
    for (size_t i = 0; i < sizeof redact_cases / sizeof redact_cases[0]; i++) {
        char buf[128];
        rc_url_redact(redact_cases[i][0], buf, sizeof buf);
        RC_CHECK_STR_EQ(buf, redact_cases[i][1]);
    }
}

int main(void)
{
    check_redact();
    check_info();
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

    /* Redis refusing for now (work held, retried) versus a script's own error. */
    RC_CHECK(rc_redis_refusal("OOM command not allowed when used memory > 'maxmemory'."));
    RC_CHECK(rc_redis_refusal("TRYAGAIN Multiple keys request during rehashing of slot"));
    RC_CHECK(rc_redis_refusal("CLUSTERDOWN The cluster is down"));
    RC_CHECK(!rc_redis_refusal("ERR user_script:12: bad argument"));
    RC_CHECK(!rc_redis_refusal(NULL));
    return rc_test_done("test_redis");
}
