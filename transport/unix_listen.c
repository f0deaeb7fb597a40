// SPDX-License-Identifier: GPL-2.0-only
/* Listening Unix stream sockets (see unix_listen.h). */
#include "transport/unix_listen.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/*
 * Binds under a umask that leaves only the owner's bits, so the socket is
 * never reachable by others even for an instant, then sets the mode (and
 * group) explicitly: umask alone is not enough where the directory's
 * default ACL overrides it.
 */
static int bind_private(int fd, const struct sockaddr_un *sa, gid_t gid)
{
	mode_t old = umask(0177);
	int err = bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0 ? -errno : 0;

	umask(old);
	if (err)
		return err;
	if ((gid != (gid_t)-1 && chown(sa->sun_path, (uid_t)-1, gid) < 0) ||
	    chmod(sa->sun_path, gid != (gid_t)-1 ? 0660 : 0600) < 0) {
		err = -errno;
		unlink(sa->sun_path);
	}
	return err;
}

/*
 * The socket is bound and listening under a temporary name and renamed
 * into place, so a client that waits for the path to appear (QEMU, a
 * runtime, a benchmark starting one backend after another) never meets a
 * socket that exists but does not listen yet (ECONNREFUSED).
 */
int unix_listen(const char *path, gid_t gid, int backlog)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, err, n;

	n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s.%d.tmp", path, (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (lstat(path, &st) == 0) {
		/* A socket left by a dead server is replaced; a live one is not. */
		struct sockaddr_un old = { .sun_family = AF_UNIX };

		strcpy(old.sun_path, path);   /* shorter than the temporary name */
		if (!S_ISSOCK(st.st_mode)) {
			close(fd);
			return -EEXIST;
		}
		if (connect(fd, (struct sockaddr *)&old, sizeof(old)) == 0) {
			close(fd);
			return -EADDRINUSE;
		}
	}
	unlink(sa.sun_path);
	err = bind_private(fd, &sa, gid);
	if (!err && (listen(fd, backlog) < 0 || rename(sa.sun_path, path) < 0)) {
		err = -errno;
		unlink(sa.sun_path);
	}
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int unix_parse_group(const char *arg, gid_t *out)
{
	struct group gr, *res = NULL;
	char buf[4096], *end;
	unsigned long v;

	if (getgrnam_r(arg, &gr, buf, sizeof(buf), &res) == 0 && res) {
		*out = res->gr_gid;
		return 0;
	}
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (!*arg || *end || errno || arg[0] == '-' || v >= (gid_t)-1)
		return -EINVAL;
	*out = (gid_t)v;
	return 0;
}

int unix_check_listener(int fd)
{
	int v = 0;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &len) < 0)
		return errno == ENOTSOCK ? -ENOTSOCK : -errno;
	if (v != AF_UNIX)
		return -EAFNOSUPPORT;
	len = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &len) < 0 || v != SOCK_STREAM)
		return -ESOCKTNOSUPPORT;
	len = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &len) < 0 || !v)
		return -EINVAL;
	return 0;
}

void unix_left_init(struct unix_left *l, const char *path)
{
	struct stat st;

	*l = (struct unix_left){ .path = path };
	if (path && lstat(path, &st) == 0) {
		l->dev = st.st_dev;
		l->ino = st.st_ino;
	}
}

void unix_left_remove(void *ctx)
{
	struct unix_left *l = ctx;
	struct stat st;

	if (l->ino && lstat(l->path, &st) == 0 && st.st_dev == l->dev && st.st_ino == l->ino)
		unlink(l->path);
}

void unix_left_ended(void *ctx, int status)
{
	(void)status; /* gone, however it ended: the socket file goes */
	unix_left_remove(ctx);
}
