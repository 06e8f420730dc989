/* test_domain.c - table tests for shared/domain.c (registrable domains, scope matching). */
#include "domain.h"
#include "rc_test.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>

static void test_registrable(void)
{
    static const struct {
        const char *host, *want;
    } cases[] = {
        {"example.com", "example.com"},
        {"www.example.com", "example.com"},
        {"a.b.c.example.com", "example.com"},
        {"WWW.Example.COM", "example.com"},
        {"www.example.com.", "example.com"},
        {"com", "com"},
        /* ICANN multi-label suffixes */
        {"www.bbc.co.uk", "bbc.co.uk"},
        {"bbc.co.uk", "bbc.co.uk"},
        {"co.uk", "co.uk"},
        {"shop.example.co.jp", "example.co.jp"},
        /* wildcard and exception rules: *.kawasaki.jp, !city.kawasaki.jp */
        {"a.b.kawasaki.jp", "a.b.kawasaki.jp"},
        {"www.city.kawasaki.jp", "city.kawasaki.jp"},
        /* private suffixes count: each user site is its own domain */
        {"alice.github.io", "alice.github.io"},
        {"www.alice.github.io", "alice.github.io"},
        {"github.io", "github.io"},
        {"foo.blogspot.com", "foo.blogspot.com"},
        {"x.y.appspot.com", "y.appspot.com"},
        /* unlisted TLDs follow the default "*" rule */
        {"a.b.site.test", "site.test"},
        {"site.test", "site.test"},
        {"test", "test"},
        {"www.intranet.corp", "intranet.corp"},
        /* IDN in A-label form */
        {"www.xn--bcher-kva.de", "xn--bcher-kva.de"},
        /* IP addresses and localhost stand for themselves */
        {"192.168.1.1", "192.168.1.1"},
        {"10.0.0.1", "10.0.0.1"},
        {"2001:db8::1", "2001:db8::1"},
        {"::1", "::1"},
        {"[::1]", "[::1]"},
        {"localhost", "localhost"},
    };
    char buf[300];
    for (size_t i = 0; i < RC_ARRAY_LEN(cases); i++) {
        int err = rc_domain_registrable(cases[i].host, buf, sizeof buf);
        rc_test_checks++;
        if (err != 0 || strcmp(buf, cases[i].want) != 0) {
            rc_test_failures++;
            fprintf(stderr, "%s:%d: registrable(\"%s\") = %d \"%s\", expected \"%s\"\n", __FILE__, __LINE__,
                    cases[i].host, err, err ? "" : buf, cases[i].want);
        }
    }

    /* Errors leave buf untouched. */
    char small[12];
    snprintf(small, sizeof small, "untouched");
    RC_CHECK_INT_EQ(rc_domain_registrable("", small, sizeof small), -EINVAL);
    RC_CHECK_INT_EQ(rc_domain_registrable(".", small, sizeof small), -EINVAL);
    RC_CHECK_INT_EQ(rc_domain_registrable("www.example.com", small, 11), -ERANGE);
    RC_CHECK_STR_EQ(small, "untouched");
    RC_CHECK_INT_EQ(rc_domain_registrable("www.example.com", small, 12), 0);
    RC_CHECK_STR_EQ(small, "example.com");
    char longhost[300];
    memset(longhost, 'a', sizeof longhost - 1);
    longhost[sizeof longhost - 1] = '\0';
    RC_CHECK_INT_EQ(rc_domain_registrable(longhost, buf, sizeof buf), -EINVAL);
}

static void test_scope(void)
{
    static const char *const one[] = {"example.com"};
    static const char *const many[] = {"example.com", NULL, "", ".other.org", "co.uk"};
    static const struct {
        const char *host;
        const char *const *domains;
        size_t n;
        bool want;
    } cases[] = {
        {"example.com", one, 1, true},
        {"www.example.com", one, 1, true},
        {"a.b.example.com", one, 1, true},
        {"WWW.EXAMPLE.COM", one, 1, true},
        {"evil-example.com", one, 1, false},
        {"notexample.com", one, 1, false},
        {"example.com.evil.net", one, 1, false},
        {"example.co", one, 1, false},
        {"com", one, 1, false},
        {"xample.com", one, 1, false},
        {".example.com", one, 1, true},
        {"example.com", one, 0, false},
        {"other.org", many, RC_ARRAY_LEN(many), true},
        {"www.other.org", many, RC_ARRAY_LEN(many), true},
        {"another.org", many, RC_ARRAY_LEN(many), false},
        {"bbc.co.uk", many, RC_ARRAY_LEN(many), true},
        {"www.example.com", many, RC_ARRAY_LEN(many), true},
        {"unrelated.net", many, RC_ARRAY_LEN(many), false},
    };
    for (size_t i = 0; i < RC_ARRAY_LEN(cases); i++) {
        bool got = rc_domain_in_scope(cases[i].host, cases[i].domains, cases[i].n);
        rc_test_checks++;
        if (got != cases[i].want) {
            rc_test_failures++;
            fprintf(stderr, "%s:%d: in_scope(\"%s\") = %d, expected %d\n", __FILE__, __LINE__, cases[i].host, got,
                    cases[i].want);
        }
    }
}

int main(void)
{
    test_registrable();
    test_scope();
    return rc_test_done("test_domain");
}
