// SPDX-License-Identifier: GPL-2.0-only
/* fuse-mount's mount point (see fuse_mountpoint.h). */
#include "transport/fuse_mountpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

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

/*
 * The device of the topmost fuse.stainless mount at path, 0 if none.
 * From mountinfo, not stat(): stat of a FUSE mount asks its server, which
 * may be the one that hangs.
 */
static dev_t mounted_dev(const char *path)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096 + 256], mp[4096], type[64];
	unsigned maj, min;
	dev_t dev = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");
		if (!sep || sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min, mp) != 3 ||
		    sscanf(sep + 3, "%63s", type) != 1)
			continue;
		unescape(mp);
		if (strcmp(mp, path) == 0)
			dev = strcmp(type, "fuse.stainless") == 0 ? makedev(maj, min) : 0;
	}
	fclose(f);
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

static int helper_mount(const char *path, unsigned max_read)
{
	char opts[160], env[32];
	int sv[2], fd, st;
	pid_t pid;

	snprintf(opts, sizeof(opts), "fsname=stainless,subtype=stainless,default_permissions,"
		 "max_read=%u%s", max_read, others_allowed() ? ",allow_other" : "");
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

int fuse_mountpoint_open(struct fuse_mountpoint *mp, const char *path, unsigned max_read)
{
	char opts[256];
	int fd;

	*mp = (struct fuse_mountpoint){ .path = path };
	if (!realpath(path, mp->real))
		snprintf(mp->real, sizeof(mp->real), "%s", path);
	if (geteuid() != 0) {
		fd = helper_mount(path, max_read);
		if (fd < 0) {
			fprintf(stderr, "stainless: fuse-mount: mount %s without root needs "
				FUSERMOUNT " (Debian package fuse3)%s\n", path,
				fd == -ENOENT ? ", which is not installed" : ", which refused it");
			return fd;
		}
		mp->by_helper = true;
	} else {
		fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "stainless: fuse-mount: /dev/fuse: %s\n", strerror(errno));
			return -errno;
		}
		snprintf(opts, sizeof(opts),
			 "fd=%d,rootmode=40000,user_id=%u,group_id=%u,allow_other,"
			 "default_permissions,max_read=%u", fd, getuid(), getgid(), max_read);
		if (mount("stainless", path, "fuse.stainless", MS_NOSUID | MS_NODEV, opts) < 0) {
			int r = -errno;
			fprintf(stderr, "stainless: fuse-mount: mount %s: %s\n", path, strerror(errno));
			close(fd);
			return r;
		}
	}
	/* Blocking reads: each reader sleeps in read(2) until a request comes. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	mp->dev = mounted_dev(mp->real);
	return fd;
}

/* After a lazy unmount, abort the connection so busy files cannot hold us. */
static void abort_conn(dev_t dev)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%u/abort", minor(dev));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		(void)!write(fd, "1", 1);
		close(fd);
	}
}

static void helper_unmount(const char *path)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		execlp(FUSERMOUNT, FUSERMOUNT, "-u", "-z", "-q", "--", path, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
}

void fuse_mountpoint_close(struct fuse_mountpoint *mp)
{
	dev_t dev = mounted_dev(mp->real);

	if (!dev || (mp->dev && dev != mp->dev))
		return;
	if (mp->by_helper) {
		helper_unmount(mp->real);
		return;
	}
	if (umount2(mp->real, 0) < 0 && umount2(mp->real, MNT_DETACH) == 0)
		abort_conn(dev);
}
