/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef STAINLESS_CMD_EXEC_H
#define STAINLESS_CMD_EXEC_H
/* `stainless exec ...`; argv[0] is "exec". Returns the process exit code. */
int exec_main(int argc, char **argv);
#endif
