// SPDX-License-Identifier: GPL-2.0-only
/* vu_fuse: FUSE requests in virtio_fs's descriptor layout (vu_fuse.h). */
#include "tests/vhost/vu_fuse.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int vu_fuse_req_alloc(struct vu_frontend *fe, struct vu_fuse_req *r, size_t page_cap)
{
	memset(r, 0, sizeof(*r));
	r->ih = vu_alloc(fe, sizeof(*r->ih));
	r->args = vu_alloc(fe, VU_FUSE_ARGS_MAX);
	r->oh = vu_alloc(fe, sizeof(*r->oh));
	r->reply = vu_alloc(fe, VU_FUSE_REPLY_MAX);
	r->page = page_cap ? vu_alloc(fe, page_cap) : NULL;
	r->page_cap = page_cap;
	return r->ih && r->args && r->oh && r->reply && (r->page || !page_cap) ? 0 : -ENOMEM;
}

void vu_fuse_prep(struct vu_fuse_req *r, uint32_t opcode, uint64_t nodeid,
		  const void *a, size_t alen, const void *b, size_t blen,
		  size_t reply_len, size_t page_out, size_t page_in)
{
	size_t argn = alen + blen;

	if (argn > VU_FUSE_ARGS_MAX || page_out + page_in > r->page_cap ||
	    (reply_len != VU_FUSE_NO_REPLY && reply_len > VU_FUSE_REPLY_MAX)) {
		fprintf(stderr, "vu_fuse: request %u does not fit its buffers\n", opcode);
		alen = blen = argn = page_out = page_in = reply_len = 0;  /* the backend will say EINVAL */
	}
	if (alen)
		memcpy(r->args, a, alen);
	if (blen)
		memcpy(r->args + alen, b, blen);
	*r->ih = (struct fuse_in_header){
		.len = (uint32_t)(sizeof(*r->ih) + argn + page_out), .opcode = opcode,
		.nodeid = nodeid, .uid = geteuid(), .gid = getegid(), .pid = (uint32_t)getpid(),
	};
	r->nout = r->nin = 0;
	r->out[r->nout++] = (struct iovec){ r->ih, sizeof(*r->ih) };
	if (argn)
		r->out[r->nout++] = (struct iovec){ r->args, argn };
	if (page_out)
		r->out[r->nout++] = (struct iovec){ r->page, page_out };
	r->reply_len = reply_len == VU_FUSE_NO_REPLY ? 0 : reply_len;
	if (reply_len == VU_FUSE_NO_REPLY)
		return;
	r->in[r->nin++] = (struct iovec){ r->oh, sizeof(*r->oh) };
	if (reply_len)
		r->in[r->nin++] = (struct iovec){ r->reply, reply_len };
	if (page_in)
		r->in[r->nin++] = (struct iovec){ r->page, page_in };
}

int vu_fuse_submit(struct vu_frontend *fe, int qi, struct vu_fuse_req *r)
{
	static uint64_t unique;

	r->ih->unique = ++unique;
	r->oh->unique = 0;
	r->oh->len = 0;
	return vu_submit(fe, qi, r->out, r->nout, r->in, r->nin, r);
}

int vu_fuse_result(const struct vu_fuse_req *r, uint32_t len)
{
	size_t cap = sizeof(*r->oh);
	for (int i = 1; i < r->nin; i++)
		cap += r->in[i].iov_len;
	/* guest: the backend's header, read once */
	struct fuse_out_header oh = *r->oh;
	if (len < sizeof(oh) || oh.unique != r->ih->unique || oh.len < sizeof(oh) ||
	    oh.len > len || oh.len > cap) {
		fprintf(stderr, "vu_fuse: malformed reply to opcode %u: used len %u, header len %u unique %llu (sent %llu)\n",
			r->ih->opcode, len, oh.len, (unsigned long long)oh.unique,
			(unsigned long long)r->ih->unique);
		return -EPROTO;
	}
	if (oh.error)
		return oh.error < 0 && oh.error > -4096 ? oh.error : -EPROTO;
	return (int)(oh.len - sizeof(oh));
}

int vu_fuse_call(struct vu_frontend *fe, struct vu_fuse_req *r)
{
	struct vu_done d;
	int n;

	if (fe->q[VU_REQUEST].inflight)
		return -EBUSY;
	if ((n = vu_fuse_submit(fe, VU_REQUEST, r)) || (n = vu_kick(fe, VU_REQUEST)))
		return n;
	/* Ten seconds: a backend that never answers fails the caller, not hangs it. */
	n = vu_reap(fe, VU_REQUEST, &d, 1, 10000);
	if (n <= 0)
		return n ? n : -ETIMEDOUT;
	return d.cookie == r ? vu_fuse_result(r, d.len) : -EPROTO;
}

int vu_fuse_init(struct vu_frontend *fe, struct vu_fuse_req *r, uint32_t want,
		 struct fuse_init_out *out)
{
	struct fuse_init_in in = {
		.major = FUSE_KERNEL_VERSION, .minor = FUSE_KERNEL_MINOR_VERSION,
		.max_readahead = 128 * 1024, .flags = want,
	};
	vu_fuse_prep(r, FUSE_INIT, 0, &in, sizeof(in), NULL, 0, sizeof(*out), 0, 0);
	int n = vu_fuse_call(fe, r);
	if (n < 0)
		return n;
	/* Replies of older minors are shorter: what is missing reads as 0. */
	memset(out, 0, sizeof(*out));
	memcpy(out, r->reply, (size_t)n < sizeof(*out) ? (size_t)n : sizeof(*out));
	if (n < 8 || out->major != FUSE_KERNEL_VERSION)
		return -EPROTO;
	return 0;
}

int vu_fuse_lookup(struct vu_frontend *fe, struct vu_fuse_req *r, uint64_t parent,
		   const char *name, struct fuse_entry_out *out)
{
	vu_fuse_prep(r, FUSE_LOOKUP, parent, name, strlen(name) + 1, NULL, 0, sizeof(*out), 0, 0);
	int n = vu_fuse_call(fe, r);
	if (n < 0)
		return n;
	if ((size_t)n < sizeof(*out))
		return -EPROTO;
	memcpy(out, r->reply, sizeof(*out));
	return 0;
}

int vu_fuse_open(struct vu_frontend *fe, struct vu_fuse_req *r, uint32_t opcode,
		 uint64_t nodeid, uint32_t flags, uint64_t *fh)
{
	struct fuse_open_in in = { .flags = flags };
	struct fuse_open_out out;
	vu_fuse_prep(r, opcode, nodeid, &in, sizeof(in), NULL, 0, sizeof(out), 0, 0);
	int n = vu_fuse_call(fe, r);
	if (n < 0)
		return n;
	if ((size_t)n < sizeof(out))
		return -EPROTO;
	memcpy(&out, r->reply, sizeof(out));
	*fh = out.fh;
	return 0;
}

int vu_fuse_release(struct vu_frontend *fe, struct vu_fuse_req *r, uint32_t opcode,
		    uint64_t nodeid, uint64_t fh)
{
	struct fuse_release_in in = { .fh = fh };
	vu_fuse_prep(r, opcode, nodeid, &in, sizeof(in), NULL, 0, 0, 0, 0);
	int n = vu_fuse_call(fe, r);
	return n < 0 ? n : 0;
}
