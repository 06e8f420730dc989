/* tls_relay.h - one TLS connection to a server, offered to a plain client as a private unix
 * socket: how redcrawl speaks rediss:// through hiredis 0.14, which has no TLS (hiredis_ssl
 * came with 1.0) and whose async API takes only a host or a unix path, never a ready fd.
 *
 * rc_tls_relay_new starts a thread that connects over TCP, does the TLS handshake (the server's
 * certificate verified against a CA file or the system's, and its name or IP address checked),
 * then listens on DIR/s in a fresh 0700 directory ($TMPDIR or /tmp, redcrawl-tls-NS-PID-XXXXXX) for
 * exactly one connection from this process (SO_PEERCRED), removes the socket and relays bytes
 * both ways until either side closes (making a relay first removes the directories of this user
 * whose process died, empty or holding only their socket s): when
 * the server goes away the local end reads EOF, so the client's ordinary reconnect path runs
 * (with a new relay). One relay per connection, so its result belongs to that connection. */
#ifndef RC_TLS_RELAY_H
#define RC_TLS_RELAY_H

#include <stddef.h>

typedef struct rc_tls_opts {
    const char *host; /* name or address to connect to */
    int port;
    const char *cacert;     /* PEM CA bundle verifying the server; NULL = the system's */
    const char *cert;       /* PEM client certificate (chain), optional */
    const char *key;        /* its PEM private key; required with cert */
    const char *servername; /* name (or IP) the certificate must carry, and SNI; NULL = host */
    int timeout_ms;         /* TCP connect plus handshake */
} rc_tls_opts;

typedef struct rc_tls_relay rc_tls_relay;

/* Starts connecting and returns at once. -EINVAL/-EIO with a message in err when the options
 * or the CA, certificate or key files are unusable (the thread is then not started). The
 * strings of o are copied. */
int rc_tls_relay_new(const rc_tls_opts *o, rc_tls_relay **ret, char *err, size_t cap);
/* Stops the thread, closes both connections and removes the socket. Accepts NULL. Never call
 * it while a client still expects bytes through the relay: its end then reads EOF. */
void rc_tls_relay_free(rc_tls_relay *t);

/* Readable once the handshake has ended, well or not: for an event loop (ev_io). Borrowed. */
int rc_tls_relay_ready_fd(const rc_tls_relay *t);
/* Waits up to timeout_ms for the handshake: 0 when the socket is ready to connect to, else
 * negative errno with the reason in err (-ETIMEDOUT, -ECONNREFUSED, -EPROTO for TLS). */
int rc_tls_relay_wait(rc_tls_relay *t, int timeout_ms, char *err, size_t cap);

/* The unix socket path to connect to (once ready). Borrowed, lives as long as t. */
const char *rc_tls_relay_path(const rc_tls_relay *t);
/* The TCP connection's local address ("" before it is made). Borrowed. */
const char *rc_tls_relay_local_ip(const rc_tls_relay *t);

#endif
