/* offload.h - work that may take long (parsing a page) done off the event loop.
 *
 * One rc_offload owns its threads and an ev_async on the caller's loop. submit() hands a job to
 * the threads; work(arg, thread) runs on one of them, then done(arg) runs back on the loop
 * thread. A thread is woken for the jobs when the loop's turn ends (before it waits for events
 * again), once for all those the turn submitted. THREAD is the index of the thread that runs it (0 .. threads - 1; 0
 * inline), so work can use state that thread alone owns. Jobs start in submission order but finish in any order with
 * more than one thread. Threading: submit() and free() from the loop thread only; work() must touch nothing the loop or
 * another job changes meanwhile (it gets its own copy of what it reads, data the loop only reads, or its thread's own).
 * With threads == 0 the work runs inline inside submit() (then done() too). */
#ifndef RC_OFFLOAD_H
#define RC_OFFLOAD_H

#include <stddef.h>

struct ev_loop;

typedef struct rc_offload rc_offload;
typedef void (*rc_offload_work_fn)(void *arg, int thread);
typedef void (*rc_offload_fn)(void *arg);

/* NULL with a message in err when a thread cannot be started. */
rc_offload *rc_offload_new(struct ev_loop *loop, int threads, char *err, size_t cap);
void rc_offload_submit(rc_offload *o, rc_offload_work_fn work, rc_offload_fn done, void *arg);
/* after(arg) runs on the loop once the done()s of the jobs that finished together have run: what
 * they left for a batch goes at once, with no wait for a later turn of the loop. */
void rc_offload_set_after(rc_offload *o, rc_offload_fn after, void *arg);
/* Memory a thread made (a parsed page) is best freed on a thread of the pool: glibc gives a
 * freed chunk back to the arena it came from, under that arena's lock, so the loop freeing a
 * parse thread's allocations contends with it (and pays the remote arena's bookkeeping). The
 * caller embeds one of these in what it disposes of; fn(item) runs on one of the threads when
 * one next wakes for work (a dispose wakes none until RC_OFFLOAD_TRASH_WAKE are waiting), at
 * rc_offload_free those left run on the caller's thread, and with no threads fn runs at once.
 * From the loop thread only, like submit(). */
typedef struct rc_offload_trash rc_offload_trash;
typedef void (*rc_offload_trash_fn)(rc_offload_trash *item);
struct rc_offload_trash {
    rc_offload_trash *next;
    rc_offload_trash_fn fn;
};
#define RC_OFFLOAD_TRASH_WAKE 64
void rc_offload_dispose(rc_offload *o, rc_offload_trash *item, rc_offload_trash_fn fn);
/* Threads that run work (0 = inline). */
int rc_offload_threads(const rc_offload *o);
/* Jobs submitted and whose done() has not run yet. */
long rc_offload_pending(const rc_offload *o);
/* Waits for the job running now on each thread, then stops them; queued jobs and finished jobs
 * whose done() did not run are dropped without a call (the caller is shutting down). */
void rc_offload_free(rc_offload *o);

#endif
