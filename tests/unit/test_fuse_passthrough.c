// SPDX-License-Identifier: GPL-2.0-only
/*
 * FUSE passthrough in the server (fs/fuse/fuse_passthrough.c), with a fake
 * backing hook in place of fuse-mount's registrar: what INIT asks and
 * grants, what an open reply names, and the kernel's rules the server must
 * keep (one backing id per open inode, closed with its last handle; no
 * FOPEN_DIRECT_IO beside FOPEN_PASSTHROUGH; no writeback cache beside it).
 * Each test fails if the rule it names is removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/fuse/fuse_wire.h"
#include "tests/unit/check_main.h"
#include "tests/unit/test_fuse_util.h"

/* The fake registrar: ids from 10 up, each open fd checked for what it is. */
static struct {
	int opens, closes, next, refuse;
	int open_ids;             /* registered and not closed */
	bool saw_non_regular;
} fake;

static int fake_open(void *ctx, int fd)
{
	struct stat st;

	(void)ctx;
	fake.opens++;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		fake.saw_non_regular = true;
	if (fake.refuse)
		return -fake.refuse;
	fake.open_ids++;
	return fake.next++;
}

static void fake_close(void *ctx, int id)
{
	(void)ctx;
	(void)id;
	fake.closes++;
	fake.open_ids--;
}

static const struct fuse_backing_ops fake_ops = { .open_backing = fake_open,
						  .close_backing = fake_close };

/* A server with the hook, INIT offering (or not) FUSE_PASSTHROUGH. */
static uint64_t start(bool offer, const struct fs_options *opts, struct fuse_init_out *out)
{
	struct fs_options o;
	uint64_t flags = FUSE_ASYNC_READ | FUSE_WRITEBACK_CACHE | (offer ? FUSE_PASSTHROUGH : 0);
	struct fuse_init_in in = { .major = 7, .minor = 41, .max_readahead = 1 << 20,
				   .flags = (uint32_t)flags | FUSE_INIT_EXT,
				   .flags2 = (uint32_t)(flags >> 32) };

	memset(&fake, 0, sizeof(fake));
	fake.next = 10;
	fs_options_default(&o);
	if (opts)
		o = *opts;
	tf_start(&o, &(struct fuse_server_params){ .backing = &fake_ops }, false);
	ck_assert_int_eq(tf_req(FUSE_INIT, 0, &in, sizeof(in), NULL, NULL, out, sizeof(*out)), 0);
	return out->flags | ((uint64_t)out->flags2 << 32);
}

static int open_out(uint64_t nodeid, uint32_t flags, struct fuse_open_out *oo)
{
	struct fuse_open_in in = { .flags = flags };

	memset(oo, 0, sizeof(*oo));
	return tf_req(FUSE_OPEN, nodeid, &in, sizeof(in), NULL, NULL, oo, sizeof(*oo));
}

START_TEST(init_asks_passthrough_with_a_stack_depth)
{
	struct fuse_init_out out;
	uint64_t got = start(true, NULL, &out);

	ck_assert(got & FUSE_PASSTHROUGH);
	ck_assert_uint_eq(FUSE_INIT_OUT_MAX_STACK_DEPTH(&out), 1);
	ck_assert(fuse_server_passthrough(srv));
	/* The kernel takes passthrough only without a writeback cache. */
	struct fs_options o;
	fs_options_default(&o);
	o.writeback = true;
	got = start(true, &o, &out);
	ck_assert(!(got & FUSE_WRITEBACK_CACHE));
	ck_assert(got & FUSE_PASSTHROUGH);
	/* A client that does not offer it: nothing, and opens are plain. */
	got = start(false, NULL, &out);
	ck_assert(!(got & FUSE_PASSTHROUGH));
	ck_assert_uint_eq(FUSE_INIT_OUT_MAX_STACK_DEPTH(&out), 0);
	ck_assert(!fuse_server_passthrough(srv));
	tf_write_host("f", "data");
	struct fuse_open_out oo;
	ck_assert_int_eq(open_out(tf_nodeid(1, "f"), O_RDONLY, &oo), 0);
	ck_assert(!(oo.open_flags & FOPEN_PASSTHROUGH));
	ck_assert_int_eq(fake.opens, 0);
}
END_TEST

START_TEST(open_names_the_inodes_one_backing_id)
{
	struct fuse_init_out out;
	struct fuse_open_out a, b, c;

	start(true, NULL, &out);
	tf_write_host("f", "data");
	tf_write_host("g", "data");
	uint64_t f = tf_nodeid(1, "f"), g = tf_nodeid(1, "g");
	ck_assert_int_eq(open_out(f, O_RDONLY, &a), 0);
	ck_assert(a.open_flags & FOPEN_PASSTHROUGH);
	ck_assert_int_eq(FUSE_OPEN_OUT_BACKING_ID(&a), 10);
	/* A second open of the same inode: the same id, no second registration (EBUSY). */
	ck_assert_int_eq(open_out(f, O_RDWR, &b), 0);
	ck_assert(b.open_flags & FOPEN_PASSTHROUGH);
	ck_assert_int_eq(FUSE_OPEN_OUT_BACKING_ID(&b), 10);
	ck_assert_int_eq(fake.opens, 1);
	ck_assert_int_eq(open_out(g, O_RDONLY, &c), 0);
	ck_assert_int_eq(FUSE_OPEN_OUT_BACKING_ID(&c), 11);
	/* Closed with the inode's last handle, once however many RELEASEs come. */
	ck_assert_int_eq(tf_release(a.fh, FUSE_RELEASE), 0);
	ck_assert_int_eq(fake.closes, 0);
	ck_assert_int_eq(tf_release(a.fh, FUSE_RELEASE), -EBADF);
	ck_assert_int_eq(fake.closes, 0);
	ck_assert_int_eq(tf_release(b.fh, FUSE_RELEASE), 0);
	ck_assert_int_eq(fake.closes, 1);
	/* Reopened later: a fresh registration. */
	ck_assert_int_eq(open_out(f, O_RDONLY, &a), 0);
	ck_assert_int_eq(FUSE_OPEN_OUT_BACKING_ID(&a), 12);
	ck_assert_int_eq(tf_release(a.fh, FUSE_RELEASE), 0);
	ck_assert_int_eq(tf_release(c.fh, FUSE_RELEASE), 0);
	ck_assert_int_eq(fake.open_ids, 0);
	ck_assert(!fake.saw_non_regular);
}
END_TEST

START_TEST(create_replies_with_passthrough_and_no_direct_io)
{
	struct fuse_init_out out;
	struct fs_options o;
	struct fuse_create_in in = { .flags = O_RDWR | O_CREAT, .mode = S_IFREG | 0644 };
	uint8_t rep[sizeof(struct fuse_entry_out) + sizeof(struct fuse_open_out)];
	struct fuse_open_out *oo = (struct fuse_open_out *)(rep + sizeof(struct fuse_entry_out));

	fs_options_default(&o);
	o.cache = FS_CACHE_NEVER;            /* would be FOPEN_DIRECT_IO, which overrides passthrough */
	start(true, &o, &out);
	ck_assert_int_eq(tf_req(FUSE_CREATE, 1, &in, sizeof(in), "new", NULL, rep, sizeof(rep)), 0);
	ck_assert(oo->open_flags & FOPEN_PASSTHROUGH);
	ck_assert(!(oo->open_flags & (FOPEN_DIRECT_IO | FOPEN_PARALLEL_DIRECT_WRITES)));
	ck_assert_int_eq(FUSE_OPEN_OUT_BACKING_ID(oo), 10);
	ck_assert_int_eq(tf_release(oo->fh, FUSE_RELEASE), 0);
	ck_assert_int_eq(fake.open_ids, 0);
}
END_TEST

START_TEST(refused_files_are_served_the_usual_way)
{
	struct fuse_init_out out;
	struct fuse_open_out a;
	struct fs_options o;
	char buf[8];

	fs_options_default(&o);
	o.cache = FS_CACHE_NEVER;
	start(true, &o, &out);
	fake.refuse = EXDEV;
	tf_write_host("f", "data");
	ck_assert_int_eq(open_out(tf_nodeid(1, "f"), O_RDONLY, &a), 0);
	ck_assert(!(a.open_flags & FOPEN_PASSTHROUGH));
	ck_assert(a.open_flags & FOPEN_DIRECT_IO);   /* as without the hook */
	ck_assert_int_eq(FUSE_OPEN_OUT_BACKING_ID(&a), 0);
	ck_assert_int_eq(tf_read(a.fh, 0, buf, sizeof(buf)), 4);
	ck_assert_int_eq(tf_release(a.fh, FUSE_RELEASE), 0);
	ck_assert_int_eq(fake.closes, 0);
	/* Directories are never handed to the hook. */
	ck_assert_int_eq(mkdir(tf_path("d"), 0755), 0);
	struct fuse_open_in in = { .flags = O_RDONLY };
	ck_assert_int_eq(tf_req(FUSE_OPENDIR, tf_nodeid(1, "d"), &in, sizeof(in), NULL, NULL,
				&a, sizeof(a)), 0);
	ck_assert(!(a.open_flags & FOPEN_PASSTHROUGH));
	ck_assert_int_eq(fake.opens, 1);
}
END_TEST

START_TEST(destroy_closes_every_id)
{
	struct fuse_init_out out;
	struct fuse_open_out a, b;

	start(true, NULL, &out);
	tf_write_host("f", "data");
	tf_write_host("g", "data");
	ck_assert_int_eq(open_out(tf_nodeid(1, "f"), O_RDONLY, &a), 0);
	ck_assert_int_eq(open_out(tf_nodeid(1, "g"), O_RDONLY, &b), 0);
	ck_assert_int_eq(fake.open_ids, 2);
	ck_assert_int_eq(tf_req(FUSE_DESTROY, 0, NULL, 0, NULL, NULL, NULL, 0), 0);
	ck_assert_int_eq(fake.open_ids, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuse_passthrough");
	TCase *tc = tcase_create("passthrough");

	tcase_add_checked_fixture(tc, tf_setup, tf_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, init_asks_passthrough_with_a_stack_depth);
	tcase_add_test(tc, open_names_the_inodes_one_backing_id);
	tcase_add_test(tc, create_replies_with_passthrough_and_no_direct_io);
	tcase_add_test(tc, refused_files_are_served_the_usual_way);
	tcase_add_test(tc, destroy_closes_every_id);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
