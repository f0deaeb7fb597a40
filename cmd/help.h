/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `stainless --help`, `stainless help [COMMAND]` and what `make dist-docs`
 * writes with it: `stainless help --man COMMAND` (the man page) and
 * `stainless help --bash-completion`, all from the commands' tables.
 */
#ifndef STAINLESS_CMD_HELP_H
#define STAINLESS_CMD_HELP_H

#include <stdio.h>

/* The overview on f. */
void help_overview(FILE *f);
/* argv[0] is "help". The exit code: 0, or 2 after one line. */
int help_main(int argc, char **argv);

#endif
