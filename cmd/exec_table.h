/* SPDX-License-Identifier: GPL-2.0-only */
/* `stainless exec`'s option table (opt_table.h); the parser: exec_cli.c. */
#ifndef STAINLESS_CMD_EXEC_TABLE_H
#define STAINLESS_CMD_EXEC_TABLE_H

#include "cmd/opt_common.h"
#include "cmd/run_table.h"

/* The VM's options keep run's keys (run_cli.c parses them); these are exec's own. */
enum { EXEC_OPT_ENV = RUN_VSOCK + 1, EXEC_OPT_CWD, EXEC_OPT_USER, EXEC_OPT_HOSTNAME,
       EXEC_OPT_CONSOLE_LOG, EXEC_OPT_RLIMIT };

extern const struct opt_cmd exec_cmd;

#endif
