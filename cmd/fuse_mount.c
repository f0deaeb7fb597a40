// SPDX-License-Identifier: GPL-2.0-only
/*
 * `stainless fuse-mount DIR MOUNTPOINT [FS OPTIONS]`: the FUSE server on the
 * host's own /dev/fuse, so the real kernel FUSE client (and every tool on
 * the host) can exercise exactly the code a guest talks to.
 *
 * Put together here: the command line read, the mount made at MOUNTPOINT
 * (transport/fuse_mountpoint.c, outside the sandbox), the sandbox entered
 * (its supervisor takes the mount down), then the readers started
 * (transport/fuse_mount.c). SIGINT/SIGTERM unmount; an external unmount
 * ends the readers (ENODEV) and the program exits 0.
 */
#include "cmd/fuse_mount.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/creds.h"
#include "base/exit.h"
#include "base/fail.h"
#include "cmd/fuse_mount_cli.h"
#include "fs/fs_fdbudget.h"
#include "fs/fs_log.h"
#include "fs/fs_options.h"
#include "fs/fuse/fuse_server.h"
#include "fs/fuse/fuse_watch.h"
#include "sandbox/sandbox.h"
#include "transport/fuse_mount.h"
#include "transport/fuse_mountpoint.h"
#include "transport/fuse_registrar.h"
#include "transport/fuse_uring.h"
#include "sandbox/seccomp.h"

static int check_dir(const char *what, const char *path)
{
	struct stat st;

	/* What a killed server leaves: the mount stays, its connection is gone. */
	if (stat(path, &st) < 0 && errno == ENOTCONN)
		return fail(EXIT_FAILED, "%s %s: %s: a FUSE server that was killed left it; "
			    "clear it with fusermount3 -u -z %s", what, path, strerror(errno), path);
	if (stat(path, &st) < 0)
		return fail(EXIT_USAGE, "%s %s: %s", what, path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail(EXIT_USAGE, "%s %s: not a directory", what, path);
	return 0;
}

/* In the effective set now (the ioctl checks it in the host's user namespace). */
static bool have_sys_admin(void)
{
	return fs_caps_effective(CAP_SYS_ADMIN);
}

/*
 * --passthrough's rule: where it cannot be had (no root or no
 * CAP_SYS_ADMIN, a kernel without it, a share root the registrar cannot
 * tell from the rest), one line says why and the share is served without
 * it; the mount works either way. The registrar is forked here, in the
 * host's namespaces, before the sandbox.
 */
static struct fuse_registrar *passthrough_start(const struct fuse_mount_cli *a, int fuse_fd)
{
	struct fuse_registrar *reg = NULL;

	if (!a->ma.passthrough)
		return NULL;
	if (geteuid() != 0 || !have_sys_admin()) {
		fail(0, "--passthrough: registering backing files needs root with CAP_SYS_ADMIN; "
			"serving without it");
		return NULL;
	}
	/* The registrar tells the share's files by their mount: the sandbox's bind mount. */
	if (a->sbo.mode != SANDBOX_NAMESPACE) {
		fail(0, "--passthrough: needs --sandbox namespace (the share a mount of its own, "
			"which the registrar checks files against); serving without it");
		return NULL;
	}
	if (fuse_registrar_start(&reg, fuse_fd, a->dir) < 0)
		return NULL; /* it said why */
	sc_allow_registrar_client(true);
	return reg;
}

/* In the server, after lockdown: the share's root as this namespace has it. */
static struct fuse_registrar *passthrough_hello(struct fuse_registrar *reg, const char *root)
{
	int r;

	if (!reg || (r = fuse_registrar_hello(reg, root)) == 0)
		return reg;
	fail(0, "--passthrough: the registrar refused the share's root (%s: %s; --sandbox "
		"namespace makes it a mount of its own); serving without it", root, strerror(-r));
	fuse_registrar_free(reg);
	return NULL;
}

/*
 * --watches, or the default: FUSE_WATCH_DEFAULT, and never more than an
 * eighth of the user's inotify watches (shared with every program the
 * user runs). Read now: the sandbox's /proc has no /proc/sys.
 */
static uint32_t watch_budget(const struct fuse_mount_cli *a)
{
	unsigned long max = 0;
	uint32_t n = a->ma.watches_set ? a->ma.watches : FUSE_WATCH_DEFAULT;
	FILE *f = fopen("/proc/sys/fs/inotify/max_user_watches", "re");

	if (f) {
		if (fscanf(f, "%lu", &max) != 1)
			max = 0;
		fclose(f);
	}
	if (max && n > max / 8)
		n = (uint32_t)(max / 8);
	return a->opts.cache == FS_CACHE_NEVER ? 0 : n;
}

/* In the sandbox's supervisor (sandbox.h): the mount is taken down here. */
static bool supervisor_stop(void *ctx, int sig)
{
	(void)sig;
	(void)fuse_mountpoint_close(ctx);
	return false; /* the server ends by itself when its reads fail (ENODEV) */
}

/*
 * A server that exits 0 has no mount left: it stopped because its reads
 * said ENODEV (the mount was taken down, from outside or by the stop
 * hook). Its mount point may already hold a new mount, so nothing is
 * unmounted by name then. A server that died or failed left its mount.
 */
static void supervisor_ended(void *ctx, int status)
{
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		(void)fuse_mountpoint_close(ctx);
	else
		fuse_mountpoint_gone(ctx);
}

/*
 * --background (mount(8)'s helper): the caller waits in the parent until
 * the mount is made (one byte on the pipe, *ready the write end) or the
 * child fails (its exit status); the child goes on in a session of its
 * own. 0 in the child, else the parent's exit code.
 */
static int background(int *ready)
{
	int p[2], st;
	ssize_t n;
	char c;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		fprintf(stderr, "stainless: fuse-mount: --background: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		close(p[0]);
		(void)setsid();
		*ready = p[1];
		return 0;
	}
	close(p[1]);
	while ((n = read(p[0], &c, 1)) < 0 && errno == EINTR)
		;
	close(p[0]);
	if (n == 1)
		return 0;     /* mounted; the server stays */
	if (waitpid(pid, &st, 0) == pid && WIFEXITED(st))
		return WEXITSTATUS(st) ? WEXITSTATUS(st) : 1;
	return 1;
}

/* The mount is made: the parent of --background may answer mount(8). */
static void mounted(int *ready)
{
	if (*ready < 0)
		return;
	(void)!write(*ready, "m", 1);
	close(*ready);
	*ready = -1;
}

int fuse_mount_main(int argc, char **argv)
{
	struct fuse_server *srv;
	struct fuse_mount_cli a;
	struct fs_options o;
	struct fuse_mount_channel *ch = NULL;
	struct fuse_registrar *reg;
	struct fuse_mountpoint mp;
	struct sandbox sb;
	bool uring, want_uring;
	uint32_t watches;
	const char *dir, *mnt;
	int fd, r, code, ready = -1;

	if ((r = fuse_mount_parse(argc, argv, &a)) >= 0)
		return r;
	o = a.opts;
	dir = a.dir;
	mnt = a.mnt;
	uring = a.ma.uring;
	if ((r = check_dir("share", dir)) || (r = check_dir("mount point", mnt)))
		return r;
	if (a.background && (r = background(&ready)) != 0)
		return r;
	if (a.background && ready < 0)
		return 0;
	want_uring = uring && fuse_uring_enabled();
	if (uring && !want_uring)
		fail(0, "--uring: this kernel does not offer FUSE "
			"over io_uring (fuse module parameter enable_uring); serving through "
			"/dev/fuse");
	(void)fuse_uring_queues(); /* read from /sys now, while /sys is there */
	watches = watch_budget(&a);
	/* The mount in the host's namespace, before the sandbox's fork. */
	fd = fuse_mountpoint_open_args(&mp, mnt, FUSE_SERVER_MAX_WRITE, &a.ma);
	if (fd < 0)
		return 1;
	mounted(&ready);
	reg = passthrough_start(&a, fd);
	sandbox_init(&sb, "fuse-mount", &a.sbo);
	sb.host_ids = true;
	sb.kernel_ids = true;
	sb.devices = o.devices;
	sb.hooks = (struct sandbox_hooks){ .stop = supervisor_stop, .ended = supervisor_ended,
					   .ctx = &mp };
	/* What taking the mount down needs, held by whoever does it. */
	(void)sandbox_keep_fd(&sb, mp.info_fd);
	(void)sandbox_keep_fd(&sb, mp.abort_fd);
	(void)sandbox_keep_fd(&sb, mp.unmount_fd);
	(void)sandbox_keep_fd(&sb, mp.unmounted_fd);
	r = sandbox_enter(&sb, &code);
	if (r > 0)
		return code;
	/* The readers' fds, before a chroot hides /dev/fuse. */
	if (r == 0)
		r = fuse_mount_channel_new(&ch, want_uring);
	if (r == 0 && (r = sandbox_add_share(&sb, dir, o.readonly)) == 0 &&
	    (r = sandbox_add_device(&sb, "/dev/fuse")) == 0)
		r = sandbox_lockdown(&sb);
	fs_fd_raise_nofile(); /* before the budget is first read; best effort */
	if (r == 0)
		reg = passthrough_hello(reg, sandbox_path(&sb, dir));
	if (r == 0) {
		r = fuse_server_create_params(&srv, sandbox_path(&sb, dir), &o,
					      &(struct fuse_server_params){
						      .io_uring = want_uring, .watches = watches,
						      .notify = fuse_mount_notify, .notify_ctx = &fd,
						      .backing = reg ? &fuse_registrar_ops : NULL,
						      .backing_ctx = reg });
		if (r)
			fail(0, "%s: %s", dir, strerror(-r));
	}
	if (r) {
		if (sb.opts.mode != SANDBOX_NAMESPACE)
			(void)fuse_mountpoint_close(&mp);
		fuse_mount_channel_free(ch);
		fuse_registrar_free(reg);
		close(fd);
		return 1;
	}
	/* The kernel holds the requests until the readers, started next, take them. */
	fs_log(FS_LOG_INFO, "serving %s at %s", dir, mp.real);
	/* mp NULL: the mount is the sandbox supervisor's to take down, not ours. */
	r = fuse_mount_serve(ch, srv, fd, sb.opts.mode == SANDBOX_NAMESPACE ? NULL : &mp);
	struct fuse_server_stats st;
	fuse_server_stats(srv, &st);
	fuse_server_destroy(srv);
	close(fd);               /* after the watcher, which writes to it, stopped */
	if (a.cc.stats)
		fprintf(stderr, "stainless fuse-mount: stats: requests=%llu inodes_peak=%u "
			"watches=%u watch_refused=%llu watch_events=%llu notified=%llu pruned=%llu\n",
			(unsigned long long)fuse_mount_channel_requests(ch), st.inodes_peak,
			st.watches, (unsigned long long)st.refused, (unsigned long long)st.events,
			(unsigned long long)st.notified, (unsigned long long)st.pruned);
	/* The registrar's counts once the server closed its ids: ids=0 unless one leaked. */
	struct registrar_answer ra;
	if (a.cc.stats && reg && fuse_registrar_call(reg, REGISTRAR_STATS, -1, 0, &ra) == 0)
		fprintf(stderr, "stainless fuse-mount: stats: registrar ids=%u registered=%llu "
			"refused=%llu\n", ra.ids, (unsigned long long)ra.registered,
			(unsigned long long)ra.refused);
	fuse_mount_channel_free(ch);  /* after parked requests got their answers */
	fuse_registrar_free(reg);     /* after the server closed its ids */
	return r;
}
