/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CPU time of a process tree, for the load generators' server-CPU column:
 * stainless serves from a child it forks into its sandbox, and QEMU's C
 * virtiofsd from one it forks into its own, so the PID a benchmark started
 * is only the top of what serves.
 */
#ifndef STAINLESS_BENCH_PROC_TREE_H
#define STAINLESS_BENCH_PROC_TREE_H

#include <sys/types.h>

/* utime+stime in clock ticks of root and every process descended from
 * it; -1 when root is gone. */
long long proc_tree_ticks(pid_t root);

#endif
