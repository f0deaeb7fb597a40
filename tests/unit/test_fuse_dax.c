// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-inode DAX policy of a `dax=inode` share (fuse_dax_wanted in
 * fs/fuse/fuse_dax_policy.c): INIT offers FUSE_HAS_INODE_DAX only for such a
 * share with a window; then LOOKUP and GETATTR mark
 * FUSE_ATTR_DAX on a regular file of at least dax-min bytes, never on a
 * smaller one or a directory; a file opened for writing or truncating,
 * or created, loses the mark (read-mostly); a client that did not take
 * the bit (a guest mounted dax=always or dax=never) sees no marks at all.
 */
#include "tests/unit/test_fuse_util.h"

#include "tests/unit/check_main.h"

#define KIB 1024ull
#define MIB (1024ull * 1024)

static int fake_setup(void *ctx, int fd, uint64_t fo, uint64_t len, uint64_t mo, bool wr)
{
	(void)ctx, (void)fd, (void)fo, (void)len, (void)mo, (void)wr;
	return 0;
}

static int fake_remove(void *ctx, uint64_t mo, uint64_t len)
{
	(void)ctx, (void)mo, (void)len;
	return 0;
}

static const struct fuse_dax_ops fake_window = { fake_setup, fake_remove };

/*
 * A host file of size bytes (sparse: only its size matters here), last
 * modified an hour ago: the policy leaves a file modified in the last
 * minute unmarked.
 */
static void host_file(const char *name, uint64_t size)
{
	int fd = open(tf_path(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct timespec t[2] = { { .tv_sec = time(NULL) - 3600 }, { .tv_sec = time(NULL) - 3600 } };

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
	ck_assert_int_eq(futimens(fd, t), 0);
	close(fd);
}

/* INIT as Linux sends it, with the high flags in flags2; the reply's flags, both halves. */
static uint64_t init_ext(uint64_t flags)
{
	struct fuse_init_in in = {
		.major = 7, .minor = 38, .max_readahead = 1 << 20,
		.flags = (uint32_t)(flags | FUSE_INIT_EXT), .flags2 = (uint32_t)(flags >> 32),
	};

	ck_assert_int_eq(tf_req(FUSE_INIT, 0, &in, sizeof(in), NULL, NULL, &tf_init,
				sizeof(tf_init)), 0);
	return tf_init.flags | (uint64_t)tf_init.flags2 << 32;
}

/*
 * A server for the share with words (fs_options_parse_word), a window
 * when window is set, and a client that offers client_flags.
 */
static uint64_t serve(const char *const *words, bool window, uint64_t client_flags)
{
	struct fs_options o;
	struct fuse_server_params p = { .dax = window ? &fake_window : NULL };
	const char *why;

	fs_options_default(&o);
	o.cache = FS_CACHE_ALWAYS;
	for (; *words; words++)
		ck_assert_msg(fs_options_parse_word(&o, *words, false, &why) == 0, "%s: %s", *words, why);
	tf_start(&o, &p, false);
	return init_ext(client_flags);
}

#define CLIENT (TF_ALL_FLAGS | FUSE_MAP_ALIGNMENT | FUSE_HAS_INODE_DAX)
#define WORDS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static bool dax_on_lookup(const char *name)
{
	struct fuse_entry_out e;

	ck_assert_int_eq(tf_lookup(1, name, &e), 0);
	return e.attr.flags & FUSE_ATTR_DAX;
}

static bool dax_on_getattr(uint64_t nodeid)
{
	struct fuse_attr a;

	ck_assert_int_eq(tf_getattr(nodeid, &a), 0);
	return a.flags & FUSE_ATTR_DAX;
}

START_TEST(t_init_offers_inode_dax_for_dax_inode_only)
{
	ck_assert(serve(WORDS("dax=inode"), true, CLIENT) & FUSE_HAS_INODE_DAX);
	ck_assert(serve(WORDS("dax-min=4M"), true, CLIENT) & FUSE_HAS_INODE_DAX);
	/* dax=SIZE alone: the guest's mount option decides, as before. */
	ck_assert(!(serve(WORDS("dax=64M"), true, CLIENT) & FUSE_HAS_INODE_DAX));
	/* No window (fuse-mount): nothing to map, nothing offered. */
	ck_assert(!(serve(WORDS("dax=inode"), false, CLIENT) & FUSE_HAS_INODE_DAX));
	/* A client that did not ask (mounted dax=always) does not get it. */
	ck_assert(!(serve(WORDS("dax=inode"), true, TF_ALL_FLAGS) & FUSE_HAS_INODE_DAX));
}
END_TEST

START_TEST(t_marked_by_size)
{
	host_file("big", 4 * MIB);
	host_file("edge", 1 * MIB);
	host_file("under", 1 * MIB - 4 * KIB);
	host_file("small", 4 * KIB);
	host_file("empty", 0);
	ck_assert_int_eq(mkdir(tf_path("dir"), 0755), 0);
	serve(WORDS("dax=inode", "dax-min=1M"), true, CLIENT);
	ck_assert(dax_on_lookup("big"));
	ck_assert(dax_on_lookup("edge"));       /* dax-min itself is enough */
	ck_assert(!dax_on_lookup("under"));
	ck_assert(!dax_on_lookup("small"));
	ck_assert(!dax_on_lookup("empty"));
	ck_assert(!dax_on_lookup("dir"));
	/* GETATTR says the same, and follows the host's size. */
	uint64_t big = tf_nodeid(1, "big"), small = tf_nodeid(1, "small");
	ck_assert(dax_on_getattr(big));
	ck_assert(!dax_on_getattr(small));
	host_file("small", 2 * MIB);
	ck_assert(dax_on_getattr(small));
	/* The default dax-min is 1M: a 64 KiB file is read through FUSE. */
	host_file("mid", 64 * KIB);
	serve(WORDS("dax=inode"), true, CLIENT);
	ck_assert(!dax_on_lookup("mid"));
	ck_assert(dax_on_lookup("edge"));
	/* dax-min=0: every regular file, the empty one too, never a directory. */
	serve(WORDS("dax-min=0"), true, CLIENT);
	ck_assert(dax_on_lookup("empty"));
	ck_assert(dax_on_lookup("mid"));
	ck_assert(!dax_on_lookup("dir"));
}
END_TEST

START_TEST(t_opened_for_writing_loses_the_mark)
{
	uint64_t fh;

	host_file("ro", 4 * MIB);
	host_file("rw", 4 * MIB);
	host_file("wo", 4 * MIB);
	host_file("trunc", 4 * MIB);
	serve(WORDS("dax=inode"), true, CLIENT);
	uint64_t ro = tf_nodeid(1, "ro"), rw = tf_nodeid(1, "rw");
	uint64_t wo = tf_nodeid(1, "wo"), trunc = tf_nodeid(1, "trunc");
	/* Read-only opens keep it: that is the read-mostly file DAX is for. */
	ck_assert_int_eq(tf_open(ro, O_RDONLY, &fh), 0);
	ck_assert_int_eq(tf_release(fh, FUSE_RELEASE), 0);
	ck_assert(dax_on_getattr(ro));
	ck_assert_int_eq(tf_open(rw, O_RDWR, &fh), 0);
	ck_assert(!dax_on_getattr(rw));
	ck_assert_int_eq(tf_release(fh, FUSE_RELEASE), 0);
	ck_assert(!dax_on_getattr(rw));         /* closing does not bring it back */
	ck_assert(!dax_on_lookup("rw"));
	ck_assert_int_eq(tf_open(wo, O_WRONLY, &fh), 0);
	ck_assert(!dax_on_getattr(wo));
	host_file("trunc", 4 * MIB);
	ck_assert_int_eq(tf_open(trunc, O_RDONLY | O_TRUNC, &fh), 0);
	host_file("trunc", 4 * MIB);            /* big again on the host */
	ck_assert(!dax_on_getattr(trunc));
	ck_assert(dax_on_lookup("ro"));
}
END_TEST

START_TEST(t_created_files_are_not_marked)
{
	struct fuse_entry_out e;
	uint64_t fh;

	host_file("existing", 4 * MIB);
	serve(WORDS("dax=inode", "dax-min=0"), true, CLIENT);
	ck_assert_int_eq(tf_create(1, "new", O_RDWR, 0644, &e, &fh), 0);
	ck_assert(!(e.attr.flags & FUSE_ATTR_DAX));
	host_file("new", 4 * MIB);
	ck_assert(!dax_on_getattr(e.nodeid));
	/* O_CREAT of a file that is there: opened for writing, so not marked in that reply either. */
	ck_assert_int_eq(tf_create(1, "existing", O_RDWR, 0644, &e, &fh), 0);
	ck_assert(!(e.attr.flags & FUSE_ATTR_DAX));
	ck_assert(!dax_on_getattr(e.nodeid));
}
END_TEST

START_TEST(t_no_marks_without_the_bit)
{
	host_file("big", 4 * MIB);
	/* The guest mounted dax=always (or never): it did not offer the bit. */
	serve(WORDS("dax=inode"), true, TF_ALL_FLAGS | FUSE_MAP_ALIGNMENT);
	ck_assert(!dax_on_lookup("big"));
	/* A plain dax=SIZE share offers no bit, so marks nothing either. */
	serve(WORDS("dax=64M"), true, CLIENT);
	ck_assert(!dax_on_lookup("big"));
	/* Nor a dax=inode share with no window. */
	serve(WORDS("dax=inode"), false, CLIENT);
	ck_assert(!dax_on_lookup("big"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuse_dax");
	TCase *tc = tcase_create("policy");

	tcase_add_checked_fixture(tc, tf_setup, tf_teardown);
	tcase_add_test(tc, t_init_offers_inode_dax_for_dax_inode_only);
	tcase_add_test(tc, t_marked_by_size);
	tcase_add_test(tc, t_opened_for_writing_loses_the_mark);
	tcase_add_test(tc, t_created_files_are_not_marked);
	tcase_add_test(tc, t_no_marks_without_the_bit);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
