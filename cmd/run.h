/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef STAINLESS_CMD_RUN_H
#define STAINLESS_CMD_RUN_H
/* `stainless run ...`; argv[0] is "run". Returns the process exit code. */
int run_main(int argc, char **argv);
#endif
