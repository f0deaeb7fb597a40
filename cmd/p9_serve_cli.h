/* SPDX-License-Identifier: GPL-2.0-only */
/* `stainless 9p-serve`'s option table and command line (opt_table.h). */
#ifndef STAINLESS_CMD_P9_SERVE_CLI_H
#define STAINLESS_CMD_P9_SERVE_CLI_H

#include <stdint.h>
#include <sys/types.h>

#include "cmd/opt_common.h"

extern const struct opt_cmd p9_serve_cmd;

struct p9_serve_args {
	const char *sock, *dir;
	gid_t gid;                /* --socket-group; (gid_t)-1: none */
	unsigned max_conns;       /* --max-connections */
	uint64_t max_mem;         /* --max-memory */
	struct fs_options opts;
	struct sandbox_opts sbo;
	struct opt_common cc;     /* --log-level, --stats, --help ... */
};

/* -1: go on; otherwise the exit code (0 after --help or --version, 2 after one line). */
int p9_serve_parse(int argc, char **argv, struct p9_serve_args *a);

#endif
