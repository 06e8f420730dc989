/* test_netguard.c - CIDR parsing/matching and --connect-to validation. */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

#include "netguard.h"
#include "rc_test.h"

static int in(const char *cidr, const char *addr)
{
    rc_cidr c;
    uint8_t a[16];
    if (rc_cidr_parse(cidr, &c) < 0)
        return -1;
    int fam = strchr(addr, ':') ? AF_INET6 : AF_INET;
    inet_pton(fam, addr, a);
    return rc_cidr_contains(&c, fam, a);
}

int main(void)
{
    char err[256];
    RC_CHECK_INT_EQ(in("127.0.0.0/8", "127.3.4.5"), 1);
    RC_CHECK_INT_EQ(in("127.0.0.0/8", "128.0.0.1"), 0);
    RC_CHECK_INT_EQ(in("10.1.2.0/23", "10.1.3.255"), 1);
    RC_CHECK_INT_EQ(in("10.1.2.0/23", "10.1.4.0"), 0);
    RC_CHECK_INT_EQ(in("0.0.0.0/0", "8.8.8.8"), 1);
    RC_CHECK_INT_EQ(in("192.168.1.1", "192.168.1.1"), 1);
    RC_CHECK_INT_EQ(in("192.168.1.1", "192.168.1.2"), 0);
    RC_CHECK_INT_EQ(in("::1/128", "::1"), 1);
    RC_CHECK_INT_EQ(in("fc00::/7", "fd12::1"), 1);
    RC_CHECK_INT_EQ(in("fc00::/7", "fe80::1"), 0);
    RC_CHECK_INT_EQ(in("127.0.0.0/8", "::1"), 0);
    rc_cidr c;
    RC_CHECK_INT_EQ(rc_cidr_parse("127.0.0.0/33", &c), -22);
    RC_CHECK_INT_EQ(rc_cidr_parse("127.0.0/8", &c), -22);
    RC_CHECK_INT_EQ(rc_cidr_parse("/8", &c), -22);
    RC_CHECK_INT_EQ(rc_cidr_parse("localhost", &c), -22);
    RC_CHECK_INT_EQ(rc_netguard_check_cidr("nope", err, sizeof err), -22);
    RC_CHECK(strstr(err, "nope") != NULL);

    RC_CHECK_INT_EQ(rc_netguard_check_connect_to("::127.0.0.1:8080", err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_netguard_check_connect_to("a.test:80:127.0.0.1:8080", err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_netguard_check_connect_to("a.test::127.0.0.1:", err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_netguard_check_connect_to("[::1]:443:[::1]:8443", err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_netguard_check_connect_to("a.test:80:127.0.0.1", err, sizeof err), -22);
    RC_CHECK_INT_EQ(rc_netguard_check_connect_to("a.test:x:127.0.0.1:80", err, sizeof err), -22);
    RC_CHECK_INT_EQ(rc_netguard_check_connect_to("a.test:80::80", err, sizeof err), -22);
    RC_CHECK_INT_EQ(rc_netguard_check_connect_to("a:1:b:2:c", err, sizeof err), -22);
    RC_CHECK_INT_EQ(rc_netguard_check_connect_to("a:1:b:99999", err, sizeof err), -22);
    return rc_test_done("test_netguard");
}
