/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tiny FUSE client for the unit tests: builds requests by hand, hands
 * them to fuse_server_handle() as iovecs split at awkward places, and
 * checks the reply header before returning the error and payload. Shared
 * by test_fuse.c (every opcode) and test_fuse_bad.c (malformed input).
 */
#ifndef STAINLESS_TESTS_UNIT_TEST_FUSE_UTIL_H
#define STAINLESS_TESTS_UNIT_TEST_FUSE_UTIL_H

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/fuse/fuse_server.h"

#define TF_BUF (FUSE_SERVER_MAX_WRITE + 8192)

static struct fuse_server *srv;
static char tdir[256];
static uint64_t tf_unique = 100;
static uint32_t tf_uid, tf_gid;
static size_t tf_split = 7;  /* request iovec piece size, 0 = one piece */
static size_t tf_outcap = TF_BUF;
static uint8_t tf_inbuf[TF_BUF], tf_outbuf[TF_BUF];
static int tf_ret;           /* fuse_server_handle()'s return */
static struct fuse_out_header tf_oh;
static struct fuse_init_out tf_init;

static inline const char *tf_path(const char *name)
{
	static char bufs[4][512];
	static int k;
	char *b = bufs[k++ & 3];

	snprintf(b, 512, "%s/%s", tdir, name);
	return b;
}

/*
 * With tf_serve_on_thread set, every request is answered on one serving
 * thread of its own rather than on the test's thread. Serving limits a
 * thread's capabilities (fs_caps_limit), and a test that checks the host
 * with trusted.* names needs CAP_SYS_ADMIN on its own thread afterwards:
 * without it trusted.* is simply invisible, and a "not on the host" check
 * would pass for the wrong reason.
 */
static bool tf_serve_on_thread;
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct fs_req *req;
	const struct fs_transport *t;
	bool busy, started;
	int ret;
	pthread_t thread;
} tf_srv_thread = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static inline void *tf_serving_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&tf_srv_thread.mu);
	for (;;) {
		while (!tf_srv_thread.busy)
			pthread_cond_wait(&tf_srv_thread.cv, &tf_srv_thread.mu);
		tf_srv_thread.ret = fuse_server_handle(srv, tf_srv_thread.req, tf_srv_thread.t);
		tf_srv_thread.busy = false;
		pthread_cond_broadcast(&tf_srv_thread.cv);
	}
	return NULL;
}

static inline int tf_handle(struct fs_req *req, const struct fs_transport *t)
{
	int r;

	if (!tf_serve_on_thread)
		return fuse_server_handle(srv, req, t);
	pthread_mutex_lock(&tf_srv_thread.mu);
	if (!tf_srv_thread.started) {
		ck_assert_int_eq(pthread_create(&tf_srv_thread.thread, NULL, tf_serving_main, NULL), 0);
		tf_srv_thread.started = true;
	}
	tf_srv_thread.req = req;
	tf_srv_thread.t = t;
	tf_srv_thread.busy = true;
	pthread_cond_broadcast(&tf_srv_thread.cv);
	while (tf_srv_thread.busy)
		pthread_cond_wait(&tf_srv_thread.cv, &tf_srv_thread.mu);
	r = tf_srv_thread.ret;
	pthread_mutex_unlock(&tf_srv_thread.mu);
	return r;
}

/* Feeds len bytes of tf_inbuf to the server; the reply lands in tf_outbuf. */
static inline int tf_send(size_t len, const struct fs_transport *t)
{
	struct iovec in[80], out[2];
	unsigned nin = 0;
	size_t off = 0;

	while (off < len && nin < 79) {
		size_t piece = tf_split && len - off > tf_split ? tf_split : len - off;
		in[nin++] = (struct iovec){ tf_inbuf + off, piece };
		off += piece;
	}
	if (off < len)
		in[nin++] = (struct iovec){ tf_inbuf + off, len - off };
	/* The reply is scattered too: a 24-byte first piece splits every struct. */
	size_t first = tf_outcap > 24 ? 24 : tf_outcap;
	out[0] = (struct iovec){ tf_outbuf, first };
	out[1] = (struct iovec){ tf_outbuf + first, tf_outcap - first };
	struct fs_req req = { .in = in, .nin = nin, .out = out,
			      .nout = tf_outcap > first ? 2 : 1 };
	memset(&tf_oh, 0, sizeof(tf_oh));
	tf_ret = tf_handle(&req, t);
	if (tf_ret > 0)
		memcpy(&tf_oh, tf_outbuf, sizeof(tf_oh));
	return tf_ret;
}

static inline size_t tf_build(uint32_t op, uint64_t nodeid, const void *a, size_t alen,
		       const char *s1, const char *s2, const void *tail, size_t tlen)
{
	struct fuse_in_header h = {
		.opcode = op, .unique = ++tf_unique, .nodeid = nodeid,
		.uid = tf_uid, .gid = tf_gid, .pid = 4242,
	};
	size_t len = sizeof(h);

	if (alen)
		memcpy(tf_inbuf + len, a, alen), len += alen;
	if (s1)
		memcpy(tf_inbuf + len, s1, strlen(s1) + 1), len += strlen(s1) + 1;
	if (s2)
		memcpy(tf_inbuf + len, s2, strlen(s2) + 1), len += strlen(s2) + 1;
	if (tlen)
		memcpy(tf_inbuf + len, tail, tlen), len += tlen;
	h.len = (uint32_t)len;
	memcpy(tf_inbuf, &h, sizeof(h));
	return len;
}

/*
 * One request/reply round trip. Returns the reply's error (0 or -errno);
 * copies at most outmax payload bytes to out. Checks the reply header.
 */
static inline int tf_req(uint32_t op, uint64_t nodeid, const void *a, size_t alen,
		  const char *s1, const char *s2, void *out, size_t outmax)
{
	size_t len = tf_build(op, nodeid, a, alen, s1, s2, NULL, 0);
	int r = tf_send(len, NULL);

	ck_assert_int_ge(r, (int)sizeof(struct fuse_out_header));
	ck_assert_uint_eq(tf_oh.len, (uint32_t)r);
	ck_assert_uint_eq(tf_oh.unique, tf_unique);
	ck_assert_int_le(tf_oh.error, 0);
	if (tf_oh.error)
		ck_assert_uint_eq(tf_oh.len, sizeof(struct fuse_out_header));
	if (out && outmax) {
		size_t n = (size_t)r - sizeof(tf_oh);
		memcpy(out, tf_outbuf + sizeof(tf_oh), n < outmax ? n : outmax);
	}
	return tf_oh.error;
}

static inline size_t tf_payload(void)
{
	return tf_ret > 0 ? (size_t)tf_ret - sizeof(struct fuse_out_header) : 0;
}

static inline void tf_do_init(uint32_t flags)
{
	struct fuse_init_in in = {
		.major = 7, .minor = 38, .max_readahead = 1 << 20,
		.flags = flags,
	};

	ck_assert_int_eq(tf_req(FUSE_INIT, 0, &in, sizeof(in), NULL, NULL,
				&tf_init, sizeof(tf_init)), 0);
}

#define TF_ALL_FLAGS (FUSE_ASYNC_READ | FUSE_POSIX_LOCKS | FUSE_ATOMIC_O_TRUNC | \
		      FUSE_BIG_WRITES | FUSE_FLOCK_LOCKS | FUSE_DO_READDIRPLUS | \
		      FUSE_PARALLEL_DIROPS | FUSE_MAX_PAGES | FUSE_SUBMOUNTS | \
		      FUSE_HANDLE_KILLPRIV_V2 | FUSE_WRITEBACK_CACHE | \
		      FUSE_AUTO_INVAL_DATA | FUSE_CACHE_SYMLINKS)

static inline void tf_start(const struct fs_options *o, const struct fuse_server_params *p,
		     bool init)
{
	if (srv)
		fuse_server_destroy(srv);
	srv = NULL;
	ck_assert_int_eq(fuse_server_create_params(&srv, tdir, o, p), 0);
	if (init)
		tf_do_init(TF_ALL_FLAGS);
}

/*
 * Set by an earlier fixture for what needs more privilege than a serving
 * thread keeps (a mount inside the share): runs once the share exists and
 * before the first request limits this thread's capabilities.
 */
static void (*tf_before_serving)(void);

static inline void tf_setup(void)
{
	struct fs_options o;

	snprintf(tdir, sizeof(tdir), "/tmp/test_fuse.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tdir));
	chmod(tdir, 0755);
	if (tf_before_serving)
		tf_before_serving();
	fs_options_default(&o);
	o.xattr = true;
	tf_uid = tf_gid = 0;
	tf_split = 7;
	tf_outcap = TF_BUF;
	tf_start(&o, NULL, true);
}

static inline void tf_teardown(void)
{
	char cmd[300];

	fuse_server_destroy(srv);
	srv = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tdir);
}

/* Small wrappers for the common requests. */
static inline int tf_lookup(uint64_t parent, const char *name, struct fuse_entry_out *e)
{
	return tf_req(FUSE_LOOKUP, parent, NULL, 0, name, NULL, e, sizeof(*e));
}

static inline uint64_t tf_nodeid(uint64_t parent, const char *name)
{
	struct fuse_entry_out e;

	ck_assert_int_eq(tf_lookup(parent, name, &e), 0);
	return e.nodeid;
}

static inline int tf_getattr(uint64_t nodeid, struct fuse_attr *a)
{
	struct fuse_getattr_in in = { 0 };
	struct fuse_attr_out out;
	int r = tf_req(FUSE_GETATTR, nodeid, &in, sizeof(in), NULL, NULL, &out, sizeof(out));

	if (a)
		*a = out.attr;
	return r;
}

static inline int tf_open(uint64_t nodeid, uint32_t flags, uint64_t *fh)
{
	struct fuse_open_in in = { .flags = flags };
	struct fuse_open_out out = { 0 };
	int r = tf_req(FUSE_OPEN, nodeid, &in, sizeof(in), NULL, NULL, &out, sizeof(out));

	*fh = out.fh;
	return r;
}

static inline int tf_create(uint64_t parent, const char *name, uint32_t flags, uint32_t mode,
		     struct fuse_entry_out *e, uint64_t *fh)
{
	struct fuse_create_in in = { .flags = flags, .mode = S_IFREG | mode };
	uint8_t out[sizeof(struct fuse_entry_out) + sizeof(struct fuse_open_out)];
	int r;

	memset(e, 0, sizeof(*e));
	*fh = 0;
	r = tf_req(FUSE_CREATE, parent, &in, sizeof(in), name, NULL, out, sizeof(out));
	if (!r) {
		memcpy(e, out, sizeof(*e));
		*fh = ((struct fuse_open_out *)(out + sizeof(*e)))->fh;
	}
	return r;
}

static inline int tf_write(uint64_t fh, uint64_t off, const void *data, uint32_t size,
		    uint32_t flags)
{
	struct fuse_write_in in = { .fh = fh, .offset = off, .size = size,
				    .write_flags = flags };
	size_t len = tf_build(FUSE_WRITE, 1, &in, sizeof(in), NULL, NULL, data, size);
	struct fuse_write_out out;

	ck_assert_int_gt(tf_send(len, NULL), 0);
	if (tf_oh.error)
		return tf_oh.error;
	memcpy(&out, tf_outbuf + sizeof(tf_oh), sizeof(out));
	ck_assert_uint_eq(out.size, size);
	return 0;
}

/* Returns bytes read (>= 0) or -errno; data in buf. */
static inline int tf_read(uint64_t fh, uint64_t off, void *buf, uint32_t size)
{
	struct fuse_read_in in = { .fh = fh, .offset = off, .size = size };
	int r = tf_req(FUSE_READ, 1, &in, sizeof(in), NULL, NULL, buf, size);

	return r ? r : (int)tf_payload();
}

static inline int tf_release(uint64_t fh, uint32_t op)
{
	struct fuse_release_in in = { .fh = fh };

	return tf_req(op, 1, &in, sizeof(in), NULL, NULL, NULL, 0);
}

static inline void tf_write_host(const char *name, const char *data)
{
	int fd = open(tf_path(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	close(fd);
}

#endif
