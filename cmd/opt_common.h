/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The option groups several commands share, written once: the share
 * options of a FUSE server, the sandbox's, seccomp's (taken out of argv
 * before the command's parser, cmd/main.c), the log's, --stats, and help
 * and version. Their keys start at OPT_COMMON_KEY, above every command's
 * own.
 */
#ifndef STAINLESS_CMD_OPT_COMMON_H
#define STAINLESS_CMD_OPT_COMMON_H

#include "cmd/opt_table.h"
#include "fs/fs_log.h"
#include "fs/fs_options.h"
#include "sandbox/sandbox.h"

enum {
	OPT_COMMON_KEY = 0x1000,
	OK_CACHE = OPT_COMMON_KEY, OK_READONLY, OK_XATTR, OK_XATTR_MAP, OK_WRITEBACK, OK_DEVICES,
	OK_SANDBOX, OK_NO_SANDBOX, OK_UID_MAP, OK_GID_MAP, OK_SECCOMP, OK_PRINT_SECCOMP,
	OK_LOG_LEVEL, OK_STATS, OK_VERSION, OK_HELP = 'h', OK_DEBUG = 'd', OK_VERSION_V = 'V',
};

extern const struct opt_def opt_group_fs[];       /* --cache --readonly --xattr ... */
extern const struct opt_def opt_group_sandbox[];  /* --sandbox --uid-map --gid-map */
extern const struct opt_def opt_group_seccomp[];  /* --seccomp --print-seccomp */
extern const struct opt_def opt_group_log[];      /* --log-level -d */
extern const struct opt_def opt_group_stats[];    /* --stats */
extern const struct opt_def opt_group_help[];     /* -h --help -V --version */

/* What the shared groups set. */
struct opt_common {
	struct fs_options *fs;        /* NULL: the command takes no share options */
	struct sandbox_opts *sandbox;
	enum fs_log_level log_level;
	bool stats, help, version;
};

/*
 * The option getopt answered (d) with value v, when it is one of the
 * shared groups': 0 taken, 1 not a shared option, -EINVAL with one line
 * in err.
 */
int opt_common_take(struct opt_common *cc, const struct opt_def *d, const char *v, char *err,
		    size_t errlen);

/*
 * The common end of every command's parser, after getopt: --help and
 * --version print to stdout (1: exit 0), the log level takes effect
 * (0: go on).
 */
int opt_common_finish(const struct opt_common *cc, const struct opt_cmd *c);

#endif
