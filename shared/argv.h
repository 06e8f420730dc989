/* argv.h - an argument vector for Redis commands (hiredis *Argv calls): every argument is
 * copied into the vector, so callers may pass stack buffers. Embedded: init/release.
 *
 * The copies go into blocks of the vector's own, one after another, not a malloc each: a
 * worker's step carries up to ~100,000 arguments (64 pages of ~200 links), which were as many
 * mallocs and frees and ~25 bytes of allocator overhead each. v[i] stays valid, NUL-terminated,
 * until reset or release; replace an argument with rc_argv_set*, never by writing v[i]. */
#ifndef RC_ARGV_H
#define RC_ARGV_H

#include <stddef.h>
#include <stdint.h>

struct rc_argv_block;

typedef struct rc_argv {
    char **v;
    size_t *len;
    int n, cap;
    struct rc_argv_block *blocks; /* the copies; the newest first */
} rc_argv;

void rc_argv_init(rc_argv *a);
void rc_argv_release(rc_argv *a);
void rc_argv_reset(rc_argv *a);
void rc_argv_addn(rc_argv *a, const char *s, size_t n);
void rc_argv_add(rc_argv *a, const char *s);
void rc_argv_addi(rc_argv *a, int64_t x);
void rc_argv_addu(rc_argv *a, uint64_t x);

/* Set argument i (a Lua script's named position, scripts_args.h), growing the vector with
 * empty arguments up to it: the arguments of a script may be given in any order, by name. */
void rc_argv_setn(rc_argv *a, int i, const char *s, size_t n);
void rc_argv_set(rc_argv *a, int i, const char *s);
void rc_argv_seti(rc_argv *a, int i, int64_t x);
void rc_argv_setu(rc_argv *a, int i, uint64_t x);

/* Arguments from..n-1 in Redis' wire format ("$len\r\ndata\r\n" each): the size they take, and
 * written at p (returns the end). A command built from several vectors is formatted from them
 * directly, without first copying them into one vector (a worker's step is megabytes). */
size_t rc_argv_resp_len(const rc_argv *a, int from);
char *rc_argv_resp_put(const rc_argv *a, int from, char *p);
/* One argument s[0..n) in that format, written at p (at most n + 25 bytes); returns the end. */
char *rc_argv_resp_bulk(char *p, const char *s, size_t n);

/* A finished vector packed in that format, exact size, in one allocation: what a vector keeps
 * while it waits to be sent and answered. A page's complete has ~1,700 arguments (a link and
 * its hash values each), and as a vector it took more bytes for their pointers, lengths and
 * its blocks' slack than for the arguments. */
typedef struct rc_argv_packed {
    char *data;
    size_t len;
    size_t first; /* the first argument's bytes: data + first is the rest */
    int n;        /* arguments */
} rc_argv_packed;

/* a packed into out (empty or released before). */
void rc_argv_pack(const rc_argv *a, rc_argv_packed *out);
void rc_argv_packed_release(rc_argv_packed *p);
/* p's arguments from from (0 or 1) on, appended to a: for a synchronous call (tests). */
void rc_argv_unpack(const rc_argv_packed *p, int from, rc_argv *a);

#endif
