// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder: the VM composition root lands next. */
#include "vmm/vm.h"
#include "vmm/cli.h"
#include <stdio.h>

int vm_run_main(int argc, char **argv)
{
	struct vm_config cfg;
	char err[256];
	int rc = cli_parse_run(argc, argv, &cfg, err, sizeof(err));

	if (rc < 0) {
		fprintf(stderr, "stainless run: %s\n", err);
		return 2;
	}
	return rc == 1 ? 0 : 1;
}
