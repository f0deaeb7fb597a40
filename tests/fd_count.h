/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The open fds of this process, counted from /proc/self/fd (its own DIR's
 * fd and the dot entries included: callers compare two counts, so only a
 * difference means anything). For tests and fuzz oracles that check a
 * device closed every fd it opened; no Check dependency, so both use it.
 */
#ifndef STAINLESS_TESTS_FD_COUNT_H
#define STAINLESS_TESTS_FD_COUNT_H

#include <dirent.h>

static inline int test_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

#endif
