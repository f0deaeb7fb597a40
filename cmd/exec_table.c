// SPDX-License-Identifier: GPL-2.0-only
/* `stainless exec`'s option table (see exec_table.h). */
#include "cmd/exec_table.h"

static const struct opt_def own[] = {
	{ "kernel", 0, OPT_VALUE, "PATH", NULL, "the guest kernel (default: the one installed "
	  "beside stainless, docs/containers.md)", "@file", 0, RUN_KERNEL },
	{ "cmdline", 0, OPT_VALUE, "STR", NULL, "more words for the guest kernel's command line",
	  NULL, 0, RUN_CMDLINE },
	{ "mem", 0, OPT_VALUE, "SIZE", "512M", "guest RAM, 32M to 1T (a bare number is MiB)",
	  NULL, 0, RUN_MEM },
	{ "cpus", 0, OPT_VALUE, "N", "1", "vCPUs, 1 to 255", NULL, 0, RUN_CPUS },
	{ "fs", 0, OPT_VALUE, "TAG=DIR[,OPTS]", NULL, "one more virtio-fs share, as run's --fs "
	  "(repeatable; the guest mounts it itself)", NULL, OPT_REPEAT, RUN_FS },
	{ "9p", 0, OPT_VALUE, "TAG=DIR[,OPTS]", NULL, "one more virtio-9p share, as run's --9p "
	  "(repeatable)", NULL, OPT_REPEAT, RUN_9P },
	{ "env", 0, OPT_VALUE, "KEY=VALUE", NULL, "an environment variable of the command "
	  "(repeatable; PATH defaults to the usual one)", NULL, OPT_REPEAT, EXEC_OPT_ENV },
	{ "cwd", 0, OPT_VALUE, "DIR", "/", "the command's working directory, in ROOTDIR", NULL, 0,
	  EXEC_OPT_CWD },
	{ "user", 0, OPT_VALUE, "UID[:GID]", "0:0", "the command's user and group, numbers; "
	  "supplementary groups cleared", NULL, 0, EXEC_OPT_USER },
	{ "hostname", 0, OPT_VALUE, "NAME", "stainless", "the guest's host name", NULL, 0,
	  EXEC_OPT_HOSTNAME },
	{ "rlimit", 0, OPT_VALUE, "NAME=SOFT[:HARD]", NULL, "a resource limit of the command: "
	  "nofile, nproc, core, stack, as, fsize, memlock, cpu (repeatable)", NULL, OPT_REPEAT,
	  EXEC_OPT_RLIMIT },
	{ "console-log", 0, OPT_VALUE, "FILE", NULL, "the guest kernel's console into FILE "
	  "(default: nowhere; it never mixes into the command's output)", "@file", 0,
	  EXEC_OPT_CONSOLE_LOG },
	{ 0 },
};

static const struct opt_def *const groups[] = {
	own, opt_group_sandbox, opt_group_seccomp, opt_group_log, opt_group_help, NULL,
};

const struct opt_cmd exec_cmd = {
	.name = "exec",
	.prog = "stainless exec",
	.synopsis = "[OPTIONS] ROOTDIR -- CMD [ARGS...]",
	.summary = "Run a command in a microVM whose root file system is ROOTDIR.",
	.description = "ROOTDIR is the guest's root over virtio-fs (cache=always, no DAX: "
		"docs/containers.md says why); a small init of stainless's own mounts /proc, "
		"/sys, /dev and /dev/pts, sets the environment, directory, user, host name and "
		"limits, and runs CMD. Its stdin, stdout and stderr are stainless's (a pty in "
		"the guest when stdin is a terminal), SIGINT, SIGTERM and SIGHUP are passed to "
		"it, and its exit status is stainless's: the code, 128+N for a signal, 127 for a "
		"command not found, 126 for one that cannot run. 2 is a bad command line, 1 a "
		"failure of stainless or the VM, with one line saying what.",
	.example = "stainless exec --env LANG=C.UTF-8 --user 1000:1000 /srv/alpine -- /bin/sh -c "
		"'uname -r'",
	.groups = groups,
};
