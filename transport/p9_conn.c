// SPDX-License-Identifier: GPL-2.0-only
/*
 * 9p-serve's connections (see p9_conn.h): one thread and one session
 * each, the frames read and answered in batches, the replies of deferred
 * requests written from the helper threads under the connection's mutex,
 * and each session's fair shares of the process's fds and bytes.
 */
#include "transport/p9_conn.h"

#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fs/fs_fdbudget.h"
#include "base/thread.h"
#include "fs/9p/p9_wire.h"

struct p9_conn {
	struct p9_conn *next, **pprev;
	struct p9_conns *all;
	int fd;
	uint32_t bufsz;
	struct p9_session *s;
	pthread_mutex_t wlock;
	struct fs_transport t;
	struct fs_fair_acct fd_share, mem_share;
};

/* One request's buffers; a deferred request keeps its own until answered. */
struct p9_conn_req {
	struct fs_req req;
	struct iovec in, out;
	uint8_t *inbuf, *outbuf;
};

static struct p9_conn_req *creq_new(uint32_t bufsz)
{
	struct p9_conn_req *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->inbuf = malloc(bufsz);
	r->outbuf = malloc(bufsz);
	if (!r->inbuf || !r->outbuf) {
		free(r->inbuf);
		free(r->outbuf);
		free(r);
		return NULL;
	}
	return r;
}

static void creq_free(struct p9_conn_req *r)
{
	free(r->inbuf);
	free(r->outbuf);
	free(r);
}

static int write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = send(fd, (const uint8_t *)buf + done, len - done, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)n;
	}
	return 0;
}

static void conn_reply(struct p9_conn *c, const void *buf, uint32_t len)
{
	pthread_mutex_lock(&c->wlock);
	/* A client gone mid-reply is noticed by the reader; nothing to do here. */
	(void)write_full(c->fd, buf, len);
	pthread_mutex_unlock(&c->wlock);
}

static void conn_complete(void *ctx, struct fs_req *req, uint32_t len)
{
	struct p9_conn_req *r = (struct p9_conn_req *)((uint8_t *)req - offsetof(struct p9_conn_req, req));

	if (len)
		conn_reply(ctx, r->outbuf, len);
	creq_free(r);
}

/*
 * A request that may be deferred (on a socket only Tlock, which may park,
 * and Tflush, whose Rflush the parked lock's helper sends after the
 * lock's answer): it gets buffers of its own, since the server keeps
 * them until it answers.
 */
static int handle_own(struct p9_conn *c, const uint8_t *frame, uint32_t size)
{
	struct p9_conn_req *r = creq_new(c->bufsz);

	if (!r)
		return -ENOMEM;
	memcpy(r->inbuf, frame, size);
	r->in = (struct iovec){ r->inbuf, size };
	r->out = (struct iovec){ r->outbuf, c->bufsz };
	r->req = (struct fs_req){ .in = &r->in, .nin = 1, .out = &r->out, .nout = 1 };
	int n = p9_handle(c->s, &r->req, &c->t);
	if (n == FS_REQ_DEFERRED)
		return 0;                   /* conn_complete replies and frees */
	if (n > 0)
		conn_reply(c, r->outbuf, (uint32_t)n);
	creq_free(r);
	return n > 0 ? 0 : -EPROTO;
}

static void flush_replies(struct p9_conn *c, const uint8_t *out, size_t *outlen)
{
	if (*outlen)
		conn_reply(c, out, (uint32_t)*outlen);
	*outlen = 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * A recv found nothing: returns once fd is readable (or has hung up or
 * failed, which the next recv reports), polling for up to poll_us (--poll)
 * before it sleeps in poll(2). On virtual machines whose idle vCPUs halt,
 * waking a sleeping thread can cost more than the answer. While requests
 * keep coming the recvs alone carry them: no system call per request.
 */
static int wait_readable(int fd, uint32_t poll_us)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll_us) {
		uint64_t deadline = now_ns() + (uint64_t)poll_us * 1000u;

		do {
			if (poll(&p, 1, 0) != 0)
				return 0;   /* ready, or an error the recv will report */
		} while (now_ns() < deadline);
	}
	while (poll(&p, 1, -1) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

/*
 * Reads as much as the socket has, answers every whole frame in the buffer
 * (in place, replies gathered in one buffer) and writes the replies with
 * one call before blocking again: with requests pipelined, a batch costs
 * two system calls instead of three per request. Those requests are handed
 * over with a transport that cannot defer (no completion callback), so no
 * reply is ever written into the shared buffer later.
 */
static void *conn_thread(void *arg)
{
	struct p9_conn *c = arg;
	const struct fs_transport no_defer = { .ctx = c };
	size_t incap = (size_t)c->bufsz + 65536, outcap = 2 * (size_t)c->bufsz;
	size_t start = 0, end = 0, outlen = 0;
	uint8_t *in = malloc(incap), *out = malloc(outcap);
	uint64_t served = 0;    /* --stats: added to the total once, at the end */

	(void)pthread_setname_np(pthread_self(), "9p-conn");  /* the seccomp log's comm */

	while (in && out) {
		uint32_t limit = p9_session_msize(c->s);
		if (!limit)
			limit = c->bufsz;
		if (end - start >= 4) {
			uint32_t size;
			memcpy(&size, in + start, 4);
			size = le32toh(size);
			if (size < P9_HDRSZ || size > limit)
				break;          /* a broken frame: the stream cannot resync */
			if (end - start >= size) {
				const uint8_t *frame = in + start;
				start += size;
				served++;
				if (frame[4] == P9_TLOCK || frame[4] == P9_TFLUSH) {
					flush_replies(c, out, &outlen);  /* keep replies in order */
					if (handle_own(c, frame, size) < 0)
						break;
					continue;
				}
				if (outcap - outlen < limit)
					flush_replies(c, out, &outlen);
				struct iovec iv = { (void *)frame, size }, ov = { out + outlen, limit };
				struct fs_req req = { .in = &iv, .nin = 1, .out = &ov, .nout = 1 };
				int n = p9_handle(c->s, &req, &no_defer);
				if (n <= 0)
					break;
				outlen += (size_t)n;
				continue;
			}
		}
		/* No whole frame left: send what is gathered, then wait for more. */
		flush_replies(c, out, &outlen);
		if (start) {
			memmove(in, in + start, end - start);
			end -= start;
			start = 0;
		}
		ssize_t n = recv(c->fd, in + end, incap - end, MSG_DONTWAIT);
		if (n < 0 && errno == EAGAIN && wait_readable(c->fd, c->all->poll_us) == 0)
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		end += (size_t)n;
	}
	if (out)
		flush_replies(c, out, &outlen);
	free(in);
	free(out);
	/* Answers parked requests (through conn_complete) before returning. */
	p9_session_destroy(c->s);
	pthread_mutex_lock(&c->all->lock);
	*c->pprev = c->next;
	if (c->next)
		c->next->pprev = c->pprev;
	c->all->n--;
	c->all->requests += served;
	c->all->connections++;
	pthread_cond_broadcast(&c->all->cond);
	close(c->fd);
	fs_fd_refund_to(&c->fd_share);
	fs_fair_leave(&c->fd_share);
	fs_fair_leave(&c->mem_share);
	/* The accept loop may be waiting for a free slot or fd. */
	(void)eventfd_write(c->all->ended_fd, 1);
	pthread_mutex_unlock(&c->all->lock);
	pthread_mutex_destroy(&c->wlock);
	free(c);
	return NULL;
}

/* A new connection's shares, its socket charged to its own: 0 or -errno. */
static int conn_shares(struct p9_conns *all, struct p9_conn *c)
{
	if (fs_fair_join(&all->fds, &c->fd_share))
		return -EAGAIN;
	if (fs_fair_join(&all->bytes, &c->mem_share)) {
		fs_fair_leave(&c->fd_share);
		return -EAGAIN;
	}
	if (fs_fd_charge_to(&c->fd_share)) {
		fs_fair_leave(&c->mem_share);
		fs_fair_leave(&c->fd_share);
		return -ENFILE;
	}
	return 0;
}

static void conn_shares_drop(struct p9_conn *c)
{
	fs_fd_refund_to(&c->fd_share);
	fs_fair_leave(&c->mem_share);
	fs_fair_leave(&c->fd_share);
}

/* SO_PEERGROUPS past P9_SERVE_GROUPS: none kept (see p9_conn.h). */
int p9_peer_of(int fd, struct p9_peer *p)
{
	socklen_t len = sizeof(p->cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &p->cr, &len) < 0)
		return -errno;
	len = sizeof(p->groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, p->groups, &len) < 0) {
		if (errno != ERANGE)
			return -errno;
		len = 0;
	}
	p->ngroups = len / sizeof(gid_t);
	return 0;
}

int p9_conn_start(struct p9_server *srv, struct p9_conns *all, int fd, const struct p9_peer *peer)
{
	struct p9_conn *c = calloc(1, sizeof(*c));
	pthread_attr_t attr;
	pthread_t thr;
	int err;

	if (!c)
		return -ENOMEM;
	err = conn_shares(all, c);
	if (err) {
		free(c);
		return err;
	}
	c->fd = fd;
	c->all = all;
	c->bufsz = p9_server_msize(srv);
	c->t.complete = conn_complete;
	c->t.ctx = c;
	pthread_mutex_init(&c->wlock, NULL);
	err = p9_session_create(&c->s, srv, c->bufsz);
	if (err)
		goto fail;
	p9_session_set_peer(c->s, peer->cr.uid, peer->cr.gid, peer->groups, peer->ngroups);
	p9_session_set_shares(c->s, &c->fd_share, &c->mem_share);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_mutex_lock(&all->lock);
	err = fs_thread_create(&thr, &attr, FS_ROLE_P9_CONN, conn_thread, c);
	if (!err) {
		c->next = all->head;
		if (all->head)
			all->head->pprev = &c->next;
		c->pprev = &all->head;
		all->head = c;
		all->n++;
	}
	pthread_mutex_unlock(&all->lock);
	pthread_attr_destroy(&attr);
	if (err)
		goto fail;
	return 0;
fail:
	p9_session_destroy(c->s);
	conn_shares_drop(c);
	pthread_mutex_destroy(&c->wlock);
	free(c);
	return err;
}

/* Ends every connection (their threads see EOF) and waits up to 2 s. */
bool p9_conns_stop(struct p9_conns *all)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 2;
	pthread_mutex_lock(&all->lock);
	for (struct p9_conn *c = all->head; c; c = c->next)
		shutdown(c->fd, SHUT_RDWR);
	while (all->n && pthread_cond_timedwait(&all->cond, &all->lock, &ts) == 0)
		;
	bool done = all->n == 0;
	pthread_mutex_unlock(&all->lock);
	return done;
}

/*
 * The connection slots and the shares' floors (see the top): as many
 * slots as asked, or fewer where the fd budget or --max-memory cannot
 * hold their floors and a pool as large. 0 or -errno.
 */
int p9_conns_init(struct p9_conns *all, unsigned max_conns, uint64_t max_mem)
{
	size_t fds = fs_fd_limit();
	unsigned slots = fs_fair_slots(fds, P9_SERVE_FD_FLOOR, max_conns);

	slots = fs_fair_slots(max_mem, P9_SERVE_MEM_FLOOR, slots);
	if (fds < 2 * P9_SERVE_FD_FLOOR)
		return -EMFILE;     /* RLIMIT_NOFILE too small for one client */
	all->slots = slots;
	if (fs_fair_init(&all->fds, fds, P9_SERVE_FD_FLOOR, slots) < 0 ||
	    fs_fair_init(&all->bytes, max_mem, P9_SERVE_MEM_FLOOR, slots) < 0)
		return -EINVAL;
	all->ended_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return all->ended_fd < 0 ? -errno : 0;
}

