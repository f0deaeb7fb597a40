// SPDX-License-Identifier: GPL-2.0-only
/* stainless: subcommand dispatch. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>

#include "cmd/fuse_mount.h"
#include "cmd/p9_serve.h"
#include "cmd/run.h"
#include "cmd/vhost_user_fs.h"
#include "sandbox/sandbox.h"
#include "sandbox/seccomp.h"

static void usage(FILE *f)
{
	fputs("stainless " STAINLESS_VERSION " - a KVM microVM monitor with fast host-folder shares\n"
	      "\n"
	      "usage:\n"
	      "  stainless run --kernel PATH [--initrd PATH] [--cmdline STR] [--mem 512M] [--cpus N]\n"
	      "                [--fs TAG=DIR[,cache=never|auto|always|metadata][,dax=SIZE][,readonly][,xattr[=map]]\n"
	      "                      [,writeback][,devices]]...\n"
	      "                [--9p TAG=DIR[,msize=BYTES][,readonly][,xattr=map][,devices]]...\n"
	      "                [--shared-dir PATH:TAG[:type=fs|p9][:KEY=VALUE]...]... (crosvm's spelling)\n"
	      "                [--api-sock PATH] [--config-file FILE]\n"
	      "                [--console stdio|none|PATH] [--rng] [--no-sandbox]\n"
	      "                [--seccomp kill|log|trap|none] [--print-seccomp ROLE]\n"
	      "  stainless vhost-user-fs (--socket-path PATH | --fd FD) --shared-dir DIR [--tag TAG]\n"
	      "                [--socket-group GROUP] [FS OPTIONS] [--syslog]\n"
	      "                [--log-level LEVEL] [--sandbox MODE] [--seccomp MODE] [-o ...]\n"
	      "                (a drop-in virtiofsd; see stainless vhost-user-fs --help)\n"
	      "  stainless fuse-mount DIR MOUNTPOINT [FS OPTIONS] [--uring]\n"
	      "  stainless 9p-serve --socket PATH DIR [--socket-group GROUP] [--msize BYTES] [--readonly]\n"
	      "                     [--devices] [--xattr-map] [--poll USEC]\n"
	      "    FS OPTIONS: [--cache never|auto|always|metadata] [--readonly] [--xattr] [--xattr-map]\n"
	      "                [--writeback] [--devices]\n"
	      "  run, fuse-mount and 9p-serve also take [--seccomp kill|log|trap|none] (default kill)\n"
	      "  and --print-seccomp ROLE (control, vcpu, queue, lock-wait, console,\n"
	      "  fuse-reader, fuse-uring, 9p-conn, vhost-user, spawner): the role's rules, then exit\n"
	      "  stainless --help | --version\n"
	      "  virtiofsd ... | stainless-virtiofsd ...   (this binary under that name:\n"
	      "                the vhost-user-fs command, virtiofsd's options)\n", f);
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
		fprintf(stderr, "stainless %s: %s\n", name, err);
		return 2;
	}
	if (o.print_role) {
		sc_print_role(stdout, cmd, (enum fs_role)sc_role_by_name(o.print_role), o.mode);
		return 0;
	}
	if (sc_setup(cmd, o.mode, err, sizeof(err)) < 0) {
		fprintf(stderr, "stainless %s: seccomp: %s\n", name, err);
		return 1;
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
	if (strcmp(cmd, "fuse-mount") == 0)
		return fuse_mount_main(argc, argv);
	if (strcmp(cmd, "9p-serve") == 0)
		return p9_serve_main(argc, argv);
	if (strcmp(cmd, "vhost-user-fs") == 0)
		return vhost_user_fs_main(argc, argv);
	fprintf(stderr, "stainless: unknown command '%s' (try stainless --help)\n", cmd);
	return 2;
}

/*
 * One command, argv[0] its word ("run", ...) or, for a virtiofsd, the
 * program's own name: its seccomp options taken out, its filters built,
 * then the command itself.
 */
static int command(const char *cmd, int argc, char **argv)
{
	static const struct { const char *name; enum sc_command cmd; } confined[] = {
		{ "run", SC_CMD_RUN }, { "fuse-mount", SC_CMD_FUSE_MOUNT },
		{ "9p-serve", SC_CMD_9P_SERVE }, { "vhost-user-fs", SC_CMD_VHOST_USER },
	};
	int rc;

	for (unsigned i = 0; i < sizeof(confined) / sizeof(confined[0]); i++) {
		if (strcmp(cmd, confined[i].name) != 0)
			continue;
		rc = seccomp_options(confined[i].cmd, cmd, &argc, argv);
		if (rc >= 0)
			return rc;
		sandbox_on_supervise(open_kill_report);
	}
	rc = run_command(cmd, argc, argv);
	/*
	 * The sandbox's supervisor learns a server's death from its exit code:
	 * 128 + SIGSYS is a seccomp kill, whose audit record names the call.
	 */
	if (rc == 128 + SIGSYS)
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

int main(int argc, char **argv)
{
	if (argc >= 1 && virtiofsd_name(argv[0]))
		return command("vhost-user-fs", argc, argv);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];

	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		printf("stainless %s\n", STAINLESS_VERSION);
		return 0;
	}
	return command(cmd, argc - 1, argv + 1);
}
