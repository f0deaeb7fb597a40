// SPDX-License-Identifier: GPL-2.0-only
/*
 * p9_load: drives any 9P2000.L server on a Unix socket (`stainless
 * 9p-serve`, diod) with a fixed request stream at a chosen queue depth and
 * prints ops/s and CPU-µs per op (the server's, PID and its descendants
 * from /proc, when --server-pid is given; the client's always). Requests are pipelined on
 * one connection: QD requests in flight, each reply answered by the next
 * request with the same tag, replies read and requests written in batches.
 *
 *   p9_load --socket PATH [--aname NAME] [--op read4k|write4k|getattr|walk|readdir]
 *           [--qd N] [--seconds S] [--path FILE_OR_DIR] [--server-pid PID]
 *
 * read4k/write4k: random 4 KiB-aligned offsets within the file's size.
 * walk: each slot walks the root to --path into a fid of its own and clunks
 * it (the pair a client pays per lookup); ops are walks.
 * readdir: each in-flight slot reads the directory start to end, repeatedly;
 * ops are entries returned. MiB/s counts data payload (Rread/Twrite/Rreaddir
 * bytes). Exits non-zero on any error reply.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "bench/proc_tree.h"
#include "fs/9p/p9_wire.h"

#define MSIZE (512 * 1024)
#define MAXQD 256

enum op { OP_READ, OP_WRITE, OP_GETATTR, OP_READDIR, OP_WALK };

static int sock;
static uint8_t rbuf[4 * MSIZE], wbuf[MAXQD * 8192 + MSIZE];
static size_t rlen, wlen;
static uint64_t file_size = 4096;
static uint64_t dir_off[MAXQD];
static enum op op = OP_READ;
static uint32_t msize = MSIZE;   /* as negotiated */
static uint64_t ops, bytes;
static bool walked[MAXQD];       /* walk: slot holds its fid, clunk next */

static void die(const char *msg, int err)
{
	fprintf(stderr, "p9_load: %s%s%s\n", msg, err ? ": " : "", err ? strerror(err) : "");
	exit(1);
}

/* Appends one request to wbuf. */
static void queue(uint8_t type, uint16_t tag, void (*body)(struct p9_wbuf *, uint16_t))
{
	struct p9_wbuf w;
	p9_wbuf_init(&w, wbuf + wlen, sizeof(wbuf) - wlen);
	p9_put_reserve(&w, P9_HDRSZ);
	body(&w, tag);
	if (p9_wbuf_error(&w))
		die("request buffer full", 0);
	p9_put_hdr(wbuf + wlen, (uint32_t)w.pos, type, tag);
	wlen += w.pos;
}

static void flush_out(void)
{
	for (size_t off = 0; off < wlen;) {
		ssize_t n = write(sock, wbuf + off, wlen - off);
		if (n <= 0)
			die("write", errno);
		off += (size_t)n;
	}
	wlen = 0;
}

/* Reads until one whole reply is buffered; returns its length. */
static size_t next_reply(void)
{
	for (;;) {
		if (rlen >= 4) {
			uint32_t size = rbuf[0] | rbuf[1] << 8 | rbuf[2] << 16 | (uint32_t)rbuf[3] << 24;
			if (size < P9_HDRSZ || size > MSIZE)
				die("bad reply size", 0);
			if (rlen >= size)
				return size;
		}
		ssize_t n = read(sock, rbuf + rlen, sizeof(rbuf) - rlen);
		if (n <= 0)
			die("server closed the connection", n < 0 ? errno : 0);
		rlen += (size_t)n;
	}
}

static void consume(size_t n)
{
	memmove(rbuf, rbuf + n, rlen - n);
	rlen -= n;
}

/* One synchronous round trip for set-up; returns the reply body. */
static struct p9_rbuf rpc(uint8_t type, void (*body)(struct p9_wbuf *, uint16_t))
{
	static uint8_t copy[MSIZE];
	struct p9_rbuf r;
	queue(type, 1, body);
	flush_out();
	size_t n = next_reply();
	memcpy(copy, rbuf, n);
	consume(n);
	p9_rbuf_init(&r, copy + P9_HDRSZ, n - P9_HDRSZ);
	if (copy[4] == P9_RLERROR)
		die("set-up request refused", (int)p9_get_u32(&r));
	return r;
}

static const char *aname = "", *path = "";

static void b_version(struct p9_wbuf *w, uint16_t t) { p9_put_u32(w, MSIZE); p9_put_cstr(w, "9P2000.L"); }
static void b_attach(struct p9_wbuf *w, uint16_t t)
{
	p9_put_u32(w, 0); p9_put_u32(w, P9_NOFID); p9_put_cstr(w, "root");
	p9_put_cstr(w, aname); p9_put_u32(w, (uint32_t)geteuid());
}
static uint32_t walk_to;
static void b_walk(struct p9_wbuf *w, uint16_t t)
{
	char copy[1024], *save = NULL, *names[16];
	uint16_t n = 0;
	snprintf(copy, sizeof(copy), "%s", path);
	for (char *s = strtok_r(copy, "/", &save); s && n < 16; s = strtok_r(NULL, "/", &save))
		names[n++] = s;
	p9_put_u32(w, 0); p9_put_u32(w, walk_to); p9_put_u16(w, n);
	for (uint16_t i = 0; i < n; i++)
		p9_put_cstr(w, names[i]);
}
static uint32_t open_fid, open_flags;
static void b_lopen(struct p9_wbuf *w, uint16_t t) { p9_put_u32(w, open_fid); p9_put_u32(w, open_flags); }
static void b_getattr(struct p9_wbuf *w, uint16_t t) { p9_put_u32(w, 1); p9_put_u64(w, P9_GETATTR_BASIC); }

static uint64_t rand_off(void)
{
	uint64_t blocks = file_size / 4096;
	return blocks ? ((uint64_t)random() % blocks) * 4096 : 0;
}
static void b_read(struct p9_wbuf *w, uint16_t t) { p9_put_u32(w, 1); p9_put_u64(w, rand_off()); p9_put_u32(w, 4096); }
static void b_write(struct p9_wbuf *w, uint16_t t)
{
	p9_put_u32(w, 1); p9_put_u64(w, rand_off()); p9_put_u32(w, 4096);
	memset(p9_put_reserve(w, 4096), 0x5a, 4096);
}
static void b_readdir(struct p9_wbuf *w, uint16_t t)
{
	/* Slot t reads through fid 100 + t. */
	p9_put_u32(w, 100 + t); p9_put_u64(w, dir_off[t]); p9_put_u32(w, msize - 24);   /* the Linux client's margin; diod insists */
}

/* walk: slot t walks into fid 300 + t, then clunks it. */
static void b_walk_slot(struct p9_wbuf *w, uint16_t t)
{
	walk_to = 300 + t;
	b_walk(w, t);
}
static void b_clunk_slot(struct p9_wbuf *w, uint16_t t) { p9_put_u32(w, 300 + t); }

static void send_one(uint16_t tag)
{
	static const uint8_t types[] = { P9_TREAD, P9_TWRITE, P9_TGETATTR, P9_TREADDIR };
	static void (*const bodies[])(struct p9_wbuf *, uint16_t) = { b_read, b_write, b_getattr, b_readdir };
	if (op == OP_WALK)
		queue(walked[tag] ? P9_TCLUNK : P9_TWALK, tag, walked[tag] ? b_clunk_slot : b_walk_slot);
	else
		queue(types[op], tag, bodies[op]);
}

/* Accounts one reply; readdir counts entries and moves its slot on. */
static void account(size_t n)
{
	struct p9_rbuf r;
	uint16_t tag = (uint16_t)(rbuf[5] | rbuf[6] << 8);
	p9_rbuf_init(&r, rbuf + P9_HDRSZ, n - P9_HDRSZ);
	if (rbuf[4] == P9_RLERROR)
		die("error reply", (int)p9_get_u32(&r));
	if (op == OP_WALK) {
		walked[tag] = rbuf[4] == P9_RWALK;
		ops += walked[tag];
		return;
	}
	if (op != OP_READDIR) {
		ops++;
		bytes += op == OP_READ ? p9_get_u32(&r) : op == OP_WRITE ? 4096 : 0;
		return;
	}
	uint32_t count = p9_get_u32(&r);
	bytes += count;
	if (count == 0) {
		dir_off[tag] = 0;
		return;
	}
	while (p9_rbuf_left(&r)) {
		struct p9_qid q;
		struct p9_str s;
		p9_get_qid(&r, &q);
		dir_off[tag] = p9_get_u64(&r);
		p9_get_u8(&r);
		p9_get_str(&r, &s);
		ops++;
	}
	if (p9_rbuf_error(&r))
		die("malformed Rreaddir", 0);
}

/* CPU seconds of the server's process tree (proc_tree.h); -1: gone. */
static double cpu_of(int root)
{
	long long t = proc_tree_ticks(root);

	return t < 0 ? -1 : (double)t / (double)sysconf(_SC_CLK_TCK);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "socket", 1, NULL, 's' }, { "aname", 1, NULL, 'a' }, { "op", 1, NULL, 'o' },
		{ "qd", 1, NULL, 'q' }, { "seconds", 1, NULL, 't' }, { "path", 1, NULL, 'p' },
		{ "server-pid", 1, NULL, 'P' }, { NULL, 0, NULL, 0 },
	};
	const char *sockpath = NULL, *opname = "read4k";
	int qd = 1, spid = 0, c;
	double secs = 5;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's': sockpath = optarg; break;
		case 'a': aname = optarg; break;
		case 'o': opname = optarg; break;
		case 'q': qd = atoi(optarg); break;
		case 't': secs = atof(optarg); break;
		case 'p': path = optarg; break;
		case 'P': spid = atoi(optarg); break;
		default: die("usage: p9_load --socket PATH [--aname A] [--op read4k|write4k|getattr|walk|readdir] "
			     "[--qd N] [--seconds S] [--path P] [--server-pid PID]", 0);
		}
	}
	if (!sockpath || qd < 1 || qd > MAXQD || secs <= 0)
		die("--socket is required; --qd 1..256; --seconds > 0", 0);
	if (!strcmp(opname, "read4k")) op = OP_READ;
	else if (!strcmp(opname, "write4k")) op = OP_WRITE;
	else if (!strcmp(opname, "getattr")) op = OP_GETATTR;
	else if (!strcmp(opname, "readdir")) op = OP_READDIR;
	else if (!strcmp(opname, "walk")) op = OP_WALK;
	else die("unknown --op", 0);

	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sockpath);
	sock = socket(AF_UNIX, SOCK_STREAM, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("connect", errno);
	struct p9_rbuf vr = rpc(P9_TVERSION, b_version);
	msize = p9_get_u32(&vr);
	if (msize > MSIZE || msize < 4096)
		die("server offered an msize out of range", 0);
	rpc(P9_TATTACH, b_attach);
	walk_to = 1;
	rpc(P9_TWALK, b_walk);
	if (op == OP_READDIR) {
		for (int i = 0; i < qd; i++) {
			walk_to = 100 + (uint32_t)i;
			rpc(P9_TWALK, b_walk);
			open_fid = walk_to;
			open_flags = P9_DOTL_RDONLY | P9_DOTL_DIRECTORY;
			rpc(P9_TLOPEN, b_lopen);
		}
	} else if (op != OP_WALK) {
		struct p9_rbuf r = rpc(P9_TGETATTR, b_getattr);
		struct p9_qid q;
		p9_get_u64(&r); p9_get_qid(&r, &q); p9_get_u32(&r); p9_get_u32(&r); p9_get_u32(&r);
		p9_get_u64(&r); p9_get_u64(&r);
		file_size = p9_get_u64(&r);
		if (op != OP_GETATTR) {
			open_fid = 1;
			open_flags = op == OP_WRITE ? P9_DOTL_RDWR : P9_DOTL_RDONLY;
			rpc(P9_TLOPEN, b_lopen);
		}
	}

	struct rusage ru0, ru1;
	double s0 = spid ? cpu_of(spid) : -1, t0 = now(), deadline = t0 + secs;
	getrusage(RUSAGE_SELF, &ru0);
	for (int i = 0; i < qd; i++)
		send_one((uint16_t)i);
	flush_out();
	int inflight = qd;
	bool stopping = false;
	while (inflight) {
		size_t n = next_reply();
		/* Handle every reply already buffered, then write all follow-ups at once. */
		do {
			uint16_t tag = (uint16_t)(rbuf[5] | rbuf[6] << 8);
			account(n);
			consume(n);
			inflight--;
			if (!stopping) {
				send_one(tag);
				inflight++;
			}
			n = 0;
			if (rlen >= 4) {
				uint32_t size = rbuf[0] | rbuf[1] << 8 | rbuf[2] << 16 | (uint32_t)rbuf[3] << 24;
				if (size >= P9_HDRSZ && rlen >= size)
					n = size;
			}
		} while (n);
		flush_out();
		if (!stopping && now() >= deadline)
			stopping = true;
	}
	double el = now() - t0;
	getrusage(RUSAGE_SELF, &ru1);
	double ccpu = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec + ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
		      (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec + ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
	printf("op=%s qd=%d seconds=%.2f ops=%llu ops_per_s=%.0f mib_per_s=%.1f client_cpu_us_per_op=%.2f",
	       opname, qd, el, (unsigned long long)ops, (double)ops / el, (double)bytes / el / 1048576,
	       ops ? ccpu * 1e6 / (double)ops : 0);
	if (spid) {
		double s1 = cpu_of(spid);
		printf(" server_cpu_us_per_op=%.2f", ops && s0 >= 0 && s1 >= 0 ? (s1 - s0) * 1e6 / (double)ops : -1);
	}
	printf("\n");
	return 0;
}
