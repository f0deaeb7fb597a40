// SPDX-License-Identifier: GPL-2.0-only
/* `stainless help` (see help.h). */
#include "cmd/help.h"

#include <string.h>

#include "cmd/exec_table.h"
#include "cmd/fuse_mount_cli.h"
#include "cmd/p9_serve_cli.h"
#include "cmd/run_table.h"
#include "cmd/vhost_user_table.h"

static const struct opt_cmd *const cmds[] = { &run_cmd, &exec_cmd, &fuse_mount_cmd, &p9_serve_cmd,
					       &vhost_user_cmd, NULL };

static const struct opt_cmd *by_name(const char *name)
{
	for (unsigned i = 0; cmds[i]; i++)
		if (strcmp(cmds[i]->name, name) == 0)
			return cmds[i];
	return NULL;
}

void help_overview(FILE *f)
{
	opt_overview(f, cmds);
}

int help_main(int argc, char **argv)
{
	const struct opt_cmd *c;

	if (argc == 1) {
		help_overview(stdout);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--bash-completion") == 0) {
		opt_completion(stdout, cmds);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--man") == 0 && (c = by_name(argv[2]))) {
		opt_man(stdout, c);
		return 0;
	}
	if (argc == 2 && (c = by_name(argv[1]))) {
		opt_usage(stdout, c);
		return 0;
	}
	fprintf(stderr, "stainless help: expected a command (run, fuse-mount, 9p-serve, "
		"vhost-user-fs), --man COMMAND or --bash-completion\n");
	return 2;
}
