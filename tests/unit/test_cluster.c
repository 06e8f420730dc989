/* test_cluster.c - the Redis Cluster helpers: hash tags and slots (checked against CLUSTER
 * KEYSLOT of redis-server 7.0), the master of a slot in CLUSTER SLOTS replies recorded from a
 * 3-master cluster (scripts/services.sh start cluster), and MOVED errors. */
#include <errno.h>
#include <hiredis/hiredis.h>
#include <string.h>

#include "cluster.h"
#include "rc_test.h"

/* A recorded RESP reply, read as hiredis reads it off the wire. */
static redisReply *resp(const char *raw)
{
    redisReader *rd = redisReaderCreate();
    void *rep = NULL;
    redisReaderFeed(rd, raw, strlen(raw));
    if (redisReaderGetReply(rd, &rep) != REDIS_OK)
        rep = NULL;
    redisReaderFree(rd);
    return rep;
}

/* CLUSTER SLOTS just after `redis-cli --cluster create` (replicas not attached yet). */
static const char *const slots_fresh = "*3\r\n*3\r\n:0\r\n:5460\r\n*4\r\n$9\r\n127.0.0.1\r\n:34385\r\n$"
                                       "40\r\nbf94a8b74399199c15e4ff41ea774b944af36c43\r\n*0\r\n"
                                       "*3\r\n:5461\r\n:10922\r\n*4\r\n$9\r\n127.0.0.1\r\n:43245\r\n$"
                                       "40\r\n4dc7fefcb3654979c58e393dbdf1e63f5bf92d8c\r\n*0\r\n"
                                       "*3\r\n:10923\r\n:16383\r\n*4\r\n$9\r\n127.0.0.1\r\n:50837\r\n$"
                                       "40\r\nc62593865ea2dccf442d8fa0caf12040d599310d\r\n*0\r\n";

/* The same cluster with its replicas, after a failover moved the last range to 37873, and a
 * node that does not know its address ("?": cluster-preferred-endpoint-type unknown). */
static const char *const slots_replicas =
    "*3\r\n*4\r\n:0\r\n:5460\r\n*4\r\n$1\r\n?\r\n:34385\r\n$2\r\nid\r\n*0\r\n"
    "*4\r\n$9\r\n127.0.0.1\r\n:34091\r\n$2\r\nid\r\n*0\r\n"
    "*4\r\n:5461\r\n:10922\r\n*4\r\n$9\r\n127.0.0.1\r\n:43245\r\n$2\r\nid\r\n*0\r\n"
    "*4\r\n$9\r\n127.0.0.1\r\n:43855\r\n$2\r\nid\r\n*0\r\n"
    "*4\r\n:10923\r\n:16383\r\n*4\r\n$9\r\n127.0.0.1\r\n:37873\r\n$2\r\nid\r\n*0\r\n"
    "*4\r\n$9\r\n127.0.0.1\r\n:50837\r\n$2\r\nid\r\n*0\r\n";

static void test_tags(void)
{
    char buf[32];
    RC_CHECK(!rc_cluster_has_tag("rc:", 3));
    RC_CHECK(rc_cluster_has_tag("{rc:}", 5));
    RC_CHECK(rc_cluster_has_tag("a{b}c", 5));
    RC_CHECK(!rc_cluster_has_tag("{}x", 3)); /* an empty tag is none */
    RC_CHECK(!rc_cluster_has_tag("x{y", 3));
    RC_CHECK_INT_EQ(rc_cluster_tag_prefix("rc:", buf, sizeof buf), 1);
    RC_CHECK_STR_EQ(buf, "{rc:}");
    RC_CHECK_INT_EQ(rc_cluster_tag_prefix("app:{rc}:", buf, sizeof buf), 0);
    RC_CHECK_STR_EQ(buf, "app:{rc}:");
    RC_CHECK_INT_EQ(rc_cluster_tag_prefix("a-very-long-prefix-indeed:", buf, 20), -ENAMETOOLONG);
}

/* Every key of a keyspace is in the slot of its tag; the values are CLUSTER KEYSLOT's. */
static void test_slots(void)
{
    RC_CHECK_INT_EQ(rc_cluster_keyslot("{rc:}", 5), 16136);
    RC_CHECK_INT_EQ(rc_cluster_keyslot("rc:", 3), 16136);
    RC_CHECK_INT_EQ(rc_cluster_keyslot("{rc:}job:abc", 12), 16136);
    RC_CHECK_INT_EQ(rc_cluster_keyslot("{rc:}lease:w{1}", 15), 16136);
    RC_CHECK_INT_EQ(rc_cluster_keyslot("123456789", 9), 12739);
    RC_CHECK_INT_EQ(rc_cluster_keyslot("foo{}{bar}", 10), 8363);
    RC_CHECK_INT_EQ(rc_cluster_keyslot("{}x", 3), 10595);
}

static void test_info(void)
{
    RC_CHECK_INT_EQ(rc_cluster_enabled("# Cluster\r\ncluster_enabled:1\r\n"), 1);
    RC_CHECK_INT_EQ(rc_cluster_enabled("# Cluster\r\ncluster_enabled:0\r\n"), 0);
    RC_CHECK_INT_EQ(rc_cluster_enabled("# Server\r\nredis_version:7.0.15\r\n"), 0);
    RC_CHECK_INT_EQ(rc_cluster_enabled(NULL), 0);
}

static void test_slot_master(void)
{
    char host[64];
    int port = 0;
    redisReply *r = resp(slots_fresh);
    RC_CHECK(r != NULL);
    RC_CHECK_INT_EQ(rc_cluster_slot_master(r, 16136, host, sizeof host, &port), 0);
    RC_CHECK_STR_EQ(host, "127.0.0.1");
    RC_CHECK_INT_EQ(port, 50837);
    RC_CHECK_INT_EQ(rc_cluster_slot_master(r, 0, host, sizeof host, &port), 0);
    RC_CHECK_INT_EQ(port, 34385);
    RC_CHECK_INT_EQ(rc_cluster_slot_master(r, 10922, host, sizeof host, &port), 0);
    RC_CHECK_INT_EQ(port, 43245);
    freeReplyObject(r);
    r = resp(slots_replicas);
    RC_CHECK_INT_EQ(rc_cluster_slot_master(r, 16136, host, sizeof host, &port), 0);
    RC_CHECK_INT_EQ(port, 37873); /* the master, not the replica listed after it */
    RC_CHECK_INT_EQ(rc_cluster_slot_master(r, 7, host, sizeof host, &port), 0);
    RC_CHECK_STR_EQ(host, ""); /* "?": the node asked */
    RC_CHECK_INT_EQ(port, 34385);
    freeReplyObject(r);
    r = resp("*1\r\n*3\r\n:0\r\n:100\r\n*2\r\n$9\r\n127.0.0.1\r\n:7000\r\n");
    RC_CHECK_INT_EQ(rc_cluster_slot_master(r, 16136, host, sizeof host, &port), -ENOENT); /* unassigned */
    freeReplyObject(r);
    r = resp("-ERR This instance has cluster support disabled\r\n");
    RC_CHECK_INT_EQ(rc_cluster_slot_master(r, 1, host, sizeof host, &port), -EPROTO);
    freeReplyObject(r);
    r = resp("*1\r\n*2\r\n:0\r\n:100\r\n");
    RC_CHECK_INT_EQ(rc_cluster_slot_master(r, 1, host, sizeof host, &port), -EPROTO);
    freeReplyObject(r);
}

static void test_nodes(void)
{
    rc_cluster_node n[8];
    redisReply *r = resp(slots_replicas);
    RC_CHECK_INT_EQ(rc_cluster_nodes(r, n, 8), 6);
    RC_CHECK_STR_EQ(n[0].host, "");
    RC_CHECK_INT_EQ(n[0].port, 34385);
    RC_CHECK_INT_EQ(n[1].port, 34091);
    RC_CHECK_INT_EQ(n[5].port, 50837);
    RC_CHECK_INT_EQ(rc_cluster_nodes(r, n, 3), 3); /* at most max */
    freeReplyObject(r);
    /* A master serving two ranges is named once. */
    r = resp("*2\r\n*3\r\n:0\r\n:1\r\n*2\r\n$1\r\nh\r\n:7000\r\n"
             "*3\r\n:2\r\n:3\r\n*2\r\n$1\r\nh\r\n:7000\r\n");
    RC_CHECK_INT_EQ(rc_cluster_nodes(r, n, 8), 1);
    freeReplyObject(r);
    r = resp("+OK\r\n");
    RC_CHECK_INT_EQ(rc_cluster_nodes(r, n, 8), -EPROTO);
    freeReplyObject(r);
}

static void test_moved(void)
{
    char host[64];
    int port = 0;
    unsigned slot = 0;
    RC_CHECK(rc_cluster_is_moved("MOVED 16136 127.0.0.1:50837"));
    RC_CHECK(!rc_cluster_is_moved("ASK 16136 127.0.0.1:50837"));
    RC_CHECK(!rc_cluster_is_moved(NULL));
    RC_CHECK_INT_EQ(rc_cluster_parse_moved("MOVED 16136 127.0.0.1:50837", &slot, host, sizeof host, &port), 0);
    RC_CHECK_INT_EQ(slot, 16136);
    RC_CHECK_STR_EQ(host, "127.0.0.1");
    RC_CHECK_INT_EQ(port, 50837);
    RC_CHECK_INT_EQ(rc_cluster_parse_moved("MOVED 1 ::1:7001", &slot, host, sizeof host, &port), 0);
    RC_CHECK_STR_EQ(host, "::1");
    RC_CHECK_INT_EQ(port, 7001);
    RC_CHECK_INT_EQ(rc_cluster_parse_moved("MOVED 2 :7002", &slot, host, sizeof host, &port), 0);
    RC_CHECK_STR_EQ(host, ""); /* unknown endpoint: the node asked */
    RC_CHECK_INT_EQ(rc_cluster_parse_moved("MOVED 16384 h:1", &slot, host, sizeof host, &port), -EINVAL);
    RC_CHECK_INT_EQ(rc_cluster_parse_moved("MOVED 5 h", &slot, host, sizeof host, &port), -EINVAL);
    RC_CHECK_INT_EQ(rc_cluster_parse_moved("MOVED 5 h:0", &slot, host, sizeof host, &port), -EINVAL);
    RC_CHECK_INT_EQ(rc_cluster_parse_moved("ERR no", &slot, host, sizeof host, &port), -EINVAL);
}

int main(void)
{
    test_tags();
    test_slots();
    test_info();
    test_slot_master();
    test_nodes();
    test_moved();
    return rc_test_done("test_cluster");
}
