// SPDX-License-Identifier: GPL-2.0-only
/*
 * `stainless 9p-serve --socket PATH DIR [--socket-group GROUP] [--msize BYTES]
 * [--readonly] [--devices] [--xattr-map] [--poll USEC] [--max-connections N]
 * [--max-memory BYTES]`: the 9P2000.L server on a Unix
 * stream socket, so clients nobody here wrote (diod's tools, the kernel's
 * trans=unix) can test the same server code the virtio-9p device uses.
 *
 * Who may use it: the socket is mode 0600 (0660 with --socket-group, and
 * that group), as virtiofsd does, and each connection's peer (uid and gid
 * from SO_PEERCRED, groups from SO_PEERGROUPS) goes into its session,
 * where a peer other than root may attach only as itself and make files
 * only of its own groups. Without that, any local process that could
 * connect would attach as uid 0 and act as root in the share.
 *
 * Sharing among clients (why: one client must not starve the others; the
 * kernel gives one fd table and one address space to all of them). At
 * most --max-connections connections are served at once; while that many
 * are, or fds ran out at accept, the listening socket is not polled
 * (clients wait in its backlog) until a connection ends. Each session
 * has a fair share (fs/fs_fair.h) of the process's fd budget and of
 * --max-memory bytes: a floor of its own (P9_SERVE_FD_FLOOR fds,
 * counting its socket, and P9_SERVE_MEM_FLOOR bytes), reserved for every
 * connection slot, so a newcomer can attach, walk and open whatever the
 * others hold, and its part of the rest. Fewer slots are kept than asked
 * when the fd budget cannot hold their floors and a pool as large.
 *
 * One thread per connection, one session per connection. A frame whose
 * size field cannot be a message (below the 7-byte header or above the
 * negotiated msize) ends that connection: nothing after it can be framed.
 * Replies of deferred requests (parked locks, the Tflush of one) are
 * written from the helper thread, so writes to a connection are
 * serialised by its mutex.
 */
#include "transport/p9_serve.h"

#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fs/fs_fdbudget.h"
#include "fs/fs_options.h"
#include "fs/fs_park.h"
#include "fs/9p/p9_server.h"
#include "fs/9p/p9_wire.h"
#include "fs/fs_thread.h"
#include "sandbox/sandbox.h"
#include "transport/unix_listen.h"

/* A session's floor of fds (its socket, fids, open files) and of bytes. */
#define P9_SERVE_FD_FLOOR 64u
#define P9_SERVE_MEM_FLOOR (1u << 20)
#define P9_SERVE_MAX_CONNS 64u
#define P9_SERVE_MEM (128u << 20)
/* After accept failed for want of fds or memory, and no connection ended. */
#define P9_SERVE_BACKOFF_MS 100

/* The live connections, so that shutdown can end them and wait. */
struct p9_conns {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct p9_conn *head;
	unsigned n;
	uint32_t poll_us;       /* how long a connection polls before it sleeps */
	unsigned slots;         /* connections served at once, at most */
	int ended_fd;           /* eventfd: a connection ended (the accept loop waits on it) */
	struct fs_fair fds, bytes;
};

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

/*
 * Who connected, as the kernel saw it at connect: SO_PEERCRED's uid and
 * gid and SO_PEERGROUPS's groups (a peer in more than P9_SERVE_GROUPS
 * keeps only its gid: fewer rights, never more). 0 or -errno.
 */
#define P9_SERVE_GROUPS 64u
struct p9_peer {
	struct ucred cr;
	gid_t groups[P9_SERVE_GROUPS];
	size_t ngroups;
};

static int peer_of(int fd, struct p9_peer *p)
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

static int start_conn(struct p9_server *srv, struct p9_conns *all, int fd, const struct p9_peer *peer)
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

static void usage(FILE *f)
{
	fputs("usage: stainless 9p-serve --socket PATH DIR [--socket-group GROUP] [--msize BYTES]"
	      " [--readonly] [--devices] [--xattr-map] [--poll USEC]"
	      " [--max-connections N] [--max-memory BYTES]\n"
	      "                          " SANDBOX_USAGE "\n", f);
}

/* --socket-group: a group name, or a number (which need not have a name). */
__attribute__((format(printf, 1, 2)))
static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("stainless: 9p-serve: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

/* Ends every connection (their threads see EOF) and waits up to 2 s. */
static bool stop_conns(struct p9_conns *all)
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

/* Whether another connection may be taken now. */
static bool slot_free(struct p9_conns *all)
{
	pthread_mutex_lock(&all->lock);
	bool free_ = all->n < all->slots;
	pthread_mutex_unlock(&all->lock);
	return free_;
}

/* One accept: false when it failed for want of fds or memory (back off). */
static bool accept_one(struct p9_server *srv, struct p9_conns *all, int lfd)
{
	int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	struct p9_peer peer;

	if (cfd < 0)
		return !(errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM);
	/* Who connected decides whom it may attach as: unknown is refused. */
	int err = peer_of(cfd, &peer);
	if (!err)
		err = start_conn(srv, all, cfd, &peer);
	if (err)
		close(cfd);
	return err != -ENFILE && err != -ENOMEM;
}

/*
 * The listening socket is polled only while a slot is free and the last
 * accept did not run out of fds: otherwise it would be readable at once
 * forever (a full backlog) and the loop would spin. A connection's end
 * (ended_fd) makes room; after a shortage with no connection to end, the
 * loop looks again after P9_SERVE_BACKOFF_MS.
 */
static int serve(struct p9_server *srv, struct p9_conns *all, int lfd, int sfd)
{
	struct pollfd pfd[3] = { { .fd = lfd, .events = POLLIN }, { .fd = sfd, .events = POLLIN },
				 { .fd = all->ended_fd, .events = POLLIN } };
	bool short_ = false;

	for (;;) {
		pfd[0].fd = !short_ && slot_free(all) ? lfd : -1;
		int n = poll(pfd, 3, short_ ? P9_SERVE_BACKOFF_MS : -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pfd[1].revents)
			return 0;       /* SIGINT or SIGTERM */
		if (n == 0 || pfd[2].revents) {
			eventfd_t v;
			if (pfd[2].revents)
				(void)eventfd_read(all->ended_fd, &v);
			short_ = false;
		}
		if (pfd[0].fd >= 0 && (pfd[0].revents & POLLIN))
			short_ = !accept_one(srv, all, lfd);
	}
}

/* 9p-serve's command line. */
struct serve_args {
	const char *sock, *dir;
	gid_t gid;                /* --socket-group; (gid_t)-1: none */
	unsigned max_conns;       /* --max-connections */
	uint64_t max_mem;         /* --max-memory */
	struct fs_options opts;
	struct sandbox_opts sbo;
};

/* -1: go on; otherwise the exit code (0 after --help, 2 after one line). */
static int parse_args(int argc, char **argv, struct serve_args *a)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "socket-group", required_argument, NULL, 'g' },
		{ "msize", required_argument, NULL, 'm' },
		{ "readonly", no_argument, NULL, 'r' },
		{ "devices", no_argument, NULL, 'd' },
		{ "xattr-map", no_argument, NULL, 'x' },
		{ "poll", required_argument, NULL, 'p' },
		{ "max-connections", required_argument, NULL, 'c' },
		{ "max-memory", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ "sandbox", required_argument, NULL, 'S' },
		{ "no-sandbox", no_argument, NULL, 'S' },
		{ "uid-map", required_argument, NULL, 'S' },
		{ "gid-map", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	char why[160];
	uint64_t n;
	int c, idx;

	*a = (struct serve_args){ .gid = (gid_t)-1, .max_conns = P9_SERVE_MAX_CONNS, .max_mem = P9_SERVE_MEM };
	fs_options_default(&a->opts);
	sandbox_opts_init(&a->sbo);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, &idx)) != -1) {
		switch (c) {
		case 'S':
			if (sandbox_opt(&a->sbo, longopts[idx].name, optarg, why, sizeof(why)) != 0)
				return fail("%s", why);
			break;
		case 's':
			a->sock = optarg;
			break;
		case 'g':
			if (unix_parse_group(optarg, &a->gid) < 0)
				return fail("--socket-group must be a group name or number, not '%s'", optarg);
			break;
		case 'm':
			if (parse_size(optarg, &n) < 0 || n < P9_MSIZE_MIN || n > P9_MSIZE_MAX)
				return fail("--msize must be a size between 4096 and 16M, not '%s'", optarg);
			a->opts.msize = (uint32_t)n;
			break;
		case 'r':
			a->opts.readonly = true;
			break;
		case 'd':
			a->opts.devices = true;
			break;
		case 'x':
			a->opts.xattr_map = true;
			break;
		case 'p':
			if (fs_parse_poll(optarg, &a->opts.poll_us) < 0)
				return fail("--poll must be microseconds, 0 to 10000, not '%s'", optarg);
			break;
		case 'c':
			if (parse_size(optarg, &n) < 0 || n < 1 || n > 65536)
				return fail("--max-connections must be 1 to 65536, not '%s'", optarg);
			a->max_conns = (unsigned)n;
			break;
		case 'M':
			/* At least two floors: one slot and a pool as large. */
			if (parse_size(optarg, &n) < 0 || n < 2 * P9_SERVE_MEM_FLOOR || n > (1ull << 40))
				return fail("--max-memory must be a size from 2M to 1T, not '%s'", optarg);
			a->max_mem = n;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return fail("bad option '%s' (usage: 9p-serve --socket PATH DIR [--socket-group GROUP] "
				    "[--msize BYTES] [--readonly] [--devices] [--xattr-map] [--poll USEC] "
				    "[--max-connections N] [--max-memory BYTES])", argv[optind - 1]);
		}
	}
	if (!a->sock)
		return fail("%s", "--socket PATH is required");
	if (optind != argc - 1)
		return fail("%s", optind >= argc ? "missing the directory to share"
						 : "exactly one directory to share expected");
	a->dir = argv[optind];
	return -1;
}

/*
 * The connection slots and the shares' floors (see the top): as many
 * slots as asked, or fewer where the fd budget or --max-memory cannot
 * hold their floors and a pool as large. 0 or -errno.
 */
static int conns_init(struct p9_conns *all, const struct serve_args *a)
{
	size_t fds = fs_fd_limit();
	unsigned slots = fs_fair_slots(fds, P9_SERVE_FD_FLOOR, a->max_conns);

	slots = fs_fair_slots(a->max_mem, P9_SERVE_MEM_FLOOR, slots);
	if (fds < 2 * P9_SERVE_FD_FLOOR)
		return -EMFILE;     /* RLIMIT_NOFILE too small for one client */
	all->slots = slots;
	if (fs_fair_init(&all->fds, fds, P9_SERVE_FD_FLOOR, slots) < 0 ||
	    fs_fair_init(&all->bytes, a->max_mem, P9_SERVE_MEM_FLOOR, slots) < 0)
		return -EINVAL;
	all->ended_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return all->ended_fd < 0 ? -errno : 0;
}

/* Threads inherit this mask: the stop signals arrive only through the fd. */
static int stop_signal_fd(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, FS_PARK_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sigdelset(&set, FS_PARK_SIGNAL);
	signal(SIGPIPE, SIG_IGN);
	return signalfd(-1, &set, SFD_CLOEXEC);
}

int p9_serve_main(int argc, char **argv)
{
	struct serve_args a;
	struct sandbox sb;
	struct unix_left left;
	struct p9_server *srv;
	int c, err, lfd, sfd;

	if ((c = parse_args(argc, argv, &a)) >= 0)
		return c;
	/* The socket where the user asked, before the sandbox hides the path. */
	lfd = unix_listen(a.sock, a.gid, 64);
	if (lfd < 0) {
		fprintf(stderr, "stainless: 9p-serve: cannot listen on '%s': %s\n", a.sock,
			strerror(-lfd));
		return 1;
	}
	sandbox_init(&sb, "9p-serve", &a.sbo);
	sb.host_ids = true;
	unix_left_init(&left, a.sock);
	sb.hooks = (struct sandbox_hooks){ .ended = unix_left_remove, .ctx = &left };
	err = sandbox_enter(&sb, &c);
	if (err)
		return err > 0 ? c : 1;
	srv = NULL;
	if ((err = sandbox_add_share(&sb, a.dir, a.opts.readonly)) < 0 ||
	    (err = sandbox_add_user_db(&sb)) < 0 || (err = sandbox_lockdown(&sb)) < 0)
		goto fail;
	fs_fd_raise_nofile(); /* before the budget is first read; best effort */
	err = p9_server_create(&srv, sandbox_path(&sb, a.dir), &a.opts);
	if (err < 0) {
		fprintf(stderr, "stainless: 9p-serve: cannot share '%s': %s\n", a.dir, strerror(-err));
		goto fail;
	}
	sfd = stop_signal_fd();
	if (sfd < 0) {
		fprintf(stderr, "stainless: 9p-serve: signalfd: %s\n", strerror(errno));
		goto fail;
	}
	struct p9_conns all = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
				.poll_us = a.opts.poll_us };
	err = conns_init(&all, &a);
	if (err) {
		fprintf(stderr, "stainless: 9p-serve: %s\n", strerror(-err));
		close(sfd);
		goto fail;
	}
	/* Set up: from here on this thread accepts and hands connections out. */
	err = fs_thread_enter(FS_ROLE_CONTROL);
	if (err == 0)
		err = serve(srv, &all, lfd, sfd);
	close(lfd);
	/* Confined, the path names something else or nothing: the supervisor removes it. */
	if (sb.opts.mode == SANDBOX_NONE)
		unlink(a.sock);
	close(sfd);
	/* A connection stuck past the grace time keeps the server: exit ends both. */
	if (stop_conns(&all)) {
		p9_server_destroy(srv);
		close(all.ended_fd);
	}
	if (err < 0) {
		fprintf(stderr, "stainless: 9p-serve: %s\n", strerror(-err));
		return 1;
	}
	return 0;
fail:
	close(lfd);
	if (sb.opts.mode == SANDBOX_NONE)
		unlink(a.sock);
	if (srv)
		p9_server_destroy(srv);
	return 1;
}
