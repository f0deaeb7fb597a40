// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-mount --passthrough's registrar process and the server's end of
 * its socket (see fuse_registrar.h for what it trusts and checks).
 *
 * Why a process and not a thread: the ioctl checks CAP_SYS_ADMIN in the
 * initial user namespace of the calling task, and the kernel keeps that
 * task's credentials with the backing file (it reopens the file with them
 * for every passthrough open). Neither may belong to a serving thread: one
 * that a client compromised would hold CAP_SYS_ADMIN. The registrar keeps
 * CAP_SYS_ADMIN alone (no CAP_DAC_OVERRIDE: its own opens would be plain
 * root's, and it makes none), runs one loop and answers one request at a
 * time.
 */
#include "transport/fuse_registrar.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/creds.h"
#include "base/fail.h"
#include "base/fds.h"
#include "base/thread.h"
#include "fs/fuse/fuse_server.h"
#include "fs/fuse/fuse_wire.h"

struct fuse_registrar {
	int sock;
	pid_t pid;
	pthread_mutex_t mu;       /* one request and its answer at a time */
};

/* The registrar's state, in its own process. */
struct reg {
	int sock, fuse_fd;
	dev_t share_dev;
	ino_t share_ino;
	bool have_mnt;
	uint64_t mnt_id;
	uint32_t nids;
	int32_t ids[REGISTRAR_MAX_IDS];
	uint64_t registered, refused;
};

/* ---- the registrar ------------------------------------------------------ */

static int mount_of(int fd, uint64_t *mnt_id, uint64_t *attrs, uint64_t *attrs_mask)
{
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) < 0)
		return -errno;
	if (!(sx.stx_mask & STATX_MNT_ID))
		return -EOPNOTSUPP;
	*mnt_id = sx.stx_mnt_id;
	*attrs = sx.stx_attributes;
	*attrs_mask = sx.stx_attributes_mask;
	return 0;
}

/* The share's root as the server's mount namespace has it: that mount's id. */
static int hello(struct reg *g, int fd)
{
	uint64_t attrs, mask;
	struct stat st;
	int r;

	if (g->have_mnt)
		return -EALREADY;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_dev != g->share_dev || st.st_ino != g->share_ino)
		return -EXDEV;
	if ((r = mount_of(fd, &g->mnt_id, &attrs, &mask)) < 0)
		return r;
	/* A directory deeper in another mount of the same file system is not the share's mount. */
	if (!(mask & STATX_ATTR_MOUNT_ROOT) || !(attrs & STATX_ATTR_MOUNT_ROOT))
		return -EXDEV;
	g->have_mnt = true;
	return 0;
}

static int open_backing(struct reg *g, int fd)
{
	struct fuse_backing_map map = { .fd = fd };
	uint64_t mnt, attrs, mask;
	struct stat st;
	int id, r;

	if (!g->have_mnt)
		return -ENOTCONN;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	if ((r = mount_of(fd, &mnt, &attrs, &mask)) < 0)
		return r;
	if (mnt != g->mnt_id)
		return -EXDEV;
	if (attrs & mask & (STATX_ATTR_IMMUTABLE | STATX_ATTR_APPEND))
		return -EPERM;
	if (g->nids >= REGISTRAR_MAX_IDS)
		return -ENFILE;
	id = ioctl(g->fuse_fd, FUSE_DEV_IOC_BACKING_OPEN, &map);
	if (id < 0)
		return -errno;
	if (id == 0) /* not an id the kernel hands out; nothing to close either */
		return -EIO;
	g->ids[g->nids++] = id;
	g->registered++;
	return id;
}

static int close_backing(struct reg *g, int32_t id)
{
	uint32_t id32 = (uint32_t)id;

	for (uint32_t i = 0; i < g->nids; i++) {
		if (g->ids[i] != id)
			continue;
		g->ids[i] = g->ids[--g->nids];
		return ioctl(g->fuse_fd, FUSE_DEV_IOC_BACKING_CLOSE, &id32) < 0 ? -errno : 0;
	}
	return -ENOENT;
}

/* One message and at most one fd (any more were closed: MSG_CTRUNC). 1, 0 at EOF, -errno. */
static int receive(int sock, struct registrar_msg *m, int *fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(4 * sizeof(int))];
	} c;
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.buf,
			     .msg_controllen = sizeof(c.buf) };
	ssize_t n;

	*fd = -1;
	while ((n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (n <= 0)
		return n < 0 ? -errno : 0;
	int nfds = 0, fds[4];
	for (struct cmsghdr *h = CMSG_FIRSTHDR(&mh); h; h = CMSG_NXTHDR(&mh, h)) {
		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k && nfds < 4; i++)
			memcpy(&fds[nfds++], CMSG_DATA(h) + i * sizeof(int), sizeof(int));
	}
	if (nfds == 1 && (size_t)n == sizeof(*m) && !(mh.msg_flags & MSG_CTRUNC)) {
		*fd = fds[0];
		return 1;
	}
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	if ((size_t)n != sizeof(*m) || nfds || (mh.msg_flags & MSG_CTRUNC))
		m->op = 0; /* malformed: refused below */
	return 1;
}

static int handle(struct reg *g, const struct registrar_msg *m, int fd)
{
	bool wants_fd = m->op == REGISTRAR_HELLO || m->op == REGISTRAR_OPEN;

	if (wants_fd != (fd >= 0))
		return -EINVAL;
	switch (m->op) {
	case REGISTRAR_HELLO:
		return hello(g, fd);
	case REGISTRAR_OPEN:
		return open_backing(g, fd);
	case REGISTRAR_CLOSE:
		return close_backing(g, m->id);
	case REGISTRAR_STATS:
		return 0;
	}
	return -EINVAL;
}

static void serve(struct reg *g)
{
	struct registrar_msg m;
	int fd, r;

	while ((r = receive(g->sock, &m, &fd)) > 0) {
		struct registrar_answer a;

		r = handle(g, &m, fd);
		if (fd >= 0)
			close(fd); /* a registered file is the kernel's own reference now */
		if (r < 0)
			g->refused++;
		a = (struct registrar_answer){ .result = r, .ids = g->nids,
					       .registered = g->registered, .refused = g->refused };
		struct iovec iov = { &a, sizeof(a) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		if (sendmsg(g->sock, &mh, MSG_NOSIGNAL) < 0)
			break;
	}
}

static void registrar_main(struct reg *g)
{
	int r;

	/* Its life is the server's: a stop signal reaches it through the server's EOF. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void)prctl(PR_SET_NAME, "registrar", 0, 0, 0);
	fds_keep_two(g->sock, g->fuse_fd);
	if ((r = fs_caps_limit_to(1ull << CAP_SYS_ADMIN)) < 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    (r = fs_thread_enter_alone(FS_ROLE_REGISTRAR)) < 0) {
		fail(0, "--passthrough: registrar: %s", strerror(r < 0 ? -r : errno));
		_exit(1);
	}
	serve(g);
	/* The server is gone: its ids go (the kernel would drop them with the connection). */
	while (g->nids)
		(void)close_backing(g, g->ids[g->nids - 1]);
	_exit(0);
}

int fuse_registrar_start(struct fuse_registrar **out, int fuse_fd, const char *share)
{
	struct fuse_registrar *r = calloc(1, sizeof(*r));
	struct reg *g = calloc(1, sizeof(*g));
	struct stat st;
	int sv[2], dfd, e;
	pid_t pid;

	if (!r || !g) {
		free(r);
		free(g);
		return fail(-ENOMEM, "--passthrough: %s", strerror(ENOMEM));
	}
	dfd = open(share, O_PATH | O_DIRECTORY | O_CLOEXEC);
	e = dfd < 0 || fstat(dfd, &st) < 0 ? errno : 0;
	if (dfd >= 0)
		close(dfd);
	if (e == 0 && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		e = errno;
	if (e) {
		free(r);
		free(g);
		return fail(-e, "--passthrough: %s: %s", share, strerror(e));
	}
	*g = (struct reg){ .sock = sv[1], .fuse_fd = fuse_fd, .share_dev = st.st_dev,
			   .share_ino = st.st_ino };
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		registrar_main(g); /* does not return */
	}
	e = errno;
	close(sv[1]);
	free(g);
	if (pid < 0) {
		close(sv[0]);
		free(r);
		return fail(-e, "--passthrough: fork: %s", strerror(e));
	}
	r->sock = sv[0];
	r->pid = pid;
	pthread_mutex_init(&r->mu, NULL);
	*out = r;
	return 0;
}

/* ---- the server's end ---------------------------------------------------- */

int fuse_registrar_socket(const struct fuse_registrar *r)
{
	return r->sock;
}

static int call_locked(int sock, enum registrar_op op, int fd, int32_t id,
		       struct registrar_answer *a)
{
	struct registrar_msg m = { .op = op, .id = id };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	struct iovec iov = { &m, sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (fd >= 0) {
		memset(&c, 0, sizeof(c));
		mh.msg_control = c.buf;
		mh.msg_controllen = sizeof(c.buf);
		struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &fd, sizeof(int));
	}
	while ((n = sendmsg(sock, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -errno;
	iov = (struct iovec){ a, sizeof(*a) };
	mh = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1 };
	while ((n = recvmsg(sock, &mh, 0)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -errno;
	if ((size_t)n != sizeof(*a))
		return -EPIPE; /* the registrar is gone */
	return a->result;
}

int fuse_registrar_call(struct fuse_registrar *r, enum registrar_op op, int fd, int32_t id,
			struct registrar_answer *a)
{
	struct registrar_answer tmp;
	int res;

	pthread_mutex_lock(&r->mu);
	res = call_locked(r->sock, op, fd, id, a ? a : &tmp);
	pthread_mutex_unlock(&r->mu);
	return res;
}

int fuse_registrar_hello(struct fuse_registrar *r, const char *root)
{
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC), res;

	if (fd < 0)
		return -errno;
	res = fuse_registrar_call(r, REGISTRAR_HELLO, fd, 0, NULL);
	close(fd);
	return res;
}

static int ops_open(void *ctx, int fd)
{
	return fuse_registrar_call(ctx, REGISTRAR_OPEN, fd, 0, NULL);
}

static void ops_close(void *ctx, int id)
{
	(void)fuse_registrar_call(ctx, REGISTRAR_CLOSE, -1, id, NULL);
}

const struct fuse_backing_ops fuse_registrar_ops = {
	.open_backing = ops_open,
	.close_backing = ops_close,
};

void fuse_registrar_free(struct fuse_registrar *r)
{
	if (!r)
		return;
	close(r->sock);
	pthread_mutex_destroy(&r->mu);
	free(r);
}
