// SPDX-License-Identifier: GPL-2.0-only
/*
 * The deadline of requests with a deadline (fuse_timed_int.h): one
 * "deadline" thread while jobs wait or run, which answers EIO those past
 * their deadline, fences the device of one that was running, and exits
 * after a second with nothing to watch.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/sysmacros.h>

#include "base/thread.h"
#include "fs/fs_log.h"
#include "fs/fuse/fuse_timed_int.h"

static void *watch_main(void *arg);

void timed_wake_watcher(struct fuse_timed *tm)
{
	pthread_attr_t attr;
	pthread_t th;

	if (tm->watching)
		return;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64u * 1024);
	if (fs_thread_create(&th, &attr, FS_ROLE_DEADLINE, watch_main, tm) == 0)
		tm->watching = true;
	pthread_attr_destroy(&attr);
}

/* Under tm->mu: takes the jobs past their deadline (or all) off to answer. */
static struct timed_job *take_expired(struct fuse_timed *tm, uint64_t now, bool all,
				      uint64_t *next)
{
	struct timed_job *out = NULL;

	*next = UINT64_MAX;
	for (struct timed_job **pp = &tm->qhead; *pp;) {
		struct timed_job *j = *pp;

		if (!all && j->deadline > now) {
			if (j->deadline < *next)
				*next = j->deadline;
			pp = &j->next;
			continue;
		}
		/* Never ran: no device to blame (the helpers were busy). */
		*pp = j->next;
		tm->nqueued--;
		tm->bytes -= j->bytes;
		j->answered = true;
		j->next = out;
		out = j;
	}
	tm->qtail = NULL;
	for (struct timed_job *j = tm->qhead; j; j = j->next)
		tm->qtail = j;
	for (struct timed_job *j = tm->running; j; j = j->next) {
		struct timed_dev *d;

		if (j->answered)
			continue;
		if (!all && j->deadline > now) {
			if (j->deadline < *next)
				*next = j->deadline;
			continue;
		}
		j->answered = true;
		tm->expired++;
		d = timed_dev_find(tm, j->dev, false);
		if (d && !all) {
			if (!d->fenced)
				fs_log(FS_LOG_WARN, "a host file system stopped answering (device %u:%u): "
				       "its requests get EIO until it answers again",
				       major(j->dev), minor(j->dev));
			d->fenced = true;
			d->probing = false;
			d->probe_at = now + tm->timeout_ns;
		}
		/* Answered below from the transport's side; the helper keeps j. */
		struct fuse_out_header oh = { .len = sizeof(oh), .error = -EIO, .unique = j->unique };
		if (j->outcap >= sizeof(oh))
			fs_iov_write(j->req->out, j->req->nout, 0, &oh, sizeof(oh));
	}
	return out;
}

/* Calls the transports' completions for the running jobs just answered. */
static void complete_running(struct fuse_timed *tm, struct timed_job **done, unsigned *n)
{
	for (struct timed_job *j = tm->running; j; j = j->next)
		if (j->answered && j->req && *n < FUSE_TIMED_HELPERS * 2) {
			done[(*n)++] = j;
		}
}

void timed_answer_all(struct fuse_timed *tm, uint64_t now, bool all, uint64_t *next)
{
	struct timed_job *queued, *run[FUSE_TIMED_HELPERS * 2];
	struct fs_req *reqs[FUSE_TIMED_HELPERS * 2];
	struct fs_transport ts[FUSE_TIMED_HELPERS * 2];
	size_t outcaps[FUSE_TIMED_HELPERS * 2];
	unsigned n = 0;

	queued = take_expired(tm, now, all, next);
	complete_running(tm, run, &n);
	/* Copied out: once answered, the transport's req is no longer the job's. */
	for (unsigned i = 0; i < n; i++) {
		reqs[i] = run[i]->req;
		ts[i] = run[i]->t;
		outcaps[i] = run[i]->outcap;
		run[i]->req = NULL;
	}
	pthread_mutex_unlock(&tm->mu);
	for (unsigned i = 0; i < n; i++)
		ts[i].complete(ts[i].ctx, reqs[i], outcaps[i] >= sizeof(struct fuse_out_header) ?
			       (uint32_t)sizeof(struct fuse_out_header) : 0);
	while (queued) {
		struct timed_job *j = queued;
		int len = fuse_reply_err(j->req, j->outcap, j->unique, -EIO);

		queued = j->next;
		j->t.complete(j->t.ctx, j->req, (uint32_t)len);
		free(j);
	}
	pthread_mutex_lock(&tm->mu);
}

static void *watch_main(void *arg)
{
	struct fuse_timed *tm = arg;
	uint64_t next;

	(void)pthread_setname_np(pthread_self(), "deadline");
	pthread_mutex_lock(&tm->mu);
	for (;;) {
		timed_answer_all(tm, now_ns(), tm->stopping, &next);
		bool busy = tm->qhead || tm->running;

		if (!busy && tm->stopping)
			break;
		if (!busy) {
			/* Nothing to watch: wait a moment for more, then go. */
			struct timespec until = abs_of(now_ns() + 1000000000u);

			if (pthread_cond_timedwait(&tm->tick, &tm->mu, &until) && !tm->qhead &&
			    !tm->running)
				break;
			continue;
		}
		if (next == UINT64_MAX)
			next = now_ns() + 1000000000u; /* all answered: look again for the late */
		struct timespec until = abs_of(next);
		pthread_cond_timedwait(&tm->tick, &tm->mu, &until);
	}
	tm->watching = false;
	pthread_cond_broadcast(&tm->gone);
	pthread_mutex_unlock(&tm->mu);
	return NULL;
}
