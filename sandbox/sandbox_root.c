// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sandbox's root (see sandbox.h): in namespace mode a tmpfs holding
 * the shares and device nodes at their own paths and a pid-only /proc,
 * pivoted to; in chroot mode the one share itself.
 *
 * Each share is first cloned as a detached mount tree (open_tree), with
 * nodev and nosuid set on the whole tree (mount_setattr), before anything
 * is mounted: the staging tmpfs may then cover the place a share lives
 * (/tmp) without hiding it. The servers reopen files through /proc/self/fd
 * (fs_reopen), so /proc stays, but as `subset=pid`: no /proc/sys, no
 * sysrq-trigger, nothing a root process could write to the kernel through.
 * Its fd is opened once the new root is in place (fs_proc_self_fd), from
 * that /proc: an fd of the host's /proc would lead back to all of it
 * through "..".
 */
#include "sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/fail.h"
#include "fs/resolve.h"
#include "sandbox/sandbox_int.h"

/* Where the new root is put together: any directory, covered only here. */
static const char *const staging[] = { "/tmp", "/mnt", "/run" };

static int bind_tree(const struct sandbox_bind *b)
{
	unsigned flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (b->file ? 0 : AT_RECURSIVE);
	struct mount_attr attr = {
		/* A device node keeps dev (it is one); nothing here runs programs. */
		.attr_set = MOUNT_ATTR_NOSUID | (b->device ? MOUNT_ATTR_NOEXEC : MOUNT_ATTR_NODEV) |
			    (b->readonly ? MOUNT_ATTR_RDONLY : 0),
	};
	int fd = open_tree(AT_FDCWD, b->path, flags);

	if (fd < 0)
		return -errno;
	if (mount_setattr(fd, "", AT_EMPTY_PATH | (b->file ? 0 : AT_RECURSIVE),
			  &attr, sizeof(attr)) < 0) {
		int r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

/* mkdir -p of path beneath root (an absolute path, already canonical). */
static int make_dirs(const char *root, const char *path, bool last_is_file)
{
	char buf[PATH_MAX];
	size_t rl = strlen(root);

	if (rl + strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, root, rl);
	strcpy(buf + rl, path);
	for (char *p = buf + rl + 1; ; p++) {
		bool end = *p == 0;
		if (*p != '/' && !end)
			continue;
		*p = 0;
		if (end && last_is_file) {
			int fd = open(buf, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
			if (fd < 0)
				return -errno;
			close(fd);
		} else if (mkdir(buf, 0755) < 0 && errno != EEXIST) {
			return -errno;
		}
		if (end)
			return 0;
		*p = '/';
	}
}

/* Outer shares before the shares inside them. */
static int by_length(const void *a, const void *b)
{
	size_t la = strlen(((const struct sandbox_bind *)a)->path);
	size_t lb = strlen(((const struct sandbox_bind *)b)->path);

	return la < lb ? -1 : la > lb;
}

static int place_binds(struct sandbox *sb, const char *root, const int *fds)
{
	char target[PATH_MAX];
	int r;

	for (unsigned i = 0; i < sb->nbinds; i++) {
		const struct sandbox_bind *b = &sb->binds[i];

		if (strcmp(b->path, "/") == 0)
			return fail(-EINVAL, "sandbox: sharing / itself: use --sandbox none");
		r = make_dirs(root, b->path, b->file);
		snprintf(target, sizeof(target), "%s%s", root, b->path);
		if (r == 0 && move_mount(fds[i], "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) < 0)
			r = -errno;
		if (r < 0)
			return fail(r, "sandbox: cannot place %s in the new root: %s", b->path,
					    strerror(-r));
	}
	return 0;
}

/* /proc of the new pid namespace, pids only; false where that is refused. */
static bool mount_proc(const char *root)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/proc", root);
	if (mkdir(p, 0555) < 0)
		return false;
	return mount("proc", p, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
		     "subset=pid") == 0;
}

/*
 * Where the root is the initramfs (rootfs, a VM's or a container's only
 * file system), pivot_root refuses (EINVAL): rootfs cannot be unmounted.
 * Then the new root is moved over "/" and chrooted into, as switch_root
 * does; the old root stays underneath but out of reach, as the process
 * keeps no CAP_SYS_CHROOT or CAP_SYS_ADMIN to climb back.
 */
static int move_root(struct sandbox *sb)
{
	if (mount(".", "/", NULL, MS_MOVE, NULL) < 0 || chroot(".") < 0 || chdir("/") < 0)
		return fail(-errno, "sandbox: cannot move the new root over an initramfs: %s",
				    strerror(errno));
	return 0;
}

static int pivot(struct sandbox *sb, const char *root)
{
	if (chdir(root) < 0)
		return fail(-errno, "sandbox: %s: %s", root, strerror(errno));
	if (syscall(SYS_pivot_root, ".", ".") < 0) {
		if (errno != EINVAL)
			return fail(-errno, "sandbox: pivot_root: %s", strerror(errno));
		int r = move_root(sb);

		if (r < 0)
			return r;
	} else if (umount2(".", MNT_DETACH) < 0 || chdir("/") < 0) {
		/* The old root sat on top of the new one: detached with all below. */
		return fail(-errno, "sandbox: cannot detach the old root: %s", strerror(errno));
	}
	/* Nobody makes files in the root itself; the shares keep their own mode. */
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV |
		  MS_NOEXEC, NULL) < 0)
		return fail(-errno, "sandbox: cannot make the root read-only: %s",
				    strerror(errno));
	return 0;
}

static const char *pick_staging(void)
{
	struct stat st;

	for (size_t i = 0; i < sizeof(staging) / sizeof(staging[0]); i++)
		if (stat(staging[i], &st) == 0 && S_ISDIR(st.st_mode))
			return staging[i];
	return NULL;
}

int sandbox_build_root(struct sandbox *sb)
{
	int fds[SANDBOX_SHARES_MAX + SANDBOX_DEVS_MAX];
	const char *root = pick_staging();
	unsigned n = 0;
	bool proc;
	int r = 0;

	if (!root)
		return fail(-ENOENT, "sandbox: no /tmp, /mnt or /run to build the root in");
	qsort(sb->binds, sb->nbinds, sizeof(sb->binds[0]), by_length);
	for (; n < sb->nbinds; n++) {
		fds[n] = bind_tree(&sb->binds[n]);
		if (fds[n] < 0) {
			r = fail(fds[n], "sandbox: cannot bind %s: %s", sb->binds[n].path,
					 strerror(-fds[n]));
			goto out;
		}
	}
	if (mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "mode=0755,size=1m,nr_inodes=4096") < 0) {
		r = fail(-errno, "sandbox: cannot mount the root tmpfs: %s%s", strerror(errno),
				 sb->userns && errno == EPERM ?
				 " (does an LSM restrict unprivileged user namespaces? see "
				 "kernel.apparmor_restrict_unprivileged_userns)" : "");
		goto out;
	}
	if ((r = place_binds(sb, root, fds)) < 0)
		goto out;
	proc = mount_proc(root);
	/* Without our own /proc, the host's, opened while it is still there. */
	if (!proc && (r = fs_proc_self_fd()) < 0) {
		r = fail(r, "sandbox: /proc/self/fd: %s", strerror(-r));
		goto out;
	}
	if ((r = pivot(sb, root)) < 0)
		goto out;
	if (proc && (r = fs_proc_self_fd()) < 0)
		r = fail(r, "sandbox: /proc/self/fd in the new root: %s", strerror(-r));
out:
	while (n--)
		close(fds[n]);
	return r < 0 ? r : 0;
}

int sandbox_chroot(struct sandbox *sb)
{
	int r = fs_proc_self_fd(); /* before /proc is out of reach */

	if (r < 0)
		return fail(r, "sandbox: /proc/self/fd: %s", strerror(-r));
	for (unsigned i = 0; i < sb->nbinds; i++) {
		if (sb->binds[i].file)
			continue; /* out of reach in chroot mode */
		if (chroot(sb->binds[i].path) < 0 || chdir("/") < 0)
			return fail(-errno, "sandbox: chroot %s: %s", sb->binds[i].path,
					    strerror(errno));
	}
	return 0;
}
