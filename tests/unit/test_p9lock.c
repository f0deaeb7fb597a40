// SPDX-License-Identifier: GPL-2.0-only
/*
 * POSIX locks of the 9P2000.L server (fs/9p/p9_lock.c): OFD locks between
 * fids, a lock held by a host process refusing the client, a blocking lock
 * parked without stalling other requests and granted on release, Tflush
 * cancelling a parked lock without waiting (its Rflush deferred until
 * after the lock's Rlerror, or inline for a transport that cannot defer),
 * session teardown answering
 * what is parked, and parking only within the session's byte budget and
 * the process's fd budget.
 */
#include "tests/unit/check_main.h"
#include "tests/unit/test_p9_client.h"

#include <sys/wait.h>

#include "fs/fs_fdbudget.h"

static int t_lock(uint32_t fid, uint8_t type, uint32_t flags, uint64_t start, uint64_t len)
{
	struct p9_rbuf r;
	begin(P9_TLOCK);
	p9_put_u32(&W, fid);
	p9_put_u8(&W, type);
	p9_put_u32(&W, flags);
	p9_put_u64(&W, start);
	p9_put_u64(&W, len);
	p9_put_u32(&W, 42);
	put_str("guest");
	int err = call(&r);
	return err ? err : p9_get_u8(&r);
}

static void open_two(void)
{
	mkfile("f", "0123456789");
	ck_assert_int_eq(walk1(0, 1, "f"), 1);
	ck_assert_int_eq(walk1(0, 2, "f"), 1);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDWR), 0);
	ck_assert_int_eq(t_lopen(2, P9_DOTL_RDWR), 0);
}

START_TEST(test_lock_between_fids)
{
	struct p9_rbuf r;

	open_two();
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_WRLCK, 0, 0, 5), P9_LOCK_SUCCESS);
	ck_assert_int_eq(t_lock(2, P9_LOCK_TYPE_WRLCK, 0, 0, 0), P9_LOCK_BLOCKED);
	ck_assert_int_eq(t_lock(2, P9_LOCK_TYPE_RDLCK, 0, 5, 5), P9_LOCK_SUCCESS);
	/* Tgetlock from fid 2 sees fid 1's lock. */
	begin(P9_TGETLOCK);
	p9_put_u32(&W, 2);
	p9_put_u8(&W, P9_LOCK_TYPE_WRLCK);
	p9_put_u64(&W, 0);
	p9_put_u64(&W, 0);
	p9_put_u32(&W, 7);
	put_str("g");
	ck_assert_int_eq(call(&r), 0);
	ck_assert_uint_eq(p9_get_u8(&r), P9_LOCK_TYPE_WRLCK);
	ck_assert(p9_get_u64(&r) == 0);
	ck_assert(p9_get_u64(&r) == 5);
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_UNLCK, 0, 0, 5), P9_LOCK_SUCCESS);
	ck_assert_int_eq(t_lock(2, P9_LOCK_TYPE_WRLCK, 0, 0, 0), P9_LOCK_SUCCESS);
	/* Clunking the fid releases its locks. */
	ck_assert_int_eq(t_clunk(2), 0);
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_WRLCK, 0, 0, 0), P9_LOCK_SUCCESS);
	/* Bad lock input. */
	ck_assert_int_eq(t_lock(1, 7, 0, 0, 0), -EINVAL);
	ck_assert_int_eq(t_lock(0, P9_LOCK_TYPE_WRLCK, 0, 0, 0), -EBADF);  /* not open */
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_WRLCK, 0, UINT64_MAX, 0), -EINVAL);
}
END_TEST

START_TEST(test_lock_held_by_host)
{
	char p[PATH_MAX];
	int ready[2], release[2];
	char c;

	open_two();
	path_of(p, "f");
	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(release), 0);
	pid_t pid = fork();
	if (pid == 0) {
		/* A host process holds a classic POSIX lock on the same file. */
		int fd = open(p, O_RDWR);
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		if (fd < 0 || fcntl(fd, F_SETLK, &fl) < 0)
			_exit(1);
		if (write(ready[1], "x", 1) != 1 || read(release[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_WRLCK, 0, 0, 0), P9_LOCK_BLOCKED);
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_RDLCK, 0, 3, 1), P9_LOCK_BLOCKED);
	/* Linux's client asks Tgetlock with type UNLCK (e2e p9: F_GETLK gave
	 * EINVAL); the host's lock must be reported. */
	struct p9_rbuf r;
	begin(P9_TGETLOCK);
	p9_put_u32(&W, 1);
	p9_put_u8(&W, P9_LOCK_TYPE_UNLCK);
	p9_put_u64(&W, 0);
	p9_put_u64(&W, 0);
	p9_put_u32(&W, 7);
	put_str("g");
	ck_assert_int_eq(call(&r), 0);
	ck_assert_uint_eq(p9_get_u8(&r), P9_LOCK_TYPE_WRLCK);
	ck_assert_int_eq(write(release[1], "x", 1), 1);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_WRLCK, 0, 0, 0), P9_LOCK_SUCCESS);
}
END_TEST

static void wait_done(int n)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 5;
	pthread_mutex_lock(&done_lock);
	while (ndone < n)
		ck_assert_int_eq(pthread_cond_timedwait(&done_cond, &done_lock, &ts), 0);
	pthread_mutex_unlock(&done_lock);
}

/* Sends a blocking Tlock that must park; returns its tag. */
static uint16_t park_lock(uint32_t fid)
{
	begin(P9_TLOCK);
	p9_put_u32(&W, fid);
	p9_put_u8(&W, P9_LOCK_TYPE_WRLCK);
	p9_put_u32(&W, P9_LOCK_FLAGS_BLOCK);
	p9_put_u64(&W, 0);
	p9_put_u64(&W, 0);
	p9_put_u32(&W, 1);
	put_str("g");
	p9_put_hdr(reqbuf, (uint32_t)W.pos, P9_TLOCK, cur_tag);
	/* The parked request keeps its own buffers until it completes. */
	static uint8_t parked_in[128], parked_out[128];
	static struct iovec in, out;
	static struct fs_req req;
	memcpy(parked_in, reqbuf, W.pos);
	in = (struct iovec){ parked_in, W.pos };
	out = (struct iovec){ parked_out, sizeof(parked_out) };
	req = (struct fs_req){ .in = &in, .nin = 1, .out = &out, .nout = 1 };
	ck_assert_int_eq(p9_handle(ses, &req, &tr), FS_REQ_DEFERRED);
	return cur_tag;
}

START_TEST(test_blocking_lock_parked_then_granted)
{
	open_two();
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_WRLCK, 0, 0, 0), P9_LOCK_SUCCESS);
	uint16_t tag = park_lock(2);
	/* The queue is not stalled: other requests are answered meanwhile. */
	ck_assert_int_eq(t_getattr(0, NULL, NULL, NULL), 0);
	usleep(20000);
	ck_assert_int_eq(get_ndone(), 0);
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_UNLCK, 0, 0, 0), P9_LOCK_SUCCESS);
	wait_done(1);
	ck_assert_uint_eq(done_len, P9_HDRSZ + 1);
	ck_assert_uint_eq(done_reply[4], P9_RLOCK);
	ck_assert_uint_eq(done_reply[5] | done_reply[6] << 8, tag);
	ck_assert_uint_eq(done_reply[7], P9_LOCK_SUCCESS);
	/* Fid 2 really holds it now. */
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_WRLCK, 0, 0, 0), P9_LOCK_BLOCKED);
}
END_TEST

/* Hands a Tflush of oldtag over with buffers of its own; p9_handle's result. */
static int flush_keep(uint16_t oldtag, const struct fs_transport *t, uint16_t *tag)
{
	static uint8_t fin[P9_HDRSZ + 2], fout[64];
	static struct iovec in, out;
	static struct fs_req req;

	begin(P9_TFLUSH);
	p9_put_u16(&W, oldtag);
	p9_put_hdr(reqbuf, (uint32_t)W.pos, P9_TFLUSH, cur_tag);
	memcpy(fin, reqbuf, W.pos);
	in = (struct iovec){ fin, W.pos };
	out = (struct iovec){ fout, sizeof(fout) };
	req = (struct fs_req){ .in = &in, .nin = 1, .out = &out, .nout = 1 };
	*tag = cur_tag;
	return p9_handle(ses, &req, t);
}

START_TEST(test_flush_cancels_parked_lock)
{
	uint16_t ftag;

	open_two();
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_WRLCK, 0, 0, 0), P9_LOCK_SUCCESS);
	uint16_t tag = park_lock(2);
	usleep(20000);
	/* The queue does not wait: the Tflush is answered by the lock's helper. */
	ck_assert_int_eq(flush_keep(tag, &tr, &ftag), FS_REQ_DEFERRED);
	wait_done(2);
	/* Rflush only after the parked request was answered. */
	ck_assert_uint_eq(done_types[0], P9_RLERROR);
	ck_assert_uint_eq(done_heads[0][5] | done_heads[0][6] << 8, tag);
	ck_assert_uint_eq(done_heads[0][7], EINTR);
	ck_assert_uint_eq(done_types[1], P9_RFLUSH);
	ck_assert_uint_eq(done_heads[1][5] | done_heads[1][6] << 8, ftag);
	ck_assert_uint_eq(done_len, P9_HDRSZ);
	/* The lock was not taken by the cancelled request. */
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_UNLCK, 0, 0, 0), P9_LOCK_SUCCESS);
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_WRLCK, 0, 0, 0), P9_LOCK_SUCCESS);
	/* Flushing a tag that is not pending is answered at once. */
	ck_assert_int_eq(t_flush(999), 0);
	ck_assert_int_eq(get_ndone(), 2);
}
END_TEST

START_TEST(test_flush_without_completion_waits)
{
	const struct fs_transport no_defer = { 0 };
	uint16_t ftag;

	open_two();
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_WRLCK, 0, 0, 0), P9_LOCK_SUCCESS);
	uint16_t tag = park_lock(2);
	usleep(20000);
	/* A transport that cannot take a deferred Rflush gets it inline, after the lock's answer. */
	int n = flush_keep(tag, &no_defer, &ftag);
	ck_assert_int_eq(n, P9_HDRSZ);
	ck_assert_int_eq(get_ndone(), 1);
	ck_assert_uint_eq(done_types[0], P9_RLERROR);
	ck_assert_uint_eq(done_heads[0][7], EINTR);
}
END_TEST

START_TEST(test_parked_limit_answers_blocked)
{
	open_two();
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_WRLCK, 0, 0, 0), P9_LOCK_SUCCESS);
	for (uint32_t fid = 10; fid < 10 + P9_MAX_PARKED; fid++) {
		ck_assert_int_eq(walk1(0, fid, "f"), 1);
		ck_assert_int_eq(t_lopen(fid, P9_DOTL_RDWR), 0);
		park_lock(fid);
	}
	/* No room to park another: the client is told BLOCKED and retries. */
	ck_assert_int_eq(walk1(0, 200, "f"), 1);
	ck_assert_int_eq(t_lopen(200, P9_DOTL_RDWR), 0);
	ck_assert_int_eq(t_lock(200, P9_LOCK_TYPE_WRLCK, P9_LOCK_FLAGS_BLOCK, 0, 0), P9_LOCK_BLOCKED);
	ck_assert_int_eq(get_ndone(), 0);
	p9_session_destroy(ses);
	ck_assert_int_eq(get_ndone(), (int)P9_MAX_PARKED);
	ck_assert_int_eq(p9_session_create(&ses, srv, BUFSZ), 0);
}
END_TEST

/* A waiter costs budget (its record and stack; a dup of the file): without it, BLOCKED. */
START_TEST(test_park_needs_budget)
{
	uint32_t fid;
	int err = 0;

	open_two();
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_WRLCK, 0, 0, 0), P9_LOCK_SUCCESS);
	/* Spend the byte budget on 64 KiB xattr sinks. */
	for (fid = 100; !err; fid++) {
		err = walk1(0, fid, "f");
		if (err < 0)
			break;
		begin(P9_TXATTRCREATE);
		p9_put_u32(&W, fid);
		put_str("user.big");
		p9_put_u64(&W, 65536);
		p9_put_u32(&W, 0);
		err = call(NULL);
	}
	ck_assert_int_eq(err, -ENOMEM);
	ck_assert_int_eq(t_lock(2, P9_LOCK_TYPE_WRLCK, P9_LOCK_FLAGS_BLOCK, 0, 0), P9_LOCK_BLOCKED);
	for (uint32_t f = 100; f <= fid; f++)
		t_clunk(f);
	/* Memory again, but no fds for the helper's two dups (one is not enough). */
	fs_fd_set_limit(fs_fd_used());
	ck_assert_int_eq(t_lock(2, P9_LOCK_TYPE_WRLCK, P9_LOCK_FLAGS_BLOCK, 0, 0), P9_LOCK_BLOCKED);
	fs_fd_set_limit(fs_fd_used() + 1);
	ck_assert_int_eq(t_lock(2, P9_LOCK_TYPE_WRLCK, P9_LOCK_FLAGS_BLOCK, 0, 0), P9_LOCK_BLOCKED);
	ck_assert_int_eq(get_ndone(), 0);
	fs_fd_set_limit(fs_fd_used() + 2);
	park_lock(2);
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_UNLCK, 0, 0, 0), P9_LOCK_SUCCESS);
	wait_done(1);
	ck_assert_uint_eq(done_reply[4], P9_RLOCK);
}
END_TEST

START_TEST(test_session_destroy_answers_parked)
{
	open_two();
	ck_assert_int_eq(t_lock(1, P9_LOCK_TYPE_WRLCK, 0, 0, 0), P9_LOCK_SUCCESS);
	park_lock(2);
	p9_session_destroy(ses);
	ck_assert_int_eq(get_ndone(), 1);
	ck_assert_uint_eq(done_reply[4], P9_RLERROR);
	ck_assert_int_eq(p9_session_create(&ses, srv, BUFSZ), 0);
}
END_TEST

static Suite *p9lock_suite(void)
{
	Suite *s = suite_create("p9lock");
	TCase *tc = tcase_create("locks");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_lock_between_fids);
	tcase_add_test(tc, test_lock_held_by_host);
	tcase_add_test(tc, test_blocking_lock_parked_then_granted);
	tcase_add_test(tc, test_flush_cancels_parked_lock);
	tcase_add_test(tc, test_flush_without_completion_waits);
	tcase_add_test(tc, test_session_destroy_answers_parked);
	tcase_add_test(tc, test_park_needs_budget);
	tcase_add_test(tc, test_parked_limit_answers_blocked);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(p9lock_suite());
}
