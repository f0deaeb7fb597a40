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
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/exit.h"
#include "base/fail.h"
#include "fs/fs_fdbudget.h"
#include "fs/fs_options.h"
#include "fs/fuse/fuse_server.h"
#include "sandbox/sandbox.h"
#include "transport/fuse_mount.h"
#include "transport/fuse_mountpoint.h"
#include "transport/fuse_uring.h"

static int usage(const char *why, const char *what)
{
	return fail(EXIT_USAGE, "%s%s%s", why, what ? ": " : "", what ? what : "");
}

/* --sandbox, --uid-map...: 1 when a is one (taken or refused: *r), else 0. */
static int sandbox_arg(struct sandbox_opts *sbo, int argc, char **argv, int *i, int *r)
{
	const char *a = argv[*i], *eq, *val = NULL;
	char name[32], why[160];

	if (strncmp(a, "--", 2) != 0)
		return 0;
	eq = strchr(a, '=');
	snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - a - 2) : (int)strlen(a + 2), a + 2);
	if (eq)
		val = eq + 1;
	else if (sandbox_opt_has_value(name) && *i + 1 < argc)
		val = argv[++*i];
	int t = sandbox_opt(sbo, name, val, why, sizeof(why));
	if (t == 1) {
		if (!eq && val)
			--*i;
		return 0;
	}
	*r = t < 0 ? usage(why, NULL) : 0;
	return 1;
}

static int parse_args(int argc, char **argv, struct fs_options *o, struct sandbox_opts *sbo,
		      const char **dir, const char **mnt, bool *uring)
{
	const char *pos[2];
	int npos = 0, r;

	fs_options_default(o);
	sandbox_opts_init(sbo);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (sandbox_arg(sbo, argc, argv, &i, &r)) {
			if (r)
				return r;
		} else if (strcmp(a, "--cache") == 0) {
			if (++i >= argc)
				return usage("--cache needs a value (never, auto, always, metadata)", NULL);
			if (fs_parse_cache(argv[i], &o->cache))
				return usage("cache must be never, auto, always or metadata", argv[i]);
		} else if (strncmp(a, "--cache=", 8) == 0) {
			if (fs_parse_cache(a + 8, &o->cache))
				return usage("cache must be never, auto, always or metadata", a + 8);
		} else if (strcmp(a, "--readonly") == 0) {
			o->readonly = true;
		} else if (strcmp(a, "--xattr") == 0) {
			o->xattr = true;
		} else if (strcmp(a, "--xattr-map") == 0) {
			o->xattr = true;
			o->xattr_map = true;
		} else if (strcmp(a, "--writeback") == 0) {
			o->writeback = true;
		} else if (strcmp(a, "--devices") == 0) {
			o->devices = true;
		} else if (strcmp(a, "--uring") == 0) {
			*uring = true;
		} else if (strcmp(a, "--single") == 0 || strcmp(a, "--poll") == 0 ||
			   strncmp(a, "--poll=", 7) == 0) {
			/* Serving modes that did not earn their place (README, Benchmarks). */
			return usage("this option is gone: /dev/fuse has one way of serving, "
				     "--uring the other", a);
		} else if (a[0] == '-' && a[1]) {
			return usage("unknown option", a);
		} else if (npos < 2) {
			pos[npos++] = a;
		} else {
			return usage("too many arguments", a);
		}
	}
	if (npos < 2)
		return usage("usage: stainless fuse-mount DIR MOUNTPOINT "
			     "[--cache never|auto|always|metadata] [--readonly] [--xattr] [--xattr-map] [--writeback] "
			     "[--devices] [--uring] " SANDBOX_USAGE,
			     NULL);
	*dir = pos[0];
	*mnt = pos[1];
	return 0;
}

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

/* In the sandbox's supervisor (sandbox.h): the mount is taken down here. */
static bool supervisor_stop(void *ctx, int sig)
{
	(void)sig;
	(void)fuse_mountpoint_close(ctx);
	return false; /* the server ends by itself when its reads fail (ENODEV) */
}

static void supervisor_ended(void *ctx)
{
	(void)fuse_mountpoint_close(ctx); /* a server that died left its mount */
}

int fuse_mount_main(int argc, char **argv)
{
	struct fuse_server *srv;
	struct fs_options o;
	struct fuse_mount_channel *ch = NULL;
	struct fuse_mountpoint mp;
	struct sandbox_opts sbo;
	struct sandbox sb;
	bool uring = false, want_uring;
	const char *dir = NULL, *mnt = NULL;
	int fd, r, code;

	r = parse_args(argc, argv, &o, &sbo, &dir, &mnt, &uring);
	if (r || (r = check_dir("share", dir)) || (r = check_dir("mount point", mnt)))
		return r;
	want_uring = uring && fuse_uring_enabled();
	if (uring && !want_uring)
		fail(0, "--uring: this kernel does not offer FUSE "
			"over io_uring (fuse module parameter enable_uring); serving through "
			"/dev/fuse");
	(void)fuse_uring_queues(); /* read from /sys now, while /sys is there */
	/* The mount in the host's namespace, before the sandbox's fork. */
	fd = fuse_mountpoint_open(&mp, mnt, FUSE_SERVER_MAX_WRITE);
	if (fd < 0)
		return 1;
	sandbox_init(&sb, "fuse-mount", &sbo);
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
	if (r == 0) {
		r = fuse_server_create_params(&srv, sandbox_path(&sb, dir), &o,
					      &(struct fuse_server_params){ .io_uring = want_uring });
		if (r)
			fail(0, "%s: %s", dir, strerror(-r));
	}
	if (r) {
		if (sb.opts.mode != SANDBOX_NAMESPACE)
			(void)fuse_mountpoint_close(&mp);
		fuse_mount_channel_free(ch);
		close(fd);
		return 1;
	}
	/* mp NULL: the mount is the sandbox supervisor's to take down, not ours. */
	r = fuse_mount_serve(ch, srv, fd, sb.opts.mode == SANDBOX_NAMESPACE ? NULL : &mp);
	close(fd);
	fuse_server_destroy(srv);
	fuse_mount_channel_free(ch);  /* after parked requests got their answers */
	return r;
}
