/* offload.h - work that may take long (parsing a page) done off the event loop.
 *
 * One rc_offload owns its threads and an ev_async on the caller's loop. submit() hands a job to
 * the threads; work(arg) runs on one of them, then done(arg) runs back on the loop thread. Jobs
 * finish in any order. Threading: submit() and free() from the loop thread only; work() must
 * touch nothing the loop changes meanwhile (it gets its own copy of what it reads, or data the
 * loop only reads). With threads == 0 the work runs inline inside submit() (then done() too). */
#ifndef RC_OFFLOAD_H
#define RC_OFFLOAD_H

#include <stddef.h>

struct ev_loop;

typedef struct rc_offload rc_offload;
typedef void (*rc_offload_fn)(void *arg);

/* NULL with a message in err when a thread cannot be started. */
rc_offload *rc_offload_new(struct ev_loop *loop, int threads, char *err, size_t cap);
void rc_offload_submit(rc_offload *o, rc_offload_fn work, rc_offload_fn done, void *arg);
/* Jobs submitted and whose done() has not run yet. */
long rc_offload_pending(const rc_offload *o);
/* Waits for the job running now on each thread, then stops them; queued jobs and finished jobs
 * whose done() did not run are dropped without a call (the caller is shutting down). */
void rc_offload_free(rc_offload *o);

#endif
