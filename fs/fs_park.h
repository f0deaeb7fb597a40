/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parked waits, for both servers: a request whose host call must block
 * for as long as some other party likes (a FUSE SETLKW, a blocking 9p
 * Tlock) runs that call on a helper thread of its own, which answers the
 * request through the transport's completion when the call returns, so
 * the queue that received it keeps serving.
 *
 * A parked wait can be cancelled (FUSE INTERRUPT, 9p Tflush, a reset):
 * the canceller marks it, makes its blocking call return (see fs_park.c
 * for why that is certain, with no retry loop) and returns at once; the
 * helper answers the request with EINTR itself. Nothing ever sleeps on
 * the canceller's thread except fs_park_cancel_all() (teardown), which
 * waits for the helpers to be gone, and fs_park_cancel_wait(), for a
 * transport that cannot take a deferred answer.
 *
 * Bounds: a set of parked waits (one per FUSE server, one per 9p
 * session) holds at most `max`, and the whole process at most
 * fs_park_process_max() (FS_PARK_PROCESS_MAX): helpers are threads, and
 * per-set bounds alone multiply with the number of sets (a 9p-serve with
 * many connections). Each wait costs two host fds, charged to the
 * process budget (fs_fdbudget.h): the caller's, and the helper's own
 * dup, which a cancel replaces (both to set->fds as well, when the owner
 * has a share of the budget: fs_fdbudget.h). The caller charges its record and the
 * helper's stack (FS_PARK_STACK) to whatever byte budget it keeps.
 *
 * Process-wide: fs_park_setup() installs a do-nothing
 * handler for FS_PARK_SIGNAL (no SA_RESTART, so a blocked lock call
 * returns EINTR); the first park opens one O_PATH fd of "/" (the dead fd
 * a cancel swaps in), kept for the process's life. Helpers start with every signal blocked but FS_PARK_SIGNAL;
 * keep that signal free in the process. A device-queue seccomp profile
 * must allow, for parking: clone3/clone, rt_sigprocmask, tgkill, dup2/
 * dup3, fcntl, flock, futex, madvise, munmap.
 */
#ifndef STAINLESS_FS_FS_PARK_H
#define STAINLESS_FS_FS_PARK_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "fs/fs_fair.h"
#include "fs/fs_req.h"

#define FS_PARK_SIGNAL (SIGRTMIN + 4)
/* The helper runs the blocking call, builds a small reply and calls the
 * transport's completion (an eventfd write, a write(2) to a socket). */
#define FS_PARK_STACK (64u * 1024)
/* Parked helpers alive in the whole process, at most (see Bounds). */
#define FS_PARK_PROCESS_MAX 256u
/* INTERRUPTs that found nothing parked, remembered (see fs_park_cancel). */
#define FS_PARK_EARLY 8u

struct fs_park;

struct fs_park_ops {
	/*
	 * The blocking call, made on fd (the helper's own dup of the
	 * caller's fd: same open file description). 0 when it succeeded,
	 * else -errno; -EINTR is retried unless the wait was cancelled.
	 */
	int (*wait)(struct fs_park *p, int fd);
	/* It succeeded although cancelled: give back what it took (on fd). */
	void (*undo)(struct fs_park *p, int fd);
	/*
	 * Answers the request: 0 or -errno (-EINTR when cancelled). Writes
	 * the reply and calls the transport's completion; refunds what the
	 * caller charged. The set may be torn down once this returns.
	 */
	void (*answer)(struct fs_park *p, int result);
};

/* A request answered right after a cancelled wait's own answer (9p's Rflush). */
struct fs_park_follow {
	struct fs_req *req;
	struct fs_transport t;   /* its complete() is called */
	uint32_t len;            /* reply bytes already written into req->out */
};

/*
 * One parked wait: the first member of the caller's record, which is
 * allocated with malloc and freed (with free) by the helper at the end.
 */
struct fs_park {
	struct fs_park *next;
	struct fs_park_set *set;
	const struct fs_park_ops *ops;
	uint64_t key;            /* what a cancel names: FUSE unique, 9p tag */
	int fd, wfd;             /* the caller's fd; the one the call is made on */
	pthread_t thread;
	atomic_bool cancelled;
	bool answered;           /* its answer is out (under set->mu) */
	bool follow_set;
	struct fs_park_follow follow;
};

struct fs_park_set {
	pthread_mutex_t mu;
	pthread_cond_t gone;     /* a helper unlisted itself */
	struct fs_park *list;
	unsigned n, max;
	struct fs_fair_acct *fds; /* the owner's share of the fd budget, or NULL */
	uint64_t early[FS_PARK_EARLY];
	unsigned nearly;
};

/*
 * The process-wide part: installs the handler. Once per process; call it
 * while setting up (a server's creation), since a serving thread's
 * seccomp filter has no sigaction. 0 or -errno.
 */
/*
 * The one fd parked waits keep for the process (an O_PATH fd of "/",
 * opened at the first park; -1 before): what a cancel dup2()s over a
 * waiter's fd. For fd accounting in tests and fuzzers, which must not
 * count it as a server's leak.
 */
int fs_park_reserved_fd(void);

int fs_park_setup(void);

/* The process-wide bound on helpers, and (tests) setting it; 0 = the default. */
unsigned fs_park_process_max(void);
void fs_park_set_process_max(unsigned max);
/* Helpers alive now, in the whole process. */
unsigned fs_park_helpers(void);

/* 0 or -errno (fs_park_setup() failed). */
int fs_park_set_init(struct fs_park_set *set, unsigned max);
/* After fs_park_cancel_all(). */
void fs_park_set_fini(struct fs_park_set *set);

/*
 * Parks p (ops and key set; the rest is fs_park's) with fd, the
 * caller's fd for the call, charged to the fd budget. On success the
 * helper owns p and fd (it closes and refunds fd) and the caller returns
 * FS_REQ_DEFERRED. Otherwise p and fd stay the caller's and the result
 * says why: -ENOLCK (the set or the process is full, or no fd for the
 * helper's dup or the dead fd),
 * -EINTR (an INTERRUPT for key came first: answer it so), or -errno
 * from pthread_create.
 */
int fs_park_start(struct fs_park_set *set, struct fs_park *p, int fd);

/*
 * Cancels the wait parked under key. When follow is given, its request
 * is completed right after the wait's own answer (and before
 * fs_park_cancel_all() can return). Returns false when nothing is parked
 * under key, or when follow is given and the wait has answered already
 * (then the caller answers the follower itself, after that answer); then,
 * with remember, the key is kept
 * (the last FS_PARK_EARLY of them) so a park under it that was still on
 * its way is answered EINTR at once: for keys that are never reused
 * (FUSE uniques), where an INTERRUPT may overtake its request.
 */
bool fs_park_cancel(struct fs_park_set *set, uint64_t key, const struct fs_park_follow *follow,
		    bool remember);

/* fs_park_cancel(), then waits until that wait has answered; false if none. */
bool fs_park_cancel_wait(struct fs_park_set *set, uint64_t key);

/* Cancels every wait and returns once all of them have answered. */
void fs_park_cancel_all(struct fs_park_set *set);

#endif
