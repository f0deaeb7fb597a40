// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: a sequence of raw 9P2000.L messages on one session of
 * the 9p server, over a fresh share per input (fuzz_share.h). Nothing is
 * sent before the fuzzer's messages: Tversion and Tattach are its to send
 * (the seeds start with them), so a session that never negotiates is
 * fuzzed too.
 *
 * Input: frames, each
 *   len[2]    little-endian byte count of the message that follows
 *   split[1]  0: the message and the reply space as one iovec each;
 *             n: both cut into n-byte iovecs (at most FZ_MAX_IOV of them)
 *   msg[len]  the message as the server gets it (its size field may lie)
 * A frame cut short by the end of the input is sent as far as it goes.
 *
 * The transport completes deferred requests (parked blocking locks, which
 * two fids on one file can provoke); their buffers live until the session
 * is destroyed, which cancels what is still parked.
 *
 * Findings (abort): the secret's bytes in a reply, the secret or the
 * folders around the share changed, an fd left open after destroy, or a
 * reply with a wrong size field, tag or type.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "fs/fs_options.h"
#include "fs/9p/p9_server.h"
#include "base/creds.h"
#include "fs/9p/p9_wire.h"
#include "tests/fuzz/fuzz_share.h"

#define FZ_MAX_MSG    65536u   /* the transport's largest message */
#define FZ_MAX_FRAMES 64u
#define FZ_MAX_IOV    64u

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One message in flight, kept until the session is gone. */
struct frame {
	uint8_t *msg, *rep;
	struct iovec in[FZ_MAX_IOV], out[FZ_MAX_IOV];
	struct fs_req req;
	uint8_t type;
	uint16_t tag;
	size_t len;
};

static struct frame frames[FZ_MAX_FRAMES];
static bool debug;   /* FZ_DEBUG=1: one line per reply */

/* What every reply must look like: its own length, the request's tag,
 * the request's type + 1 or Rlerror. */
static void check_reply(const struct frame *f, size_t n)
{
	struct p9_rbuf r;
	uint8_t hdr[P9_HDRSZ];

	for (unsigned i = 0; i < f->req.nout; i++)
		fz_check_reply(f->req.out[i].iov_base, f->req.out[i].iov_len);
	if (n == 0)
		return;
	if (n < P9_HDRSZ || n > FZ_MAX_MSG)
		fz_die("reply length outside [header, out space]");
	fs_iov_read(f->req.out, f->req.nout, 0, hdr, sizeof(hdr));
	p9_rbuf_init(&r, hdr, sizeof(hdr));
	uint32_t size = p9_get_u32(&r);
	uint8_t type = p9_get_u8(&r);
	uint16_t tag = p9_get_u16(&r);
	if (debug) {
		uint8_t e[4] = { 0 };
		if (type == P9_RLERROR)
			fs_iov_read(f->req.out, f->req.nout, P9_HDRSZ, e, 4);
		fprintf(stderr, "T%u tag %u: R%u %zu bytes, error %u\n", f->type, f->tag,
			type, n, (unsigned)(e[0] | e[1] << 8));
	}
	if (size != n)
		fz_die("reply size field differs from the returned length");
	if (f->len >= P9_HDRSZ ? tag != f->tag : tag != P9_NOTAG)
		fz_die("reply tag differs from the request's");
	if (type != P9_RLERROR && (f->len < P9_HDRSZ || type != (uint8_t)(f->type + 1)))
		fz_die("reply type is neither Rlerror nor the request's R-message");
}

static void on_complete(void *ctx, struct fs_req *req, uint32_t len)
{
	check_reply(req->cookie, len);
}

static const struct fs_transport transport = { .complete = on_complete };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	debug = getenv("FZ_DEBUG") != NULL;
	fz_setup_base("fuzz-p9");
	fz_open_sentinel();
	return 0;
}

static unsigned cut(uint8_t *p, size_t len, unsigned piece, struct iovec *iov)
{
	unsigned n = 0;

	if (!piece || len / piece >= FZ_MAX_IOV)
		piece = (unsigned)(len / FZ_MAX_IOV + 1);
	for (size_t o = 0; o < len; o += piece)
		iov[n++] = (struct iovec){ p + o, len - o < piece ? len - o : piece };
	return n;
}

/* Sends frame f (msg already filled); returns what p9_handle returned. */
static int send_frame(struct p9_session *ses, struct frame *f, unsigned split)
{
	f->rep = calloc(1, FZ_MAX_MSG);
	if (!f->rep)
		fz_die("malloc");
	if (f->len >= P9_HDRSZ) {
		f->type = f->msg[4];
		f->tag = (uint16_t)(f->msg[5] | f->msg[6] << 8);
	}
	f->req = (struct fs_req){
		.in = f->in, .nin = cut(f->msg, f->len, split, f->in),
		.out = f->out, .nout = cut(f->rep, FZ_MAX_MSG, split, f->out),
		.cookie = f,
	};
	int n = p9_handle(ses, &f->req, &transport);
	if (n != FS_REQ_DEFERRED)
		check_reply(f, n < 0 ? 0 : (size_t)n);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct p9_server *srv;
	struct p9_session *ses;
	struct fs_options o;
	unsigned nf = 0;
	size_t at = 0;

	fz_build_tree();
	fs_options_default(&o);
	o.xattr = true;
	o.msize = FZ_MAX_MSG;
	if (p9_server_create(&srv, fz_share, &o) || p9_session_create(&ses, srv, FZ_MAX_MSG))
		fz_die("cannot create the 9p server");
	while (at + 3 <= size && nf < FZ_MAX_FRAMES) {
		struct frame *f = &frames[nf++];
		size_t len = (size_t)(data[at] | data[at + 1] << 8);
		unsigned split = data[at + 2];

		at += 3;
		len = len < size - at ? len : size - at;
		/* Exactly the message's bytes, so ASan sees any read past them. */
		f->msg = malloc(len ? len : 1);
		if (!f->msg)
			fz_die("malloc");
		memcpy(f->msg, data + at, len);
		f->len = len;
		at += len;
		send_frame(ses, f, split);
	}
	p9_session_destroy(ses);
	p9_server_destroy(srv);
	/* The server leaves this thread with the last fid's user's fsuid
	 * (p9_server.h); the clean-up and the checks run as root again. */
	fs_creds_reset();
	p9_creds_forget();
	for (unsigned i = 0; i < nf; i++) {
		free(frames[i].msg);
		free(frames[i].rep);
		memset(&frames[i], 0, sizeof(frames[i]));
	}
	fz_remove_tree();
	fz_check_outside();
	return 0;
}
