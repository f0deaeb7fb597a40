/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vu_fuse: FUSE requests over a vu_frontend, laid out in descriptors the
 * way Linux's fs/fuse/virtio_fs.c lays them out, so backends see the chains
 * a guest sends: device-readable [in header][in args][data pages], then
 * device-writable [out header][out args][data pages]. Non-page args share
 * one bounce buffer each way, as in the kernel.
 */
#ifndef STAINLESS_TESTS_VU_FUSE_H
#define STAINLESS_TESTS_VU_FUSE_H

#include <linux/fuse.h>
#include <stddef.h>
#include <stdint.h>

#include "tests/vhost/vu_frontend.h"

#define VU_FUSE_ARGS_MAX 4096  /* in args: a struct plus a name */
#define VU_FUSE_REPLY_MAX 512  /* out args that are not pages */

/* One request buffer in guest memory, reused request after request. */
struct vu_fuse_req {
	struct fuse_in_header *ih;
	uint8_t *args;
	struct fuse_out_header *oh;
	uint8_t *reply;
	uint8_t *page;          /* WRITE's payload, READ's and READDIR's reply */
	size_t page_cap;
	size_t reply_len;       /* of the request in hand */
	struct iovec out[3], in[3];
	int nout, nin;
	void *user;             /* the caller's, untouched */
};

/* Buffers for one request with PAGE_CAP bytes of data pages. */
int vu_fuse_req_alloc(struct vu_frontend *fe, struct vu_fuse_req *r, size_t page_cap);

/* Lays out a request: its args A (ALEN bytes) then B (BLEN, e.g. a name),
 * REPLY_LEN bytes of non-page reply, PAGE_OUT bytes of data from r->page
 * to the backend (WRITE), PAGE_IN bytes of data pages for the reply (READ,
 * READDIRPLUS). NO_REPLY for FORGET: no device-writable part at all. */
#define VU_FUSE_NO_REPLY ((size_t)-1)
void vu_fuse_prep(struct vu_fuse_req *r, uint32_t opcode, uint64_t nodeid,
		  const void *a, size_t alen, const void *b, size_t blen,
		  size_t reply_len, size_t page_out, size_t page_in);

/* Queues it on queue QI (vu_kick publishes it) with a fresh unique. */
int vu_fuse_submit(struct vu_frontend *fe, int qi, struct vu_fuse_req *r);

/* The outcome of a completed request whose used length was LEN: bytes of
 * reply after the out header (in r->reply, then r->page), or -errno (the
 * backend's error, or -EPROTO for a malformed reply). */
int vu_fuse_result(const struct vu_fuse_req *r, uint32_t len);

/* Submits R on the request queue and waits for it (nothing else may be in
 * flight there); returns as vu_fuse_result. */
int vu_fuse_call(struct vu_frontend *fe, struct vu_fuse_req *r);

/* The INIT flags of Linux's virtio_fs that change nothing in the requests
 * this harness sends (no writeback cache, ACLs or security contexts).
 * SUBMOUNTS: without it a backend told to announce submounts says the
 * client cannot take them. */
#define VU_FUSE_LINUX_FLAGS (FUSE_ASYNC_READ | FUSE_BIG_WRITES | FUSE_DO_READDIRPLUS | \
			     FUSE_READDIRPLUS_AUTO | FUSE_PARALLEL_DIROPS | FUSE_MAX_PAGES | \
			     FUSE_SUBMOUNTS)

/* FUSE_INIT as Linux's virtio_fs sends it, asking for WANT flags. */
int vu_fuse_init(struct vu_frontend *fe, struct vu_fuse_req *r, uint32_t want,
		 struct fuse_init_out *out);

/* Convenience calls for set-up and tests, synchronous like vu_fuse_call. */
int vu_fuse_lookup(struct vu_frontend *fe, struct vu_fuse_req *r, uint64_t parent,
		   const char *name, struct fuse_entry_out *out);
int vu_fuse_open(struct vu_frontend *fe, struct vu_fuse_req *r, uint32_t opcode,
		 uint64_t nodeid, uint32_t flags, uint64_t *fh);
int vu_fuse_release(struct vu_frontend *fe, struct vu_fuse_req *r, uint32_t opcode,
		    uint64_t nodeid, uint64_t fh);

#endif
