/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-mount's second channel (--uring): FUSE over io_uring (Linux 6.14+,
 * with the fuse module's enable_uring set). The kernel keeps one request queue per
 * possible CPU and hands a request to the queue of the CPU its caller runs
 * on; we serve each queue with one thread pinned to that CPU, so a request
 * is served where it was made and nobody waits for a sleeping core to wake
 * (on this project's 2-vCPU hosts a cross-CPU wake-up is most of a FUSE
 * round trip; the answer stays too, see below). A ring entry is a header block and a payload buffer registered
 * with the kernel; answering one and fetching the next request is a single
 * COMMIT_AND_FETCH command.
 *
 * Requests arrive here only once every queue has an entry registered;
 * until then, and always for FORGET and INTERRUPT, they come through
 * /dev/fuse as before. A request the server parks (SETLKW) keeps its
 * entry until answered; each queue has FUSE_URING_DEPTH entries.
 *
 * Keeping the caller on its CPU: the queue threads sit in the idle
 * scheduling class while requests flow (fs_keeper.h), so the kernel wakes
 * an answered caller on the CPU it shares with its queue thread instead of
 * moving it to an idle one. Same-run figures on this 2-vCPU VM
 * (bench/fuse_meta, 2,000 files; fio randread psync): stat 14-17k/s
 * without the idle class, 19-22k/s with it; fio 14k and 49k IOPS; with a
 * busy task on every CPU the idle class changes nothing (the caller has
 * nowhere to move) and 300 creates take 1.5 s (36 s if a starving thread
 * were never lifted).
 *
 * It is not the default: one process with many requests in flight (fio
 * libaio at QD16) puts them all on its own CPU's queue, where /dev/fuse
 * lets the caller and the polling reader work on two CPUs at once
 * (bench-fuse 2026-11-30 02:47 UTC, randwrite: 89k against 131k IOPS).
 */
#ifndef STAINLESS_TRANSPORT_FUSE_URING_H
#define STAINLESS_TRANSPORT_FUSE_URING_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

struct fs_keeper;
struct fuse_server;
struct fuse_uring;

#define FUSE_URING_DEPTH 16

/* Whether this kernel lets a server use FUSE over io_uring now. */
bool fuse_uring_enabled(void);

/* How many queues (and threads) fuse_uring_start() makes: one per possible CPU. */
unsigned fuse_uring_queues(void);

/*
 * Registers the entries of every queue on dev_fd (the mount's /dev/fuse,
 * after INIT accepted FUSE_OVER_IO_URING) and starts their threads.
 * keeper (fuse_uring_queues() threads, may be NULL, not owned) must have
 * been started by a thread that has served no request: serving takes
 * CAP_SYS_NICE away (fs_caps_limit), and the keeper's watcher needs it to
 * lift the queue threads out of the idle class.
 * Returns 0 or -errno (nothing started: /dev/fuse keeps serving).
 */
int fuse_uring_start(struct fuse_uring **out, struct fuse_server *srv, int dev_fd,
		     struct fs_keeper *keeper);

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
