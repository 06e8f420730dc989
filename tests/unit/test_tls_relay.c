/* test_tls_relay.c - the TLS relay against a real TLS server on loopback (OpenSSL, a thread
 * of this test, with a test CA made here): bytes go both ways unchanged, the server closing
 * reaches the client as EOF, and a wrong CA, a wrong name, a plain server, a closed port and a
 * missing CA file are each refused with a message naming the cause. A new relay removes the
 * socket directories that dead processes left behind, and nothing else. Also rediss:// parsing. */
#include <errno.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rc_test.h"
#include "redis.h"
#include "tls_relay.h"
#include "util.h"

static char dir[64];

/* ---------- a test CA and a server certificate it signed ---------- */

static void add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
    X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    X509_add_ext(x, e, -1);
    X509_EXTENSION_free(e);
}

/* issuer NULL: self-signed CA. */
static X509 *make_cert(EVP_PKEY *key, const char *cn, X509 *issuer, EVP_PKEY *issuer_key, const char *san)
{
    static long serial = 1;
    X509 *x = X509_new();
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), 86400);
    X509_set_pubkey(x, key);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
    X509_set_issuer_name(x, X509_get_subject_name(issuer ? issuer : x));
    add_ext(x, issuer ? issuer : x, NID_basic_constraints, issuer ? "CA:FALSE" : "critical,CA:TRUE");
    add_ext(x, issuer ? issuer : x, NID_subject_key_identifier, "hash");
    if (!issuer)
        add_ext(x, x, NID_key_usage, "critical,keyCertSign,cRLSign");
    if (san)
        add_ext(x, issuer, NID_subject_alt_name, san);
    X509_sign(x, issuer_key ? issuer_key : key, EVP_sha256());
    return x;
}

static void write_pem(const char *name, X509 *x)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    PEM_write_X509(f, x);
    fclose(f);
}

/* ---------- a TLS echo server (a thread), or a plain one that closes at once ---------- */

typedef struct server {
    int lfd, port;
    SSL_CTX *ctx;          /* NULL: plain TCP, closes each connection at once */
    int close_after_first; /* read once, echo, then close the connection */
    pthread_t thread;
} server;

static void serve_one(server *s, int fd)
{
    if (!s->ctx)
        return;
    SSL *ssl = SSL_new(s->ctx);
    SSL_set_fd(ssl, fd);
    if (SSL_accept(ssl) == 1) {
        char buf[16384];
        int n;
        while ((n = SSL_read(ssl, buf, sizeof buf)) > 0) {
            if (SSL_write(ssl, buf, n) != n || s->close_after_first)
                break;
        }
        SSL_shutdown(ssl);
    }
    SSL_free(ssl);
}

static void *serve(void *arg)
{
    server *s = arg;
    int fd;
    while ((fd = accept(s->lfd, NULL, NULL)) >= 0) {
        serve_one(s, fd);
        close(fd);
    }
    return NULL;
}

static void server_start(server *s, SSL_CTX *ctx, int close_after_first)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    s->ctx = ctx;
    s->close_after_first = close_after_first;
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    bind(s->lfd, (struct sockaddr *)&sa, sizeof sa);
    listen(s->lfd, 8);
    getsockname(s->lfd, (struct sockaddr *)&sa, &len);
    s->port = ntohs(sa.sin_port);
    pthread_create(&s->thread, NULL, serve, s);
}

static void server_stop(server *s)
{
    shutdown(s->lfd, SHUT_RDWR); /* accept() returns: the thread ends */
    pthread_join(s->thread, NULL);
    close(s->lfd);
}

/* ---------- the client side ---------- */

static int connect_unix(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static rc_tls_relay *relay(int port, const char *cacert, const char *servername, int *ret_st, char *err, size_t cap)
{
    char ca[128];
    snprintf(ca, sizeof ca, "%s/%s", dir, cacert);
    rc_tls_opts o = {.host = "127.0.0.1", .port = port, .cacert = ca, .servername = servername, .timeout_ms = 5000};
    rc_tls_relay *t = NULL;
    *ret_st = rc_tls_relay_new(&o, &t, err, cap);
    if (*ret_st == 0)
        *ret_st = rc_tls_relay_wait(t, 10000, err, cap);
    return t;
}

/* Reads exactly n bytes (or up to EOF); the count read. */
static size_t read_all(int fd, unsigned char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 10000) <= 0)
            break;
        ssize_t r = read(fd, buf + got, n - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    return got;
}

static void *write_all(void *arg)
{
    int *a = arg; /* fd, size */
    unsigned char buf[8192];
    for (int left = a[1]; left > 0;) {
        int n = left < (int)sizeof buf ? left : (int)sizeof buf;
        for (int i = 0; i < n; i++)
            buf[i] = (unsigned char)((a[1] - left + i) * 7);
        ssize_t w = write(a[0], buf, (size_t)n);
        if (w <= 0)
            break;
        left -= (int)w;
    }
    return NULL;
}

static void test_echo(int port)
{
    char err[512] = "";
    int st;
    rc_tls_relay *t = relay(port, "ca.pem", NULL, &st, err, sizeof err);
    RC_CHECK_INT_EQ(st, 0);
    if (st) {
        fprintf(stderr, "  %s\n", err);
        rc_tls_relay_free(t);
        return;
    }
    RC_CHECK_STR_EQ(rc_tls_relay_local_ip(t), "127.0.0.1");
    char path[128];
    snprintf(path, sizeof path, "%s", rc_tls_relay_path(t));
    int fd = connect_unix(path);
    RC_CHECK(fd >= 0);
    /* 2 MB each way at once: both directions flow without one blocking the other. */
    enum { SIZE = 2 << 20 };
    int args[2] = {fd, SIZE};
    pthread_t w;
    pthread_create(&w, NULL, write_all, args);
    unsigned char *got = malloc(SIZE);
    size_t n = read_all(fd, got, SIZE);
    pthread_join(w, NULL);
    RC_CHECK_INT_EQ(n, SIZE);
    int same = 1;
    for (size_t i = 0; i < n; i++)
        same &= got[i] == (unsigned char)(i * 7);
    RC_CHECK(same);
    free(got);
    struct stat sb;
    RC_CHECK(stat(path, &sb) < 0 && errno == ENOENT); /* the socket is gone once taken */
    RC_CHECK(connect_unix(path) < 0);
    close(fd);
    rc_tls_relay_free(t);
}

static void test_server_close_is_eof(int port)
{
    char err[512] = "";
    int st;
    rc_tls_relay *t = relay(port, "ca.pem", "localhost", &st, err, sizeof err);
    RC_CHECK_INT_EQ(st, 0);
    int fd = st == 0 ? connect_unix(rc_tls_relay_path(t)) : -1;
    RC_CHECK(fd >= 0);
    if (fd >= 0) {
        unsigned char buf[16];
        RC_CHECK_INT_EQ(write(fd, "ping", 4), 4);
        RC_CHECK_INT_EQ(read_all(fd, buf, 4), 4);
        RC_CHECK_INT_EQ(read_all(fd, buf, sizeof buf), 0); /* the server closed: EOF, not a hang */
        close(fd);
    }
    rc_tls_relay_free(t);
}

static void check_refused(int port, const char *ca, const char *name, int want, const char *words)
{
    char err[512] = "";
    int st;
    rc_tls_relay *t = relay(port, ca, name, &st, err, sizeof err);
    RC_CHECK_INT_EQ(st, want);
    RC_CHECK(strstr(err, words) != NULL);
    if (!strstr(err, words))
        fprintf(stderr, "  want \"%s\" in: %s\n", words, err);
    rc_tls_relay_free(t);
}

/* free() does not wait out a handshake or the client: a silent server, then a ready relay
 * nobody connected to. */
static void test_free_is_prompt(int echo_port)
{
    server silent = {.lfd = socket(AF_INET, SOCK_STREAM, 0)};
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    bind(silent.lfd, (struct sockaddr *)&sa, sizeof sa);
    listen(silent.lfd, 8); /* connections complete in the backlog; nothing ever answers */
    getsockname(silent.lfd, (struct sockaddr *)&sa, &len);
    char err[512];
    rc_tls_opts o = {.host = "127.0.0.1", .port = ntohs(sa.sin_port), .timeout_ms = 30000};
    rc_tls_relay *t = NULL;
    RC_CHECK_INT_EQ(rc_tls_relay_new(&o, &t, err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_tls_relay_wait(t, 200, err, sizeof err), -ETIMEDOUT);
    uint64_t t0 = rc_mono_ms();
    rc_tls_relay_free(t);
    RC_CHECK(rc_mono_ms() - t0 < 1000);
    close(silent.lfd);
    int st;
    t = relay(echo_port, "ca.pem", NULL, &st, err, sizeof err);
    RC_CHECK_INT_EQ(st, 0);
    char path[128];
    snprintf(path, sizeof path, "%s", rc_tls_relay_path(t));
    t0 = rc_mono_ms();
    rc_tls_relay_free(t);
    RC_CHECK(rc_mono_ms() - t0 < 1000);
    struct stat sb;
    RC_CHECK(stat(path, &sb) < 0); /* the socket and its directory are removed */
}

static void test_files(void)
{
    char err[512] = "", missing[128];
    snprintf(missing, sizeof missing, "%s/missing.pem", dir);
    rc_tls_opts o = {.host = "127.0.0.1", .port = 1, .cacert = missing};
    rc_tls_relay *t = NULL;
    RC_CHECK_INT_EQ(rc_tls_relay_new(&o, &t, err, sizeof err), -ENOENT);
    RC_CHECK(strstr(err, "missing.pem") && strstr(err, "No such file"));
    o.cacert = NULL;
    o.cert = missing;
    RC_CHECK(rc_tls_relay_new(&o, &t, err, sizeof err) < 0); /* a certificate without its key */
    RC_CHECK(t == NULL);
}

/* base/name as a directory holding what: "" nothing, "sock" our socket s, "file:F" a file F. */
static void make_dir(const char *base, const char *name, const char *what)
{
    char path[1024]; /* base may be a long $TMPDIR path */
    snprintf(path, sizeof path, "%s/%s", base, name);
    RC_CHECK(mkdir(path, 0700) == 0);
    if (strcmp(what, "sock") == 0) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s/s", path);
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        RC_CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
        close(fd); /* the socket file stays, as a killed process leaves it */
    } else if (strncmp(what, "file:", 5) == 0) {
        snprintf(path + strlen(path), sizeof path - strlen(path), "/%s", what + 5);
        FILE *f = fopen(path, "w");
        RC_CHECK(f != NULL);
        if (f)
            fclose(f);
    }
}

static int exists(const char *base, const char *name)
{
    char path[1024];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", base, name);
    return lstat(path, &sb) == 0;
}

/* Removes base/name and what make_dir put in it. */
static void remove_dir(const char *base, const char *name)
{
    char path[1024];
    const char *inside[] = {"s", "other"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s/%s", base, name, inside[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/%s", base, name);
    rmdir(path);
}

/* A relay made in $TMPDIR names its directory after its pid namespace and pid and removes the
 * directories of dead processes of its namespace that hold nothing or only their socket; live
 * processes' directories, another namespace's (its pid means nothing here), other names and
 * directories holding anything else stay. */
static void test_stale_dirs(void)
{
    char base[64];
    snprintf(base, sizeof base, "/tmp/rc-test-tls-stale-XXXXXX");
    if (!mkdtemp(base)) {
        RC_CHECK(!"mkdtemp");
        return;
    }
    pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0);
    enum { DEAD, LIVE, SELF, OTHER_NS, NO_NS };
    struct stat nsb;
    unsigned long long ns = stat("/proc/self/ns/pid", &nsb) == 0 ? (unsigned long long)nsb.st_ino : 0;
    struct {
        const char *prefix;
        int whose;
        const char *suffix, *what;
        int stays;
    } cases[] = {
        {"redcrawl-tls-", DEAD, "-aB3xY9", "", 0},           {"redcrawl-tls-", DEAD, "-Qw3rt7", "sock", 0},
        {"redcrawl-tls-", DEAD, "-kept01", "file:other", 1}, {"redcrawl-tls-", DEAD, "-kept02", "file:s", 1},
        {"redcrawl-tlsx-", DEAD, "-kept03", "", 1},          {"redcrawl-tls-", DEAD, "-kept4", "", 1},
        {"redcrawl-tls-", LIVE, "-live01", "", 1},           {"redcrawl-tls-", SELF, "-self01", "", 1},
        {"redcrawl-tls-", OTHER_NS, "-other1", "", 1},       {"redcrawl-tls-", NO_NS, "-oldfm1", "", 1},
    };
    enum { N = sizeof cases / sizeof *cases };
    char names[N][64];
    size_t n = N;
    for (size_t i = 0; i < n; i++) {
        long pid = cases[i].whose == LIVE ? (long)getppid() : cases[i].whose == SELF ? (long)getpid() : (long)dead;
        if (cases[i].whose == NO_NS) /* the name of before namespaces: not taken for ours */
            snprintf(names[i], sizeof names[i], "%s%ld%s", cases[i].prefix, pid, cases[i].suffix);
        else
            snprintf(names[i], sizeof names[i], "%s%llu-%ld%s", cases[i].prefix,
                     cases[i].whose == OTHER_NS ? ns + 1 : ns, pid, cases[i].suffix);
        make_dir(base, names[i], cases[i].what);
    }
    setenv("TMPDIR", base, 1);
    char err[512], want[128];
    rc_tls_opts o = {.host = "127.0.0.1", .port = 1, .timeout_ms = 1000};
    rc_tls_relay *t = NULL;
    RC_CHECK_INT_EQ(rc_tls_relay_new(&o, &t, err, sizeof err), 0);
    unsetenv("TMPDIR");
    snprintf(want, sizeof want, "%s/redcrawl-tls-%llu-%ld-", base, ns, (long)getpid());
    RC_CHECK(t && strncmp(rc_tls_relay_path(t), want, strlen(want)) == 0);
    rc_tls_relay_free(t);
    int right = 0;
    for (size_t i = 0; i < n; i++) {
        int stays = exists(base, names[i]);
        if (stays != cases[i].stays)
            fprintf(stderr, "%s (%s): %s\n", names[i], cases[i].what, stays ? "kept" : "removed");
        right += stays == cases[i].stays;
        remove_dir(base, names[i]);
    }
    RC_CHECK_INT_EQ(right, (int)n);
    RC_CHECK(rmdir(base) == 0); /* the relay's own directory is gone too */
}

static void test_parse(void)
{
    rc_redis_addr a;
    char err[256];
    setenv("REDCRAWL_REDIS_CACERT", "/etc/ca.pem", 1);
    setenv("REDCRAWL_REDIS_SERVERNAME", "redis.internal", 1);
    RC_CHECK_INT_EQ(rc_redis_parse_url("rediss://u:pw@db.example:6380/2", &a, err, sizeof err), 0);
    RC_CHECK_INT_EQ(a.tls, 1);
    RC_CHECK_STR_EQ(a.host, "db.example");
    RC_CHECK_INT_EQ(a.port, 6380);
    RC_CHECK_INT_EQ(a.db, 2);
    RC_CHECK_STR_EQ(a.user, "u");
    RC_CHECK_STR_EQ(a.password, "pw");
    RC_CHECK_STR_EQ(a.cacert, "/etc/ca.pem");
    RC_CHECK_STR_EQ(a.servername, "redis.internal");
    RC_CHECK_STR_EQ(a.cert, "");
    RC_CHECK_INT_EQ(rc_redis_parse_url("redis://db.example", &a, err, sizeof err), 0);
    RC_CHECK_INT_EQ(a.tls, 0);
    RC_CHECK_STR_EQ(a.cacert, ""); /* TLS settings apply to rediss:// only */
    RC_CHECK_INT_EQ(rc_redis_parse_url("redisx://u:pw@h", &a, err, sizeof err), -EINVAL);
    RC_CHECK(strstr(err, "rediss://") && !strstr(err, "pw@"));
    unsetenv("REDCRAWL_REDIS_CACERT");
    unsetenv("REDCRAWL_REDIS_SERVERNAME");
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    snprintf(dir, sizeof dir, "/tmp/rc-test-tls-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    EVP_PKEY *ca_key = EVP_EC_gen("P-256"), *other_key = EVP_EC_gen("P-256"), *key = EVP_EC_gen("P-256");
    X509 *ca = make_cert(ca_key, "rc test CA", NULL, NULL, NULL);
    X509 *other = make_cert(other_key, "rc other CA", NULL, NULL, NULL);
    X509 *cert = make_cert(key, "127.0.0.1", ca, ca_key, "IP:127.0.0.1,DNS:localhost");
    write_pem("ca.pem", ca);
    write_pem("other.pem", other);
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    SSL_CTX_use_certificate(ctx, cert);
    SSL_CTX_use_PrivateKey(ctx, key);

    server echo, once, plain;
    server_start(&echo, ctx, 0);
    server_start(&once, ctx, 1);
    server_start(&plain, NULL, 0);
    test_echo(echo.port);
    test_server_close_is_eof(once.port);
    check_refused(echo.port, "other.pem", NULL, -EPROTO, "certificate verify failed");
    check_refused(echo.port, "ca.pem", "redis.other.test", -EPROTO, "hostname mismatch");
    check_refused(echo.port, "ca.pem", "10.1.2.3", -EPROTO, "IP address mismatch");
    check_refused(plain.port, "ca.pem", NULL, -EPROTO, "is it a TLS port?");
    int closed = plain.port;
    server_stop(&plain);
    check_refused(closed, "ca.pem", NULL, -ECONNREFUSED, "Connection refused");
    test_free_is_prompt(echo.port);
    server_stop(&echo);
    server_stop(&once);
    test_files();
    test_stale_dirs();
    test_parse();

    SSL_CTX_free(ctx);
    X509_free(ca);
    X509_free(other);
    X509_free(cert);
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(other_key);
    EVP_PKEY_free(key);
    char path[128];
    const char *files[] = {"ca.pem", "other.pem"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    return rc_test_done("tls_relay");
}
