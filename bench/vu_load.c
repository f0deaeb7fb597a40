// SPDX-License-Identifier: GPL-2.0-only
/*
 * vu_load: drives any vhost-user-fs backend (`stainless vhost-user-fs`,
 * QEMU's C virtiofsd) with a fixed stream of FUSE requests through our own
 * frontend (tests/vhost/vu_frontend.c) at a chosen queue depth, and prints
 * ops/s, the backend's CPU-µs per op (utime+stime of the process and its
 * descendants, all threads, from /proc) and p50/p99 latency.
 *
 *   vu_load --socket PATH --op OP [--qd N] [--queues Q] [--files F] [--seconds S | --ops N]
 *           [--backend-pid PID] [--file NAME] [--dir NAME] [--new-dir NAME]
 *   vu_load --op pread4k --path FILE [--seconds S | --ops N]
 *
 * OP: read4k, write4k (random 4 KiB-aligned offsets of --file, one open
 * handle, the same offsets for every backend), getattr (of --file), lookup
 * (of --file in the root), readdirplus (each slot reads --dir start to end
 * in 4 KiB requests as Linux does, over and over; ops are entries, latency
 * is per request), create (CREATE + RELEASE + UNLINK of a new name in
 * --new-dir, then FORGET on the hiprio queue; latency is per triple).
 * pread4k: no backend, a bare pread(2) + 4 KiB copy loop on FILE, the
 * ceiling a backend's 4k read is held against. dax4k: the backend's DAX
 * window (`stainless vhost-user-fs --dax-window`, tests/vhost/vu_shmem.c):
 * --file SETUPMAPPINGed into it in 2 MiB chunks (at most the window), then
 * the same random 4 KiB reads as read4k, each a copy out of the mapped
 * window, as a DAX guest reads: no request. Exits non-zero on any error.
 *
 * --queues Q: Q request queues, one frontend thread each (a guest's CPUs,
 * each on its own queue), sharing the total depth --qd between them (QD16
 * at Q=2 is 8 in flight per queue), each with its own fixed offsets. Not
 * for create (its FORGETs share the hiprio queue). Exits 3, after a line,
 * when the backend offers fewer queues. --files F: read4k/write4k spread
 * over NAME, NAME.1 .. NAME.(F-1), the slots in F contiguous groups (with
 * --queues F each queue its own file, as one fio job per guest CPU; the
 * same slots on the same files at any queue count).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/proc_tree.h"
#include "tests/vhost/vu_fuse.h"
#include "tests/vhost/vu_shmem.h"

#define MAXQD 32
#define NFORGET 64

enum op { OP_READ, OP_WRITE, OP_GETATTR, OP_LOOKUP, OP_READDIRPLUS, OP_CREATE, OP_PREAD, OP_DAX };
static const char *const op_names[] = {
	[OP_READ] = "read4k", [OP_WRITE] = "write4k", [OP_GETATTR] = "getattr",
	[OP_LOOKUP] = "lookup", [OP_READDIRPLUS] = "readdirplus", [OP_CREATE] = "create",
	[OP_PREAD] = "pread4k", [OP_DAX] = "dax4k",
};
static struct vu_shmem_fe shmem;   /* dax4k's window */

struct lane;

struct slot {
	struct vu_fuse_req r;   /* first: its address is the chain's cookie */
	struct lane *lane;
	int stage;              /* create: 0 CREATE, 1 RELEASE, 2 UNLINK */
	uint64_t t0;            /* ns, when the op began */
	uint64_t dir_fh, dir_off;
	uint64_t nodeid, fh;    /* create: what CREATE returned */
	uint64_t rw_nodeid, rw_fh;  /* read4k/write4k: this slot's file */
	char name[64];
};

static struct {
	enum op op;
	int qd, queues, files;
	double seconds;
	uint64_t max_ops;
	const char *sock, *file, *dir, *new_dir, *path;
	pid_t backend;
} cfg = { .qd = 1, .queues = 1, .files = 1, .seconds = 2, .file = "file", .dir = "dir", .new_dir = "new" };

#define SUB 64                   /* the latency histogram's buckets per octave */
#define HIST (SUB * 40)

/* One request queue and the frontend thread that drives it. */
struct lane {
	int qi;                      /* its ring: 1.. */
	int qd;
	struct slot *slots;          /* qd of slots[] */
	uint64_t ops, bytes, requests;
	uint64_t rng;                /* fixed per lane: every backend gets the same offsets */
	uint64_t end_ns;
	uint64_t hist[HIST];
	pthread_t thread;
};

static struct vu_frontend fe;
static struct slot slots[MAXQD];
static struct lane lanes[VU_MAX_QUEUES - 1];
static struct vu_fuse_req forgets[NFORGET], *forget_free[NFORGET];
static int nforget_free;
static uint64_t file_nodeid, file_fh, file_blocks, parent_nodeid;
static uint64_t ops, bytes, requests, seq;

static void die(const char *msg, int err)
{
	fprintf(stderr, "vu_load: %s%s%s\n", msg, err ? ": " : "", err ? strerror(err < 0 ? -err : err) : "");
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t rand_off(struct lane *l)
{
	l->rng ^= l->rng << 13, l->rng ^= l->rng >> 7, l->rng ^= l->rng << 17;
	return (l->rng % file_blocks) * 4096;
}

/*
 * Latency histogram, log-linear: values below 64 ns exact, above that 64
 * buckets per power of two (1.6% wide), so p99 needs no stored samples.
 * Each lane keeps its own; hist is their sum at the end.
 */
static uint64_t hist[HIST];

static void hist_add(uint64_t *h, uint64_t ns)
{
	unsigned b;
	if (ns < SUB) {
		b = (unsigned)ns;
	} else {
		unsigned e = 63 - (unsigned)__builtin_clzll(ns);  /* >= 6 */
		b = (e - 5) * SUB + (unsigned)((ns >> (e - 6)) & (SUB - 1));
	}
	h[b < HIST ? b : HIST - 1]++;
}

static double hist_pct(double pct)
{
	uint64_t total = 0, seen = 0;
	for (size_t b = 0; b < sizeof(hist) / sizeof(hist[0]); b++)
		total += hist[b];
	for (size_t b = 0; b < sizeof(hist) / sizeof(hist[0]); b++) {
		seen += hist[b];
		if (total && seen * 100.0 >= pct * (double)total) {
			if (b < SUB)
				return (double)b / 1000.0;
			unsigned e = (unsigned)(b / SUB) + 5;
			uint64_t lo = (1ull << e) + ((b % SUB) << (e - 6));
			return ((double)lo + (double)(1ull << (e - 6)) / 2) / 1000.0;  /* bucket middle, µs */
		}
	}
	return 0;
}

/* utime+stime in clock ticks of the backend's process tree (proc_tree.h). */
static uint64_t tree_ticks(pid_t root)
{
	long long t = proc_tree_ticks(root);

	return t < 0 ? 0 : (uint64_t)t;
}

static double client_cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Lays out the next request of slot S (the next op, or the next stage). */
static void prep(struct slot *s)
{
	struct vu_fuse_req *r = &s->r;

	switch (cfg.op) {
	case OP_READ: {
		struct fuse_read_in in = { .fh = s->rw_fh, .offset = rand_off(s->lane), .size = 4096 };
		vu_fuse_prep(r, FUSE_READ, s->rw_nodeid, &in, sizeof(in), NULL, 0, 0, 0, 4096);
		break;
	}
	case OP_WRITE: {
		struct fuse_write_in in = { .fh = s->rw_fh, .offset = rand_off(s->lane), .size = 4096 };
		vu_fuse_prep(r, FUSE_WRITE, s->rw_nodeid, &in, sizeof(in), NULL, 0,
			     sizeof(struct fuse_write_out), 4096, 0);
		break;
	}
	case OP_GETATTR: {
		struct fuse_getattr_in in = { 0 };
		vu_fuse_prep(r, FUSE_GETATTR, file_nodeid, &in, sizeof(in), NULL, 0,
			     sizeof(struct fuse_attr_out), 0, 0);
		break;
	}
	case OP_LOOKUP:
		vu_fuse_prep(r, FUSE_LOOKUP, FUSE_ROOT_ID, cfg.file, strlen(cfg.file) + 1, NULL, 0,
			     sizeof(struct fuse_entry_out), 0, 0);
		break;
	case OP_READDIRPLUS: {
		struct fuse_read_in in = { .fh = s->dir_fh, .offset = s->dir_off, .size = 4096 };
		vu_fuse_prep(r, FUSE_READDIRPLUS, file_nodeid, &in, sizeof(in), NULL, 0, 0, 0, 4096);
		break;
	}
	case OP_CREATE:
		if (s->stage == 0) {
			struct fuse_create_in in = { .flags = O_RDWR | O_CREAT | O_EXCL,
						     .mode = S_IFREG | 0644, .umask = 022 };
			snprintf(s->name, sizeof(s->name), "n%d.%llu", (int)getpid(),
				 (unsigned long long)++seq);
			vu_fuse_prep(r, FUSE_CREATE, parent_nodeid, &in, sizeof(in), s->name,
				     strlen(s->name) + 1,
				     sizeof(struct fuse_entry_out) + sizeof(struct fuse_open_out), 0, 0);
		} else if (s->stage == 1) {
			struct fuse_release_in in = { .fh = s->fh, .flags = O_RDWR };
			vu_fuse_prep(r, FUSE_RELEASE, s->nodeid, &in, sizeof(in), NULL, 0, 0, 0, 0);
		} else {
			vu_fuse_prep(r, FUSE_UNLINK, parent_nodeid, s->name, strlen(s->name) + 1,
				     NULL, 0, 0, 0, 0);
		}
		break;
	case OP_PREAD:
	case OP_DAX:
		break;
	}
}

static void submit(struct slot *s)
{
	prep(s);
	int err = vu_fuse_submit(&fe, s->lane->qi, &s->r);
	if (err)
		die("submit", err);
	s->lane->requests++;
}

/* Returns the hiprio queue's finished FORGETs to the pool. */
static void reap_forgets(int timeout_ms)
{
	struct vu_done d[NFORGET];
	int n = vu_reap(&fe, VU_HIPRIO, d, NFORGET, timeout_ms);
	if (n < 0)
		die("hiprio queue", n);
	for (int i = 0; i < n; i++)
		forget_free[nforget_free++] = d[i].cookie;
}

/* What the kernel sends when it drops an inode: FORGET on hiprio, no reply. */
static void forget(uint64_t nodeid)
{
	while (!nforget_free)
		reap_forgets(5000);
	struct vu_fuse_req *r = forget_free[--nforget_free];
	struct fuse_forget_in in = { .nlookup = 1 };
	vu_fuse_prep(r, FUSE_FORGET, nodeid, &in, sizeof(in), NULL, 0, VU_FUSE_NO_REPLY, 0, 0);
	int err = vu_fuse_submit(&fe, VU_HIPRIO, r);
	if (err || (err = vu_kick(&fe, VU_HIPRIO)))
		die("FORGET", err);
}

static unsigned count_direntplus(const uint8_t *buf, size_t len, uint64_t *last_off)
{
	unsigned n = 0;
	for (size_t at = 0; at + FUSE_NAME_OFFSET_DIRENTPLUS <= len;) {
		struct fuse_direntplus e;
		memcpy(&e, buf + at, sizeof(e));
		size_t sz = FUSE_DIRENTPLUS_SIZE(&e);
		if (!e.dirent.namelen || at + sz > len)
			die("malformed READDIRPLUS reply", 0);
		*last_off = e.dirent.off;
		at += sz;
		n++;
	}
	return n;
}

/* Slot S's request completed with RES; returns true when an op is done. */
static bool complete(struct slot *s, int res)
{
	struct lane *l = s->lane;

	if (res < 0) {
		fprintf(stderr, "vu_load: %s: opcode %u failed\n", op_names[cfg.op], s->r.ih->opcode);
		die("backend error", res);
	}
	switch (cfg.op) {
	case OP_READ:
	case OP_WRITE:
		if ((cfg.op == OP_READ && res != 4096) ||
		    (cfg.op == OP_WRITE && ((struct fuse_write_out *)s->r.reply)->size != 4096))
			die("short read or write", 0);
		l->bytes += 4096;
		l->ops++;
		return true;
	case OP_READDIRPLUS: {
		unsigned n = count_direntplus(s->r.page, (size_t)res, &s->dir_off);
		if (!res)
			s->dir_off = 0;  /* end of directory: start over */
		l->ops += n;
		l->bytes += (uint64_t)res;
		return true;
	}
	case OP_CREATE:
		if (s->stage == 0) {
			struct fuse_entry_out e;
			struct fuse_open_out o;
			memcpy(&e, s->r.reply, sizeof(e));
			memcpy(&o, s->r.reply + sizeof(e), sizeof(o));
			s->nodeid = e.nodeid, s->fh = o.fh;
		}
		if (++s->stage < 3)
			return false;
		s->stage = 0;
		forget(s->nodeid);
		l->ops++;
		return true;
	default:
		l->ops++;
		return true;
	}
}

static void set_up(void)
{
	struct vu_fuse_req *r = &slots[0].r;
	struct fuse_init_out init;
	struct fuse_entry_out e;
	int err;

	if ((err = vu_connect(&fe, cfg.sock)))
		die("vhost-user connect", err);
	if (cfg.op == OP_DAX)
		vu_shmem_fe_attach(&fe, &shmem);
	if ((err = vu_setup_queues(&fe, 16 << 20, 0, (unsigned)cfg.queues)) == -ENOTSUP) {
		fprintf(stderr, "vu_load: the backend does not offer %d request queues\n", cfg.queues);
		exit(3);
	}
	if (err)
		die("vhost-user set-up", err);
	/* The total depth shared out, the first lanes taking what is left over. */
	for (int t = 0, at = 0; t < cfg.queues; t++) {
		struct lane *l = &lanes[t];

		l->qi = VU_REQUEST + t;
		l->qd = cfg.qd / cfg.queues + (t < cfg.qd % cfg.queues);
		l->slots = &slots[at];
		l->rng = 0x9e3779b97f4a7c15ull ^ (0xbf58476d1ce4e5b9ull * (uint64_t)t);
		for (int i = 0; i < l->qd; i++)
			slots[at + i].lane = l;
		at += l->qd;
	}
	for (int i = 0; i < MAXQD; i++)
		if ((err = vu_fuse_req_alloc(&fe, &slots[i].r, 8192)))
			die("guest memory", err);
	for (int i = 0; i < NFORGET; i++) {
		if ((err = vu_fuse_req_alloc(&fe, &forgets[i], 0)))
			die("guest memory", err);
		forget_free[nforget_free++] = &forgets[i];
	}
	if ((err = vu_fuse_init(&fe, r, VU_FUSE_LINUX_FLAGS, &init)))
		die("FUSE_INIT", err);
	const char *target = cfg.op == OP_READDIRPLUS ? cfg.dir : cfg.op == OP_CREATE ? cfg.new_dir : cfg.file;
	if ((err = vu_fuse_lookup(&fe, r, FUSE_ROOT_ID, target, &e)))
		die("LOOKUP of the benchmark's file or directory", err);
	file_nodeid = parent_nodeid = e.nodeid;
	file_blocks = e.attr.size / 4096;
	if ((cfg.op == OP_READ || cfg.op == OP_WRITE) && !file_blocks)
		die("the file is smaller than 4 KiB", 0);
	if ((cfg.op == OP_READ || cfg.op == OP_WRITE) &&
	    (err = vu_fuse_open(&fe, r, FUSE_OPEN, file_nodeid, O_RDWR, &file_fh)))
		die("OPEN", err);
	for (int f = 0, i = 0; (cfg.op == OP_READ || cfg.op == OP_WRITE) && f < cfg.files; f++) {
		uint64_t nid = file_nodeid, fh = file_fh;
		char name[256];

		snprintf(name, sizeof(name), "%s.%d", cfg.file, f);
		if (f && ((err = vu_fuse_lookup(&fe, r, FUSE_ROOT_ID, name, &e)) ||
			  (err = vu_fuse_open(&fe, r, FUSE_OPEN, e.nodeid, O_RDWR, &fh))))
			die("LOOKUP and OPEN of --file NAME.N", err);
		if (f) {
			nid = e.nodeid;
			file_blocks = e.attr.size / 4096 < file_blocks ? e.attr.size / 4096 : file_blocks;
		}
		for (; i < (f + 1) * cfg.qd / cfg.files; i++)
			slots[i].rw_nodeid = nid, slots[i].rw_fh = fh;
	}
	if ((cfg.op == OP_READ || cfg.op == OP_WRITE) && !file_blocks)
		die("a file is smaller than 4 KiB", 0);
	for (int i = 0; cfg.op == OP_READDIRPLUS && i < cfg.qd; i++)
		if ((err = vu_fuse_open(&fe, r, FUSE_OPENDIR, file_nodeid, O_RDONLY, &slots[i].dir_fh)))
			die("OPENDIR", err);
	for (int i = 0; i < MAXQD; i++)
		memset(slots[i].r.page, 0x5a, 4096);  /* write4k's payload */
}

/* One lane: its QD slots in flight on its queue until time or its share
 * of the op count is up, then drained. */
static void *run_lane(void *arg)
{
	struct lane *l = arg;
	struct vu_done done[MAXQD];
	uint64_t max_ops = cfg.max_ops ? (cfg.max_ops + (uint64_t)cfg.queues - 1) / (uint64_t)cfg.queues : 0;
	unsigned inflight = 0;
	bool stopping = false;

	for (int i = 0; i < l->qd; i++, inflight++) {
		l->slots[i].t0 = now_ns();
		submit(&l->slots[i]);
	}
	vu_kick(&fe, l->qi);
	while (inflight) {
		int n = vu_reap(&fe, l->qi, done, MAXQD, 10000);
		if (n <= 0)
			die(n ? "request queue" : "the backend stopped answering (10 s)", n);
		uint64_t t = now_ns();
		stopping = stopping || t >= l->end_ns || (max_ops && l->ops >= max_ops);
		for (int i = 0; i < n; i++) {
			struct slot *s = done[i].cookie;
			bool op_done = complete(s, vu_fuse_result(&s->r, done[i].len));
			if (op_done || cfg.op == OP_READDIRPLUS)
				hist_add(l->hist, t - s->t0);
			if (op_done && stopping) {
				inflight--;
				continue;
			}
			if (op_done)
				s->t0 = t;
			submit(s);
		}
		int err = vu_kick(&fe, l->qi);
		if (err)
			die("kick", err);
		if (cfg.op == OP_CREATE)
			reap_forgets(0);
	}
	return NULL;
}

/* Every lane on its own thread (one queue: this one), then their sums. */
static void run_backend(void)
{
	uint64_t end = now_ns() + (uint64_t)(cfg.seconds * 1e9);

	for (int t = 0; t < cfg.queues; t++)
		lanes[t].end_ns = end;
	for (int t = 1; t < cfg.queues; t++)
		if (pthread_create(&lanes[t].thread, NULL, run_lane, &lanes[t]))
			die("pthread_create", errno);
	run_lane(&lanes[0]);
	for (int t = 1; t < cfg.queues; t++)
		pthread_join(lanes[t].thread, NULL);
	for (int t = 0; t < cfg.queues; t++) {
		ops += lanes[t].ops, bytes += lanes[t].bytes, requests += lanes[t].requests;
		for (int b = 0; b < HIST; b++)
			hist[b] += lanes[t].hist[b];
	}
}

static void run_pread(void)
{
	static uint8_t buf[4096] __attribute__((aligned(4096))), dst[4096];
	int fd = open(cfg.path, O_RDONLY);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 4096)
		die("cannot open the file (4 KiB at least)", errno);
	file_blocks = (uint64_t)st.st_size / 4096;
	lanes[0].rng = 0x9e3779b97f4a7c15ull;
	for (uint64_t end = now_ns() + (uint64_t)(cfg.seconds * 1e9), t = now_ns();
	     t < end && (!cfg.max_ops || ops < cfg.max_ops);) {
		if (pread(fd, buf, 4096, (off_t)rand_off(&lanes[0])) != 4096)
			die("pread", errno);
		memcpy(dst, buf, 4096);
		__asm__ volatile("" : : "r"(dst) : "memory");  /* the copy is the point */
		uint64_t t1 = now_ns();
		hist_add(hist, t1 - t);
		t = t1;
		ops++, bytes += 4096;
	}
	close(fd);
}

/* The file mapped into the window, 2 MiB at a time, then read4k's offsets from it. */
static void run_dax(void)
{
	static uint8_t dst[4096];
	struct vu_fuse_req *r = &slots[0].r;
	uint64_t len = file_blocks * 4096 < shmem.size ? file_blocks * 4096 : shmem.size;

	len &= ~((2ull << 20) - 1);
	if (!len)
		die("dax4k needs a file of 2 MiB at least", 0);
	for (uint64_t off = 0; off < len; off += 2ull << 20) {
		struct fuse_setupmapping_in in = { .fh = UINT64_MAX, .foffset = off, .len = 2ull << 20,
						   .flags = FUSE_SETUPMAPPING_FLAG_READ, .moffset = off };
		int err;

		vu_fuse_prep(r, FUSE_SETUPMAPPING, file_nodeid, &in, sizeof(in), NULL, 0, 0, 0, 0);
		if ((err = vu_fuse_call(&fe, r)) < 0)
			die("SETUPMAPPING", err);
	}
	file_blocks = len / 4096;
	lanes[0].rng = 0x9e3779b97f4a7c15ull;
	for (uint64_t end = now_ns() + (uint64_t)(cfg.seconds * 1e9), t = now_ns();
	     t < end && (!cfg.max_ops || ops < cfg.max_ops);) {
		memcpy(dst, shmem.win + rand_off(&lanes[0]), 4096);
		__asm__ volatile("" : : "r"(dst) : "memory");
		uint64_t t1 = now_ns();
		hist_add(hist, t1 - t);
		t = t1;
		ops++, bytes += 4096;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: vu_load --socket PATH --op read4k|write4k|getattr|lookup|readdirplus|create|dax4k\n"
			"               [--qd N] [--queues Q] [--files F] [--seconds S | --ops N] [--backend-pid PID]\n"
			"               [--file NAME] [--dir NAME] [--new-dir NAME]\n"
			"       vu_load --op pread4k --path FILE [--seconds S | --ops N]\n");
	exit(2);
}

static void parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", 1, 0, 's' }, { "op", 1, 0, 'o' }, { "qd", 1, 0, 'q' },
		{ "seconds", 1, 0, 't' }, { "ops", 1, 0, 'n' }, { "backend-pid", 1, 0, 'p' },
		{ "file", 1, 0, 'f' }, { "dir", 1, 0, 'd' }, { "new-dir", 1, 0, 'c' },
		{ "path", 1, 0, 'P' }, { "queues", 1, 0, 'Q' }, { "files", 1, 0, 'F' }, { 0 },
	};
	int c, op = -1;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': cfg.sock = optarg; break;
		case 'o':
			for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
				if (!strcmp(optarg, op_names[i]))
					op = (int)i;
			break;
		case 'q': cfg.qd = atoi(optarg); break;
		case 't': cfg.seconds = atof(optarg); break;
		case 'n': cfg.max_ops = strtoull(optarg, NULL, 0), cfg.seconds = 1e6; break;
		case 'p': cfg.backend = atoi(optarg); break;
		case 'f': cfg.file = optarg; break;
		case 'd': cfg.dir = optarg; break;
		case 'c': cfg.new_dir = optarg; break;
		case 'P': cfg.path = optarg; break;
		case 'Q': cfg.queues = atoi(optarg); break;
		case 'F': cfg.files = atoi(optarg); break;
		default: usage();
		}
	}
	if (op < 0 || cfg.qd < 1 || cfg.qd > MAXQD || cfg.seconds <= 0 ||
	    cfg.queues < 1 || cfg.queues > VU_MAX_QUEUES - 1 || cfg.qd < cfg.queues ||
	    cfg.files < 1 || cfg.files > cfg.qd ||
	    (cfg.queues > 1 && (op == OP_CREATE || op == OP_PREAD || op == OP_DAX)) ||
	    (op == OP_PREAD ? !cfg.path : !cfg.sock))
		usage();
	cfg.op = (enum op)op;
}

int main(int argc, char **argv)
{
	parse(argc, argv);
	if (cfg.op != OP_PREAD)
		set_up();
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t ticks0 = cfg.backend ? tree_ticks(cfg.backend) : 0;
	double cpu0 = client_cpu_s(), t0 = (double)now_ns() / 1e9;
	if (cfg.op == OP_PREAD)
		run_pread();
	else if (cfg.op == OP_DAX)
		run_dax();
	else
		run_backend();
	double secs = (double)now_ns() / 1e9 - t0, cpu = client_cpu_s() - cpu0;
	double backend_us = cfg.backend ? (double)(tree_ticks(cfg.backend) - ticks0) * 1e6 / (double)hz : -1;
	if (cfg.op != OP_PREAD)
		vu_close(&fe);
	if (cfg.op == OP_DAX)
		vu_shmem_fe_close(&shmem);
	if (!ops)
		die("no op completed", 0);
	printf("op=%s qd=%d queues=%d seconds=%.2f ops=%llu ops_per_s=%.0f mib_per_s=%.1f requests=%llu "
	       "backend_cpu_us_per_op=%.2f client_cpu_us_per_op=%.2f p50_us=%.1f p99_us=%.1f\n",
	       op_names[cfg.op], cfg.qd, cfg.queues, secs, (unsigned long long)ops, (double)ops / secs,
	       (double)bytes / secs / (1 << 20), (unsigned long long)requests,
	       backend_us < 0 ? -1 : backend_us / (double)ops, cpu * 1e6 / (double)ops,
	       hist_pct(50), hist_pct(99));
	return 0;
}
