// SPDX-License-Identifier: GPL-2.0-only
/* What a freshly forked helper process keeps (see fds.h). */
#include "base/fds.h"

#include <unistd.h>

void fds_keep_two(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if (lo > 3)
		close_range(3, (unsigned)lo - 1, 0);
	if (hi > lo + 1)
		close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
	close_range((unsigned)hi + 1, ~0u, 0);
}
