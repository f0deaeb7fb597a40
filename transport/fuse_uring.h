/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-mount's second channel (--uring): FUSE over io_uring (Linux 6.14+,
 * with the fuse module's enable_uring set). The kernel keeps one request queue per
 * possible CPU and hands a request to the queue of the CPU its caller runs
 * on; we serve each queue with one thread pinned to that CPU, so a request
 * is served where it was made, with no wake-up across CPUs. A ring entry is
 * a header block and a payload buffer registered with the kernel;
 * answering one and fetching the next request is a single COMMIT_AND_FETCH
 * command.
 *
 * Requests arrive here only once every queue has an entry registered;
 * until then, and always for FORGET and INTERRUPT, they come through
 * /dev/fuse as before. A request the server parks (SETLKW) keeps its
 * entry until answered; each queue has FUSE_URING_DEPTH entries.
 *
 * It is not the default: one process with many requests in flight (fio
 * libaio at QD16) puts them all on its own CPU's queue, where /dev/fuse
 * lets the caller and a reader work on two CPUs at once (README, Benchmarks).
 */
#ifndef STAINLESS_TRANSPORT_FUSE_URING_H
#define STAINLESS_TRANSPORT_FUSE_URING_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

struct fuse_server;
struct fuse_uring;

#define FUSE_URING_DEPTH 16

/* Whether this kernel lets a server use FUSE over io_uring now. */
bool fuse_uring_enabled(void);

/*
 * How many queues the kernel gives a connection: one per possible CPU
 * (/sys/devices/system/cpu/possible), read once and kept, so fuse-mount
 * asks before its sandbox hides /sys.
 */
unsigned fuse_uring_queues(void);

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
