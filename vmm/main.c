// SPDX-License-Identifier: GPL-2.0-only
/* stainless: subcommand dispatch. */
#include <stdio.h>
#include <string.h>

#include "transport/fuse_mount.h"
#include "transport/p9_serve.h"
#include "transport/vhost_user_fs.h"
#include "vmm/vm.h"

static void usage(FILE *f)
{
	fputs("stainless " STAINLESS_VERSION " - a KVM microVM monitor with fast host-folder shares\n"
	      "\n"
	      "usage:\n"
	      "  stainless run --kernel PATH [--initrd PATH] [--cmdline STR] [--mem 512M] [--cpus N]\n"
	      "                [--fs TAG=DIR[,cache=never|auto|always][,dax=SIZE][,readonly][,xattr[=map]]\n"
	      "                      [,writeback][,devices]]...\n"
	      "                [--9p TAG=DIR[,msize=BYTES][,readonly][,xattr=map][,devices]]...\n"
	      "                [--console stdio|none|PATH] [--rng] [--no-sandbox]\n"
	      "  stainless vhost-user-fs (--socket-path PATH | --fd FD) --shared-dir DIR [--tag TAG]\n"
	      "                [--socket-group GROUP] [FS OPTIONS] [--cache metadata] [--syslog]\n"
	      "                [--log-level LEVEL] [--sandbox MODE] [--seccomp MODE] [-o ...]\n"
	      "                (a drop-in virtiofsd; see stainless vhost-user-fs --help)\n"
	      "  stainless fuse-mount DIR MOUNTPOINT [FS OPTIONS] [--uring]\n"
	      "  stainless 9p-serve --socket PATH DIR [--socket-group GROUP] [--msize BYTES] [--readonly]\n"
	      "                     [--devices] [--xattr-map] [--poll USEC]\n"
	      "    FS OPTIONS: [--cache never|auto|always] [--readonly] [--xattr] [--xattr-map]\n"
	      "                [--writeback] [--devices]\n"
	      "  stainless --help | --version\n", f);
}

int main(int argc, char **argv)
{
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
	if (strcmp(cmd, "run") == 0)
		return vm_run_main(argc - 1, argv + 1);
	if (strcmp(cmd, "fuse-mount") == 0)
		return fuse_mount_main(argc - 1, argv + 1);
	if (strcmp(cmd, "9p-serve") == 0)
		return p9_serve_main(argc - 1, argv + 1);
	if (strcmp(cmd, "vhost-user-fs") == 0)
		return vhost_user_fs_main(argc - 1, argv + 1);
	fprintf(stderr, "stainless: unknown command '%s' (try stainless --help)\n", cmd);
	return 2;
}
