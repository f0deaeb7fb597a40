// SPDX-License-Identifier: GPL-2.0-only
/* Poll-then-sleep wait for the next request (see fs_wait.h). */
#include "transport/fs_wait.h"

#include <errno.h>
#include <poll.h>
#include <time.h>

uint64_t fs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int fs_wait_readable(int fd, uint32_t poll_us, int sleep_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll_us) {
		uint64_t deadline = fs_now_ns() + (uint64_t)poll_us * 1000u;

		do {
			if (poll(&p, 1, 0) != 0)
				return 0;   /* ready, or an error the read will report */
		} while (fs_now_ns() < deadline);
	}
	while (poll(&p, 1, sleep_ms) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}
