// SPDX-License-Identifier: GPL-2.0-only
/* Restricted io_uring set-up (see fs_uring.h). */
#include "base/uring.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_RESTRICTIONS 16

/* liburing 2.3 declares but does not export the restriction wrappers. */
static int ring_register(struct io_uring *ring, unsigned op, const void *arg, unsigned n)
{
	return syscall(__NR_io_uring_register, ring->ring_fd, op, arg, n) < 0 ? -errno : 0;
}

static int restrict_ring(struct io_uring *ring, const struct fs_uring_policy *pol)
{
	struct io_uring_restriction res[MAX_RESTRICTIONS];
	unsigned n = 0;

	if (pol->nops + 1 > MAX_RESTRICTIONS)
		return -E2BIG;
	memset(res, 0, sizeof(res));
	for (unsigned i = 0; i < pol->nops; i++) {
		res[n].opcode = IORING_RESTRICTION_SQE_OP;
		res[n++].sqe_op = pol->ops[i];
	}
	/* No flag is allowed unless named: no links, drains or async punts. */
	if (pol->nfiles) {
		res[n].opcode = pol->fixed_only ? IORING_RESTRICTION_SQE_FLAGS_REQUIRED
						: IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
		res[n++].sqe_flags = IOSQE_FIXED_FILE;
	}
	/* No IORING_RESTRICTION_REGISTER_OP: once enabled, nothing registers. */
	return ring_register(ring, IORING_REGISTER_RESTRICTIONS, res, n);
}

int fs_uring_init(struct io_uring *ring, unsigned entries, struct io_uring_params *p,
		  const struct fs_uring_policy *pol)
{
	struct io_uring_params none = { 0 };
	int r;

	if (!p)
		p = &none;
	if (pol->fixed_only && !pol->nfiles)
		return -EINVAL;
	p->flags |= IORING_SETUP_R_DISABLED;
	r = io_uring_queue_init_params(entries, ring, p);
	if (r < 0)
		return r;
	if (pol->nfiles)
		r = io_uring_register_files(ring, pol->files, pol->nfiles);
	if (r == 0)
		r = restrict_ring(ring, pol);
	if (r == 0)
		r = ring_register(ring, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
	if (r < 0)
		io_uring_queue_exit(ring);
	return r;
}
