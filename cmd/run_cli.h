/* SPDX-License-Identifier: GPL-2.0-only */
/* `stainless run` command line → struct vm_config (no side effects). */
#ifndef STAINLESS_CMD_RUN_CLI_H
#define STAINLESS_CMD_RUN_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "sandbox/sandbox.h"
#include "vmm/vm_config.h"

/*
 * Parse `run` arguments (argv[0] is "run"): the VM's into cfg, the
 * sandbox's into sbo. Returns 0, 1 when --help was
 * asked for (usage already printed), or -EINVAL with a one-line reason in
 * err. Checks only what the command line itself can tell; files and KVM
 * are checked when the VM is built.
 */
int cli_parse_run(int argc, char **argv, struct vm_config *cfg, struct sandbox_opts *sbo,
		  char *err, size_t errlen);
void cli_run_usage(FILE *f);

/* One of run's own options by its key (run_table.h), for commands that
 * share run's rows (exec): 0, or -EINVAL with err. */
int cli_run_option(struct vm_config *cfg, struct sandbox_opts *sbo, int key, const char *v,
		   char *err, size_t errlen);

#endif
