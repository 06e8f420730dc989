/* test_redis.c - what the components read from INFO: run_id and the maxmemory refusal. */
#include <errno.h>

#include "rc_test.h"
#include "redis.h"

static const char *const memory_info = "# Memory\r\n"
                                       "used_memory:23068672\r\n"
                                       "used_memory_human:22.00M\r\n"
                                       "used_memory_rss:30000000\r\n"
                                       "maxmemory:20971520\r\n"
                                       "maxmemory_human:20.00M\r\n"
                                       "maxmemory_policy:noeviction\r\n";

int main(void)
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
    return rc_test_done("test_redis");
}
