/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every io_uring in the process is created through here: disabled, then
 * restricted to what its owner submits, then enabled.
 *
 * Why: seccomp sees io_uring_enter, not the operations inside the ring, so
 * a ring is a way round every filter unless the ring itself is limited.
 * IORING_REGISTER_RESTRICTIONS (only on a ring created with
 * IORING_SETUP_R_DISABLED) fixes, before the first submission, which
 * opcodes its SQEs may carry and which SQE flags; no register operation is
 * allowed afterwards, so nothing can be added back. Where a ring's fds are
 * known when it is made, they are registered as fixed files and `fixed_only`
 * makes every SQE name one of them (IOSQE_FIXED_FILE required): such a ring
 * can then touch no other file at all, whatever a bug writes into it.
 */
#ifndef STAINLESS_BASE_URING_H
#define STAINLESS_BASE_URING_H

#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>

struct fs_uring_policy {
	const uint8_t *ops;     /* the IORING_OP_* its SQEs may carry */
	unsigned nops;
	const int *files;       /* registered as fixed files 0..nfiles-1, or NULL */
	unsigned nfiles;
	bool fixed_only;        /* every SQE must use IOSQE_FIXED_FILE */
};

/*
 * io_uring_queue_init_params() (p may be NULL; its flags gain
 * IORING_SETUP_R_DISABLED), then the policy, then the ring is enabled.
 * 0 or -errno; on failure the ring is already torn down.
 */
int fs_uring_init(struct io_uring *ring, unsigned entries, struct io_uring_params *p,
		  const struct fs_uring_policy *pol);

#endif
