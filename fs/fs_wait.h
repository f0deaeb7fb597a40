/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How a host front end (fuse-mount's reader, a 9p-serve connection) waits
 * for its next request: look for it for a short window, then sleep.
 */
#ifndef STAINLESS_FS_FS_WAIT_H
#define STAINLESS_FS_FS_WAIT_H

#include <stdint.h>

/*
 * Returns once fd is readable (or has hung up / failed, which the read
 * that follows reports): polls without sleeping for up to poll_us
 * microseconds, then sleeps in poll(2). poll_us 0 returns at once and
 * leaves the waiting to a blocking read. Returns 0, or -errno from
 * poll(2) other than EINTR.
 */
int fs_wait_readable(int fd, uint32_t poll_us);

#endif
