/* test_netguard.c - CIDR parsing/matching, --connect-to validation, and the SSRF guard's verdict
 * on every special range (tests/data/netguard/addresses.tsv) and on URL hosts before DNS. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "netguard.h"
#include "util.h"
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

/* Splits a comma list in place into v (at most 8). */
static size_t split_commas(char *s, const char **v)
{
    size_t n = 0;
    if (strcmp(s, "-") == 0)
        return 0;
    for (char *p = s; p && n < 8;) {
        v[n++] = p;
        if ((p = strchr(p, ',')))
            *p++ = '\0';
    }
    return n;
}

/* One TSV row: address, allow list, port, "ok" or a substring of the refusal. */
static void check_row(char *line, int lineno)
{
    char *f[4];
    int n = 0;
    for (char *p = line; n < 4; n++) {
        f[n] = p;
        p = strchr(p, '\t');
        if (!p) {
            n++;
            break;
        }
        *p++ = '\0';
    }
    if (n != 4) {
        fprintf(stderr, "addresses.tsv:%d: want 4 fields\n", lineno);
        RC_CHECK(0);
        return;
    }
    const char *allow[8];
    size_t na = split_commas(f[1], allow);
    char err[128], why[200] = "";
    rc_netguard *g = rc_netguard_new(allow, na, NULL, 0, err, sizeof err);
    RC_CHECK(g != NULL);
    if (!g)
        return;
    uint8_t a[16];
    int fam = strchr(f[0], ':') ? AF_INET6 : AF_INET;
    RC_CHECK_INT_EQ(inet_pton(fam, f[0], a), 1);
    int64_t port = 0;
    RC_CHECK_INT_EQ(rc_parse_i64(f[2], 0, 65535, &port), 0);
    int r = rc_netguard_check_addr(g, fam, a, (int)port, why, sizeof why);
    int want_ok = strcmp(f[3], "ok") == 0;
    if (want_ok ? r != 0 : (r != -EACCES || !strstr(why, f[3]))) {
        fprintf(stderr, "addresses.tsv:%d: %s allow=%s: got %d '%s', want '%s'\n", lineno, f[0], f[1], r, why, f[3]);
        RC_CHECK(0);
    }
    rc_netguard_free(g);
}

static int check_table(const char *dir)
{
    char path[1024], line[512];
    snprintf(path, sizeof path, "%s/netguard/addresses.tsv", dir);
    FILE *fp = fopen(path, "r");
    RC_CHECK(fp != NULL);
    if (!fp)
        return 0;
    int rows = 0, lineno = 0;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        check_row(line, lineno);
        rows++;
    }
    fclose(fp);
    return rows;
}

/* URL hosts judged before DNS, and ports. */
static void check_hosts(void)
{
    char err[128], why[200];
    const char *lo[] = {"127.0.0.5/32"}, *ports[] = {"80", "443"};
    rc_netguard *g = rc_netguard_new(lo, 1, ports, 2, err, sizeof err);
    RC_CHECK(g != NULL);
    static const struct {
        const char *host;
        int port, want;
    } cases[] = {
        {"example.org", 80, 0},
        {"localhost", 80, -EACCES},
        {"LOCALHOST.", 80, -EACCES},
        {"a.b.localhost", 80, -EACCES},
        {"notlocalhost", 80, 0},
        {"2130706433", 80, -EACCES},
        {"0x7f.1", 80, -EACCES},
        {"0177.0.0.1", 80, -EACCES},
        {"127.1", 80, -EACCES},
        {"[::1]", 80, -EACCES},
        {"[::ffff:127.0.0.1]", 80, -EACCES},
        {"[fe80::1%25eth0]", 80, -EACCES},
        {"127.0.0.5", 80, 0},
        {"127.0.0.5", 8080, -EACCES},
        {"93.184.216.34", 443, 0},
        {"93.184.216.34", 22, -EACCES},
        {"0", 80, -EACCES},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        why[0] = '\0';
        int r = rc_netguard_check_host(g, cases[i].host, cases[i].port, why, sizeof why);
        if (r != cases[i].want)
            fprintf(stderr, "host %s:%d: got %d '%s', want %d\n", cases[i].host, cases[i].port, r, why, cases[i].want);
        RC_CHECK_INT_EQ(r, cases[i].want);
    }
    /* A sockaddr as curl hands it to the open-socket callback. */
    struct sockaddr_in6 s6 = {.sin6_family = AF_INET6, .sin6_port = htons(80)};
    inet_pton(AF_INET6, "::ffff:127.0.0.5", &s6.sin6_addr);
    RC_CHECK_INT_EQ(rc_netguard_check_sockaddr(g, (struct sockaddr *)&s6, why, sizeof why), 0);
    struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = htons(80)};
    inet_pton(AF_INET, "10.0.0.1", &s4.sin_addr);
    RC_CHECK_INT_EQ(rc_netguard_check_sockaddr(g, (struct sockaddr *)&s4, why, sizeof why), -EACCES);
    RC_CHECK(strstr(why, "private address 10.0.0.1") != NULL);
    rc_netguard_free(g);
    const char *bad[] = {"10.0.0.0/33"}, *badport[] = {"0"};
    RC_CHECK(rc_netguard_new(bad, 1, NULL, 0, err, sizeof err) == NULL);
    RC_CHECK(rc_netguard_new(NULL, 0, badport, 1, err, sizeof err) == NULL);
    RC_CHECK(strstr(err, "port") != NULL);
}

int main(int argc, char **argv)
{
    char err[256];
    RC_CHECK(argc > 1);
    if (argc < 2)
        return rc_test_done("test_netguard");
    int rows = check_table(argv[1]);
    RC_CHECK(rows >= 50); /* the table was read */
    check_hosts();
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

    /* --resolve entries, as the workers' DNS cache and curl take them */
    RC_CHECK_INT_EQ(rc_netguard_check_resolve("a.test:80:127.0.0.1", err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_netguard_check_resolve("a.test:443:127.0.0.1,::1", err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_netguard_check_resolve("a.test:443:[::1],127.0.0.2", err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_netguard_check_resolve("nonsense", err, sizeof err), -22);
    RC_CHECK(strstr(err, "'nonsense' is not HOST:PORT:ADDR") != NULL);
    RC_CHECK_INT_EQ(rc_netguard_check_resolve("a.test:80", err, sizeof err), -22);
    RC_CHECK_INT_EQ(rc_netguard_check_resolve("a.test:80:", err, sizeof err), -22);
    RC_CHECK_INT_EQ(rc_netguard_check_resolve(":80:127.0.0.1", err, sizeof err), -22);
    RC_CHECK_INT_EQ(rc_netguard_check_resolve("a.test::127.0.0.1", err, sizeof err), -22);
    RC_CHECK_INT_EQ(rc_netguard_check_resolve("a.test:0:127.0.0.1", err, sizeof err), -22);
    RC_CHECK_INT_EQ(rc_netguard_check_resolve("a.test:80:localhost", err, sizeof err), -22);
    RC_CHECK_INT_EQ(rc_netguard_check_resolve("a.test:80:127.0.0.1,", err, sizeof err), -22);
    RC_CHECK_INT_EQ(rc_netguard_check_resolve("-a.test:80:127.0.0.1", err, sizeof err), -22);
    RC_CHECK_INT_EQ(rc_netguard_check_resolve("+a.test:80:127.0.0.1", err, sizeof err), -22);
    return rc_test_done("test_netguard");
}
