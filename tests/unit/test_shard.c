/* test_shard.c - routing a URL to its shard: by registrable domain, stable, spread evenly; and
 * the shards' prefixes, each tag's slot inside its share of the slot space. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cluster.h"
#include "rc_test.h"
#include "shard.h"

/* A host is one shard whatever its port and case: its politeness and robots stay together. */
static void same_host_same_shard(void)
{
    for (int k = 2; k <= 7; k++) {
        int s = rc_shard_of_host("s3.site.test", k);
        RC_CHECK(s >= 0 && s < k);
        RC_CHECK_INT_EQ(rc_shard_of_host("s3.site.test:8080", k), s);
        RC_CHECK_INT_EQ(rc_shard_of_host("S3.Site.Test", k), s);
        RC_CHECK_INT_EQ(rc_shard_of_url("http://s3.site.test/x?y=1", k), s);
        RC_CHECK_INT_EQ(rc_shard_of_url("https://s3.site.test:8443/", k), s);
        int v6 = rc_shard_of_host("[::1]", k);
        RC_CHECK_INT_EQ(rc_shard_of_host("[::1]:8080", k), v6);
    }
    /* Hosts of one domain are hosts: they spread (the test web's sN.site.test over 3 shards). */
    int seen[3] = {0};
    for (int i = 0; i < 12; i++) {
        char h[64];
        snprintf(h, sizeof h, "s%d.site.test", i);
        seen[rc_shard_of_host(h, 3)] = 1;
    }
    RC_CHECK(seen[0] && seen[1] && seen[2]);
}

/* One keyspace: everything is shard 0; bad input too. */
static void one_shard(void)
{
    RC_CHECK_INT_EQ(rc_shard_of_host("s0.site.test", 1), 0);
    RC_CHECK_INT_EQ(rc_shard_of_host("", 3), 0);
    RC_CHECK_INT_EQ(rc_shard_of_url("http://x.test/", 1), 0);
    RC_CHECK_INT_EQ(rc_shard_of_url("not a url", 3), -EINVAL);
}

/* Stable: the values below are part of the keyspace's layout (a shard's URLs would otherwise
 * move under a running crawl after an upgrade); and sites spread evenly. */
static void stable_and_even(void)
{
    RC_CHECK_INT_EQ(rc_shard_of_host("s0.site.test", 3), 1);
    RC_CHECK_INT_EQ(rc_shard_of_host("example.org", 3), 2);
    int count[3] = {0};
    for (int i = 0; i < 3000; i++) {
        char h[64];
        snprintf(h, sizeof h, "h%d.bench%d.test", i, i);
        count[rc_shard_of_host(h, 3)]++;
    }
    for (int s = 0; s < 3; s++)
        RC_CHECK(count[s] > 900 && count[s] < 1100);
}

/* Each shard's tag lies inside its K-th of the slots (so on redis-cli's even split of K masters,
 * on master I); K = 1 keeps the prefix; a tagged base or a shard out of range is refused. */
static void prefixes(void)
{
    char buf[64];
    RC_CHECK_INT_EQ(rc_shard_prefix("rc:", 0, 1, buf, sizeof buf), 0);
    RC_CHECK_STR_EQ(buf, "rc:");
    for (int k = 2; k <= 5; k++)
        for (int i = 0; i < k; i++) {
            RC_CHECK_INT_EQ(rc_shard_prefix("rc:", i, k, buf, sizeof buf), 0);
            RC_CHECK(strncmp(buf, "rc:{s", 5) == 0 && buf[strlen(buf) - 1] == ':');
            unsigned slot = rc_cluster_keyslot(buf, strlen(buf));
            RC_CHECK(slot >= (unsigned)i * RC_CLUSTER_SLOTS / (unsigned)k);
            RC_CHECK(slot < (unsigned)(i + 1) * RC_CLUSTER_SLOTS / (unsigned)k);
        }
    RC_CHECK_INT_EQ(rc_shard_prefix("rc:", 1, 3, buf, sizeof buf), 0);
    RC_CHECK_STR_EQ(buf, "rc:{s1.1}:");
    RC_CHECK_INT_EQ(rc_shard_prefix("app:{rc}:", 0, 2, buf, sizeof buf), -EINVAL);
    RC_CHECK_INT_EQ(rc_shard_prefix("rc:", 3, 3, buf, sizeof buf), -EINVAL);
    RC_CHECK_INT_EQ(rc_shard_prefix("rc:", 0, RC_SHARDS_MAX + 1, buf, sizeof buf), -EINVAL);
    RC_CHECK_INT_EQ(rc_shard_prefix("rc:", 0, 2, buf, 6), -ENAMETOOLONG);
    /* a process's --shard / --shards: 0 shards is one keyspace; a bad pair says why */
    char err[200] = "";
    RC_CHECK_INT_EQ(rc_shard_prefix_conf("rc:", 0, 0, buf, sizeof buf, err, sizeof err), 0);
    RC_CHECK_STR_EQ(buf, "rc:");
    RC_CHECK_INT_EQ(rc_shard_prefix_conf("rc:", 1, 3, buf, sizeof buf, err, sizeof err), 0);
    RC_CHECK_STR_EQ(buf, "rc:{s1.1}:");
    RC_CHECK_INT_EQ(rc_shard_prefix_conf("rc:", 3, 3, buf, sizeof buf, err, sizeof err), -EINVAL);
    RC_CHECK(strstr(err, "--shard 3 of --shards 3") != NULL);
    RC_CHECK_INT_EQ(rc_shard_prefix_conf("rc:", 1, 0, buf, sizeof buf, err, sizeof err), -EINVAL);
    RC_CHECK_INT_EQ(rc_shard_prefix_conf("{rc}:", 0, 2, buf, sizeof buf, err, sizeof err), -EINVAL);
    RC_CHECK_INT_EQ(rc_shard_prefix_conf("rc:", 0, 1LL << 40, buf, sizeof buf, err, sizeof err), -EINVAL);
}

/* The job's end over shards: two rounds at 0 with arrived unchanged; a round that misses links
 * on their way (forwarded into shard 0 after it was read, counted off shard 1 before it was) is
 * not taken for the end, nor a round after a shard rose from 0 and fell back. */
static void job_end(void)
{
    rc_shard_end e;
    memset(&e, 0, sizeof e);
    long long p1[3] = {0, 5, 0}, a1[3] = {0, 9, 0};
    RC_CHECK_INT_EQ(rc_shard_end_round(&e, p1, a1, 3), 0);
    long long p2[3] = {0, 0, 0}, a2[3] = {0, 9, 0}; /* shard 0 read before 3 links arrived */
    RC_CHECK_INT_EQ(rc_shard_end_round(&e, p2, a2, 3), 0);
    long long p3[3] = {0, 0, 0}, a3[3] = {3, 9, 0}; /* they came and went: arrived says so */
    RC_CHECK_INT_EQ(rc_shard_end_round(&e, p3, a3, 3), 0);
    RC_CHECK_INT_EQ(rc_shard_end_round(&e, p3, a3, 3), 1);
    memset(&e, 0, sizeof e); /* one round at 0 is never the end, even the first */
    RC_CHECK_INT_EQ(rc_shard_end_round(&e, p3, a3, 3), 0);
    RC_CHECK_INT_EQ(rc_shard_end_round(&e, p1, a3, 3), 0);
    RC_CHECK_INT_EQ(rc_shard_end_round(&e, p3, a3, 3), 0);
    RC_CHECK_INT_EQ(rc_shard_end_round(&e, p3, a3, 3), 1);
}

int main(void)
{
    same_host_same_shard();
    one_shard();
    stable_and_even();
    prefixes();
    job_end();
    return rc_test_done("test_shard");
}
