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
 * One frame handled in a request of its own (r), with a transport that may
 * defer: the server keeps a deferred request's buffers until it answers
 * (conn_complete), so the transport need not know which requests those
 * are. Returns the reply's length (in r->outbuf), 0 when the request was
 * deferred (r is the server's now), or < 0: the connection ends.
 */
static int handle_frame(struct p9_conn *c, struct p9_conn_req *r, const uint8_t *frame,
			uint32_t size)
{
	memcpy(r->inbuf, frame, size);
	r->in = (struct iovec){ r->inbuf, size };
	r->out = (struct iovec){ r->outbuf, c->bufsz };
	r->req = (struct fs_req){ .in = &r->in, .nin = 1, .out = &r->out, .nout = 1 };
	int n = p9_handle(c->s, &r->req, &c->t);
	if (n == FS_REQ_DEFERRED)
		return 0;
	return n > 0 ? n : -EPROTO;
}

static void flush_replies(struct p9_conn *c, const uint8_t *out, size_t *outlen)
{
	if (*outlen)
		conn_reply(c, out, (uint32_t)*outlen);
	*outlen = 0;
}

/*
 * A recv found nothing: returns once fd is readable (or has hung up or
 * failed, which the next recv reports). While requests keep coming the
 * recvs alone carry them: no system call per request. No busy-wait before
 * sleeping: a 50 us poll window (--poll, gone) cost 1.4-1.7x the CPU per
 * request at QD1 and its throughput gains stayed inside the run-to-run
 * noise (bench-9p, same run, interleaved).
 */
static int wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

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
 * two system calls instead of three per request. Each frame is handled in
 * a request of its own (a copy in, the reply copied out: a few hundred ns
 * beside the system calls), as fuse-mount's readers do: when the server
 * defers one, it keeps those buffers and the loop takes fresh ones, so no
 * reply is ever written into a shared buffer later. Replies of different
 * tags may then leave out of order, which 9p allows; a deferred Tflush's
 * Rflush still follows the flushed request's answer (the server sends both).
 */
static void *conn_thread(void *arg)
{
	struct p9_conn *c = arg;
	size_t incap = (size_t)c->bufsz + 65536, outcap = 2 * (size_t)c->bufsz;
	size_t start = 0, end = 0, outlen = 0;
	uint8_t *in = malloc(incap), *out = malloc(outcap);
	struct p9_conn_req *r = creq_new(c->bufsz);
	uint64_t served = 0;    /* --stats: added to the total once, at the end */

	(void)pthread_setname_np(pthread_self(), "9p-conn");  /* the seccomp log's comm */

	while (in && out && r) {
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
				int n = handle_frame(c, r, frame, size);
				if (n < 0)
					break;
				if (n == 0) {
					r = creq_new(c->bufsz);  /* the deferred one keeps the old */
					continue;
				}
				if (outcap - outlen < (size_t)n)
					flush_replies(c, out, &outlen);
				memcpy(out + outlen, r->outbuf, (size_t)n);
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
		if (n < 0 && errno == EAGAIN && wait_readable(c->fd) == 0)
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
	if (r)
		creq_free(r);
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

