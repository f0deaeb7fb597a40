/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tiny 9P2000.L client for the unit tests of the server (test_p9.c,
 * test_p9ops.c): builds messages, hands them to p9_handle() exactly as a
 * transport does (optionally split across many small iovecs), parses the
 * replies, and fakes a transport's completion and async I/O. Each test
 * program includes it once.
 */
#ifndef STAINLESS_TESTS_UNIT_TEST_P9_CLIENT_H
#define STAINLESS_TESTS_UNIT_TEST_P9_CLIENT_H

/* Each program uses a different subset of the helpers below. */
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-variable"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fs/fs_options.h"
#include "fs/9p/p9_server.h"
#include "fs/9p/p9_wire.h"

#define BUFSZ (600 * 1024)

static char root[64];
static struct p9_server *srv;
static struct p9_session *ses;
static uint8_t reqbuf[BUFSZ], repbuf[BUFSZ];
static struct p9_wbuf W;
static uint8_t cur_type;
static uint16_t cur_tag = 1;
static size_t out_cap = BUFSZ;
static unsigned split;  /* >0: hand requests and replies over in pieces this size */

/* Deferred completions land here. */
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int ndone;
static uint8_t done_reply[256];
static uint32_t done_len;
static uint8_t done_types[16];   /* reply type of each completion, in order */
static uint8_t done_heads[16][16]; /* and its first bytes */

static void fake_complete(void *ctx, struct fs_req *req, uint32_t len)
{
	pthread_mutex_lock(&done_lock);
	done_len = len;
	fs_iov_read(req->out, req->nout, 0, done_reply, len < sizeof(done_reply) ? len : sizeof(done_reply));
	if (ndone < 16) {
		done_types[ndone] = done_reply[4];
		memcpy(done_heads[ndone], done_reply, sizeof(done_heads[0]));
	}
	ndone++;
	pthread_cond_broadcast(&done_cond);
	pthread_mutex_unlock(&done_lock);
}

/* Completions so far (they may come from a server helper thread). */
static int get_ndone(void)
{
	pthread_mutex_lock(&done_lock);
	int n = ndone;
	pthread_mutex_unlock(&done_lock);
	return n;
}

/* A fake io_uring: remembers the submission; the test runs it later. */
static struct {
	bool used, is_write;
	int fd;
	struct iovec iov[128];
	unsigned n;
	uint64_t off;
	fs_io_done_fn *done;
	void *arg;
} aio;

static int fake_submit(void *ctx, bool is_write, int fd, const struct iovec *iov, unsigned n,
		       uint64_t off, fs_io_done_fn *done, void *arg)
{
	aio.used = true;
	aio.is_write = is_write;
	aio.fd = fd;
	memcpy(aio.iov, iov, n * sizeof(*iov));
	aio.n = n;
	aio.off = off;
	aio.done = done;
	aio.arg = arg;
	return 0;
}

static const struct fs_async_ops fake_async = { .submit_rw = fake_submit };
static struct fs_transport tr = { .complete = fake_complete };

static void path_of(char *buf, const char *rel)
{
	snprintf(buf, PATH_MAX, "%s/%s", root, rel);
}

static void mkfile(const char *rel, const char *content)
{
	char p[PATH_MAX];
	path_of(p, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
}

/* ---- message building and the round trip ---- */

static void begin(uint8_t type)
{
	p9_wbuf_init(&W, reqbuf, sizeof(reqbuf));
	p9_put_reserve(&W, P9_HDRSZ);
	cur_type = type;
	cur_tag++;
	if (cur_tag == P9_NOTAG)
		cur_tag = 1;
}

static void put_str(const char *s)
{
	p9_put_cstr(&W, s);
}

/* Hands len bytes over (split if asked); returns p9_handle's result. */
static int handle_raw(const void *msg, size_t len)
{
	static struct iovec in[4096], out[4096];
	unsigned nin = 1, nout = 1;

	if (split) {
		nin = 0;
		for (size_t o = 0; o < len; o += split, nin++) {
			in[nin].iov_base = (uint8_t *)msg + o;
			in[nin].iov_len = len - o < split ? len - o : split;
		}
		nout = 0;
		for (size_t o = 0; o < out_cap && nout < 4096; o += split, nout++) {
			out[nout].iov_base = repbuf + o;
			out[nout].iov_len = out_cap - o < split ? out_cap - o : split;
		}
	} else {
		in[0] = (struct iovec){ (void *)msg, len };
		out[0] = (struct iovec){ repbuf, out_cap };
	}
	static struct fs_req req;
	req = (struct fs_req){ .in = in, .nin = nin, .out = out, .nout = nout };
	return p9_handle(ses, &req, &tr);
}

/* Parses a reply of n bytes: -errno for Rlerror, else 0 with r at the body. */
static int parse_reply(int n, uint16_t tag, uint8_t type, struct p9_rbuf *r)
{
	ck_assert_int_ge(n, (int)P9_HDRSZ);
	p9_rbuf_init(r, repbuf, (size_t)n);
	ck_assert_uint_eq(p9_get_u32(r), (uint32_t)n);
	uint8_t rtype = p9_get_u8(r);
	ck_assert_uint_eq(p9_get_u16(r), tag);
	if (rtype == P9_RLERROR) {
		uint32_t e = p9_get_u32(r);
		ck_assert_int_eq(p9_rbuf_error(r), 0);
		ck_assert_uint_ne(e, 0);
		return -(int)e;
	}
	ck_assert_uint_eq(rtype, type + 1);
	return 0;
}

static int call(struct p9_rbuf *r)
{
	struct p9_rbuf dummy;
	p9_put_hdr(reqbuf, (uint32_t)W.pos, cur_type, cur_tag);
	int n = handle_raw(reqbuf, W.pos);
	return parse_reply(n, cur_tag, cur_type, r ? r : &dummy);
}

/* ---- one helper per message ---- */

static int t_version(uint32_t msize, const char *v, uint32_t *rmsize, char *rv)
{
	struct p9_rbuf r;
	struct p9_str s;
	begin(P9_TVERSION);
	p9_put_u32(&W, msize);
	put_str(v);
	int err = call(&r);
	if (err)
		return err;
	*rmsize = p9_get_u32(&r);
	p9_get_str(&r, &s);
	ck_assert_int_eq(p9_str_copy(&s, rv, 64), 0);
	return 0;
}

static int t_attach(uint32_t fid, const char *aname, uint32_t uid)
{
	begin(P9_TATTACH);
	p9_put_u32(&W, fid);
	p9_put_u32(&W, P9_NOFID);
	put_str("");
	put_str(aname);
	p9_put_u32(&W, uid);
	return call(NULL);
}

static int t_walk(uint32_t fid, uint32_t newfid, unsigned n, const char *const *names,
		  struct p9_qid *qids)
{
	struct p9_rbuf r;
	begin(P9_TWALK);
	p9_put_u32(&W, fid);
	p9_put_u32(&W, newfid);
	p9_put_u16(&W, (uint16_t)n);
	for (unsigned i = 0; i < n; i++)
		put_str(names[i]);
	int err = call(&r);
	if (err)
		return err;
	int nq = p9_get_u16(&r);
	for (int i = 0; i < nq; i++) {
		struct p9_qid q;
		p9_get_qid(&r, &q);
		if (qids)
			qids[i] = q;
	}
	ck_assert_int_eq(p9_rbuf_error(&r), 0);
	return nq;
}

static int walk1(uint32_t fid, uint32_t newfid, const char *name)
{
	return t_walk(fid, newfid, 1, &name, NULL);
}

static int t_lopen(uint32_t fid, uint32_t flags)
{
	begin(P9_TLOPEN);
	p9_put_u32(&W, fid);
	p9_put_u32(&W, flags);
	return call(NULL);
}

static int t_lcreate(uint32_t fid, const char *name, uint32_t flags, uint32_t mode)
{
	begin(P9_TLCREATE);
	p9_put_u32(&W, fid);
	put_str(name);
	p9_put_u32(&W, flags);
	p9_put_u32(&W, mode);
	p9_put_u32(&W, 0);
	return call(NULL);
}

static int t_clunk(uint32_t fid)
{
	begin(P9_TCLUNK);
	p9_put_u32(&W, fid);
	return call(NULL);
}

static int t_read(uint32_t fid, uint64_t off, uint32_t count, void *dst)
{
	struct p9_rbuf r;
	begin(P9_TREAD);
	p9_put_u32(&W, fid);
	p9_put_u64(&W, off);
	p9_put_u32(&W, count);
	int err = call(&r);
	if (err)
		return err;
	uint32_t n = p9_get_u32(&r);
	ck_assert_uint_le(n, count);
	ck_assert_uint_eq(p9_rbuf_left(&r), n);
	memcpy(dst, r.p + r.pos, n);
	return (int)n;
}

static void begin_write(uint32_t fid, uint64_t off, const void *data, uint32_t len)
{
	begin(P9_TWRITE);
	p9_put_u32(&W, fid);
	p9_put_u64(&W, off);
	p9_put_u32(&W, len);
	memcpy(p9_put_reserve(&W, len), data, len);
}

static int t_write(uint32_t fid, uint64_t off, const void *data, uint32_t len)
{
	struct p9_rbuf r;
	begin_write(fid, off, data, len);
	int err = call(&r);
	return err ? err : (int)p9_get_u32(&r);
}

static int t_getattr(uint32_t fid, uint32_t *mode, uint64_t *size, struct p9_qid *qid)
{
	struct p9_rbuf r;
	struct p9_qid q;
	begin(P9_TGETATTR);
	p9_put_u32(&W, fid);
	p9_put_u64(&W, P9_GETATTR_BASIC);
	int err = call(&r);
	if (err)
		return err;
	ck_assert(p9_get_u64(&r) & P9_GETATTR_BASIC);
	p9_get_qid(&r, &q);
	if (qid)
		*qid = q;
	uint32_t m = p9_get_u32(&r);
	if (mode)
		*mode = m;
	p9_get_u32(&r);
	p9_get_u32(&r);
	p9_get_u64(&r);
	p9_get_u64(&r);
	uint64_t sz = p9_get_u64(&r);
	if (size)
		*size = sz;
	ck_assert_uint_eq(p9_rbuf_left(&r), 153 - 8 - 13 - 12 - 24);
	return 0;
}

static int t_simple_name(uint8_t type, uint32_t dfid, const char *name, uint32_t a, uint32_t b)
{
	begin(type);
	p9_put_u32(&W, dfid);
	put_str(name);
	p9_put_u32(&W, a);
	p9_put_u32(&W, b);
	return call(NULL);
}

#define t_mkdir(d, n, mode) t_simple_name(P9_TMKDIR, d, n, mode, 0)
#define t_unlinkat(d, n, fl) t_unlinkat_(d, n, fl)

static int t_unlinkat_(uint32_t dfid, const char *name, uint32_t flags)
{
	begin(P9_TUNLINKAT);
	p9_put_u32(&W, dfid);
	put_str(name);
	p9_put_u32(&W, flags);
	return call(NULL);
}

static int t_flush(uint16_t oldtag)
{
	begin(P9_TFLUSH);
	p9_put_u16(&W, oldtag);
	return call(NULL);
}

/* ---- fixture: a temp dir with a server, a session, and fid 0 = root ---- */

/* Share option `devices` for the next setup (tests that need it set it). */
static bool p9t_devices;

/*
 * Set by an earlier fixture for what needs more privilege than a serving
 * thread keeps (a mount inside the share): runs once the share exists and
 * before the first request limits this thread's capabilities.
 */
static void (*p9t_before_serving)(void);

static void setup_opts(bool readonly)
{
	struct fs_options o;
	uint32_t msize;
	char v[64];

	strcpy(root, "/tmp/test_p9.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	if (p9t_before_serving)
		p9t_before_serving();
	fs_options_default(&o);
	o.readonly = readonly;
	o.devices = p9t_devices;
	ck_assert_int_eq(p9_server_create(&srv, root, &o), 0);
	ck_assert_int_eq(p9_session_create(&ses, srv, BUFSZ), 0);
	ck_assert_int_eq(t_version(P9_MSIZE_MAX, "9P2000.L", &msize, v), 0);
	ck_assert_uint_eq(msize, P9_MSIZE_DEFAULT);
	ck_assert_str_eq(v, "9P2000.L");
	ck_assert_int_eq(t_attach(0, "", 0), 0);
}

static void setup(void)
{
	setup_opts(false);
}

static void setup_ro(void)
{
	setup_opts(true);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];
	p9_session_destroy(ses);
	p9_server_destroy(srv);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	ck_assert_int_eq(system(cmd), 0);
}

#endif
