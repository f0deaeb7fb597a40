/* SPDX-License-Identifier: GPL-2.0-only */
/* `stainless run`'s option table (opt_table.h); the parser: run_cli.c. */
#ifndef STAINLESS_CMD_RUN_TABLE_H
#define STAINLESS_CMD_RUN_TABLE_H

#include "cmd/opt_common.h"

enum { RUN_KERNEL = OPT_KEY_BASE, RUN_INITRD, RUN_CMDLINE, RUN_MEM, RUN_CPUS, RUN_CONSOLE,
       RUN_FS, RUN_9P, RUN_FS_HUB, RUN_RNG, RUN_API, RUN_CONFIG, RUN_SHARED,
       RUN_VSOCK };

extern const struct opt_cmd run_cmd;

#endif
