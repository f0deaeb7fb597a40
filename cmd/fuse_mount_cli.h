/* SPDX-License-Identifier: GPL-2.0-only */
/* `stainless fuse-mount`'s option table and command line (opt_table.h). */
#ifndef STAINLESS_CMD_FUSE_MOUNT_CLI_H
#define STAINLESS_CMD_FUSE_MOUNT_CLI_H

#include "cmd/opt_common.h"
#include "transport/fuse_mount_opts.h"

extern const struct opt_cmd fuse_mount_cmd;

struct fuse_mount_cli {
	const char *dir, *mnt;
	struct fs_options opts;
	struct fuse_mount_args ma;    /* -o's mount words; ma.uring also --uring */
	struct sandbox_opts sbo;
	bool background;              /* return once serving (mount(8)'s helper) */
	struct opt_common cc;
};

/* -1: go on; otherwise the exit code (0 after --help or --version, 2 after one line). */
int fuse_mount_parse(int argc, char **argv, struct fuse_mount_cli *a);

#endif
