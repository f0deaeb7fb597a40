/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `stainless vhost-user-fs`'s (virtiofsd's) option table (opt_table.h);
 * the parser: vhost_user_cli.c, the switch and refusal words:
 * vhost_user_opts.c. Every switch has the key VU_K_SWITCH and every
 * refused option VU_K_REFUSED: the parser tells them apart by name.
 */
#ifndef STAINLESS_CMD_VHOST_USER_TABLE_H
#define STAINLESS_CMD_VHOST_USER_TABLE_H

#include "cmd/opt_common.h"

enum {
	VU_K_SOCKET_PATH = OPT_KEY_BASE, VU_K_SOCKET, VU_K_FD, VU_K_SOCKET_GROUP, VU_K_SHARED_DIR,
	VU_K_TAG, VU_K_CACHE, VU_K_READONLY, VU_K_XATTR_MAP, VU_K_DEVICES, VU_K_LOG_LEVEL,
	VU_K_SYSLOG, VU_K_SANDBOX, VU_K_FILE_HANDLES, VU_K_POOL, VU_K_PRINT_CAPS, VU_K_RLIMIT,
	VU_K_STATS, VU_K_SECCOMP, VU_K_DAX_WINDOW, VU_K_WATCHES, VU_K_SWITCH, VU_K_REFUSED,
};

extern const struct opt_cmd vhost_user_cmd;

#endif
