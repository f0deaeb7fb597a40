// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: one raw FUSE request against the FUSE server, over a
 * fresh share per input (fuzz_share.h) with xattr on and no DAX window.
 *
 * Before the fuzzer's request the harness sends INIT (the server answers
 * EIO to anything before it) and then looks up every name in the share
 * and opens `file` and `dir`, so the request can name live nodeids and
 * handles. A fresh server hands them out deterministically; FZ_DEBUG=1 in
 * the environment prints them (the seed corpus uses them).
 *
 * Input: byte 0 = flags, then cut offsets, then the request itself.
 *   flags bits 0-2  how many cut offsets follow (at most FZ_MAX_CUTS)
 *   flags bits 3-4  reply space: 0 whole, 1 a 24-byte first piece,
 *                   2 only 100 bytes, 3 only 8 bytes (less than a header)
 *   flags bit 7     keep the header's len as sent; otherwise the harness
 *                   sets it to the request's length so mutations of the
 *                   body get past the length check
 *   cuts            little-endian u16 each: split the request into iovecs
 *                   there (taken modulo its length)
 *
 * Findings (abort): the secret's bytes in a reply, the secret or the
 * folders around the share changed, an fd left open after destroy, or a
 * reply that breaks the reply contract (length, unique, error range).
 */
#include <errno.h>
#include <linux/fuse.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "fs/fs_options.h"
#include "fs/fuse/fuse_server.h"
#include "tests/fuzz/fuzz_share.h"

#define FZ_MAX_CUTS 4
/*
 * Small tables and payloads: a fresh server per input must be cheap (the
 * default tables are sized from RLIMIT_NOFILE, megabytes that ASan
 * poisons on every create), and small limits put ENFILE in reach.
 */
#define FZ_MAX_WRITE   65536u
#define FZ_MAX_INODES  32u
#define FZ_MAX_HANDLES 16u
#define FZ_OUT_BIG     (FZ_MAX_WRITE + 4096)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fuse_server *srv;
static uint64_t unique_ctr;
static uint8_t *outbuf;      /* FZ_OUT_BIG bytes */
static bool debug;

static void on_complete(void *ctx, struct fs_req *req, uint32_t len)
{
	/* Deferred replies (parked locks cancelled at destroy) too. */
	for (unsigned i = 0; i < req->nout; i++)
		fz_check_reply(req->out[i].iov_base, req->out[i].iov_len);
}

static const struct fs_transport transport = { .complete = on_complete };

static void check_reply(int r, size_t outcap, const struct fuse_in_header *h, size_t total)
{
	struct fuse_out_header oh;

	fz_check_reply(outbuf, outcap);
	if (r == FS_REQ_DEFERRED || r == 0)
		return;
	if (r < (int)sizeof(oh) || (size_t)r > outcap)
		fz_die("reply length outside [header, out space]");
	memcpy(&oh, outbuf, sizeof(oh));
	if (debug)
		fprintf(stderr, "opcode %u: reply %d bytes, error %d\n", h->opcode, r, oh.error);
	if (oh.len != (uint32_t)r)
		fz_die("reply header len differs from the returned length");
	if (oh.error > 0 || oh.error < -4095 || (oh.error && oh.len != sizeof(oh)))
		fz_die("reply error out of range or with a payload");
	if (total >= sizeof(*h) && oh.unique != h->unique)
		fz_die("reply unique differs from the request's");
}

/* A request the harness itself sends (INIT and the set-up); returns the
 * error and copies the payload to out. */
static int send_own(uint32_t op, uint64_t nodeid, const void *arg, size_t alen,
		    const char *name, void *out, size_t outmax)
{
	uint8_t in[512];
	struct fuse_in_header h = { .opcode = op, .unique = ++unique_ctr, .nodeid = nodeid };
	size_t len = sizeof(h) + alen + (name ? strlen(name) + 1 : 0);
	struct iovec iin = { in, len }, iout = { outbuf, FZ_OUT_BIG };
	struct fs_req req = { .in = &iin, .nin = 1, .out = &iout, .nout = 1 };
	struct fuse_out_header oh;

	h.len = (uint32_t)len;
	memcpy(in, &h, sizeof(h));
	if (alen)
		memcpy(in + sizeof(h), arg, alen);
	if (name)
		memcpy(in + sizeof(h) + alen, name, strlen(name) + 1);
	int r = fuse_server_handle(srv, &req, &transport);
	if (r < (int)sizeof(oh))
		fz_die("set-up request got no reply");
	memcpy(&oh, outbuf, sizeof(oh));
	if (out && !oh.error)
		memcpy(out, outbuf + sizeof(oh), outmax);
	return oh.error;
}

static uint64_t lookup(uint64_t parent, const char *name)
{
	struct fuse_entry_out e = { 0 };

	if (send_own(FUSE_LOOKUP, parent, NULL, 0, name, &e, sizeof(e)))
		fz_die("set-up LOOKUP failed");
	if (debug)
		fprintf(stderr, "nodeid %-6s 0x%llx\n", name, (unsigned long long)e.nodeid);
	return e.nodeid;
}

static uint64_t open_node(uint32_t op, uint64_t nodeid, uint32_t flags)
{
	struct fuse_open_in in = { .flags = flags };
	struct fuse_open_out o = { 0 };

	if (send_own(op, nodeid, &in, sizeof(in), NULL, &o, sizeof(o)))
		fz_die("set-up OPEN failed");
	if (debug)
		fprintf(stderr, "fh %s 0x%llx\n", op == FUSE_OPEN ? "file" : "dir",
			(unsigned long long)o.fh);
	return o.fh;
}

static void start_server(void)
{
	struct fs_options o;
	struct fuse_init_in init = {
		.major = 7, .minor = 38, .max_readahead = 1 << 20,
		.flags = FUSE_ASYNC_READ | FUSE_POSIX_LOCKS | FUSE_ATOMIC_O_TRUNC |
			 FUSE_BIG_WRITES | FUSE_FLOCK_LOCKS | FUSE_DO_READDIRPLUS |
			 FUSE_PARALLEL_DIROPS | FUSE_MAX_PAGES | FUSE_SUBMOUNTS |
			 FUSE_HANDLE_KILLPRIV_V2 | FUSE_WRITEBACK_CACHE |
			 FUSE_AUTO_INVAL_DATA | FUSE_CACHE_SYMLINKS,
	};
	static const char *const names[] = { "file", "dir", "up", "abs", "root", "etc" };
	uint64_t file = 0, dir = 0;

	struct fuse_server_params p = {
		.max_inodes = FZ_MAX_INODES, .max_handles = FZ_MAX_HANDLES,
		.max_write = FZ_MAX_WRITE,
	};

	fs_options_default(&o);
	o.xattr = true;
	if (fuse_server_create_params(&srv, fz_share, &o, &p))
		fz_die("fuse_server_create failed");
	if (send_own(FUSE_INIT, 0, &init, sizeof(init), NULL, NULL, 0))
		fz_die("INIT failed");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t id = lookup(FUSE_ROOT_ID, names[i]);
		file = i == 0 ? id : file;
		dir = i == 1 ? id : dir;
	}
	lookup(dir, "inner");
	open_node(FUSE_OPEN, file, O_RDWR);
	open_node(FUSE_OPENDIR, dir, O_RDONLY);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	debug = getenv("FZ_DEBUG") != NULL;
	outbuf = malloc(FZ_OUT_BIG);
	if (!outbuf)
		fz_die("malloc");
	fz_setup_base("fuzz-fuse");
	fz_open_sentinel();
	return 0;
}

/* Splits the request at the cuts (sorted, deduplicated) into iov. */
static unsigned make_iovs(uint8_t *req, size_t len, const uint16_t *cuts, unsigned ncut,
			  struct iovec *iov)
{
	size_t at[FZ_MAX_CUTS + 2];
	unsigned n = 0, k = 0;

	at[k++] = 0;
	for (unsigned i = 0; i < ncut; i++)
		at[k++] = len ? cuts[i] % len : 0;
	at[k++] = len;
	for (unsigned i = 1; i < k; i++)        /* insertion sort, k <= 6 */
		for (unsigned j = i; j > 0 && at[j] < at[j - 1]; j--) {
			size_t t = at[j]; at[j] = at[j - 1]; at[j - 1] = t;
		}
	for (unsigned i = 1; i < k; i++)
		if (at[i] > at[i - 1])
			iov[n++] = (struct iovec){ req + at[i - 1], at[i] - at[i - 1] };
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iovec in[FZ_MAX_CUTS + 1], out[2];
	uint16_t cuts[FZ_MAX_CUTS];
	struct fuse_in_header h = { 0 };
	unsigned ncut, nout = 1;
	size_t outcap = FZ_OUT_BIG;

	if (size < 1)
		return -1;
	ncut = data[0] & 7;
	ncut = ncut > FZ_MAX_CUTS ? FZ_MAX_CUTS : ncut;
	if (size < 1 + 2 * (size_t)ncut)
		return -1;
	memcpy(cuts, data + 1, 2 * ncut);
	size_t len = size - 1 - 2 * ncut;
	/* Exactly the request's bytes, so ASan sees any read past them. */
	uint8_t *req = malloc(len ? len : 1);
	if (!req)
		fz_die("malloc");
	memcpy(req, data + 1 + 2 * ncut, len);
	if (len >= sizeof(h) && !(data[0] & 0x80)) {
		memcpy(&h, req, sizeof(h));
		h.len = (uint32_t)len;
		memcpy(req, &h, sizeof(h));
	}
	if (len >= sizeof(h))
		memcpy(&h, req, sizeof(h));

	switch ((data[0] >> 3) & 3) {
	case 1: out[0] = (struct iovec){ outbuf, 24 };
		out[1] = (struct iovec){ outbuf + 24, FZ_OUT_BIG - 24 };
		nout = 2;
		break;
	case 2: outcap = 100; break;
	case 3: outcap = 8; break;
	}
	if (nout == 1)
		out[0] = (struct iovec){ outbuf, outcap };

	fz_build_tree();
	start_server();
	memset(outbuf, 0, FZ_OUT_BIG);
	struct fs_req r = { .in = in, .nin = make_iovs(req, len, cuts, ncut, in),
			    .out = out, .nout = nout };
	int n = fuse_server_handle(srv, &r, &transport);
	check_reply(n, outcap, &h, len);
	fuse_server_destroy(srv);
	srv = NULL;
	free(req);
	fz_remove_tree();
	fz_check_outside();
	return 0;
}
