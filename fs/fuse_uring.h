/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-mount's second channel (--uring): FUSE over io_uring (Linux 6.14+,
 * with the fuse module's enable_uring set). The kernel keeps one request queue per
 * possible CPU and hands a request to the queue of the CPU its caller runs
 * on; we serve each queue with one thread pinned to that CPU, so a request
 * and its answer never cross CPUs and nobody waits for a sleeping core to
 * wake (on this project's 2-vCPU hosts that wake-up is most of a FUSE round
 * trip). A ring entry is a header block and a payload buffer registered
 * with the kernel; answering one and fetching the next request is a single
 * COMMIT_AND_FETCH command.
 *
 * Requests arrive here only once every queue has an entry registered;
 * until then, and always for FORGET and INTERRUPT, they come through
 * /dev/fuse as before. A request the server parks (SETLKW) keeps its
 * entry until answered; each queue has FUSE_URING_DEPTH entries.
 *
 * It is not the default. Keeping each request on its caller's CPU halves
 * the server CPU per metadata operation (bench-fuse of 2026-11-30 00:44
 * UTC: 223 against 453 us per file) and wins create+unlink, but the
 * polling /dev/fuse reader on the other CPU overlaps with the caller and
 * wins every fio row and stat (randread psync 30.7k against 15.8k IOPS,
 * randwrite libaio 133k against 65k): on a 2-vCPU host, locality loses to
 * parallelism.
 */
#ifndef STAINLESS_FS_FUSE_URING_H
#define STAINLESS_FS_FUSE_URING_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

struct fuse_server;
struct fuse_uring;

#define FUSE_URING_DEPTH 16

/* Whether this kernel lets a server use FUSE over io_uring now. */
bool fuse_uring_enabled(void);

/*
 * Registers the entries of every queue on dev_fd (the mount's /dev/fuse,
 * after INIT accepted FUSE_OVER_IO_URING) and starts their threads.
 * Returns 0 or -errno (nothing started: /dev/fuse keeps serving).
 */
int fuse_uring_start(struct fuse_uring **out, struct fuse_server *srv, int dev_fd);

/*
 * Splits the request the kernel left in an entry into the server's view:
 * in[0] the fuse_in_header, in[1] the op's first argument (in the header
 * block), in[2] the rest (in the payload buffer). hdr_block is a struct
 * fuse_uring_req_header (288 bytes). -EINVAL when the lengths the kernel
 * wrote cannot describe a request in these buffers. Exposed for tests.
 */
#define FUSE_URING_HDR_BLOCK 288
int fuse_uring_request_iov(void *hdr_block, void *payload, size_t payload_len,
			   struct iovec in[3]);

/*
 * Stops the threads (the connection is gone or going). Requests the server
 * still holds may be answered afterwards, into the entries' memory: free
 * it with fuse_uring_free() after fuse_server_destroy().
 */
void fuse_uring_stop(struct fuse_uring *u);
void fuse_uring_free(struct fuse_uring *u);

#endif
