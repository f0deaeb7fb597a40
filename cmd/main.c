// SPDX-License-Identifier: GPL-2.0-only
/* stainless: subcommand dispatch. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>

#include "base/exit.h"
#include "base/fail.h"
#include "cmd/exec.h"
#include "cmd/fuse_mount.h"
#include "cmd/help.h"
#include "cmd/mount_helper.h"
#include "cmd/p9_serve.h"
#include "cmd/run.h"
#include "cmd/vhost_user_fs.h"
#include "sandbox/sandbox.h"
#include "sandbox/seccomp.h"

/* Every command's synopsis, from the commands' option tables (cmd/help.c). */
static void usage(FILE *f)
{
	help_overview(f);
}

/*
 * Every command's threads run under a seccomp filter per role: the
 * options are taken out of argv here, the filters built before the
 * command starts any thread. Returns -1 to go on, else an exit code.
 */
static int seccomp_options(enum sc_command cmd, const char *name, int *argc, char **argv)
{
	struct sc_opts o;
	char err[256];

	if (sc_take_args(argc, argv, &o, err, sizeof(err)) < 0) {
		return fail(EXIT_USAGE, "%s", err);
	}
	if (o.print_role) {
		sc_print_role(stdout, cmd, (enum fs_role)sc_role_by_name(o.print_role), o.mode);
		return 0;
	}
	if (sc_setup(cmd, o.mode, err, sizeof(err)) < 0) {
		return fail(EXIT_FAILED, "seccomp: %s", err);
	}
	return -1;
}

/*
 * The kernel log, opened by a sandbox's supervisor before its seccomp
 * filter (which opens no file): it reads the kill report's record there.
 * Seeked to its end, so only records of this run count.
 */
static int kill_report_fd = -1;

static void open_kill_report(void)
{
	kill_report_fd = sc_report_open();
}

/* argv[0] is the command's word (or a virtiofsd's name). */
static int run_command(const char *cmd, int argc, char **argv)
{
	if (strcmp(cmd, "run") == 0)
		return run_main(argc, argv);
	if (strcmp(cmd, "exec") == 0)
		return exec_main(argc, argv);
	if (strcmp(cmd, "fuse-mount") == 0)
		return fuse_mount_main(argc, argv);
	if (strcmp(cmd, "9p-serve") == 0)
		return p9_serve_main(argc, argv);
	if (strcmp(cmd, "vhost-user-fs") == 0)
		return vhost_user_fs_main(argc, argv);
	fail_set_command(NULL);
	return fail(EXIT_USAGE, "unknown command '%s' (try stainless --help)", cmd);
}

/*
 * One command, argv[0] its word ("run", ...) or, for a virtiofsd, the
 * program's own name: its seccomp options taken out, its filters built,
 * then the command itself.
 */
static int command(const char *cmd, int argc, char **argv)
{
	static const struct { const char *name; enum sc_command cmd; } confined[] = {
		{ "run", SC_CMD_RUN }, { "exec", SC_CMD_RUN }, /* exec's VMM is run's */
		{ "fuse-mount", SC_CMD_FUSE_MOUNT },
		{ "9p-serve", SC_CMD_9P_SERVE }, { "vhost-user-fs", SC_CMD_VHOST_USER },
	};
	int rc;

	fail_set_command(cmd); /* every set-up error line names the command */
	for (unsigned i = 0; i < sizeof(confined) / sizeof(confined[0]); i++) {
		if (strcmp(cmd, confined[i].name) != 0)
			continue;
		rc = seccomp_options(confined[i].cmd, cmd, &argc, argv);
		if (rc >= 0)
			return rc;
		sandbox_on_supervise(open_kill_report);
	}
	/* Every command's result becomes an exit code here and nowhere else. */
	rc = exit_status(run_command(cmd, argc, argv));
	/*
	 * The sandbox's supervisor learns a server's death from its exit code:
	 * 128 + SIGSYS is a seccomp kill, whose audit record names the call.
	 */
	if (rc == 128 + SIGSYS && strcmp(cmd, "exec") != 0) /* exec: the guest command's */
		sc_report_exit(stderr, kill_report_fd, -1, SIGSYS); /* wait status: killed by SIGSYS */
	if (kill_report_fd >= 0)
		close(kill_report_fd);
	return rc;
}

/*
 * Programs that start a virtiofsd (libvirt's <binary path>, Kata's
 * virtio_fs_daemon, QEMU's vhost-user descriptors) run it by path with
 * virtiofsd's argv and no subcommand word: under either of these names
 * the binary is `stainless vhost-user-fs`.
 */
static bool virtiofsd_name(const char *argv0)
{
	const char *base = strrchr(argv0, '/');

	base = base ? base + 1 : argv0;
	return strcmp(base, "virtiofsd") == 0 || strcmp(base, "stainless-virtiofsd") == 0;
}

/* mount(8)'s helper (mount_helper.h): fuse-mount --background. */
static int mount_helper(int argc, char **argv)
{
	char *av[8], opts[4096];
	int n = mount_helper_argv(argc, argv, av, 8, opts, sizeof(opts));

	return n < 0 ? 1 : command("fuse-mount", n, av);
}

int main(int argc, char **argv)
{
	if (argc >= 1 && virtiofsd_name(argv[0]))
		return command("vhost-user-fs", argc, argv);
	if (mount_helper_called(argc, argv))
		return mount_helper(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];

	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "help") == 0)
		return help_main(argc - 1, argv + 1);
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0) {
		printf("stainless %s\n", STAINLESS_VERSION);
		return 0;
	}
	return command(cmd, argc - 1, argv + 1);
}
