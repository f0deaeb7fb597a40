// SPDX-License-Identifier: GPL-2.0-only
/* fuse-mount's mount point (see fuse_mountpoint.h). */
#include "transport/fuse_mountpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fail.h"
#include "base/fds.h"
#include "fs/fs_log.h"

#define FUSERMOUNT "fusermount3"

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] && s[3]) {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

/* One mountinfo line: the device of a mount at path, 0 if not fuse.stainless. */
static void match_line(char *line, const char *path, dev_t *dev)
{
	const char *sep = strstr(line, " - ");
	char mp[4096], type[64];
	unsigned maj, min;

	if (!sep || sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min, mp) != 3 ||
	    sscanf(sep + 3, "%63s", type) != 1)
		return;
	unescape(mp);
	if (strcmp(mp, path) == 0)
		*dev = strcmp(type, "fuse.stainless") == 0 ? makedev(maj, min) : 0;
}

/*
 * The device of the topmost fuse.stainless mount at mp->real, 0 if none.
 * From mountinfo, not stat(): stat of a FUSE mount asks its server, which
 * may be the one that hangs. Read with pread from offset 0, which makes
 * the kernel list the mounts afresh.
 */
static dev_t mounted_dev(const struct fuse_mountpoint *mp)
{
	char buf[8192], line[4096 + 256];
	size_t used = 0;
	off_t off = 0;
	dev_t dev = 0;
	ssize_t n;

	while (mp->info_fd >= 0 && (n = pread(mp->info_fd, buf, sizeof(buf), off)) > 0) {
		off += n;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (used < sizeof(line) - 1)
					line[used++] = buf[i];
				continue;
			}
			line[used] = 0;
			used = 0;
			match_line(line, mp->real, &dev);
		}
	}
	return dev;
}

static bool others_allowed(void)
{
	FILE *f = fopen("/etc/fuse.conf", "re");
	char line[256];
	bool yes = false;

	while (f && fgets(line, sizeof(line), f))
		yes |= strncmp(line, "user_allow_other", 16) == 0;
	if (f)
		fclose(f);
	return yes;
}

/* fusermount3's fd, sent with SCM_RIGHTS over the _FUSE_COMMFD socket. */
static int receive_fd(int sock)
{
	char byte, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;
	ssize_t n;
	int fd;

	do {
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	c = n > 0 ? CMSG_FIRSTHDR(&m) : NULL;
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
		return -EIO;
	memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	return fd;
}

/*
 * What fusermount3 needs of its caller, checked first so that the one line
 * says what is missing: fusermount3 opens /dev/fuse with the caller's
 * fsuid (its mode is how an administrator grants FUSE; Debian's udev
 * makes it 0666, containers often leave it 0600 root), and it is setuid,
 * which no_new_privs (systemd's NoNewPrivileges=, some container
 * runtimes) takes away. 0, or -errno after printing why.
 */
static int helper_precheck(const char *path)
{
	struct stat st;

	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1) {
		fail(0, "mount %s without root needs the setuid "
			FUSERMOUNT ", and this process runs with no_new_privs, which takes setuid "
			"away: mount as root, or start it without no_new_privs", path);
		return -EPERM;
	}
	if (access("/dev/fuse", R_OK | W_OK) < 0 && errno == EACCES) {
		bool have = stat("/dev/fuse", &st) == 0;
		fail(0, "mount %s without root: " FUSERMOUNT
			" opens /dev/fuse as you, and it is mode %04o uid %u here (Debian's udev "
			"makes it 0666; a container's default is 0600 root): mount as root, or "
			"make /dev/fuse 0666", path, have ? (unsigned)(st.st_mode & 07777) : 0u,
			have ? (unsigned)st.st_uid : 0u);
		return -EACCES;
	}
	return 0;
}

static int helper_mount(const char *path, unsigned max_read, const struct fuse_mount_args *ma)
{
	char opts[512], env[32];
	int sv[2], fd, st;
	pid_t pid;

	if (fuse_mount_args_words(ma, true, max_read, opts, sizeof(opts)) < 0)
		return -ENAMETOOLONG;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid = fork();
	if (pid == 0) {
		/* The helper's end must survive the exec. */
		fcntl(sv[1], F_SETFD, 0);
		snprintf(env, sizeof(env), "%d", sv[1]);
		setenv("_FUSE_COMMFD", env, 1);
		execlp(FUSERMOUNT, FUSERMOUNT, "-o", opts, "--", path, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	fd = pid < 0 ? -errno : receive_fd(sv[0]);
	close(sv[0]);
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 127)
		fd = fd >= 0 ? fd : -ENOENT;
	return fd;
}

/*
 * The unmounter's work: fusermount3 -u -z, waited for (done stays ours, not
 * its), only while the topmost mount at the path is still ours: by name it
 * would take down whatever is there, and a new mount made on the same mount
 * point since ours went (or over ours) is someone else's. Our device cannot
 * have passed to a new mount while ours stands; the window left is the few
 * milliseconds between this check and fusermount3's own.
 */
static void unmount_and_wait(struct fuse_mountpoint *mp)
{
	pid_t pid;
	int st;

	mp->info_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (!mp->dev || mounted_dev(mp) != mp->dev)
		return;
	pid = fork();
	if (pid == 0) {
		close_range(3, ~0u, 0);
		execlp(FUSERMOUNT, FUSERMOUNT, "-u", "-z", "-q", "--", mp->real, (char *)NULL);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

/*
 * The unmounter (without root): forked once the mount is made, it waits
 * for its pipe to close, by fuse_mountpoint_close() or the death of
 * whoever holds the other end, then runs `fusermount3 -u -z` and waits for
 * it; a byte on the pipe first (fuse_mountpoint_gone()) says the mount has
 * gone already, and nothing is unmounted. It is the one process of ours without a seccomp filter, and must be:
 * fusermount3 is setuid, and a filter (which needs no_new_privs without
 * root) would take its root away. It holds nothing but its two pipes, and
 * runs nothing of ours but read, fork, exec and wait. (fusermount3's own
 * auto_unmount would not do: Debian's 3.14 checks the dead mount as root,
 * which a mount without allow_other refuses, and so leaves it.)
 *
 * Its second pipe closes when it exits, once fusermount3 has: the
 * supervisor waits for that, so the mount is gone from the host when the
 * command returns and a new mount at once on the same mount point does not
 * land under the old one (a fixed wait for the mount table would lose that
 * race on a loaded machine, where starting fusermount3 takes seconds).
 * 0 with *stop (closing it starts the unmount) and *done (EOF: finished),
 * or -errno.
 */
static int start_unmounter(struct fuse_mountpoint *mp)
{
	int p[2], d[2];
	pid_t pid;
	ssize_t n;
	char c;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(d, O_CLOEXEC) < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	pid = fork();
	if (pid == 0) {
		/* A Ctrl-C reaches the whole process group: it must outlive it. */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		fds_keep_two(p[0], d[1]);
		while ((n = read(p[0], &c, 1)) < 0 && errno == EINTR)
			;
		close(p[0]);
		if (n != 1)
			unmount_and_wait(mp);
		_exit(0); /* closes d[1]: the supervisor's word that it is done */
	}
	close(p[0]);
	close(d[1]);
	if (pid < 0) {
		close(p[1]);
		close(d[0]);
		return -errno;
	}
	mp->unmount_fd = p[1];
	mp->unmounted_fd = d[0];
	return 0;
}

/* The connection's abort file (fusectl), opened while the mount is made. */
static int open_abort(dev_t dev)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%u/abort", minor(dev));
	return open(path, O_WRONLY | O_CLOEXEC);
}

/* Without root: fusermount3 mounts, the unmounter takes it down. fd or -errno. */
static int mount_by_helper(struct fuse_mountpoint *mp, unsigned max_read,
			   const struct fuse_mount_args *ma)
{
	int fd = helper_precheck(mp->path), r;

	if (fd < 0)
		return fd;
	if (ma->allow_other && !others_allowed()) {
		return fail(-EPERM, "-o allow_other without root needs "
			    "user_allow_other in /etc/fuse.conf");
	}
	fd = helper_mount(mp->path, max_read, ma);
	if (fd < 0) {
		fail(0, "mount %s without root needs "
			FUSERMOUNT " (Debian package fuse3)%s", mp->path,
			fd == -ENOENT ? ", which is not installed" : ", which refused it");
		return fd;
	}
	mp->by_helper = true;
	mp->dev = mounted_dev(mp);
	r = start_unmounter(mp);
	if (r < 0)
		fail(0, "cannot start the unmounter: %s; "
			"the mount will stay (fusermount3 -u %s)", strerror(-r), mp->path);
	return fd;
}

/* As root: mount(2) on our own /dev/fuse fd. fd or -errno. */
static int mount_direct(struct fuse_mountpoint *mp, unsigned max_read,
			const struct fuse_mount_args *ma)
{
	char opts[512], words[384];
	int fd, r;

	if (fuse_mount_args_words(ma, false, max_read, words, sizeof(words)) < 0)
		return -ENAMETOOLONG;
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		fail(0, "/dev/fuse: %s", strerror(errno));
		return r;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=%u,group_id=%u,%s", fd,
		 getuid(), getgid(), words);
	if (mount(ma->fsname, mp->path, "fuse.stainless", ma->msflags, opts) < 0) {
		r = -errno;
		fail(0, "mount %s: %s", mp->path, strerror(errno));
		close(fd);
		return r;
	}
	return fd;
}

int fuse_mountpoint_open_args(struct fuse_mountpoint *mp, const char *path, unsigned max_read,
			      const struct fuse_mount_args *ma)
{
	int fd;

	*mp = (struct fuse_mountpoint){ .path = path, .info_fd = -1, .abort_fd = -1,
					.unmount_fd = -1, .unmounted_fd = -1 };
	if (!realpath(path, mp->real))
		snprintf(mp->real, sizeof(mp->real), "%s", path);
	mp->info_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	fd = geteuid() != 0 ? mount_by_helper(mp, max_read, ma) : mount_direct(mp, max_read, ma);
	if (fd < 0) {
		if (mp->info_fd >= 0)
			close(mp->info_fd);
		return fd;
	}
	/* Blocking reads: each reader sleeps in read(2) until a request comes. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	mp->dev = mounted_dev(mp);
	if (!mp->by_helper && mp->dev)
		mp->abort_fd = open_abort(mp->dev);
	return fd;
}

/* Without root: the unmounter's pipe closed, and its exit waited for (EOF). */
static void unmounter_finish(struct fuse_mountpoint *mp)
{
	char c;

	if (mp->unmount_fd >= 0)
		close(mp->unmount_fd);
	mp->unmount_fd = -1;
	while (mp->unmounted_fd >= 0 && read(mp->unmounted_fd, &c, 1) < 0 && errno == EINTR)
		;
	if (mp->unmounted_fd >= 0)
		close(mp->unmounted_fd);
	mp->unmounted_fd = -1;
}

int fuse_mountpoint_close(struct fuse_mountpoint *mp)
{
	dev_t dev;

	if (mp->by_helper) {
		/* The unmounter takes it down (lazily). */
		unmounter_finish(mp);
		return mounted_dev(mp) == mp->dev && mp->dev ? -EBUSY : 0;
	}
	dev = mounted_dev(mp);
	if (!dev || (mp->dev && dev != mp->dev))
		return 0;
	/* After a lazy unmount, abort the connection so busy files cannot hold us. */
	if (umount2(mp->real, 0) == 0)
		return 0;
	if (umount2(mp->real, MNT_DETACH) < 0)
		return -errno;
	if (mp->abort_fd >= 0)
		(void)!write(mp->abort_fd, "1", 1);
	return 0;
}

void fuse_mountpoint_gone(struct fuse_mountpoint *mp)
{
	if (mp->by_helper && mp->unmount_fd >= 0)
		(void)!write(mp->unmount_fd, "g", 1);
	unmounter_finish(mp);
}
