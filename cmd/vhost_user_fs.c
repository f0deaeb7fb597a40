// SPDX-License-Identifier: GPL-2.0-only
/*
 * `stainless vhost-user-fs`: the virtio-fs device (devices/virtio_fs.c,
 * the same one `stainless run --fs` puts on virtio-mmio) served to one
 * vhost-user frontend over a Unix socket, as virtiofsd does: it listens
 * on --socket-path (or takes the listening socket a runtime made, --fd),
 * serves the first frontend that connects, and exits when that frontend
 * disconnects, with every ring stopped, every fd closed and the guest's
 * memory unmapped.
 */
#include "cmd/vhost_user_fs.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "base/fail.h"
#include "devices/virtio_fs.h"
#include "fs/fs_fdbudget.h"
#include "fs/fs_log.h"
#include "base/thread.h"
#include "sandbox/sandbox.h"
#include "transport/unix_listen.h"
#include "cmd/vhost_user_cli.h"
#include "transport/vhost_user_dev.h"
#include "transport/vhost_user_shmem.h"


/*
 * --syslog: stderr becomes a stream whose lines go to the system log, so
 * every line anything here logs (virtio_log included, from any thread)
 * follows. Each line is formatted here as glibc's syslog() would send it
 * (RFC 3164: <PRI>Mmm dd hh:mm:ss TAG[PID]: text) and written on a
 * datagram socket connected to /dev/log before the sandbox. Not syslog()
 * itself: it loads the time zone from /etc/localtime at its first line,
 * after the filters, and after an error it makes a new socket and connects
 * again, calls no serving role may make and a path the sandbox's root does
 * not have. write(2) is in every thread's filter; the zone is loaded now
 * (tzset), while /etc is there. The socket does not block: a line the log
 * cannot take at once (its reader slow or gone) goes to the old stderr.
 */
static struct {
	int fd;
	pid_t pid;     /* the one the runtime started (the supervisor's) */
} slog = { .fd = -1 };

static void syslog_line(const char *text, size_t len)
{
	static const char mon[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	struct timespec now;
	struct tm tm;
	char out[1024];
	int n;

	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &tm);
	n = snprintf(out, sizeof(out), "<%d>%s %2d %02d:%02d:%02d stainless-vhost-user-fs[%d]: %.*s",
		     LOG_USER | LOG_WARNING, mon[tm.tm_mon % 12], tm.tm_mday, tm.tm_hour, tm.tm_min,
		     tm.tm_sec, (int)slog.pid, (int)len, text);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(out))
		n = sizeof(out) - 1;
	if (write(slog.fd, out, (size_t)n) < 0) {
		struct iovec v[2] = { { (void *)text, len }, { "\n", 1 } };

		(void)!writev(STDERR_FILENO, v, 2);
	}
}

static ssize_t syslog_write(void *cookie, const char *buf, size_t n)
{
	size_t done = 0;

	(void)cookie;
	while (done < n) {
		const char *nl = memchr(buf + done, '\n', n - done);
		size_t len = nl ? (size_t)(nl - (buf + done)) : n - done;

		if (len)
			syslog_line(buf + done, len);
		done += len + (nl ? 1 : 0);
	}
	return (ssize_t)n;
}

static int connect_log(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = "/dev/log" };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

static void log_to_syslog(void)
{
	static const cookie_io_functions_t io = { .write = syslog_write };
	int fd = connect_log();
	FILE *f;

	if (fd < 0) {
		fail(0, "--syslog: /dev/log: %s; logging to stderr", strerror(-fd));
		return;
	}
	f = fopencookie(NULL, "w", io);
	if (!f) {
		fail(0, "--syslog: %s; logging to stderr", strerror(errno));
		close(fd);
		return;
	}
	tzset();
	slog.fd = fd;
	slog.pid = getpid();
	setvbuf(f, NULL, _IOLBF, 0);
	stderr = f;
}

/* One line each for what is accepted but means something else here. */
static void notes(const struct vu_fs_config *c)
{
	if (c->log_level < VU_LOG_INFO)
		return;
	if (c->thread_pool_given)
		fail(0, "note: --thread-pool-size=%lu ignored: each ring is served "
			"inline by its own io_uring worker", c->thread_pool_size);
	if (c->socket_deprecated)
		fail(0, "note: --socket is deprecated; use --socket-path");
	if (c->max_idle_given)
		fail(0, "note: -o max_idle_threads ignored: there is no pool");
	if (c->file_handles == VU_FH_PREFER)
		fail(0, "note: --inode-file-handles=prefer: stainless keeps no file "
			"handles (an evicted inode is reopened by its name and checked); served as never");
}

/*
 * The process sandbox (sandbox/sandbox.h), once the socket is open where
 * the user asked: the share alone in a new root, and the rest of the host
 * out of reach. 0 in the server, > 0 in the supervisor (exit with *code),
 * -errno after one line.
 */
static int sandbox(const struct vu_fs_config *c, struct sandbox *sb, int *code)
{
	/* The supervisor's, to remove the socket the server leaves (--socket-path). */
	static struct unix_left left;
	static const char *const modes[] = { "namespace", "chroot", "none" };
	struct sandbox_opts sbo;
	char why[160];
	int r;

	sandbox_opts_init(&sbo);
	if (sandbox_opt(&sbo, "sandbox", modes[c->sandbox], why, sizeof(why)) != 0) {
		fail(0, "%s", why);
		return -EINVAL;
	}
	sandbox_init(sb, "vhost-user-fs", &sbo);
	sb->host_ids = true;      /* the guest's ids are the host's, as virtiofsd */
	sb->devices = c->opts.devices;
	if (c->socket_path) {
		unix_left_init(&left, c->socket_path);
		sb->hooks = (struct sandbox_hooks){ .ended = unix_left_ended, .ctx = &left };
	}
	r = sandbox_enter(sb, code);
	if (r != 0)
		return r;
	if ((r = sandbox_add_share(sb, c->shared_dir, c->opts.readonly)) < 0 ||
	    (r = sandbox_lockdown(sb)) < 0)
		return r;
	return 0;
}

/*
 * The share, the listening socket and the device exist and no frontend
 * message has been read: from here this thread only serves the frontend,
 * under the vhost-user role's filter (cmd/main.c built the filters from
 * --seccomp before the command started; with none this installs nothing).
 */
static int contain(const struct vu_fs_config *c)
{
	int r = fs_thread_enter(FS_ROLE_VHOST_USER);

	(void)c;
	if (r < 0)
		fail(0, "seccomp: %s", strerror(-r));
	return r;
}

static int open_listener(const struct vu_fs_config *c)
{
	gid_t gid = (gid_t)-1;
	int rc;

	if (c->fd >= 0) {
		rc = unix_check_listener(c->fd);
		if (rc < 0) {
			fail(0, "--fd %d: not a listening Unix stream socket (%s)",
				c->fd, strerror(-rc));
			return rc;
		}
		return c->fd;
	}
	if (c->socket_group && unix_parse_group(c->socket_group, &gid) < 0) {
		fail(0, "--socket-group '%s': no such group", c->socket_group);
		return -EINVAL;
	}
	rc = unix_listen(c->socket_path, gid, 1);  /* one frontend */
	if (rc < 0)
		fail(0, "cannot listen on '%s': %s", c->socket_path, strerror(-rc));
	return rc;
}

/* The one frontend this process serves, or -1 (a signal, or an error). */
static int accept_frontend(int lfd, int sfd)
{
	struct pollfd p[2] = { { .fd = lfd, .events = POLLIN }, { .fd = sfd, .events = POLLIN } };

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (p[1].revents)
			return -1;
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			return fd;
		if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN) {
			fail(0, "accept: %s", strerror(errno));
			return -1;
		}
	}
}

/* Signals arrive only through the returned signalfd; threads inherit the mask. */
static int block_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	return signalfd(-1, &set, SFD_CLOEXEC);
}

/* --stats, once the workers stopped: the requests each ring carried (q0: hiprio). */
static void print_stats(const struct vu_fs_config *c, const struct virtio_dev *vdev)
{
	unsigned n = 2;
	char line[512];
	int k;

	for (unsigned q = 0; q < virtio_dev_num_queues(vdev); q++)
		if (virtio_dev_requests(vdev, q) && q + 1 > n)
			n = q + 1;
	k = snprintf(line, sizeof(line), "%s: stats: virtio-fs", c->prog);
	for (unsigned q = 0; q < n && q < virtio_dev_num_queues(vdev) && k > 0 &&
	     (size_t)k < sizeof(line); q++)
		k += snprintf(line + k, sizeof(line) - (size_t)k, " q%u=%llu", q,
			      (unsigned long long)virtio_dev_requests(vdev, q));
	fprintf(stderr, "%s\n", line);
}

/* --dax-window: the window is the frontend's; its channel is this (docs/dax.md). */
static struct vu_shmem dax;

static int serve(const struct vu_fs_config *c, struct virtio_dev *vdev, int lfd, int sfd)
{
	struct vu_dev d;
	int conn, rc;

	if (c->log_level >= VU_LOG_INFO)
		fail(0, "serving %s; waiting for the frontend%s%s", c->shared_dir,
			c->socket_path ? " on " : "", c->socket_path ? c->socket_path : "");
	conn = accept_frontend(lfd, sfd);
	/* One frontend per process, as virtiofsd: nobody else may connect. */
	close(lfd);
	if (c->socket_path)
		unlink(c->socket_path);
	if (conn < 0)
		return 0;
	vu_dev_init(&d, vdev, c->tag != NULL);
	d.trace = c->log_level >= VU_LOG_DEBUG;
	if (c->opts.dax_size)
		vu_dev_set_shmem(&d, &dax);
	rc = vu_serve(&d, conn, sfd);
	vu_dev_release(&d);
	close(conn);
	if (c->stats)
		print_stats(c, vdev);
	if (rc == 0 && c->log_level >= VU_LOG_INFO)
		fail(0, "the frontend left; exiting");
	return rc;
}

int vhost_user_fs_main(int argc, char **argv)
{
	struct vu_fs_config c;
	struct virtio_dev *vdev;
	struct sandbox sb;
	char err[512];
	int rc, lfd, sfd, code;

	rc = vu_fs_parse_args(argc, argv, &c, err, sizeof(err));
	if (rc < 0) {
		fail(0, "%s", err);
		return 2;
	}
	if (rc > 0)
		return 0;
	if (c.print_capabilities) {
		vu_fs_print_capabilities(stdout);
		return 0;
	}
	/* Here, while /dev/null is there: the filters open no file. */
	if (c.log_level == VU_LOG_OFF)
		(void)!freopen("/dev/null", "w", stderr);
	else if (c.syslog)
		log_to_syslog();
	/* The same levels: trace adds a line per FUSE request (fs_log.h). */
	_Static_assert((int)VU_LOG_TRACE == (int)FS_LOG_TRACE && (int)VU_LOG_OFF == (int)FS_LOG_OFF,
		       "vhost-user's log levels are fs_log's");
	fs_log_init((enum fs_log_level)c.log_level, c.prog);
	notes(&c);
	/* The user's limit holds from here: the budget is read from it. */
	if (c.rlimit_nofile && (rc = fs_fd_fix_nofile(c.rlimit_nofile)) < 0) {
		fail(0, "--rlimit-nofile %lu: %s", c.rlimit_nofile, strerror(-rc));
		return 1;
	}
	lfd = open_listener(&c);  /* where the user asked, before the sandbox */
	if (lfd < 0)
		return 1;
	rc = sandbox(&c, &sb, &code);
	if (rc > 0)
		return code;      /* the supervisor: the server's exit status */
	if (rc < 0) {
		close(lfd);
		return 1;
	}
	fs_fd_raise_nofile();
	if (c.opts.dax_size)
		vu_shmem_init(&dax, c.opts.dax_size);   /* checked: a multiple of 2M */
	rc = virtio_fs_create_dax(&vdev, c.tag ? c.tag : "vhost-user-fs",
				  sandbox_path(&sb, c.shared_dir), &c.opts,
				  c.opts.dax_size ? &vu_shmem_dax_ops : NULL, &dax);
	/* The frontend picks how many request queues it wires up (QEMU's
	 * num-request-queues): rings for all of them, a worker per ring it
	 * starts. The config (--tag) announces one, as virtiofsd's does. */
	if (rc == 0 && (rc = virtio_fs_offer_rings(vdev, VIRTIO_FS_MAX_REQUEST_QUEUES)) < 0)
		virtio_dev_destroy(vdev);
	if (rc < 0) {
		fail(0, "cannot share '%s': %s", c.shared_dir, strerror(-rc));
		close(lfd);
		return 1;
	}
	sfd = block_signals();
	/* A frontend that truncates its memory file must not kill us (vhost_user_mem.h). */
	if (sfd < 0 || vu_mem_guard_install() < 0 || contain(&c) < 0) {
		fail(0, "set-up: %s", strerror(errno));
		rc = -1;
	} else {
		rc = serve(&c, vdev, lfd, sfd);
		lfd = -1;
	}
	if (lfd >= 0)
		close(lfd);
	if (sfd >= 0)
		close(sfd);
	virtio_dev_destroy(vdev);
	if (c.opts.dax_size)
		vu_shmem_destroy(&dax);
	return rc < 0 ? 1 : 0;
}
