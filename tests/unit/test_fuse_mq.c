// SPDX-License-Identifier: GPL-2.0-only
/*
 * One FUSE server, two request queues: two threads (what two virtio-fs
 * request-queue workers are) drive the same server at once on the same
 * inodes and the same handles -- LOOKUP and FORGET of the same names (an
 * inode dropped on one queue while the other finds it again), OPEN,
 * READ, WRITE, GETATTR and RELEASE of the same files, READDIR and
 * READDIRPLUS of one shared directory handle while the other queue's
 * idle read-ahead tops up its buffer, CREATE and UNLINK in that
 * directory meanwhile, and a shared file handle released on one queue
 * while the other still uses it. Every answer must be right (EBADF only
 * for the handle after its release), the data each queue wrote must be
 * what it reads back, and once both have forgotten and released
 * everything no fd of theirs may be left. Run under `make TSAN=1 unit`
 * for the races this cannot see.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/fs_fdbudget.h"
#include "fs/fuse/fuse_server.h"
#include "tests/unit/check_main.h"

#define NFILES   8
#define NENTRIES 300
#define FILESZ   (128 * 1024)   /* blocks 0..15 per-queue, 16..17 the shared handle's */
#define ROUNDS   200
#define BLK      4096

static struct fuse_server *srv;
static char tdir[64];
static uint64_t shared_fh, shared_dir_fh, file_ino[NFILES], dir_ino;
static unsigned fds_at_start, fds_of_server;
static struct mqc *mainq;             /* the main thread's: INIT, pins, the end */

/* One queue's client: its own buffers, its own unique ids. */
struct mqc {
	unsigned id;
	uint64_t unique;
	uint8_t in[BLK + 1024];
	uint8_t out[64 * 1024];
	uint32_t payload;           /* bytes after the out header */
	char fail[256];             /* the first thing that went wrong */
	unsigned ebadf;             /* answers for the released shared handle */
};

#define MQ_CHECK(c, cond, ...)                                          \
	do {                                                            \
		if (!(cond) && !(c)->fail[0])                           \
			snprintf((c)->fail, sizeof((c)->fail), __VA_ARGS__); \
	} while (0)

/* One round trip; the reply's error (0 or -errno), payload in c->out. */
static int mq_req(struct mqc *c, uint32_t op, uint64_t nodeid, const void *a, size_t alen,
		  const char *name, const void *data, size_t dlen)
{
	struct fuse_in_header h = { .opcode = op, .unique = ++c->unique, .nodeid = nodeid,
				    .pid = 100 + c->id };
	struct fuse_out_header oh;
	struct iovec in = { c->in, 0 }, out = { c->out, sizeof(c->out) };
	struct fs_req req = { .in = &in, .nin = 1, .out = &out, .nout = 1 };
	size_t len = sizeof(h);
	int r;

	memcpy(c->in + len, a, alen);
	len += alen;
	if (name) {
		memcpy(c->in + len, name, strlen(name) + 1);
		len += strlen(name) + 1;
	}
	memcpy(c->in + len, data, dlen);
	len += dlen;
	h.len = (uint32_t)len;
	memcpy(c->in, &h, sizeof(h));
	in.iov_len = len;
	c->payload = 0;
	r = fuse_server_handle(srv, &req, NULL);
	if (op == FUSE_FORGET)
		return 0;
	MQ_CHECK(c, r >= (int)sizeof(oh), "op %u: handle returned %d", op, r);
	if (r < (int)sizeof(oh))
		return -EIO;
	memcpy(&oh, c->out, sizeof(oh));
	MQ_CHECK(c, oh.unique == c->unique && oh.len == (uint32_t)r,
		 "op %u: reply header unique %llu len %u for %llu/%d", op,
		 (unsigned long long)oh.unique, oh.len, (unsigned long long)c->unique, r);
	c->payload = (uint32_t)r - sizeof(oh);
	return oh.error;
}

static void *payload(struct mqc *c)
{
	return c->out + sizeof(struct fuse_out_header);
}

static uint64_t mq_lookup(struct mqc *c, uint64_t parent, const char *name)
{
	int r = mq_req(c, FUSE_LOOKUP, parent, NULL, 0, name, NULL, 0);

	MQ_CHECK(c, r == 0, "lookup %s: %d", name, r);
	return r == 0 ? ((struct fuse_entry_out *)payload(c))->nodeid : 0;
}

static void mq_forget(struct mqc *c, uint64_t nodeid, uint64_t n)
{
	struct fuse_forget_in in = { .nlookup = n };

	mq_req(c, FUSE_FORGET, nodeid, &in, sizeof(in), NULL, NULL, 0);
}

static uint64_t mq_open(struct mqc *c, uint32_t op, uint64_t nodeid, uint32_t flags)
{
	struct fuse_open_in in = { .flags = flags };
	int r = mq_req(c, op, nodeid, &in, sizeof(in), NULL, NULL, 0);

	MQ_CHECK(c, r == 0, "open %llu: %d", (unsigned long long)nodeid, r);
	return r == 0 ? ((struct fuse_open_out *)payload(c))->fh : 0;
}

static int mq_release(struct mqc *c, uint32_t op, uint64_t fh)
{
	struct fuse_release_in in = { .fh = fh };

	return mq_req(c, op, 1, &in, sizeof(in), NULL, NULL, 0);
}

static int mq_write(struct mqc *c, uint64_t fh, uint64_t off, const void *data)
{
	struct fuse_write_in in = { .fh = fh, .offset = off, .size = BLK };

	return mq_req(c, FUSE_WRITE, 1, &in, sizeof(in), NULL, data, BLK);
}

static int mq_read(struct mqc *c, uint64_t fh, uint64_t off)
{
	struct fuse_read_in in = { .fh = fh, .offset = off, .size = BLK };

	return mq_req(c, FUSE_READ, 1, &in, sizeof(in), NULL, NULL, 0);
}

/* A whole listing through handle fh (READDIR or READDIRPLUS): entries seen. */
static unsigned mq_list(struct mqc *c, uint32_t op, uint64_t fh)
{
	uint64_t off = 0;
	unsigned n = 0;

	for (;;) {
		struct fuse_read_in in = { .fh = fh, .offset = off, .size = 8192 };
		int r = mq_req(c, op, 1, &in, sizeof(in), NULL, NULL, 0);
		uint64_t seen[8192 / FUSE_NAME_OFFSET_DIRENTPLUS];
		uint32_t pos = 0, nseen = 0;

		MQ_CHECK(c, r == 0, "readdir op %u: %d", op, r);
		if (r || c->payload == 0)
			return n;
		while (pos < c->payload) {
			const uint8_t *p = (const uint8_t *)payload(c) + pos;
			const struct fuse_dirent *d = (const void *)(op == FUSE_READDIRPLUS ?
				p + offsetof(struct fuse_direntplus, dirent) : p);

			if (op == FUSE_READDIRPLUS &&
			    ((const struct fuse_direntplus *)p)->entry_out.nodeid)
				seen[nseen++] = ((const struct fuse_direntplus *)p)->entry_out.nodeid;
			off = d->off;
			n++;
			pos += op == FUSE_READDIRPLUS ?
			       FUSE_DIRENTPLUS_SIZE((const struct fuse_direntplus *)p) :
			       FUSE_DIRENT_SIZE(d);
		}
		/* READDIRPLUS counted a lookup of each entry: give them back. */
		for (uint32_t i = 0; i < nseen; i++)
			mq_forget(c, seen[i], 1);
		/* The transport's idle moment: read ahead, as a worker does. */
		fuse_server_idle(srv);
	}
}

/* This queue's own block in file i: what it writes it must read back. */
static void file_round(struct mqc *c, unsigned i, unsigned round)
{
	char name[16];
	uint8_t data[BLK];
	uint64_t ino, fh, off = (uint64_t)(c->id * 8 + round % 8) * BLK;
	struct fuse_getattr_in ga = { 0 };

	snprintf(name, sizeof(name), "f%u", i);
	ino = mq_lookup(c, 1, name);
	MQ_CHECK(c, ino == file_ino[i], "%s: nodeid %llx, not %llx", name,
		 (unsigned long long)ino, (unsigned long long)file_ino[i]);
	if (!ino)
		return;
	fh = mq_open(c, FUSE_OPEN, ino, O_RDWR);
	memset(data, 'a' + (int)((c->id + round) % 26), sizeof(data));
	MQ_CHECK(c, mq_write(c, fh, off, data) == 0, "write %s", name);
	MQ_CHECK(c, mq_read(c, fh, off) == 0 && c->payload == BLK &&
		 memcmp(payload(c), data, BLK) == 0, "read back %s at %llu", name,
		 (unsigned long long)off);
	MQ_CHECK(c, mq_req(c, FUSE_GETATTR, ino, &ga, sizeof(ga), NULL, NULL, 0) == 0 &&
		 ((struct fuse_attr_out *)payload(c))->attr.size == FILESZ, "getattr %s", name);
	MQ_CHECK(c, mq_release(c, FUSE_RELEASE, fh) == 0, "release %s", name);
	mq_forget(c, ino, 1);
}

/* The shared handles: file handle until it is released, directory always. */
static void shared_round(struct mqc *c, unsigned round)
{
	uint8_t data[BLK];
	int r;

	memset(data, 'A' + (int)c->id, sizeof(data));
	r = mq_write(c, shared_fh, (uint64_t)(16 + c->id) * BLK, data);
	if (r == -EBADF)
		c->ebadf++;
	else
		MQ_CHECK(c, r == 0, "write on the shared handle: %d", r);
	r = mq_read(c, shared_fh, (uint64_t)(16 + c->id) * BLK);
	if (r == -EBADF)
		c->ebadf++;
	else
		MQ_CHECK(c, r == 0 && memcmp(payload(c), data, BLK) == 0,
			 "read on the shared handle: %d", r);
	if (c->id == 1 && round == ROUNDS / 2)
		MQ_CHECK(c, mq_release(c, FUSE_RELEASE, shared_fh) == 0, "shared release");
	if (round % 16 == 0)
		mq_list(c, round % 32 ? FUSE_READDIR : FUSE_READDIRPLUS, shared_dir_fh);
}

/* Names come and go in d while the other queue lists it. */
static void dir_round(struct mqc *c, uint64_t dino, unsigned round)
{
	struct fuse_create_in in = { .flags = O_RDWR, .mode = S_IFREG | 0644 };
	char name[32];
	uint64_t fh, dfh;
	int r;

	snprintf(name, sizeof(name), "q%u-%u", c->id, round);
	r = mq_req(c, FUSE_CREATE, dino, &in, sizeof(in), name, NULL, 0);
	MQ_CHECK(c, r == 0, "create %s: %d", name, r);
	if (r == 0) {
		const struct fuse_entry_out *e = payload(c);
		uint64_t nid = e->nodeid;

		fh = ((const struct fuse_open_out *)(e + 1))->fh;
		MQ_CHECK(c, mq_release(c, FUSE_RELEASE, fh) == 0, "release %s", name);
		MQ_CHECK(c, mq_req(c, FUSE_UNLINK, dino, NULL, 0, name, NULL, 0) == 0,
			 "unlink %s", name);
		mq_forget(c, nid, 1);
	}
	if (round % 8 == c->id) {
		dfh = mq_open(c, FUSE_OPENDIR, dino, O_RDONLY);
		MQ_CHECK(c, mq_list(c, FUSE_READDIR, dfh) >= NENTRIES, "listing of d too short");
		MQ_CHECK(c, mq_release(c, FUSE_RELEASEDIR, dfh) == 0, "releasedir");
	}
}

static void *queue_main(void *arg)
{
	struct mqc *c = arg;
	uint64_t dino = mq_lookup(c, 1, "d");

	for (unsigned round = 0; round < ROUNDS && !c->fail[0]; round++) {
		file_round(c, (round + c->id) % NFILES, round);
		file_round(c, (round * 3) % NFILES, round);   /* both queues, same file */
		shared_round(c, round);
		dir_round(c, dino, round);
	}
	mq_forget(c, dino, 1);
	return NULL;
}

static void make_tree(void)
{
	char path[128];
	int fd;

	snprintf(tdir, sizeof(tdir), "/tmp/test_fuse_mq.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tdir));
	for (unsigned i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%s/f%u", tdir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(ftruncate(fd, FILESZ), 0);
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/d", tdir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	for (unsigned i = 0; i < NENTRIES; i++) {
		snprintf(path, sizeof(path), "%s/d/entry-with-a-longish-name-%u", tdir, i);
		fd = open(path, O_WRONLY | O_CREAT, 0644);
		ck_assert_int_ge(fd, 0);
		close(fd);
	}
}

/* INIT, and the shared handles, from the main thread (queue "2"). */
static void start_server(unsigned fd_limit)
{
	struct mqc *c = mainq = calloc(1, sizeof(*c));
	struct fuse_init_in init = { .major = 7, .minor = 41, .max_readahead = 65536,
				     .flags = FUSE_ASYNC_READ | FUSE_DO_READDIRPLUS |
					      FUSE_PARALLEL_DIROPS };
	struct fs_options o;
	char name[16];

	ck_assert_ptr_nonnull(c);
	c->id = 2;
	make_tree();
	if (fd_limit)
		fs_fd_set_limit(fd_limit);
	fds_at_start = fs_fd_used();
	fs_options_default(&o);
	ck_assert_int_eq(fuse_server_create(&srv, tdir, &o), 0);
	fds_of_server = fs_fd_used();
	ck_assert_int_eq(mq_req(c, FUSE_INIT, 0, &init, sizeof(init), NULL, NULL, 0), 0);
	/* Each file's nodeid, pinned by one lookup the test keeps. */
	for (unsigned i = 0; i < NFILES; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		file_ino[i] = mq_lookup(c, 1, name);
	}
	shared_fh = mq_open(c, FUSE_OPEN, file_ino[0], O_RDWR);
	dir_ino = mq_lookup(c, 1, "d");
	shared_dir_fh = mq_open(c, FUSE_OPENDIR, dir_ino, O_RDONLY);
	ck_assert_msg(!c->fail[0], "%s", c->fail);
}

static void run_two_queues(void)
{
	struct mqc *q[2];
	pthread_t th[2];

	for (unsigned i = 0; i < 2; i++) {
		q[i] = calloc(1, sizeof(*q[i]));
		ck_assert_ptr_nonnull(q[i]);
		q[i]->id = i;
		q[i]->unique = (uint64_t)(i + 1) << 40;
	}
	for (unsigned i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, queue_main, q[i]), 0);
	for (unsigned i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	for (unsigned i = 0; i < 2; i++)
		ck_assert_msg(!q[i]->fail[0], "queue %u: %s", i, q[i]->fail);
	/* After the release only EBADF: at least on the releasing queue (the
	 * other may have finished first on a busy machine). */
	ck_assert_uint_gt(q[1]->ebadf, 0);
	for (unsigned i = 0; i < 2; i++)
		free(q[i]);
}

/*
 * The main thread gives back its pins: with every lookup forgotten and
 * every handle released, only the server's own fds may be left (an fd
 * lost in a race between the queues would show here), and none after it.
 */
static void finish(void)
{
	struct mqc *c = mainq;
	char cmd[128];

	ck_assert_int_eq(mq_release(c, FUSE_RELEASE, shared_fh), -EBADF);
	ck_assert_int_eq(mq_release(c, FUSE_RELEASEDIR, shared_dir_fh), 0);
	for (unsigned i = 0; i < NFILES; i++)
		mq_forget(c, file_ino[i], 1);
	mq_forget(c, dir_ino, 1);
	ck_assert_msg(!c->fail[0], "%s", c->fail);
	ck_assert_uint_eq(fs_fd_used(), fds_of_server);
	free(c);
	fuse_server_destroy(srv);
	srv = NULL;
	ck_assert_uint_eq(fs_fd_used(), fds_at_start);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tdir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(t_two_queues_same_inodes_and_handles)
{
	start_server(0);
	run_two_queues();
	finish();
}
END_TEST

/*
 * The same with an fd budget far below the files in use: the queues race
 * the eviction of each other's cached fds and the reopening by handle.
 */
START_TEST(t_two_queues_under_a_tight_fd_budget)
{
	start_server(24);
	run_two_queues();
	finish();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuse_mq");
	TCase *tc = tcase_create("two_queues");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, t_two_queues_same_inodes_and_handles);
	tcase_add_test(tc, t_two_queues_under_a_tight_fd_budget);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
