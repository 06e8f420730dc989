/* tls_relay.c - see tls_relay.h. */
#include "tls_relay.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
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
#include <unistd.h>

#include "util.h"

/* How long the relay waits for its client to connect after the handshake: the caller does so
 * at once; past this it has given up, and nothing may connect later. */
#define ACCEPT_WAIT_MS 60000
#define RELAY_BUF 16384

struct rc_tls_relay {
    char *host;
    char *servername;
    int port;
    int timeout_ms;
    SSL_CTX *ctx;
    SSL *ssl;
    int tcp;      /* to the server */
    int lfd;      /* the listening unix socket, until the client came */
    int local;    /* the client's connection */
    int wake[2];  /* free() writes: the thread stops */
    int ready[2]; /* the thread writes once the handshake has ended */
    int started;
    pthread_t thread;
    char dir[100]; /* + "/s" within sun_path's 108 */
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    int removed; /* the socket and its directory are gone */
    char local_ip[64];
    pthread_mutex_t mu; /* guards status and err */
    int status;         /* 0 ok, negative errno */
    char err[384];
};

/* The newest OpenSSL error on this thread's queue, as text ("" when none). */
static const char *ssl_reason(char *buf, size_t cap)
{
    unsigned long e = ERR_peek_last_error();
    buf[0] = '\0';
    if (e)
        ERR_error_string_n(e, buf, cap);
    return buf;
}

/* Waits for events on fd, or for free(): 1 ready, 0 timed out, -1 told to stop. */
static int wait_io(rc_tls_relay *t, int fd, short events, int timeout_ms)
{
    struct pollfd p[2] = {{fd, events, 0}, {t->wake[0], POLLIN, 0}};
    int n;
    do
        n = poll(p, 2, timeout_ms < 0 ? 0 : timeout_ms);
    while (n < 0 && errno == EINTR);
    if (n < 0 || p[1].revents)
        return -1;
    return n > 0 ? 1 : 0;
}

static int left_ms(uint64_t deadline)
{
    uint64_t now = rc_mono_ms();
    return now >= deadline ? 0 : (int)(deadline - now);
}

static void note_local_ip(rc_tls_relay *t)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(t->tcp, (struct sockaddr *)&ss, &len) < 0)
        return;
    if (ss.ss_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, t->local_ip, sizeof t->local_ip);
    else if (ss.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, t->local_ip, sizeof t->local_ip);
}

/* One address: a non-blocking connect bounded by the deadline. 0, or negative errno. */
static int connect_one(rc_tls_relay *t, const struct addrinfo *ai, uint64_t deadline)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0)
        return -errno;
    int r = connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 ? 0 : -errno;
    if (r == -EINPROGRESS) {
        int w = wait_io(t, fd, POLLOUT, left_ms(deadline));
        int so = 0;
        socklen_t sl = sizeof so;
        if (w <= 0)
            r = w == 0 ? -ETIMEDOUT : -ECANCELED;
        else
            r = getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) < 0 ? -errno : -so;
    }
    if (r < 0) {
        close(fd);
        return r;
    }
    int one = 1; /* Redis commands are small and answered one by one: no Nagle delay */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    t->tcp = fd;
    note_local_ip(t);
    return 0;
}

static int tcp_connect(rc_tls_relay *t, uint64_t deadline, char *err, size_t cap)
{
    struct addrinfo hints, *res = NULL;
    char port[16];
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(port, sizeof port, "%d", t->port);
    int g = getaddrinfo(t->host, port, &hints, &res);
    if (g != 0) {
        snprintf(err, cap, "cannot resolve %s: %s", t->host, gai_strerror(g));
        return -EHOSTUNREACH;
    }
    int r = -ECONNREFUSED;
    for (const struct addrinfo *ai = res; ai && r < 0 && r != -ECANCELED; ai = ai->ai_next)
        r = connect_one(t, ai, deadline);
    freeaddrinfo(res);
    if (r < 0)
        snprintf(err, cap, "cannot connect to %s:%d: %s", t->host, t->port,
                 r == -ETIMEDOUT ? "timed out" : strerror(-r));
    return r;
}

/* The peer closed or answered in plain text: most likely not a TLS port at all. */
static int not_tls(int ssl_err)
{
    int r = ERR_GET_REASON(ERR_peek_last_error());
    return (ssl_err == SSL_ERROR_SYSCALL && !ERR_peek_last_error()) || ssl_err == SSL_ERROR_ZERO_RETURN ||
           r == SSL_R_UNEXPECTED_EOF_WHILE_READING || r == SSL_R_WRONG_VERSION_NUMBER ||
           r == SSL_R_PACKET_LENGTH_TOO_LONG;
}

/* Why SSL_connect failed, in words that name the cause (a verify failure says which). */
static void describe_failure(rc_tls_relay *t, int ssl_err, char *err, size_t cap)
{
    char reason[256];
    long v = SSL_get_verify_result(t->ssl);
    if (v != X509_V_OK)
        snprintf(err, cap, "TLS handshake with %s:%d failed: certificate verify failed: %s (name checked: %s)", t->host,
                 t->port, X509_verify_cert_error_string(v), t->servername);
    else if (not_tls(ssl_err))
        snprintf(err, cap, "TLS handshake with %s:%d failed: %s (is it a TLS port?)", t->host, t->port,
                 ssl_reason(reason, sizeof reason)[0] ? reason : "the server closed the connection");
    else if (ssl_reason(reason, sizeof reason)[0])
        snprintf(err, cap, "TLS handshake with %s:%d failed: %s", t->host, t->port, reason);
    else
        snprintf(err, cap, "TLS handshake with %s:%d failed (SSL error %d)", t->host, t->port, ssl_err);
}

static int tls_handshake(rc_tls_relay *t, uint64_t deadline, char *err, size_t cap)
{
    t->ssl = SSL_new(t->ctx);
    if (!t->ssl || !SSL_set_fd(t->ssl, t->tcp)) {
        snprintf(err, cap, "TLS: cannot set up a connection: %s", ssl_reason((char[256]){0}, 256));
        return -ENOMEM;
    }
    unsigned char ip[16];
    int is_ip = inet_pton(AF_INET, t->servername, ip) == 1 || inet_pton(AF_INET6, t->servername, ip) == 1;
    X509_VERIFY_PARAM *vp = SSL_get0_param(t->ssl);
    /* An address is matched against the certificate's IP entries, a name against its DNS ones;
     * only a name goes into SNI (RFC 6066 forbids addresses there). */
    int ok = is_ip
                 ? X509_VERIFY_PARAM_set1_ip_asc(vp, t->servername)
                 : X509_VERIFY_PARAM_set1_host(vp, t->servername, 0) && SSL_set_tlsext_host_name(t->ssl, t->servername);
    if (!ok) {
        snprintf(err, cap, "TLS: cannot check the name %s", t->servername);
        return -EINVAL;
    }
    for (;;) {
        ERR_clear_error();
        int r = SSL_connect(t->ssl);
        if (r == 1)
            return 0;
        int e = SSL_get_error(t->ssl, r);
        if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
            describe_failure(t, e, err, cap);
            return -EPROTO;
        }
        int w = wait_io(t, t->tcp, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, left_ms(deadline));
        if (w <= 0) {
            snprintf(err, cap, "TLS handshake with %s:%d: %s", t->host, t->port,
                     w == 0 ? "no answer in time (is it a TLS port? a plain Redis waits for a newline)" : "cancelled");
            return w == 0 ? -ETIMEDOUT : -ECANCELED;
        }
    }
}

static void set_result(rc_tls_relay *t, int status, const char *err)
{
    pthread_mutex_lock(&t->mu);
    t->status = status;
    snprintf(t->err, sizeof t->err, "%s", err);
    pthread_mutex_unlock(&t->mu);
    ssize_t w;
    do
        w = write(t->ready[1], "x", 1);
    while (w < 0 && errno == EINTR);
}

/* Once: by the thread after the client came, else by free() after joining it. */
static void remove_socket(rc_tls_relay *t)
{
    if (t->removed || !t->dir[0])
        return;
    unlink(t->path);
    rmdir(t->dir);
    t->removed = 1;
}

/* Takes the one connection from this process; anything else that got in is turned away. */
static int accept_local(rc_tls_relay *t)
{
    uint64_t deadline = rc_mono_ms() + ACCEPT_WAIT_MS;
    while (t->local < 0) {
        if (wait_io(t, t->lfd, POLLIN, left_ms(deadline)) <= 0)
            break;
        int fd = accept4(t->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        struct ucred cred;
        socklen_t len = sizeof cred;
        if (fd < 0)
            continue;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.pid == getpid())
            t->local = fd;
        else
            close(fd);
    }
    close(t->lfd);
    t->lfd = -1;
    remove_socket(t);
    return t->local >= 0 ? 0 : -ETIMEDOUT;
}

/* What to do after an OpenSSL read or write that moved nothing: wait for the socket (events
 * added to *ev), or 0 when the TLS side is over. */
static int tls_wants(rc_tls_relay *t, int r, short *ev)
{
    switch (SSL_get_error(t->ssl, r)) {
    case SSL_ERROR_WANT_READ:
        *ev |= POLLIN;
        return 1;
    case SSL_ERROR_WANT_WRITE:
        *ev |= POLLOUT;
        return 1;
    default:
        return 0;
    }
}

/* Stop when a socket hung up or failed and is not waited for in a way that would tell. */
static int gone(const struct pollfd *p)
{
    return (p->revents & (POLLHUP | POLLERR | POLLNVAL)) && !(p->revents & p->events);
}

/* Moves bytes both ways until one side ends: 1 when the client closed (a clean TLS close is
 * then in order), 0 when the server's side ended or failed, or the relay was told to stop. */
static int pump(rc_tls_relay *t)
{
    unsigned char up[RELAY_BUF], down[RELAY_BUF];
    size_t up_off = 0, up_len = 0, down_off = 0, down_len = 0;
    for (;;) {
        short lev = 0, tev = 0;
        int moved = 0;
        if (down_len == 0) {
            ERR_clear_error();
            int n = SSL_read(t->ssl, down, sizeof down);
            if (n > 0) {
                down_off = 0;
                down_len = (size_t)n;
            } else if (!tls_wants(t, n, &tev))
                return 0;
        }
        if (down_len) {
            ssize_t w = send(t->local, down + down_off, down_len, MSG_NOSIGNAL);
            if (w > 0) {
                down_off += (size_t)w;
                down_len -= (size_t)w;
                moved = 1;
            } else if (w < 0 && (errno == EAGAIN || errno == EINTR))
                lev |= POLLOUT;
            else
                return 1;
        }
        if (up_len == 0) {
            ssize_t r = recv(t->local, up, sizeof up, 0);
            if (r > 0) {
                up_off = 0;
                up_len = (size_t)r;
            } else if (r < 0 && (errno == EAGAIN || errno == EINTR))
                lev |= POLLIN;
            else
                return 1;
        }
        if (up_len) {
            ERR_clear_error();
            int n = SSL_write(t->ssl, up + up_off, (int)up_len);
            if (n > 0) {
                up_off += (size_t)n;
                up_len -= (size_t)n;
                moved = 1;
            } else if (!tls_wants(t, n, &tev))
                return 0;
        }
        if (moved)
            continue;
        struct pollfd p[3] = {{t->local, lev, 0}, {t->tcp, tev, 0}, {t->wake[0], POLLIN, 0}};
        if (poll(p, 3, -1) < 0 && errno != EINTR)
            return 0;
        if (p[2].revents)
            return 0;
        if (gone(&p[0]))
            return 1;
        if (gone(&p[1]))
            return 0;
    }
}

static void *relay_main(void *arg)
{
    rc_tls_relay *t = arg;
    char err[384] = "";
    uint64_t deadline = rc_mono_ms() + (uint64_t)t->timeout_ms;
    int st = tcp_connect(t, deadline, err, sizeof err);
    if (st == 0)
        st = tls_handshake(t, deadline, err, sizeof err);
    if (st == 0 && listen(t->lfd, 1) < 0) {
        st = -errno;
        snprintf(err, sizeof err, "cannot listen on %s: %s", t->path, strerror(errno));
    }
    set_result(t, st, err);
    if (st == 0 && accept_local(t) == 0 && pump(t) == 1)
        SSL_shutdown(t->ssl); /* one close_notify, not waited for */
    /* The client reads EOF, as from a server that closed its TCP connection, and its
     * reconnect path runs; its writes still go into the socket (no EPIPE) until free(). */
    if (t->local >= 0)
        shutdown(t->local, SHUT_WR);
    return NULL;
}

static int make_ctx(rc_tls_relay *t, const rc_tls_opts *o, char *err, size_t cap)
{
    char reason[256];
    t->ctx = SSL_CTX_new(TLS_client_method());
    if (!t->ctx) {
        snprintf(err, cap, "TLS: cannot create a context: %s", ssl_reason(reason, sizeof reason));
        return -ENOMEM;
    }
    SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    const char *files[] = {o->cacert, o->cert, o->key};
    for (size_t i = 0; i < 3; i++)
        if (files[i] && access(files[i], R_OK) < 0) {
            snprintf(err, cap, "TLS: cannot read %s: %s", files[i], strerror(errno));
            return -errno;
        }
    ERR_clear_error();
    if (o->cacert ? !SSL_CTX_load_verify_locations(t->ctx, o->cacert, NULL)
                  : !SSL_CTX_set_default_verify_paths(t->ctx)) {
        snprintf(err, cap, "TLS: cannot read the CA file %s: %s", o->cacert ? o->cacert : "(system default)",
                 ssl_reason(reason, sizeof reason));
        return -EIO;
    }
    if (!o->cert != !o->key) {
        snprintf(err, cap, "TLS: a client certificate needs its key and a key its certificate");
        return -EINVAL;
    }
    if (o->cert && !SSL_CTX_use_certificate_chain_file(t->ctx, o->cert)) {
        snprintf(err, cap, "TLS: cannot read the client certificate %s: %s", o->cert,
                 ssl_reason(reason, sizeof reason));
        return -EIO;
    }
    if (o->key &&
        (!SSL_CTX_use_PrivateKey_file(t->ctx, o->key, SSL_FILETYPE_PEM) || !SSL_CTX_check_private_key(t->ctx))) {
        snprintf(err, cap, "TLS: cannot use the client key %s: %s", o->key, ssl_reason(reason, sizeof reason));
        return -EIO;
    }
    return 0;
}

#define DIR_PREFIX "redcrawl-tls-" /* then NS-PID-XXXXXX: pid namespace, creator's pid, mkdtemp's */

/* The pid namespace this process lives in (the inode of /proc/self/ns/pid; 0 without /proc):
 * a pid means a process only within its namespace, and containers sharing one /tmp as the
 * same user would otherwise take each other's live relays for dead ones. */
static unsigned long long pid_namespace(void)
{
    struct stat sb;
    return stat("/proc/self/ns/pid", &sb) == 0 ? (unsigned long long)sb.st_ino : 0;
}

/* One decimal number of name at *p, followed by '-'; advances past the '-'. -1 when absent. */
static long long dir_number(const char **p)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(*p, &end, 10);
    if (errno || *end != '-')
        return -1;
    *p = end + 1;
    return v;
}

/* The pid in the name of a relay directory (redcrawl-tls-NS-PID-XXXXXX) made in pid namespace
 * ns, 0 when the name is not one of ours or was made in another namespace. */
static pid_t relay_dir_pid(const char *name, unsigned long long ns)
{
    size_t n = strlen(DIR_PREFIX);
    if (strncmp(name, DIR_PREFIX, n) != 0)
        return 0;
    const char *p = name + n;
    long long dir_ns = dir_number(&p), pid = dir_number(&p);
    if (dir_ns < 0 || (unsigned long long)dir_ns != ns || pid <= 0 || pid != (pid_t)pid || strlen(p) != 6)
        return 0;
    for (; *p; p++)
        if (!isalnum((unsigned char)*p))
            return 0;
    return (pid_t)pid;
}

/* Removes directory name of basefd when it holds nothing, or nothing but our socket "s". */
static void remove_if_only_socket(int basefd, const char *name)
{
    int dfd = openat(basefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return;
    }
    int other = 0, sock = 0;
    const struct dirent *e;
    while ((e = readdir(d))) {
        struct stat sb;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (strcmp(e->d_name, "s") == 0 && fstatat(dfd, "s", &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(sb.st_mode))
            sock = 1;
        else
            other = 1;
    }
    if (!other && (!sock || unlinkat(dfd, "s", 0) == 0))
        unlinkat(basefd, name, AT_REMOVEDIR);
    closedir(d);
}

/* A process killed between making its relay directory and its client's connection leaves the
 * directory behind (the relay removes it only after the accept): the next relay made in base
 * removes those of this user whose creator, in this pid namespace, is dead. */
static void sweep_stale_dirs(const char *base)
{
    DIR *d = opendir(base);
    if (!d)
        return;
    unsigned long long ns = pid_namespace();
    const struct dirent *e;
    while ((e = readdir(d))) {
        pid_t pid = relay_dir_pid(e->d_name, ns);
        struct stat sb;
        if (pid == 0 || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
            continue; /* not ours, or its process lives (EPERM: another user's, alive) */
        if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode) &&
            sb.st_uid == geteuid())
            remove_if_only_socket(dirfd(d), e->d_name);
    }
    closedir(d);
}

/* A fresh 0700 directory holding the socket: only this user can reach it, and the relay then
 * still checks that the peer is this process. Its name carries our pid namespace and pid, so
 * that a later relay can tell when it was left behind. */
static int make_socket(rc_tls_relay *t, char *err, size_t cap)
{
    const char *base = getenv("TMPDIR");
    if (!base || !base[0] || strlen(base) + 60 > sizeof t->dir)
        base = "/tmp";
    sweep_stale_dirs(base);
    snprintf(t->dir, sizeof t->dir, "%s/" DIR_PREFIX "%llu-%ld-XXXXXX", base, pid_namespace(), (long)getpid());
    if (!mkdtemp(t->dir)) {
        snprintf(err, cap, "TLS relay: cannot make a directory in %s: %s", base, strerror(errno));
        t->dir[0] = '\0';
        return -errno;
    }
    snprintf(t->path, sizeof t->path, "%s/s", t->dir);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, t->path, strlen(t->path) + 1);
    t->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (t->lfd < 0 || bind(t->lfd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        snprintf(err, cap, "TLS relay: cannot bind %s: %s", t->path, strerror(errno));
        return -errno;
    }
    return 0;
}

int rc_tls_relay_new(const rc_tls_opts *o, rc_tls_relay **ret, char *err, size_t cap)
{
    if (!o->host || !o->host[0] || o->port < 1 || o->port > 65535) {
        snprintf(err, cap, "TLS relay: no host or a bad port");
        return -EINVAL;
    }
    rc_tls_relay *t = rc_xcalloc(1, sizeof *t);
    t->tcp = t->lfd = t->local = -1;
    t->wake[0] = t->wake[1] = t->ready[0] = t->ready[1] = -1;
    pthread_mutex_init(&t->mu, NULL);
    t->host = rc_xstrdup(o->host);
    t->servername = rc_xstrdup(o->servername && o->servername[0] ? o->servername : o->host);
    t->port = o->port;
    t->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 5000;
    t->status = -EINPROGRESS;
    int r = make_ctx(t, o, err, cap);
    if (r == 0)
        r = make_socket(t, err, cap);
    if (r == 0 && (pipe2(t->wake, O_CLOEXEC | O_NONBLOCK) < 0 || pipe2(t->ready, O_CLOEXEC | O_NONBLOCK) < 0)) {
        r = -errno;
        snprintf(err, cap, "TLS relay: pipe: %s", strerror(errno));
    }
    if (r == 0) {
        /* The thread takes no signals: they stay with the threads that handle them, and a
         * SIGPIPE it raises is discarded with it (writes use MSG_NOSIGNAL anyway). */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        r = -pthread_create(&t->thread, NULL, relay_main, t);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        t->started = r == 0;
        if (t->started)
            pthread_setname_np(t->thread, "rc-tls-relay");
        if (r < 0)
            snprintf(err, cap, "TLS relay: cannot start a thread: %s", strerror(-r));
    }
    if (r < 0) {
        rc_tls_relay_free(t);
        return r;
    }
    *ret = t;
    return 0;
}

void rc_tls_relay_free(rc_tls_relay *t)
{
    if (!t)
        return;
    if (t->started) {
        ssize_t w;
        do
            w = write(t->wake[1], "x", 1);
        while (w < 0 && errno == EINTR);
        pthread_join(t->thread, NULL);
    }
    if (t->ssl)
        SSL_free(t->ssl);
    if (t->ctx)
        SSL_CTX_free(t->ctx);
    int fds[] = {t->tcp, t->lfd, t->local, t->wake[0], t->wake[1], t->ready[0], t->ready[1]};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    remove_socket(t);
    pthread_mutex_destroy(&t->mu);
    free(t->host);
    free(t->servername);
    free(t);
}

int rc_tls_relay_ready_fd(const rc_tls_relay *t)
{
    return t->ready[0];
}

int rc_tls_relay_wait(rc_tls_relay *t, int timeout_ms, char *err, size_t cap)
{
    struct pollfd p = {t->ready[0], POLLIN, 0};
    int n;
    do
        n = poll(&p, 1, timeout_ms);
    while (n < 0 && errno == EINTR);
    if (n <= 0) {
        snprintf(err, cap, "no TLS connection to %s:%d within %d ms", t->host, t->port, timeout_ms);
        return -ETIMEDOUT;
    }
    pthread_mutex_lock(&t->mu);
    int st = t->status;
    snprintf(err, cap, "%s", t->err);
    pthread_mutex_unlock(&t->mu);
    return st;
}

const char *rc_tls_relay_path(const rc_tls_relay *t)
{
    return t->path;
}

const char *rc_tls_relay_local_ip(const rc_tls_relay *t)
{
    return t->local_ip;
}
