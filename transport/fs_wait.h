/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How a host front end (fuse-mount's reader, a 9p-serve connection) waits
 * for its next request: look for it for a short window, then sleep.
 */
#ifndef STAINLESS_TRANSPORT_FS_WAIT_H
#define STAINLESS_TRANSPORT_FS_WAIT_H

#include <stdint.h>

/*
 * Called when a non-blocking read found nothing (EAGAIN): returns once fd
 * is readable (or has hung up / failed, which the next read reports), or
 * after sleep_ms of sleeping (-1: no limit). Polls without sleeping for up
 * to poll_us microseconds, then sleeps in poll(2). While requests keep
 * coming the reads alone carry them: this costs no system call per
 * request. Returns 0, or -errno from poll(2) other than EINTR.
 */
int fs_wait_readable(int fd, uint32_t poll_us, int sleep_ms);

/* CLOCK_MONOTONIC in nanoseconds: what poll windows and the keeper measure with. */
uint64_t fs_now_ns(void);

#endif
