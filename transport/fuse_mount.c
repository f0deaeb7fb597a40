// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE server on the host's own /dev/fuse (`stainless fuse-mount`,
 * put together in cmd/fuse_mount.c), so the real kernel FUSE client (and
 * every tool on the host) can exercise exactly the code a guest talks to.
 *
 * The mount at MOUNTPOINT is made (mount(2) as root, else fusermount3)
 * and taken down in transport/fuse_mountpoint.c, outside the sandbox;
 * then MOUNT_READERS reader threads (below), each on its own /dev/fuse fd (FUSE_DEV_IOC_CLONE
 * gives each an fd on the same connection). Each request is read into a
 * buffer, handled inline and the reply written with one write(2). A parked
 * request (SETLKW) keeps its buffers and the reader takes fresh ones. With
 * --uring, one reader, and requests move to per-CPU io_uring queues after
 * INIT (fuse_uring.h); the reader keeps FORGET and INTERRUPT. SIGINT/SIGTERM
 * unmount; an external unmount ends the readers (ENODEV) and the program
 * exits 0.
 */
#include "transport/fuse_mount.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/fail.h"
#include "base/thread.h"
#include "fs/fuse/fuse_server.h"
#include "transport/fuse_mountpoint.h"
#include "transport/fuse_uring.h"

/*
 * Readers: MOUNT_READERS threads, each blocking in read(2) on its own
 * clone of the connection's fd, in the normal scheduling class, wherever
 * the scheduler puts them; the kernel hands each request to one waiting
 * reader. Two, not one: a request that waits on the host (a cold read from
 * a disk) does not hold up the others, and a caller that waits for each
 * answer often finds the next reader where it runs (measured same-run:
 * make bench-fuse; README has the table). No directory read-ahead
 * (fuse_server_idle): a reader blocked in read(2) has no idle moment to
 * give it, and when measured (with the continuation still per thread) it
 * gained nothing (10k entries, 5 rounds: 2.09M vs 2.12M entries/s).
 */
#define MOUNT_READERS 2

struct mount_req {
	struct fs_req req;
	struct iovec in, out;
	int fd;
	size_t size;
	uint8_t buf[]; /* in: size bytes, then out: size bytes */
};

/* What the readers share: the io_uring channel, once INIT allowed it. */
struct fuse_mount_channel {
	bool want_uring;
	struct fuse_uring *uring;
	/*
	 * The other readers' /dev/fuse fds, opened before the sandbox's
	 * lockdown (a chroot has no /dev/fuse), bound to the connection
	 * (FUSE_DEV_IOC_CLONE) as their readers start; -1: none.
	 */
	int spare[MOUNT_READERS - 1];
	uint64_t requests;   /* --stats: what the readers took, summed when they end */
};

struct reader {
	struct fuse_server *srv;
	struct fuse_mount_channel *ch;
	unsigned idx;
	int fd;
	uint64_t requests;   /* this reader's alone: no shared line on the request path */
	bool unmounted;      /* its read said ENODEV: the mount was taken down */
	pthread_t thread;
	pthread_t main_thread;
};

static struct mount_req *mreq_new(int fd, size_t size)
{
	struct mount_req *m = malloc(sizeof(*m) + 2 * size);

	if (!m)
		return NULL;
	m->fd = fd;
	m->size = size;
	m->in.iov_base = m->buf;
	m->out.iov_base = m->buf + size;
	m->out.iov_len = size;
	m->req = (struct fs_req){ .in = &m->in, .nin = 1, .out = &m->out, .nout = 1 };
	return m;
}

static void send_reply(int fd, const void *buf, size_t len)
{
	/* ENOENT: the request was interrupted and is gone; nothing to do. */
	while (len && write(fd, buf, len) < 0 && errno == EINTR)
		;
}

static void mount_complete(void *ctx, struct fs_req *req, uint32_t len)
{
	struct mount_req *m = (struct mount_req *)((char *)req - offsetof(struct mount_req, req));

	(void)ctx;
	send_reply(m->fd, m->out.iov_base, len);
	free(m);
}

static const struct fs_transport mount_transport = { .complete = mount_complete };

/*
 * After the INIT answer (registration needs a set-up connection): when the
 * kernel took FUSE_OVER_IO_URING, requests move to the per-CPU rings and
 * /dev/fuse carries only FORGET and INTERRUPT from then on.
 */
static void start_uring(struct reader *rd)
{
	int r;

	if (!rd->ch->want_uring || rd->ch->uring || !fuse_server_io_uring(rd->srv))
		return;
	r = fuse_uring_start(&rd->ch->uring, rd->srv, rd->fd);
	if (r)
		fail(0, "io_uring channel: %s; "
			"serving through /dev/fuse", strerror(-r));
}

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	size_t size = fuse_server_max_request(rd->srv) + 4096;
	struct mount_req *m = mreq_new(rd->fd, size);
	char name[16];

	snprintf(name, sizeof(name), "fuse-r%u", rd->idx);
	(void)pthread_setname_np(pthread_self(), name);
	while (m) {
		ssize_t n = read(rd->fd, m->buf, size);

		if (n < 0) {
			if (errno == EINTR || errno == ENOENT || errno == EAGAIN)
				continue;
			rd->unmounted = errno == ENODEV;
			if (!rd->unmounted)
				fail(0, "/dev/fuse: %s", strerror(errno));
			break;
		}
		m->in.iov_len = (size_t)n;
		rd->requests++;
		/* A peek at the header; the server checks the whole request. */
		bool init = (size_t)n >= sizeof(struct fuse_in_header) &&
			    ((const struct fuse_in_header *)m->buf)->opcode == FUSE_INIT;
		int r = fuse_server_handle(rd->srv, &m->req, &mount_transport);
		if (r == FS_REQ_DEFERRED) {
			m = mreq_new(rd->fd, size); /* the parked request keeps the old one */
			continue;
		}
		send_reply(rd->fd, m->out.iov_base, (size_t)r);
		if (init)
			start_uring(rd);
	}
	free(m);
	pthread_kill(rd->main_thread, SIGUSR1);
	return NULL;
}

/* Reader i > 0's fd on the connection: -1 when the kernel says no. */
static int clone_fd(int fd, int *spare)
{
	uint32_t master = (uint32_t)fd;
	int rfd = *spare;

	*spare = -1;
	if (rfd >= 0 && ioctl(rfd, FUSE_DEV_IOC_CLONE, &master) < 0) {
		close(rfd);
		rfd = -1;
	}
	return rfd;
}

int fuse_mount_notify(void *ctx, const void *msg, size_t len)
{
	int fd = *(const int *)ctx;
	ssize_t n;

	while ((n = write(fd, msg, len)) < 0 && errno == EINTR)
		;
	return n < 0 ? -errno : 0;
}

int fuse_mount_channel_new(struct fuse_mount_channel **out, bool want_uring)
{
	struct fuse_mount_channel *ch = calloc(1, sizeof(*ch));

	if (!ch)
		return -ENOMEM;
	ch->want_uring = want_uring;
	for (unsigned i = 0; i < MOUNT_READERS - 1; i++)
		ch->spare[i] = ch->want_uring ? -1 : open("/dev/fuse", O_RDWR | O_CLOEXEC);
	*out = ch;
	return 0;
}

uint64_t fuse_mount_channel_requests(const struct fuse_mount_channel *ch)
{
	return ch ? ch->requests : 0;
}

void fuse_mount_channel_free(struct fuse_mount_channel *ch)
{
	if (!ch)
		return;
	for (unsigned i = 0; i < MOUNT_READERS - 1; i++)
		if (ch->spare[i] >= 0)
			close(ch->spare[i]);
	fuse_uring_free(ch->uring);
	free(ch);
}

int fuse_mount_serve(struct fuse_mount_channel *ch, struct fuse_server *srv, int fd, struct fuse_mountpoint *mp)
{
	struct reader rd[MOUNT_READERS];
	/* With the rings serving, /dev/fuse carries only FORGET and INTERRUPT. */
	unsigned want = ch->want_uring ? 1 : MOUNT_READERS, n = 0;
	sigset_t set;
	int sig = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	while (n < want) {
		int rfd = n ? clone_fd(fd, &ch->spare[n - 1]) : fd;
		if (rfd < 0)
			break;  /* the readers so far still serve */
		rd[n] = (struct reader){ .srv = srv, .ch = ch, .idx = n, .fd = rfd,
					 .main_thread = pthread_self() };
		if (fs_thread_create(&rd[n].thread, NULL, FS_ROLE_FUSE_READER, reader_main,
				     &rd[n]) < 0) {
			if (rfd != fd)
				close(rfd);
			break;
		}
		n++;
	}
	/* From here on this thread only waits, unmounts and joins. */
	int r = n ? fs_thread_enter(FS_ROLE_CONTROL) : 0;
	if (r < 0)
		fail(0, "seccomp: %s", strerror(-r));
	if (n == 0 || r < 0 || sigwait(&set, &sig) != 0)
		sig = SIGTERM; /* nobody serves: take the mount down */
	if ((sig == SIGINT || sig == SIGTERM) && mp && (r = fuse_mountpoint_close(mp)) < 0) {
		/*
		 * --sandbox chroot: no CAP_SYS_ADMIN left to unmount with, and
		 * the readers wait for requests that will never come: end the
		 * process, which ends the connection, and say what is left.
		 */
		fail(0, "cannot unmount %s: %s; the dead mount "
			"stays (umount -l %s)", mp->real, strerror(-r), mp->real);
		_exit(1);
	}
	bool unmounted = false;
	for (unsigned i = 0; i < n; i++) {
		pthread_join(rd[i].thread, NULL);
		ch->requests += rd[i].requests;
		unmounted |= rd[i].unmounted;
		if (rd[i].fd != fd)
			close(rd[i].fd);
	}
	/* Taken down from outside: a new mount may stand there already. */
	if (mp && sig == SIGUSR1 && unmounted)
		fuse_mountpoint_gone(mp);
	fuse_uring_stop(ch->uring);
	return n ? 0 : 1;
}

