// SPDX-License-Identifier: GPL-2.0-only
/*
 * FUSE locks and requests that finish later: POSIX locks per lock owner
 * (checked against each other and against a lock this process holds on
 * the host file, which an OFD lock must respect), flock through
 * FUSE_LK_FLOCK, SETLKW parked and completed through the transport,
 * INTERRUPT and reset cancelling it (INTERRUPT without waiting, even
 * one that overtook its SETLKW), the bound on parked waits, and READ and
 * WRITE going to the transport's async I/O when the page cache cannot
 * answer at once.
 */
#include "tests/unit/test_fuse_util.h"

#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>

#include "tests/unit/check_main.h"

/* --- a transport that records completions ------------------------------- */
static pthread_mutex_t done_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;
static int done_count, done_eintr;
static uint32_t done_len;
static struct fuse_out_header done_oh;

static void on_complete(void *ctx, struct fs_req *req, uint32_t len)
{
	pthread_mutex_lock(&done_mu);
	done_len = len;
	memcpy(&done_oh, req->out[0].iov_base, sizeof(done_oh));
	if (done_oh.error == -EINTR)
		done_eintr++;
	done_count++;
	pthread_cond_broadcast(&done_cv);
	pthread_mutex_unlock(&done_mu);
}

static bool wait_done(int count, int ms)
{
	struct timespec ts;

	unit_deadline(&ts, ms);
	pthread_mutex_lock(&done_mu);
	while (done_count < count)
		if (pthread_cond_timedwait(&done_cv, &done_mu, &ts))
			break;
	bool ok = done_count >= count;
	pthread_mutex_unlock(&done_mu);
	return ok;
}

static const struct fs_transport cb_transport = { .complete = on_complete };

/* A deferred request keeps its own reply space, apart from tf_outbuf. */
static uint8_t defer_out[TF_BUF];
static struct iovec defer_in_iov, defer_out_iov;
static struct fs_req defer_req;

static int send_keep(size_t len, const struct fs_transport *t)
{
	defer_in_iov = (struct iovec){ tf_inbuf, len };
	defer_out_iov = (struct iovec){ defer_out, sizeof(defer_out) };
	defer_req = (struct fs_req){ .in = &defer_in_iov, .nin = 1,
				     .out = &defer_out_iov, .nout = 1 };
	return fuse_server_handle(srv, &defer_req, t);
}

static uint64_t file_fh(const char *name, uint64_t *nodeid)
{
	uint64_t fh;

	tf_write_host(name, "0123456789");
	*nodeid = tf_nodeid(FUSE_ROOT_ID, name);
	ck_assert_int_eq(tf_open(*nodeid, O_RDWR, &fh), 0);
	return fh;
}

static int lk(uint32_t op, uint64_t fh, uint64_t owner, uint32_t type,
	      uint64_t start, uint64_t end, uint32_t flags, struct fuse_lk_out *out)
{
	struct fuse_lk_in in = {
		.fh = fh, .owner = owner, .lk_flags = flags,
		.lk = { .start = start, .end = end, .type = type, .pid = 1 },
	};
	return tf_req(op, 1, &in, sizeof(in), NULL, NULL, out, out ? sizeof(*out) : 0);
}

static size_t build_lk(uint32_t op, uint64_t fh, uint64_t owner, uint32_t type,
		       uint32_t flags)
{
	struct fuse_lk_in in = {
		.fh = fh, .owner = owner, .lk_flags = flags,
		.lk = { .start = 0, .end = INT64_MAX, .type = type },
	};
	return tf_build(op, 1, &in, sizeof(in), NULL, NULL, NULL, 0);
}

/*
 * A classic POSIX lock held by another process on the host file. (Not this
 * one: the server closing any fd of the file would drop this process's
 * classic locks -- POSIX close semantics the server itself never relies on.)
 */
static pid_t holder;
static int holder_pipe[2];

static void host_hold(const char *name)
{
	int ready[2];
	char c;

	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(holder_pipe), 0);
	holder = fork();
	ck_assert_int_ge(holder, 0);
	if (holder == 0) {
		int fd = open(tf_path(name), O_RDWR);
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		c = fd >= 0 && fcntl(fd, F_SETLK, &fl) == 0 ? 'y' : 'n';
		close(holder_pipe[1]);
		(void)!write(ready[1], &c, 1);
		(void)!read(holder_pipe[0], &c, 1); /* until the parent closes it */
		_exit(0);
	}
	close(holder_pipe[0]);
	close(ready[1]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	ck_assert_int_eq(c, 'y');
	close(ready[0]);
}

static void host_release(void)
{
	close(holder_pipe[1]);
	waitpid(holder, NULL, 0);
}

/* Whether a host process could take a write lock right now. */
static bool host_can_lock(const char *name)
{
	pid_t p = fork();
	int st;

	if (p == 0) {
		int fd = open(tf_path(name), O_RDWR);
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		_exit(fd >= 0 && fcntl(fd, F_SETLK, &fl) == 0 ? 0 : 1);
	}
	waitpid(p, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

START_TEST(posix_owners)
{
	struct fuse_lk_out out;
	uint64_t n, fh = file_fh("l", &n);

	ck_assert_int_eq(lk(FUSE_SETLK, fh, 0xA, F_WRLCK, 0, 99, 0, NULL), 0);
	ck_assert_int_eq(lk(FUSE_GETLK, fh, 0xB, F_WRLCK, 0, 99, 0, &out), 0);
	ck_assert_uint_eq(out.lk.type, F_WRLCK);
	ck_assert_uint_eq(out.lk.start, 0);
	ck_assert_uint_eq(out.lk.end, 99);
	ck_assert_int_eq(lk(FUSE_GETLK, fh, 0xA, F_WRLCK, 0, 99, 0, &out), 0);
	ck_assert_uint_eq(out.lk.type, F_UNLCK); /* its own lock is no conflict */
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 0xB, F_WRLCK, 50, 60, 0, NULL), -EAGAIN);
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 0xB, F_RDLCK, 100, INT64_MAX, 0, NULL), 0);
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 0xA, F_WRLCK, 200, 300, 0, NULL), -EAGAIN);
	/* Unlock by A lets B in. */
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 0xA, F_UNLCK, 0, INT64_MAX, 0, NULL), 0);
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 0xB, F_WRLCK, 0, 99, 0, NULL), 0);
	/* An owner that never locked can unlock (a no-op). */
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 0xC, F_UNLCK, 0, INT64_MAX, 0, NULL), 0);
	/* FLUSH is a close in the client: B's locks go. */
	struct fuse_flush_in fl = { .fh = fh, .lock_owner = 0xB };
	ck_assert_int_eq(tf_req(FUSE_FLUSH, 1, &fl, sizeof(fl), NULL, NULL, NULL, 0), 0);
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 0xA, F_WRLCK, 0, INT64_MAX, 0, NULL), 0);
	/* Another handle of the same owner shares the owner's locks. */
	uint64_t fh2;
	ck_assert_int_eq(tf_open(n, O_RDWR, &fh2), 0);
	ck_assert_int_eq(lk(FUSE_SETLK, fh2, 0xA, F_WRLCK, 0, 10, 0, NULL), 0);
	ck_assert_int_eq(lk(FUSE_SETLK, fh2, 0xD, F_RDLCK, 0, 10, 0, NULL), -EAGAIN);
}
END_TEST

START_TEST(host_lock_wins)
{
	struct fuse_lk_out out;
	uint64_t n, fh = file_fh("h", &n);

	host_hold("h");
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 1, F_RDLCK, 0, 0, 0, NULL), -EAGAIN);
	ck_assert_int_eq(lk(FUSE_GETLK, fh, 1, F_RDLCK, 0, 0, 0, &out), 0);
	ck_assert_uint_eq(out.lk.type, F_WRLCK);
	ck_assert_uint_eq(out.lk.pid, (uint32_t)holder);
	host_release();
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 1, F_WRLCK, 0, 0, 0, NULL), 0);
	ck_assert(!host_can_lock("h"));
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 1, F_UNLCK, 0, 0, 0, NULL), 0);
	ck_assert(host_can_lock("h"));
}
END_TEST

START_TEST(setlkw_parks_then_completes)
{
	uint64_t n, fh = file_fh("w", &n);

	host_hold("w");
	ck_assert_int_eq(send_keep(build_lk(FUSE_SETLKW, fh, 7, F_WRLCK, 0), &cb_transport),
			 FS_REQ_DEFERRED);
	uint64_t u = tf_unique;
	/* The queue keeps serving while the lock waits. */
	ck_assert_int_eq(tf_getattr(n, NULL), 0);
	ck_assert(!wait_done(1, 150));
	host_release();
	ck_assert(wait_done(1, 5000));
	ck_assert_uint_eq(done_len, sizeof(struct fuse_out_header));
	ck_assert_int_eq(done_oh.error, 0);
	ck_assert_uint_eq(done_oh.unique, u);
	ck_assert(!host_can_lock("w")); /* the server holds it now */
}
END_TEST

START_TEST(interrupt_cancels_setlkw)
{
	uint64_t n, fh = file_fh("i", &n);
	struct fuse_lk_out out;

	host_hold("i");
	ck_assert_int_eq(send_keep(build_lk(FUSE_SETLKW, fh, 7, F_WRLCK, 0), &cb_transport),
			 FS_REQ_DEFERRED);
	uint64_t u = tf_unique;
	usleep(50000);
	struct fuse_interrupt_in ii = { .unique = u };
	ck_assert_int_eq(tf_send(tf_build(FUSE_INTERRUPT, 0, &ii, sizeof(ii), NULL, NULL,
					  NULL, 0), NULL), 0); /* no reply */
	ck_assert(wait_done(1, 5000));
	ck_assert_int_eq(done_oh.error, -EINTR);
	ck_assert_uint_eq(done_oh.unique, u);
	host_release();
	/* It gave up: nothing is left held by the server. */
	ck_assert_int_eq(lk(FUSE_GETLK, fh, 8, F_WRLCK, 0, INT64_MAX, 0, &out), 0);
	ck_assert_uint_eq(out.lk.type, F_UNLCK);
	ck_assert(host_can_lock("i"));
	/* An INTERRUPT for nothing in flight is ignored. */
	ii.unique = 12345;
	ck_assert_int_eq(tf_send(tf_build(FUSE_INTERRUPT, 0, &ii, sizeof(ii), NULL, NULL,
					  NULL, 0), NULL), 0);
}
END_TEST

START_TEST(flock_via_lk_flock)
{
	uint64_t n, fh1 = file_fh("f", &n), fh2;
	int fd = open(tf_path("f"), O_RDWR);

	ck_assert_int_eq(tf_open(n, O_RDWR, &fh2), 0);
	ck_assert_int_eq(lk(FUSE_SETLK, fh1, 1, F_WRLCK, 0, 0, FUSE_LK_FLOCK, NULL), 0);
	ck_assert_int_eq(lk(FUSE_SETLK, fh2, 2, F_RDLCK, 0, 0, FUSE_LK_FLOCK, NULL), -EAGAIN);
	ck_assert_int_eq(flock(fd, LOCK_SH | LOCK_NB), -1);
	ck_assert_int_eq(send_keep(build_lk(FUSE_SETLKW, fh2, 2, F_WRLCK, FUSE_LK_FLOCK),
				   &cb_transport), FS_REQ_DEFERRED);
	ck_assert(!wait_done(1, 100));
	ck_assert_int_eq(lk(FUSE_SETLK, fh1, 1, F_UNLCK, 0, 0, FUSE_LK_FLOCK, NULL), 0);
	ck_assert(wait_done(1, 5000));
	ck_assert_int_eq(done_oh.error, 0);
	ck_assert_int_eq(flock(fd, LOCK_SH | LOCK_NB), -1);
	struct fuse_release_in rel = { .fh = fh2, .release_flags = FUSE_RELEASE_FLOCK_UNLOCK };
	ck_assert_int_eq(tf_req(FUSE_RELEASE, 1, &rel, sizeof(rel), NULL, NULL, NULL, 0), 0);
	ck_assert_int_eq(flock(fd, LOCK_SH | LOCK_NB), 0);
	ck_assert_int_eq(lk(FUSE_GETLK, fh1, 1, F_WRLCK, 0, 0, FUSE_LK_FLOCK, NULL), -EINVAL);
	close(fd);
}
END_TEST

START_TEST(reset_cancels_waiters)
{
	uint64_t n, fh = file_fh("r", &n);

	host_hold("r");
	ck_assert_int_eq(send_keep(build_lk(FUSE_SETLKW, fh, 7, F_WRLCK, 0), &cb_transport),
			 FS_REQ_DEFERRED);
	usleep(20000);
	fuse_server_reset(srv);
	ck_assert(wait_done(1, 100)); /* reset waited for it */
	ck_assert_int_eq(done_oh.error, -EINTR);
	ck_assert_int_eq(tf_getattr(FUSE_ROOT_ID, NULL), -EIO); /* INIT again first */
	host_release();
}
END_TEST

/* --- a transport with async I/O: submissions wait until run_pending() --- */
static struct {
	bool is_write;
	int fd;
	const struct iovec *iov;
	unsigned n;
	uint64_t off;
	fs_io_done_fn *done;
	void *arg;
	int count;
	int refuse;
} io;

static int fake_submit(void *ctx, bool is_write, int fd, const struct iovec *iov,
		       unsigned n, uint64_t off, fs_io_done_fn *done, void *arg)
{
	if (io.refuse)
		return -EAGAIN;
	io.is_write = is_write;
	io.fd = fd;
	io.iov = iov;
	io.n = n;
	io.off = off;
	io.done = done;
	io.arg = arg;
	io.count++;
	return 0;
}

static void run_pending(int unused)
{
	ssize_t r = io.is_write ? pwritev(io.fd, io.iov, (int)io.n, (off_t)io.off)
				: preadv(io.fd, io.iov, (int)io.n, (off_t)io.off);
	io.done(io.arg, r < 0 ? -errno : (int)r);
}

static const struct fs_async_ops fake_async = { fake_submit };
static const struct fs_transport async_transport = {
	.complete = on_complete, .async = &fake_async,
};

START_TEST(read_goes_async_when_it_would_block)
{
	struct fuse_server_params p = { .test_nowait_blocks = true };
	struct fs_options o;
	uint64_t n, fh;

	fs_options_default(&o);
	tf_start(&o, &p, true);
	fh = file_fh("a", &n);
	struct fuse_read_in in = { .fh = fh, .offset = 2, .size = 100 };
	size_t len = tf_build(FUSE_READ, 1, &in, sizeof(in), NULL, NULL, NULL, 0);
	ck_assert_int_eq(send_keep(len, &async_transport), FS_REQ_DEFERRED);
	ck_assert_int_eq(io.count, 1);
	ck_assert_uint_eq(io.off, 2);
	ck_assert_int_eq(done_count, 0);
	run_pending(0);
	ck_assert(wait_done(1, 1000));
	ck_assert_int_eq(done_oh.error, 0);
	ck_assert_uint_eq(done_len, 16 + 8);
	ck_assert(memcmp(defer_out + 16, "23456789", 8) == 0);

	/* The transport refusing: the server reads inline. */
	io.refuse = 1;
	ck_assert_int_eq(send_keep(tf_build(FUSE_READ, 1, &in, sizeof(in), NULL, NULL,
					    NULL, 0), &async_transport), 16 + 8);
	ck_assert(memcmp(defer_out + 16, "23456789", 8) == 0);
	/* No async offered: inline too. */
	char buf[16] = { 0 };
	ck_assert_int_eq(tf_read(fh, 0, buf, 4), 4);
	ck_assert_str_eq(buf, "0123");
}
END_TEST

static size_t build_write(uint64_t fh, uint64_t off, const char *data)
{
	struct fuse_write_in in = { .fh = fh, .offset = off, .size = (uint32_t)strlen(data) };

	return tf_build(FUSE_WRITE, 1, &in, sizeof(in), NULL, NULL, data, strlen(data));
}

static void host_read(const char *name, char *buf, size_t sz)
{
	int fd = open(tf_path(name), O_RDONLY);
	ssize_t k = read(fd, buf, sz - 1);

	ck_assert_int_ge(k, 0);
	buf[k] = 0;
	close(fd);
}

START_TEST(write_goes_async_when_it_would_block)
{
	struct fuse_server_params p = { .test_nowait_blocks = true };
	struct fuse_write_out wo;
	struct fs_options o;
	uint64_t n, fh;
	char buf[32];

	fs_options_default(&o);
	tf_start(&o, &p, true);
	fh = file_fh("w", &n);
	ck_assert_int_eq(send_keep(build_write(fh, 3, "abcd"), &async_transport), FS_REQ_DEFERRED);
	ck_assert_int_eq(io.count, 1);
	ck_assert(io.is_write);
	ck_assert_uint_eq(io.off, 3);
	/* Straight from the request's own buffer: kept until the completion. */
	ck_assert_ptr_eq(io.iov[0].iov_base, tf_inbuf + sizeof(struct fuse_in_header) +
			 sizeof(struct fuse_write_in));
	ck_assert_int_eq(done_count, 0);
	run_pending(0);
	ck_assert(wait_done(1, 1000));
	ck_assert_int_eq(done_oh.error, 0);
	ck_assert_uint_eq(done_len, 16 + sizeof(wo));
	memcpy(&wo, defer_out + 16, sizeof(wo));
	ck_assert_uint_eq(wo.size, 4);
	host_read("w", buf, sizeof(buf));
	ck_assert_str_eq(buf, "012abcd789");

	/* The transport refusing: the server writes inline. */
	io.refuse = 1;
	ck_assert_int_eq(send_keep(build_write(fh, 0, "xy"), &async_transport), 16 + 8);
	/* No async offered: inline too. */
	ck_assert_int_eq(send_keep(build_write(fh, 8, "zz"), &cb_transport), 16 + 8);
	host_read("w", buf, sizeof(buf));
	ck_assert_str_eq(buf, "xy2abcd7zz");
	ck_assert_int_eq(done_count, 1);
}
END_TEST

/* Most filesystems refuse RWF_NOWAIT for buffered writes: those go async too. */
START_TEST(write_nowait_refused_goes_async)
{
	uint64_t n, fh = file_fh("r", &n);
	int fd = open(tf_path("r"), O_WRONLY);
	struct iovec v = { "q", 1 };
	bool refused = pwritev2(fd, &v, 1, 0, RWF_NOWAIT) < 0 && errno == EOPNOTSUPP;

	close(fd);
	ck_assert_int_eq(send_keep(build_write(fh, 1, "ab"), &async_transport),
			 refused ? FS_REQ_DEFERRED : 16 + 8);
	ck_assert_int_eq(io.count, refused ? 1 : 0);
	if (refused)
		run_pending(0);
	char buf[32];
	host_read("r", buf, sizeof(buf));
	ck_assert_str_eq(buf, refused ? "0ab3456789" : "qab3456789");
}
END_TEST

START_TEST(read_cached_answers_inline)
{
	uint64_t n, fh = file_fh("c", &n);
	struct fuse_read_in in = { .fh = fh, .offset = 0, .size = 10 };

	/* Just written, so in the page cache: RWF_NOWAIT answers, no deferral. */
	ck_assert_int_eq(send_keep(tf_build(FUSE_READ, 1, &in, sizeof(in), NULL, NULL,
					    NULL, 0), &async_transport), 16 + 10);
	ck_assert_int_eq(io.count, 0);
}
END_TEST



static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A parked request keeps buffers of its own: one set per request here. */
struct kept {
	struct iovec in, out;
	struct fs_req req;
	uint8_t outbuf[256];
};

static int send_kept(struct kept *k, size_t len, const struct fs_transport *t)
{
	k->in = (struct iovec){ tf_inbuf, len };
	k->out = (struct iovec){ k->outbuf, sizeof(k->outbuf) };
	k->req = (struct fs_req){ .in = &k->in, .nin = 1, .out = &k->out, .nout = 1 };
	return fuse_server_handle(srv, &k->req, t);
}

START_TEST(interrupt_returns_at_once)
{
	static struct kept k[5];
	uint64_t n, fh = file_fh("t", &n), best = UINT64_MAX;

	host_hold("t");
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(send_kept(&k[i], build_lk(FUSE_SETLKW, fh, 7, F_WRLCK, 0),
					   &cb_transport), FS_REQ_DEFERRED);
		uint64_t u = tf_unique;
		usleep(20000); /* its helper is in F_OFD_SETLKW by now */
		struct fuse_interrupt_in ii = { .unique = u };
		size_t len = tf_build(FUSE_INTERRUPT, 0, &ii, sizeof(ii), NULL, NULL, NULL, 0);
		uint64_t t0 = now_ns();
		ck_assert_int_eq(tf_send(len, NULL), 0);
		uint64_t dt = now_ns() - t0;
		best = dt < best ? dt : best;
		/* The helper answers the request with EINTR itself. */
		ck_assert(wait_done(i + 1, 5000));
		ck_assert_int_eq(done_oh.error, -EINTR);
		ck_assert_uint_eq(done_oh.unique, u);
	}
	/* No sleeping on the queue's thread: well under a millisecond. */
	ck_assert_uint_lt(best, 200000);
	host_release();
}
END_TEST

START_TEST(interrupt_before_its_setlkw)
{
	uint64_t n, fh = file_fh("e", &n);

	host_hold("e");
	/* Another queue handed the INTERRUPT over first. */
	struct fuse_interrupt_in ii = { .unique = tf_unique + 2 };
	ck_assert_int_eq(tf_send(tf_build(FUSE_INTERRUPT, 0, &ii, sizeof(ii), NULL, NULL,
					  NULL, 0), NULL), 0);
	ck_assert_int_eq(send_keep(build_lk(FUSE_SETLKW, fh, 7, F_WRLCK, 0), &cb_transport),
			 (int)sizeof(struct fuse_out_header));
	memcpy(&done_oh, defer_out, sizeof(done_oh));
	ck_assert_int_eq(done_oh.error, -EINTR);
	ck_assert_uint_eq(done_oh.unique, ii.unique);
	host_release();
}
END_TEST

START_TEST(parked_setlkw_are_bounded)
{
	static struct kept k[65];
	uint64_t n, fh = file_fh("p", &n);

	host_hold("p");
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(send_kept(&k[i], build_lk(FUSE_SETLKW, fh, 7, F_WRLCK, 0),
					   &cb_transport), FS_REQ_DEFERRED);
	/* The 65th is refused at once rather than parked. */
	ck_assert_int_eq(send_kept(&k[64], build_lk(FUSE_SETLKW, fh, 7, F_WRLCK, 0),
				   &cb_transport), (int)sizeof(struct fuse_out_header));
	memcpy(&done_oh, k[64].outbuf, sizeof(done_oh));
	ck_assert_int_eq(done_oh.error, -ENOLCK);
	ck_assert_int_eq(done_count, 0);
	fuse_server_reset(srv);
	ck_assert_int_eq(done_count, 64);
	ck_assert_int_eq(done_eintr, 64);
	host_release();
}
END_TEST

START_TEST(lock_owners_are_bounded)
{
	struct fuse_server_params p = { .max_handles = 2 };
	struct fs_options o;
	uint64_t n, fh;

	fs_options_default(&o);
	tf_start(&o, &p, true);
	fh = file_fh("b", &n);
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 1, F_RDLCK, 0, 0, 0, NULL), 0);
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 2, F_RDLCK, 0, 0, 0, NULL), 0);
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 3, F_RDLCK, 0, 0, 0, NULL), -ENOLCK);
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 1, F_WRLCK, 5, 9, 0, NULL), 0); /* known owner */
	struct fuse_flush_in fl = { .fh = fh, .lock_owner = 2 };
	ck_assert_int_eq(tf_req(FUSE_FLUSH, 1, &fl, sizeof(fl), NULL, NULL, NULL, 0), 0);
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 3, F_RDLCK, 0, 0, 0, NULL), 0);
	/* Releasing the file and forgetting the inode gives every OFD back. */
	ck_assert_int_eq(tf_release(fh, FUSE_RELEASE), 0);
	struct fuse_forget_in fin = { .nlookup = 1 };
	tf_send(tf_build(FUSE_FORGET, n, &fin, sizeof(fin), NULL, NULL, NULL, 0), NULL);
	fh = file_fh("c", &n);
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 4, F_RDLCK, 0, 0, 0, NULL), 0);
	ck_assert_int_eq(lk(FUSE_SETLK, fh, 5, F_RDLCK, 0, 0, 0, NULL), 0);
}
END_TEST

/* --- several queues at once ---------------------------------------------- */
#define THREADS 4
#define ROUNDS 400

struct worker {
	int id;
	uint64_t unique;
	uint8_t in[8192], out[8192];
	int failures;
	uint64_t last_nodeid;
};

/* A private round trip: the shared tf_* buffers are not thread-safe. */
static int w_req(struct worker *w, uint32_t op, uint64_t nodeid, const void *a,
		 size_t alen, const char *name, const void *tail, size_t tlen,
		 void *res, size_t reslen)
{
	struct fuse_in_header h = { .opcode = op, .unique = ++w->unique, .nodeid = nodeid };
	size_t len = sizeof(h);

	if (alen)
		memcpy(w->in + len, a, alen);
	len += alen;
	if (name) {
		memcpy(w->in + len, name, strlen(name) + 1);
		len += strlen(name) + 1;
	}
	if (tlen)
		memcpy(w->in + len, tail, tlen);
	len += tlen;
	h.len = (uint32_t)len;
	memcpy(w->in, &h, sizeof(h));
	struct iovec iv = { w->in, len }, ov = { w->out, sizeof(w->out) };
	struct fs_req req = { .in = &iv, .nin = 1, .out = &ov, .nout = 1 };
	int r = fuse_server_handle(srv, &req, NULL);
	if (r == 0)
		return 0;
	struct fuse_out_header oh;
	memcpy(&oh, w->out, sizeof(oh));
	if (oh.unique != w->unique || oh.len != (uint32_t)r)
		w->failures++;
	if (res)
		memcpy(res, w->out + sizeof(oh), reslen);
	return oh.error;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char name[16], data[4096], back[4096];

	memset(data, 'a' + w->id, sizeof(data));
	for (int i = 0; i < ROUNDS; i++) {
		struct fuse_entry_out e;
		struct fuse_open_out oo;
		snprintf(name, sizeof(name), "s%d", i % 3); /* shared by every thread */
		if (w_req(w, FUSE_LOOKUP, 1, NULL, 0, name, NULL, 0, &e, sizeof(e))) {
			w->failures++;
			continue;
		}
		w->last_nodeid = e.nodeid;
		struct fuse_open_in oi = { .flags = O_RDWR };
		if (w_req(w, FUSE_OPEN, e.nodeid, &oi, sizeof(oi), NULL, NULL, 0, &oo, sizeof(oo)))
			w->failures++;
		uint64_t off = (uint64_t)w->id * sizeof(data);
		struct fuse_write_in wi = { .fh = oo.fh, .offset = off, .size = sizeof(data) };
		if (w_req(w, FUSE_WRITE, 1, &wi, sizeof(wi), NULL, data, sizeof(data), NULL, 0))
			w->failures++;
		struct fuse_read_in ri = { .fh = oo.fh, .offset = off, .size = sizeof(back) };
		if (w_req(w, FUSE_READ, 1, &ri, sizeof(ri), NULL, NULL, 0, back, sizeof(back)) ||
		    memcmp(back, data, sizeof(data)) != 0)
			w->failures++;
		struct fuse_getattr_in gi = { 0 };
		if (w_req(w, FUSE_GETATTR, e.nodeid, &gi, sizeof(gi), NULL, NULL, 0, NULL, 0))
			w->failures++;
		struct fuse_release_in rel = { .fh = oo.fh };
		if (w_req(w, FUSE_RELEASE, 1, &rel, sizeof(rel), NULL, NULL, 0, NULL, 0))
			w->failures++;
		struct fuse_forget_in fin = { .nlookup = 1 };
		w_req(w, FUSE_FORGET, e.nodeid, &fin, sizeof(fin), NULL, NULL, 0, NULL, 0);
	}
	return NULL;
}

START_TEST(queues_in_parallel)
{
	static struct worker w[THREADS];
	pthread_t t[THREADS];

	for (int i = 0; i < 3; i++) {
		char n[16];
		snprintf(n, sizeof(n), "s%d", i);
		tf_write_host(n, "");
	}
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .id = i, .unique = (uint64_t)i << 40 };
		pthread_create(&t[i], NULL, worker_main, &w[i]);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		ck_assert_int_eq(w[i].failures, 0);
	}
	/* Every lookup was forgotten and every handle released: all gone. */
	for (int i = 0; i < THREADS; i++)
		ck_assert_int_eq(tf_getattr(w[i].last_nodeid, NULL), -ENOENT);
	ck_assert_int_eq(tf_open(w[0].last_nodeid, O_RDONLY, &(uint64_t){ 0 }), -ENOENT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuse_lock");
	TCase *tc = tcase_create("locks_and_deferred");

	tcase_add_checked_fixture(tc, tf_setup, tf_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, posix_owners);
	tcase_add_test(tc, host_lock_wins);
	tcase_add_test(tc, setlkw_parks_then_completes);
	tcase_add_test(tc, interrupt_cancels_setlkw);
	tcase_add_test(tc, interrupt_returns_at_once);
	tcase_add_test(tc, interrupt_before_its_setlkw);
	tcase_add_test(tc, parked_setlkw_are_bounded);
	tcase_add_test(tc, flock_via_lk_flock);
	tcase_add_test(tc, reset_cancels_waiters);
	tcase_add_test(tc, read_goes_async_when_it_would_block);
	tcase_add_test(tc, read_cached_answers_inline);
	tcase_add_test(tc, write_goes_async_when_it_would_block);
	tcase_add_test(tc, write_nowait_refused_goes_async);
	tcase_add_test(tc, queues_in_parallel);
	tcase_add_test(tc, lock_owners_are_bounded);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
