/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `stainless exec` command line -> the VM's config and the command
 * (no side effects; the root share and the vsock device are added by
 * cmd/exec.c, which knows where they live).
 */
#ifndef STAINLESS_CMD_EXEC_CLI_H
#define STAINLESS_CMD_EXEC_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "sandbox/sandbox.h"
#include "vmm/vm_config.h"

#define EXEC_RLIMITS_MAX 16
#define EXEC_HOSTNAME_MAX 64

struct exec_rlimit {
	int resource;
	unsigned long long soft, hard;
};

struct exec_opts {
	struct vm_config cfg;
	struct sandbox_opts sbo;
	const char *rootdir;
	char **argv;              /* the command, NULL-ended, inside the caller's argv */
	unsigned argc;
	const char **env;         /* --env, in order; malloc'd (exec_opts_free) */
	unsigned nenv;
	const char *cwd;          /* NULL: / */
	bool user;
	uid_t uid;
	gid_t gid;
	const char *hostname;
	const char *cmdline_extra;
	const char *console_log;
	unsigned nrl;
	struct exec_rlimit rl[EXEC_RLIMITS_MAX];
};

/*
 * Parse `exec` arguments (argv[0] is "exec"): 0, 1 when --help or
 * --version was answered, or -EINVAL with a one-line reason in err.
 */
int cli_parse_exec(int argc, char **argv, struct exec_opts *o, char *err, size_t errlen);
void exec_opts_free(struct exec_opts *o);

/* --user UID[:GID]: numbers only, a missing GID is the UID's. 0 or -EINVAL. */
int exec_parse_user(const char *v, uid_t *uid, gid_t *gid);

#endif
