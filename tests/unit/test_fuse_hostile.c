// SPDX-License-Identifier: GPL-2.0-only
/*
 * A hostile FUSE client against a share holding host-made device nodes, a
 * FIFO, symlinks out of the share and preset xattrs of every namespace.
 * The rules asserted (the same as tests/host/hostile_9p.sh's):
 *   - only regular files and directories are opened for a client: OPEN,
 *     CREATE of an existing name, SYNCFS and SETATTR size on a device or
 *     FIFO answer ENXIO (a symlink: ELOOP), never block, give no bytes;
 *   - MKNOD of a device other than the whiteout is EPERM unless `devices`,
 *     and even then the node is never opened;
 *   - xattrs: user.* and POSIX ACLs pass; security.*, trusted.* and every
 *     other namespace: set/remove EOPNOTSUPP, get ENODATA, never listed;
 *     user.stainless.* is reserved: set/remove EPERM, get ENODATA, hidden;
 *   - symlinks are text: nothing outside the share is read or written;
 *   - LOOKUP never fails for lack of fds.
 * Every reply is searched for a secret kept outside the share; the test
 * case's timeout catches a server blocked in open(2) of a FIFO.
 */
#include "base/creds.h"
#include "tests/unit/test_fuse_util.h"

#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include "fs/fs_fdbudget.h"

#include "tests/unit/check_main.h"

#define SECRET "s3cret-outside-the-share"

/* Per test case, made in the parent: it outlives a failed test's process. */
static char base[64];
static char sdir[300], spath[320];
static struct stat secret_st;

/* Every reply, error or not, must be free of the secret and of /etc/passwd. */
static void no_leak(void)
{
	static const char *const deny[] = { SECRET, "root:x:0:0", "hidden-trusted",
					    "hidden-security", "hidden-reserved" };
	size_t n = tf_ret > 0 ? (size_t)tf_ret : 0;

	for (size_t i = 0; i < sizeof(deny) / sizeof(deny[0]); i++)
		ck_assert_msg(!memmem(tf_outbuf, n, deny[i], strlen(deny[i])),
			      "a reply holds '%s'", deny[i]);
}

static int hreq(uint32_t op, uint64_t nodeid, const void *a, size_t alen,
		const char *s1, const char *s2, void *out, size_t outmax)
{
	int r = tf_req(op, nodeid, a, alen, s1, s2, out, outmax);

	no_leak();
	return r;
}

static void base_make(void)
{
	snprintf(base, sizeof(base), "/tmp/test_fuse_hostile.XXXXXX");
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		exit(1);
	}
}

/* A failed check ends its forked test with _exit(), before any teardown. */
static void base_remove(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", base);
}

/* tf_setup() with the share and the secret side by side under base. */
static void hsetup(void)
{
	struct fs_options o;
	int fd;

	snprintf(tdir, sizeof(tdir), "%s/share.XXXXXX", base);
	ck_assert_ptr_nonnull(mkdtemp(tdir));
	chmod(tdir, 0755);
	fs_options_default(&o);
	o.xattr = true;
	tf_uid = tf_gid = 0;
	tf_split = 7;
	tf_outcap = TF_BUF;
	tf_serve_on_thread = true; /* the host checks below need this thread's caps */
	tf_start(&o, NULL, true);

	snprintf(sdir, sizeof(sdir), "%s/secret.XXXXXX", base);
	ck_assert_ptr_nonnull(mkdtemp(sdir));
	snprintf(spath, sizeof(spath), "%s/secret", sdir);
	fd = open(spath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, SECRET "\n", sizeof(SECRET)), (ssize_t)sizeof(SECRET));
	close(fd);
	ck_assert_int_eq(stat(spath, &secret_st), 0);

	tf_write_host("hello", "hello\n");
	ck_assert_int_eq(mknod(tf_path("zero"), S_IFCHR | 0666, makedev(1, 5)), 0);
	ck_assert_int_eq(mknod(tf_path("blk"), S_IFBLK | 0600, makedev(7, 0)), 0);
	ck_assert_int_eq(mkfifo(tf_path("fifo"), 0666), 0);
	ck_assert_int_eq(symlink("/etc/passwd", tf_path("ln")), 0);
	ck_assert_int_eq(symlink("/", tf_path("up")), 0);
	ck_assert_int_eq(symlink(spath, tf_path("sec")), 0);
	char rel[340];
	snprintf(rel, sizeof(rel), "../%s/secret", strrchr(sdir, '/') + 1);
	ck_assert_int_eq(symlink(rel, tf_path("rel")), 0);
}

static void secret_untouched(void)
{
	char buf[64] = { 0 };
	struct stat st;
	int fd = open(spath, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, sizeof(buf) - 1), (ssize_t)sizeof(SECRET));
	close(fd);
	ck_assert_str_eq(buf, SECRET "\n");
	ck_assert_int_eq(stat(spath, &st), 0);
	ck_assert_int_eq(st.st_mtim.tv_sec, secret_st.st_mtim.tv_sec);
	ck_assert_int_eq(st.st_mtim.tv_nsec, secret_st.st_mtim.tv_nsec);
	ck_assert_int_eq(st.st_size, secret_st.st_size);
}

static void hteardown(void)
{
	char cmd[700];

	tf_teardown();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", sdir);
}

static void still_serving(void)
{
	uint64_t fh;
	char buf[16] = { 0 };

	ck_assert_int_eq(tf_open(tf_nodeid(FUSE_ROOT_ID, "hello"), O_RDONLY, &fh), 0);
	ck_assert_int_eq(tf_read(fh, 0, buf, sizeof(buf)), 6);
	ck_assert_str_eq(buf, "hello\n");
	ck_assert_int_eq(tf_release(fh, FUSE_RELEASE), 0);
}

static int hcreate(uint64_t parent, const char *name, uint32_t flags)
{
	struct fuse_entry_out e;
	uint64_t fh;
	int r = tf_create(parent, name, flags, 0644, &e, &fh);

	no_leak();
	return r;
}

static int hopen(uint64_t nodeid, uint32_t flags)
{
	uint64_t fh;
	int r = tf_open(nodeid, flags, &fh);

	no_leak();
	return r;
}

static int hsyncfs(uint64_t nodeid)
{
	struct fuse_syncfs_in in = { 0 };

	return hreq(FUSE_SYNCFS, nodeid, &in, sizeof(in), NULL, NULL, NULL, 0);
}

static int htruncate(uint64_t nodeid)
{
	struct fuse_setattr_in in = { .valid = FATTR_SIZE, .size = 0 };
	struct fuse_attr_out out;

	return hreq(FUSE_SETATTR, nodeid, &in, sizeof(in), NULL, NULL, &out, sizeof(out));
}

/*
 * SETATTR size on a non-regular file: ENXIO, or EINVAL as truncate(2)
 * answers, when the server refuses before it opens anything.
 */
static void refused_truncate(int r, int open_err)
{
	ck_assert_msg(r == open_err || r == -EINVAL, "SETATTR size answered %d", r);
}

static void is_node(const char *name, mode_t type, unsigned maj, unsigned min)
{
	struct stat st;

	ck_assert_int_eq(lstat(tf_path(name), &st), 0);
	ck_assert_uint_eq(st.st_mode & S_IFMT, type);
	ck_assert_uint_eq(major(st.st_rdev), maj);
	ck_assert_uint_eq(minor(st.st_rdev), min);
}

START_TEST(create_existing_device_or_fifo)
{
	static const uint32_t flags[] = { O_RDONLY, O_WRONLY, O_RDWR, O_RDWR | O_TRUNC,
					  O_RDONLY | O_NONBLOCK };

	for (unsigned i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		ck_assert_int_eq(hcreate(FUSE_ROOT_ID, "zero", flags[i]), -ENXIO);
		ck_assert_int_eq(hcreate(FUSE_ROOT_ID, "blk", flags[i]), -ENXIO);
		ck_assert_int_eq(hcreate(FUSE_ROOT_ID, "fifo", flags[i]), -ENXIO);
	}
	is_node("zero", S_IFCHR, 1, 5);
	is_node("blk", S_IFBLK, 7, 0);
	is_node("fifo", S_IFIFO, 0, 0);
	/* The control: a new name is created and opened. */
	ck_assert_int_eq(hcreate(FUSE_ROOT_ID, "new", O_RDWR), 0);
	still_serving();
}
END_TEST

START_TEST(open_device_or_fifo_nodeid)
{
	uint64_t zero = tf_nodeid(FUSE_ROOT_ID, "zero");
	uint64_t blk = tf_nodeid(FUSE_ROOT_ID, "blk");
	uint64_t fifo = tf_nodeid(FUSE_ROOT_ID, "fifo");

	ck_assert_int_eq(hopen(zero, O_RDONLY), -ENXIO);
	ck_assert_int_eq(hopen(zero, O_RDWR), -ENXIO);
	ck_assert_int_eq(hopen(blk, O_RDONLY), -ENXIO);
	ck_assert_int_eq(hopen(fifo, O_RDONLY), -ENXIO);
	ck_assert_int_eq(hopen(fifo, O_WRONLY), -ENXIO);
	still_serving();
}
END_TEST

/* A FIFO opened by the server would block it until a writer came: the timeout catches that. */
START_TEST(syncfs_and_truncate_never_open)
{
	uint64_t zero = tf_nodeid(FUSE_ROOT_ID, "zero");
	uint64_t fifo = tf_nodeid(FUSE_ROOT_ID, "fifo");
	uint64_t blk = tf_nodeid(FUSE_ROOT_ID, "blk");

	ck_assert_int_eq(hsyncfs(fifo), -ENXIO);
	ck_assert_int_eq(hsyncfs(zero), -ENXIO);
	ck_assert_int_eq(hsyncfs(blk), -ENXIO);
	refused_truncate(htruncate(fifo), -ENXIO);
	refused_truncate(htruncate(zero), -ENXIO);
	refused_truncate(htruncate(blk), -ENXIO);
	is_node("zero", S_IFCHR, 1, 5);
	still_serving();
}
END_TEST

START_TEST(mknod_devices_refused)
{
	struct fuse_mknod_in mk = { .mode = S_IFCHR | 0666, .rdev = makedev(1, 5) };
	struct fuse_entry_out e;

	ck_assert_int_eq(hreq(FUSE_MKNOD, FUSE_ROOT_ID, &mk, sizeof(mk), "cdev", NULL, NULL, 0),
			 -EPERM);
	ck_assert_int_eq(access(tf_path("cdev"), F_OK), -1);
	mk = (struct fuse_mknod_in){ .mode = S_IFBLK | 0600, .rdev = makedev(7, 0) };
	ck_assert_int_eq(hreq(FUSE_MKNOD, FUSE_ROOT_ID, &mk, sizeof(mk), "bdev", NULL, NULL, 0),
			 -EPERM);
	ck_assert_int_eq(access(tf_path("bdev"), F_OK), -1);
	/* The overlayfs whiteout (c 0:0) is made, and still never opened. */
	mk = (struct fuse_mknod_in){ .mode = S_IFCHR | 0600, .rdev = 0 };
	ck_assert_int_eq(hreq(FUSE_MKNOD, FUSE_ROOT_ID, &mk, sizeof(mk), "wh", NULL,
			      &e, sizeof(e)), 0);
	is_node("wh", S_IFCHR, 0, 0);
	ck_assert_int_eq(hopen(e.nodeid, O_RDONLY), -ENXIO);
	/* A client-made FIFO: made, never opened. */
	mk = (struct fuse_mknod_in){ .mode = S_IFIFO | 0666 };
	ck_assert_int_eq(hreq(FUSE_MKNOD, FUSE_ROOT_ID, &mk, sizeof(mk), "pipe", NULL,
			      &e, sizeof(e)), 0);
	ck_assert_int_eq(hopen(e.nodeid, O_RDONLY), -ENXIO);
	ck_assert_int_eq(hcreate(FUSE_ROOT_ID, "pipe", O_WRONLY), -ENXIO);
	ck_assert_int_eq(hsyncfs(e.nodeid), -ENXIO);
	still_serving();
}
END_TEST

/* What a command does, before its threads, when a share has `devices`. */
static void devices_on(void)
{
	fs_caps_allow_devices(true);
}

START_TEST(mknod_with_devices_still_never_opens)
{
	struct fs_options o;
	struct fuse_mknod_in mk = { .mode = S_IFCHR | 0666, .rdev = makedev(1, 5) };
	struct fuse_entry_out e;

	fs_options_default(&o);
	o.xattr = true;
	o.devices = true;
	tf_start(&o, NULL, true);
	ck_assert_int_eq(hreq(FUSE_MKNOD, FUSE_ROOT_ID, &mk, sizeof(mk), "dzero", NULL,
			      &e, sizeof(e)), 0);
	is_node("dzero", S_IFCHR, 1, 5);
	ck_assert_int_eq(hopen(e.nodeid, O_RDONLY), -ENXIO);
	ck_assert_int_eq(hopen(e.nodeid, O_RDWR), -ENXIO);
	ck_assert_int_eq(hcreate(FUSE_ROOT_ID, "dzero", O_RDWR), -ENXIO);
	ck_assert_int_eq(hsyncfs(e.nodeid), -ENXIO);
	refused_truncate(htruncate(e.nodeid), -ENXIO);
	still_serving();
}
END_TEST

/* SETXATTR (compat layout: 8-byte header, name, value bytes). */
static int hsetxattr(uint64_t nodeid, const char *name, const void *value, uint32_t size)
{
	struct fuse_setxattr_in in = { .size = size };
	size_t len = tf_build(FUSE_SETXATTR, nodeid, &in, FUSE_COMPAT_SETXATTR_IN_SIZE,
			      name, NULL, value, size);

	ck_assert_int_eq(tf_send(len, NULL), (int)sizeof(struct fuse_out_header));
	no_leak();
	return tf_oh.error;
}

/* GETXATTR with room for the value, and the size-only probe: both must agree. */
static int hgetxattr(uint64_t nodeid, const char *name, char *buf, size_t bufsz)
{
	struct fuse_getxattr_in in = { .size = 0 };
	struct fuse_getxattr_out out;
	int probe = hreq(FUSE_GETXATTR, nodeid, &in, sizeof(in), name, NULL, &out, sizeof(out));

	in.size = (uint32_t)bufsz - 1;
	memset(buf, 0, bufsz);
	int r = hreq(FUSE_GETXATTR, nodeid, &in, sizeof(in), name, NULL, buf, bufsz - 1);
	ck_assert_int_eq(probe, r);
	return r;
}

/* LISTXATTR into buf; returns the list's length after checking the probe agrees. */
static size_t hlistxattr(uint64_t nodeid, char *buf, size_t bufsz)
{
	struct fuse_getxattr_in in = { .size = 0 };
	struct fuse_getxattr_out out;

	ck_assert_int_eq(hreq(FUSE_LISTXATTR, nodeid, &in, sizeof(in), NULL, NULL,
			      &out, sizeof(out)), 0);
	in.size = (uint32_t)bufsz;
	memset(buf, 0, bufsz);
	ck_assert_int_eq(hreq(FUSE_LISTXATTR, nodeid, &in, sizeof(in), NULL, NULL, buf, bufsz), 0);
	ck_assert_uint_eq(tf_payload(), out.size);
	return tf_payload();
}

static bool listed(const char *list, size_t len, const char *name)
{
	for (size_t i = 0; i < len; i += strlen(list + i) + 1)
		if (!strcmp(list + i, name))
			return true;
	return false;
}

/* Only user.* (outside user.stainless.) and POSIX ACL names may be listed. */
static void list_clean(const char *list, size_t len)
{
	for (size_t i = 0; i < len; i += strlen(list + i) + 1) {
		const char *n = list + i;
		bool ok = (!strncmp(n, "user.", 5) && strncmp(n, "user.stainless.", 15)) ||
			  !strcmp(n, "system.posix_acl_access") ||
			  !strcmp(n, "system.posix_acl_default");
		ck_assert_msg(ok, "LISTXATTR lists %s", n);
	}
}

static bool host_has(const char *file, const char *name)
{
	return lgetxattr(tf_path(file), name, NULL, 0) >= 0;
}

/* Host-side presets of every namespace; security.selinux only where no LSM claims it. */
static bool preset_xattrs(const char *file)
{
	static const uint8_t caps[20] = { 0, 0, 0, 2 };  /* VFS_CAP_REVISION_2, no bits */

	tf_write_host(file, "x");
	ck_assert_int_eq(lsetxattr(tf_path(file), "user.ok", "hostval", 7, 0), 0);
	ck_assert_int_eq(lsetxattr(tf_path(file), "user.stainless.x", "hidden-reserved", 15, 0), 0);
	ck_assert_int_eq(lsetxattr(tf_path(file), "trusted.overlay.opaque", "hidden-trusted", 14, 0),
			 0);
	lsetxattr(tf_path(file), "security.capability", caps, sizeof(caps), 0);
	return lsetxattr(tf_path(file), "security.selinux", "hidden-security", 15, 0) == 0;
}

START_TEST(xattr_set_other_namespaces)
{
	static const char *const refused[] = { "security.capability", "security.selinux",
					       "trusted.overlay.opaque", "system.foo",
					       "other.name" };
	char buf[256];

	tf_write_host("x", "x");
	uint64_t x = tf_nodeid(FUSE_ROOT_ID, "x");
	ck_assert_int_eq(hsetxattr(x, "user.ok", "v1", 2), 0);
	ck_assert_int_eq(lgetxattr(tf_path("x"), "user.ok", buf, sizeof(buf)), 2);
	for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		int r = hsetxattr(x, refused[i], "planted", 7);
		ck_assert_msg(!host_has("x", refused[i]), "%s planted on the host", refused[i]);
		ck_assert_msg(r == -EOPNOTSUPP, "SETXATTR %s answered %d", refused[i], r);
	}
	still_serving();
}
END_TEST

START_TEST(xattr_set_reserved_prefix)
{
	tf_write_host("x", "x");
	uint64_t x = tf_nodeid(FUSE_ROOT_ID, "x");
	int r = hsetxattr(x, "user.stainless.x", "planted", 7);
	ck_assert(!host_has("x", "user.stainless.x"));
	ck_assert_int_eq(r, -EPERM);
	r = hsetxattr(x, "user.stainless.security.capability", "planted", 7);
	ck_assert(!host_has("x", "user.stainless.security.capability"));
	ck_assert_int_eq(r, -EPERM);
	still_serving();
}
END_TEST

START_TEST(xattr_remove_other_namespaces)
{
	static const char *const refused[] = { "trusted.overlay.opaque", "security.selinux",
					       "security.capability", "system.foo" };
	bool sec = preset_xattrs("x");
	uint64_t x = tf_nodeid(FUSE_ROOT_ID, "x");

	for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		int r = hreq(FUSE_REMOVEXATTR, x, NULL, 0, refused[i], NULL, NULL, 0);
		ck_assert_msg(r == -EOPNOTSUPP, "REMOVEXATTR %s answered %d", refused[i], r);
	}
	ck_assert(host_has("x", "trusted.overlay.opaque"));
	if (sec)
		ck_assert(host_has("x", "security.selinux"));
	ck_assert_int_eq(hreq(FUSE_REMOVEXATTR, x, NULL, 0, "user.ok", NULL, NULL, 0), 0);
	ck_assert(!host_has("x", "user.ok"));
	still_serving();
}
END_TEST

START_TEST(xattr_remove_reserved_prefix)
{
	preset_xattrs("x");
	uint64_t x = tf_nodeid(FUSE_ROOT_ID, "x");
	ck_assert_int_eq(hreq(FUSE_REMOVEXATTR, x, NULL, 0, "user.stainless.x", NULL, NULL, 0),
			 -EPERM);
	ck_assert(host_has("x", "user.stainless.x"));
	still_serving();
}
END_TEST

START_TEST(xattr_get_hidden)
{
	static const char *const hidden[] = { "security.capability", "security.selinux",
					      "trusted.overlay.opaque", "user.stainless.x",
					      "system.foo" };
	char buf[1024];

	preset_xattrs("x");
	uint64_t x = tf_nodeid(FUSE_ROOT_ID, "x");
	ck_assert_int_eq(hgetxattr(x, "user.ok", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "hostval");
	for (unsigned i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++) {
		int r = hgetxattr(x, hidden[i], buf, sizeof(buf));
		ck_assert_msg(r == -ENODATA, "GETXATTR %s answered %d", hidden[i], r);
	}
	still_serving();
}
END_TEST

START_TEST(xattr_list_hidden)
{
	char buf[1024];

	preset_xattrs("x");
	uint64_t x = tf_nodeid(FUSE_ROOT_ID, "x");
	size_t len = hlistxattr(x, buf, sizeof(buf));
	ck_assert(listed(buf, len, "user.ok"));
	list_clean(buf, len);
	still_serving();
}
END_TEST

/*
 * xattr=map: security.X and trusted.X live on the host as
 * user.stainless.security.X / user.stainless.trusted.X and come back under
 * their own names; the host's real security.* and trusted.* stay unseen.
 */
static void start_mapped(void)
{
	struct fs_options o;

	fs_options_default(&o);
	o.xattr = true;
	o.xattr_map = true;
	tf_start(&o, NULL, true);
}

static bool host_is(const char *file, const char *name, const char *value)
{
	char buf[256];
	ssize_t n = lgetxattr(tf_path(file), name, buf, sizeof(buf));

	return n == (ssize_t)strlen(value) && !memcmp(buf, value, (size_t)n);
}

START_TEST(xattr_map_stores_under_reserved_prefix)
{
	char buf[1024];

	start_mapped();
	tf_write_host("m", "x");
	uint64_t m = tf_nodeid(FUSE_ROOT_ID, "m");
	ck_assert_int_eq(hsetxattr(m, "trusted.overlay.opaque", "y", 1), 0);
	ck_assert(host_is("m", "user.stainless.trusted.overlay.opaque", "y"));
	ck_assert(!host_has("m", "trusted.overlay.opaque"));
	ck_assert_int_eq(hsetxattr(m, "security.selinux", "label", 5), 0);
	ck_assert(host_is("m", "user.stainless.security.selinux", "label"));
	ck_assert(!host_is("m", "security.selinux", "label"));
	ck_assert_int_eq(hgetxattr(m, "trusted.overlay.opaque", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "y");
	ck_assert_int_eq(hgetxattr(m, "security.selinux", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "label");
	size_t len = hlistxattr(m, buf, sizeof(buf));
	ck_assert(listed(buf, len, "trusted.overlay.opaque"));
	ck_assert(listed(buf, len, "security.selinux"));
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		ck_assert_msg(strncmp(buf + i, "user.stainless.", 15), "lists %s", buf + i);
	ck_assert_int_eq(hreq(FUSE_REMOVEXATTR, m, NULL, 0, "trusted.overlay.opaque", NULL, NULL, 0),
			 0);
	ck_assert(!host_has("m", "user.stainless.trusted.overlay.opaque"));
	still_serving();
}
END_TEST

START_TEST(xattr_map_hides_the_hosts_own)
{
	char buf[1024];

	start_mapped();
	preset_xattrs("x");
	uint64_t x = tf_nodeid(FUSE_ROOT_ID, "x");
	/* The host's real trusted.overlay.opaque is not the client's. */
	ck_assert_int_eq(hgetxattr(x, "trusted.overlay.opaque", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_ne(hreq(FUSE_REMOVEXATTR, x, NULL, 0, "trusted.overlay.opaque", NULL, NULL, 0),
			 0);
	ck_assert(host_has("x", "trusted.overlay.opaque"));
	size_t len = hlistxattr(x, buf, sizeof(buf));
	ck_assert(!listed(buf, len, "trusted.overlay.opaque"));
	ck_assert(!listed(buf, len, "security.capability"));
	ck_assert(listed(buf, len, "user.ok"));
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		ck_assert_msg(strncmp(buf + i, "user.stainless.", 15), "lists %s", buf + i);
	/* What the host stored under the prefix is the client's trusted.* */
	ck_assert_int_eq(lsetxattr(tf_path("x"), "user.stainless.trusted.overlay.opaque", "z", 1, 0),
			 0);
	ck_assert_int_eq(hgetxattr(x, "trusted.overlay.opaque", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "z");
	/* The prefix itself stays reserved; other namespaces stay refused. */
	ck_assert_int_eq(hgetxattr(x, "user.stainless.x", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(hsetxattr(x, "user.stainless.trusted.overlay.opaque", "w", 1), -EPERM);
	ck_assert(host_is("x", "user.stainless.trusted.overlay.opaque", "z"));
	ck_assert_int_eq(hsetxattr(x, "system.foo", "w", 1), -EOPNOTSUPP);
	still_serving();
}
END_TEST

/* POSIX ACLs pass: the host checks them against the caller's credentials. */
START_TEST(xattr_posix_acl_passes)
{
	/* version 2; USER_OBJ rw, USER 1000 r, GROUP_OBJ r, MASK r, OTHER r */
	static const uint8_t acl[] = {
		2, 0, 0, 0,
		0x01, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
		0x02, 0, 4, 0, 0xe8, 0x03, 0, 0,
		0x04, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
		0x10, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
		0x20, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
	};
	char buf[256];

	tf_write_host("probe", "x");
	if (lsetxattr(tf_path("probe"), "system.posix_acl_access", acl, sizeof(acl), 0) < 0)
		UNIT_SKIP("no POSIX ACLs on this filesystem: nothing to pass through");
	tf_write_host("a", "x");
	uint64_t a = tf_nodeid(FUSE_ROOT_ID, "a");
	ck_assert_int_eq(hsetxattr(a, "system.posix_acl_access", acl, sizeof(acl)), 0);
	ck_assert_int_eq(lgetxattr(tf_path("a"), "system.posix_acl_access", buf, sizeof(buf)),
			 (ssize_t)sizeof(acl));
	ck_assert_int_eq(hgetxattr(a, "system.posix_acl_access", buf, sizeof(buf)), 0);
	ck_assert_uint_eq(tf_payload(), sizeof(acl));
	ck_assert_int_eq(memcmp(buf, acl, sizeof(acl)), 0);
	size_t len = hlistxattr(a, buf, sizeof(buf));
	ck_assert(listed(buf, len, "system.posix_acl_access"));
}
END_TEST

START_TEST(symlinks_out_are_text)
{
	static const char *const links[] = { "ln", "sec", "rel", "up" };
	char buf[512];

	for (unsigned i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		uint64_t n = tf_nodeid(FUSE_ROOT_ID, links[i]);
		ck_assert_int_eq(hcreate(FUSE_ROOT_ID, links[i], O_RDWR), -ELOOP);
		ck_assert_int_eq(hcreate(FUSE_ROOT_ID, links[i], O_WRONLY | O_TRUNC), -ELOOP);
		ck_assert_int_eq(hsyncfs(n), -ELOOP);
		refused_truncate(htruncate(n), -ELOOP);
	}
	/* READLINK gives the link's text and nothing else. */
	uint64_t ln = tf_nodeid(FUSE_ROOT_ID, "ln");
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(hreq(FUSE_READLINK, ln, NULL, 0, NULL, NULL, buf, sizeof(buf)), 0);
	ck_assert_uint_eq(tf_payload(), strlen("/etc/passwd"));
	ck_assert_str_eq(buf, "/etc/passwd");
	uint64_t sec = tf_nodeid(FUSE_ROOT_ID, "sec");
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(hreq(FUSE_READLINK, sec, NULL, 0, NULL, NULL, buf, sizeof(buf)), 0);
	ck_assert_uint_eq(tf_payload(), strlen(spath));
	ck_assert_str_eq(buf, spath);
	secret_untouched();
	still_serving();
}
END_TEST

/* OPEN of a symlink's own nodeid: ELOOP, as the servers never follow one. */
START_TEST(open_symlink_nodeid)
{
	static const char *const links[] = { "ln", "sec", "rel", "up" };

	for (unsigned i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		uint64_t n = tf_nodeid(FUSE_ROOT_ID, links[i]);
		int r = hopen(n, O_RDONLY);
		ck_assert_msg(r == -ELOOP, "OPEN of symlink %s answered %d", links[i], r);
		r = hopen(n, O_WRONLY | O_TRUNC);
		ck_assert_msg(r == -ELOOP, "OPEN O_TRUNC of symlink %s answered %d", links[i], r);
	}
	secret_untouched();
	still_serving();
}
END_TEST

/* A symlink to "/" used as a directory: nothing is found or made through it. */
START_TEST(symlink_to_root_is_no_directory)
{
	struct fuse_entry_out e;
	struct fuse_mkdir_in md = { .mode = 0755 };
	struct fuse_mknod_in mk = { .mode = S_IFREG | 0644 };
	uint64_t up = tf_nodeid(FUSE_ROOT_ID, "up");
	char name[300];

	ck_assert_int_ne(tf_lookup(up, "etc", &e), 0);
	no_leak();
	ck_assert_int_ne(hcreate(up, "pwned-by-fuse", O_RDWR), 0);
	ck_assert_int_ne(hreq(FUSE_MKDIR, up, &md, sizeof(md), "pwned-by-fuse-dir", NULL, NULL, 0), 0);
	ck_assert_int_ne(hreq(FUSE_MKNOD, up, &mk, sizeof(mk), "pwned-by-fuse-node", NULL, NULL, 0), 0);
	ck_assert_int_ne(hreq(FUSE_SYMLINK, up, NULL, 0, "pwned-by-fuse-ln", "x", NULL, 0), 0);
	ck_assert_int_eq(access("/pwned-by-fuse", F_OK), -1);
	ck_assert_int_eq(access("/pwned-by-fuse-dir", F_OK), -1);
	ck_assert_int_eq(access("/pwned-by-fuse-node", F_OK), -1);
	ck_assert_int_eq(access("/pwned-by-fuse-ln", F_OK), -1);
	/* ".." and names with a slash are no way out either. */
	ck_assert_int_ne(tf_lookup(FUSE_ROOT_ID, "..", &e), 0);
	snprintf(name, sizeof(name), "../%s", strrchr(sdir, '/') + 1);
	ck_assert_int_ne(tf_lookup(FUSE_ROOT_ID, name, &e), 0);
	ck_assert_int_ne(tf_lookup(FUSE_ROOT_ID, "../etc", &e), 0);
	no_leak();
	secret_untouched();
	still_serving();
}
END_TEST

/*
 * Rule 5: with far fewer fds than names, every LOOKUP still succeeds (the
 * server keeps file handles and evicts fds), and an early inode still
 * opens and reads.
 */
START_TEST(lookups_never_fail_for_fds)
{
	struct rlimit rl;
	char name[32];
	uint64_t first = 0;

	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "f%04d", i);
		tf_write_host(name, "hello\n");
	}
	/* Fork mode: the lower limit ends with this test's process. */
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = 128;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	fs_fd_set_limit(fs_fd_limit_for(128));
	for (int i = 0; i < 1000; i++) {
		struct fuse_entry_out e;
		snprintf(name, sizeof(name), "f%04d", i);
		int r = tf_lookup(FUSE_ROOT_ID, name, &e);
		ck_assert_msg(r == 0, "LOOKUP %s (#%d) answered %d", name, i, r);
		if (!i)
			first = e.nodeid;
	}
	uint64_t fh;
	char buf[16] = { 0 };
	ck_assert_int_eq(tf_getattr(first, NULL), 0);
	ck_assert_int_eq(tf_open(first, O_RDONLY, &fh), 0);
	ck_assert_int_eq(tf_read(fh, 0, buf, sizeof(buf)), 6);
	ck_assert_str_eq(buf, "hello\n");
	ck_assert_int_eq(tf_release(fh, FUSE_RELEASE), 0);
	still_serving();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuse_hostile");
	TCase *tc = tcase_create("hostile");

	tcase_add_unchecked_fixture(tc, base_make, base_remove);
	tcase_add_checked_fixture(tc, hsetup, hteardown);
	/* A server blocked in open(2) of a FIFO is a failure, not a stall. */
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, create_existing_device_or_fifo);
	tcase_add_test(tc, open_device_or_fifo_nodeid);
	tcase_add_test(tc, syncfs_and_truncate_never_open);
	tcase_add_test(tc, mknod_devices_refused);
	tcase_add_test(tc, xattr_set_other_namespaces);
	tcase_add_test(tc, xattr_set_reserved_prefix);
	tcase_add_test(tc, xattr_remove_other_namespaces);
	tcase_add_test(tc, xattr_remove_reserved_prefix);
	tcase_add_test(tc, xattr_get_hidden);
	tcase_add_test(tc, xattr_list_hidden);
	tcase_add_test(tc, xattr_posix_acl_passes);
	tcase_add_test(tc, xattr_map_stores_under_reserved_prefix);
	tcase_add_test(tc, xattr_map_hides_the_hosts_own);
	tcase_add_test(tc, symlinks_out_are_text);
	tcase_add_test(tc, open_symlink_nodeid);
	tcase_add_test(tc, symlink_to_root_is_no_directory);
	tcase_add_test(tc, lookups_never_fail_for_fds);
	suite_add_tcase(s, tc);
	/* Serving threads keep CAP_MKNOD only in a process with such a share. */
	tc = tcase_create("devices_share");
	tcase_add_unchecked_fixture(tc, base_make, base_remove);
	tcase_add_checked_fixture(tc, devices_on, NULL);
	tcase_add_checked_fixture(tc, hsetup, hteardown);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, mknod_with_devices_still_never_opens);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
