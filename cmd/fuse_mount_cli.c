// SPDX-License-Identifier: GPL-2.0-only
/* `stainless fuse-mount`'s option table and command line (see fuse_mount_cli.h). */
#include "cmd/fuse_mount_cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>

#include "base/exit.h"
#include "base/fail.h"
#include "fs/fuse/fuse_watch.h"

enum { K_O = 'o', K_URING = OPT_KEY_BASE, K_PASSTHROUGH, K_BACKGROUND, K_WATCHES, K_GONE,
       K_GONE_POLL };

static const struct opt_def own[] = {
	{ NULL, 'o', OPT_VALUE, "OPTIONS", NULL, "comma-separated mount options: the ones below "
	  "without dashes (cache=auto,xattr...), allow_other, ro, rw, noatime, nodev, nosuid, "
	  "noexec, sync, dirsync, fsname=NAME; mount(8)'s own (defaults, noauto, nofail, "
	  "_netdev, x-*) are ignored (repeatable)", NULL, OPT_REPEAT, K_O },
	{ "uring", 0, OPT_FLAG, NULL, NULL, "serve through FUSE over io_uring where the kernel "
	  "offers it", NULL, 0, K_URING },
	{ "passthrough", 0, OPT_FLAG, NULL, NULL, "reads, writes and mappings of open files go "
	  "from the kernel straight to the share's files (FUSE passthrough, Linux 6.9+; root; "
	  "not with writeback); where the kernel or the process cannot, one line and served "
	  "without it", NULL, 0, K_PASSTHROUGH },
	{ "watches", 0, OPT_VALUE, "N", "4096", "(-o watches=N) push host changes to the kernel: inotify "
	  "watches on up to N looked-up directories (at most an eighth of "
	  "fs.inotify.max_user_watches); what none covers is cached 1 s; 0: plain "
	  "cache timeouts", NULL, 0, K_WATCHES },
	{ "background", 0, OPT_FLAG, NULL, NULL, "return once the mount is made, the server "
	  "staying behind (what mount.fuse.stainless uses)", NULL, 0, K_BACKGROUND },
	/* Serving modes that did not earn their place (README, Benchmarks). */
	{ "single", 0, OPT_FLAG, NULL, NULL, "gone", NULL, OPT_HIDDEN, K_GONE },
	{ "poll", 0, OPT_OPTIONAL, NULL, NULL, "gone", NULL, OPT_HIDDEN, K_GONE_POLL },
	{ 0 },
};

static const struct opt_def *const groups[] = {
	own, opt_group_fs, opt_group_sandbox, opt_group_seccomp, opt_group_log, opt_group_stats,
	opt_group_help, NULL,
};

const struct opt_cmd fuse_mount_cmd = {
	.name = "fuse-mount",
	.prog = "stainless fuse-mount",
	.synopsis = "DIR MOUNTPOINT [OPTIONS]",
	.summary = "Mount DIR at MOUNTPOINT through the host's own FUSE client.",
	.description = "The FUSE server a guest's virtio-fs device uses, on the host's /dev/fuse, "
		"so every tool on the host can use and test it. As root the mount is made with "
		"mount(2); otherwise with fusermount3. Only the user who mounted reaches the "
		"files unless -o allow_other (without root, /etc/fuse.conf must say "
		"user_allow_other); the kernel checks the mode bits (default_permissions, "
		"always). The server runs in its own namespaces with the share alone in its "
		"root, under a seccomp filter per thread role; it prints one line when it "
		"serves, and SIGINT or SIGTERM unmount. With mount.fuse.stainless (installed "
		"in sbin), mount -t fuse.stainless DIR MOUNTPOINT -o ... and an fstab line "
		"(DIR MOUNTPOINT fuse.stainless OPTIONS 0 0) work too.",
	.example = "stainless fuse-mount /srv/share /mnt/share -o cache=auto,xattr,allow_other",
	.groups = groups,
	.permute = true,
};

static int positional(struct fuse_mount_cli *a, int argc, char **argv)
{
	if (argc - optind < 2)
		return fail(EXIT_USAGE, "usage: %s %s (see --help)", fuse_mount_cmd.prog,
			    fuse_mount_cmd.synopsis);
	if (argc - optind > 2)
		return fail(EXIT_USAGE, "too many arguments: '%s'", argv[optind + 2]);
	a->dir = argv[optind];
	a->mnt = argv[optind + 1];
	return -1;
}

int fuse_mount_parse(int argc, char **argv, struct fuse_mount_cli *a)
{
	struct option lo[64];
	char shorts[32], why[256];
	int c, r;

	memset(a, 0, sizeof(*a));
	fs_options_default(&a->opts);
	fuse_mount_args_init(&a->ma);
	sandbox_opts_init(&a->sbo);
	a->cc = (struct opt_common){ .fs = &a->opts, .sandbox = &a->sbo,
				     .log_level = FS_LOG_INFO };
	if (opt_getopt(&fuse_mount_cmd, lo, 64, shorts, sizeof(shorts)) < 0)
		return fail(EXIT_USAGE, "the option table is too large");
	opterr = 0;
	optind = 0;   /* full re-initialisation: tests parse many times */
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct opt_def *d = opt_by_key(&fuse_mount_cmd, c);

		if (c == ':')
			return fail(EXIT_USAGE, "%s needs a value (see %s --help)", argv[optind - 1],
				    fuse_mount_cmd.prog);
		if (!d)
			return fail(EXIT_USAGE, "'%s' is not an option fuse-mount takes (see %s --help)",
				    argv[optind - 1], fuse_mount_cmd.prog);
		r = opt_common_take(&a->cc, d, optarg, why, sizeof(why));
		if (r < 0)
			return fail(EXIT_USAGE, "%s", why);
		if (r == 0)
			continue;
		switch (c) {
		case K_O:
			if (fuse_mount_parse_o(optarg, &a->opts, &a->ma, why, sizeof(why)) < 0)
				return fail(EXIT_USAGE, "%s", why);
			break;
		case K_URING:
			a->ma.uring = true;
			break;
		case K_PASSTHROUGH:
			a->ma.passthrough = true;
			break;
		case K_BACKGROUND:
			a->background = true;
			break;
		case K_WATCHES: {
			char *end;
			unsigned long n = strtoul(optarg, &end, 10);

			if (!*optarg || *end || n > FUSE_WATCH_MAX)
				return fail(EXIT_USAGE, "--watches must be 0 to %u, not '%s'",
					    FUSE_WATCH_MAX, optarg);
			a->ma.watches = (uint32_t)n;
			a->ma.watches_set = true;
			break;
		}
		case K_GONE:
		case K_GONE_POLL:
			return fail(EXIT_USAGE, "--%s: this option is gone: /dev/fuse has one way of serving, "
				    "--uring the other", d->name);
		}
	}
	if (opt_common_finish(&a->cc, &fuse_mount_cmd))
		return 0;
	/* The kernel turns passthrough down beside a writeback cache. */
	if (a->ma.passthrough && a->opts.writeback && !a->opts.readonly)
		return fail(EXIT_USAGE, "--passthrough and writeback exclude each other "
			    "(the kernel allows passthrough only without a writeback cache)");
	/* --readonly as -o ro: the mount says so too (mountinfo). */
	if (a->opts.readonly)
		a->ma.msflags |= MS_RDONLY;
	return positional(a, argc, argv);
}