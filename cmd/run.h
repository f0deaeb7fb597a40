/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef STAINLESS_CMD_RUN_H
#define STAINLESS_CMD_RUN_H
/* `stainless run ...`; argv[0] is "run". Returns the process exit code. */
int run_main(int argc, char **argv);

struct vm_config;
struct sandbox_opts;
/*
 * The VM of a parsed config, as run builds it (checked inputs, the
 * sandbox, vm_run), for commands that compose a config themselves
 * (exec). The exit code or -errno, as run_main's.
 */
int run_config(struct vm_config *cfg, const struct sandbox_opts *sbo);
#endif
