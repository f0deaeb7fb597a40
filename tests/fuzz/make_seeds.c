// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writes the seed corpus of the fuzz targets, tests/fuzz/corpus/<target>/,
 * in each target's input format (see the comment at the top of each
 * target): `make fuzz-seeds` after changing a format. Seeds are small and
 * valid so the fuzzer starts from requests that reach the handlers, plus
 * a few malformed ones the checks must refuse.
 *
 * FUSE ids are those a fresh server hands the harness's set-up (run the
 * target with FZ_DEBUG=1 to see them): nodeid 2 file, 3 dir, 4 up,
 * 5 abs, 6 root, 7 etc, 8 dir/inner; fh 1 file (O_RDWR), 2 dir.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "devices/virtio.h"
#include "devices/vq.h"

static const char *outdir = "tests/fuzz/corpus";
static uint8_t buf[8192];
static size_t pos;

static void put(const void *p, size_t n)
{
	if (pos + n > sizeof(buf)) {
		fprintf(stderr, "make_seeds: seed too big\n");
		exit(1);
	}
	memcpy(buf + pos, p, n);
	pos += n;
}

static void put8(uint8_t v) { put(&v, 1); }
static void put16(uint16_t v) { put(&v, 2); }
static void put32(uint32_t v) { put(&v, 4); }
static void put64(uint64_t v) { put(&v, 8); }

static void save(const char *target, const char *name)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, target);
	mkdir(outdir, 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", outdir, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, pos, f) != pos || fclose(f)) {
		perror(path);
		exit(1);
	}
	pos = 0;
}

/* ---- FUSE: flags byte, cuts, one request ---- */

static void fuse_seed(const char *name, uint8_t flags, const uint16_t *cuts, uint32_t op,
		      uint64_t nodeid, const void *arg, size_t alen, const char *s1,
		      const char *s2)
{
	struct fuse_in_header h = { .opcode = op, .unique = 7, .nodeid = nodeid, .pid = 42 };
	size_t at;

	put8(flags);
	for (unsigned i = 0; i < (flags & 7u); i++)
		put16(cuts[i]);
	at = pos;
	put(&h, sizeof(h));
	if (alen)
		put(arg, alen);
	if (s1)
		put(s1, strlen(s1) + 1);
	if (s2)
		put(s2, strlen(s2) + 1);
	h.len = (uint32_t)(pos - at);
	if (flags & 0x80)
		h.len += 3;   /* the raw-length seed lies */
	memcpy(buf + at, &h, sizeof(h));
	save("fuzz_fuse", name);
}

#define FS(name, op, node, arg, s1, s2) \
	fuse_seed(name, 0, NULL, op, node, &(arg), sizeof(arg), s1, s2)
#define FN(name, op, node, s1, s2) fuse_seed(name, 0, NULL, op, node, NULL, 0, s1, s2)

static void fuse_seeds(void)
{
	struct fuse_init_in init = { .major = 7, .minor = 38, .flags = FUSE_POSIX_LOCKS };
	struct fuse_getattr_in ga = { 0 };
	struct fuse_open_in ro = { .flags = O_RDONLY }, rw = { .flags = O_RDWR };
	struct fuse_read_in rd = { .fh = 1, .size = 4096 }, rdd = { .fh = 2, .size = 4096 };
	struct fuse_mkdir_in mk = { .mode = 0755 };
	struct fuse_create_in cr = { .flags = O_RDWR | O_CREAT, .mode = S_IFREG | 0644 };
	struct fuse_mknod_in mn = { .mode = S_IFIFO | 0644 };
	struct fuse_rename_in rn = { .newdir = 3 };
	struct fuse_rename2_in rn2 = { .newdir = 1, .flags = 2 /* RENAME_EXCHANGE */ };
	struct fuse_link_in ln = { .oldnodeid = 2 };
	struct fuse_setattr_in sa = { .valid = FATTR_MODE | FATTR_SIZE, .mode = 0600 };
	struct fuse_getxattr_in gx = { .size = 64 };
	struct { uint32_t size, flags; } sx = { 4, 0 };  /* without SETXATTR_EXT; "abc\0" */
	struct fuse_release_in rl = { .fh = 1 };
	struct fuse_flush_in fl = { .fh = 1 };
	struct fuse_fsync_in fs = { .fh = 1 };
	struct fuse_lk_in lk = { .fh = 1, .owner = 9, .lk = { 0, 100, F_WRLCK, 42 } };
	struct fuse_fallocate_in fa = { .fh = 1, .length = 4096 };
	struct fuse_lseek_in ls = { .fh = 1, .whence = 3 /* SEEK_DATA */ };
	struct fuse_copy_file_range_in cf = { .fh_in = 1, .nodeid_out = 2, .fh_out = 1,
					      .off_out = 100, .len = 10 };
	struct fuse_forget_in fg = { .nlookup = 1 };
	struct { struct fuse_batch_forget_in b; struct fuse_forget_one o[2]; } bf = {
		{ .count = 2 }, { { 2, 1 }, { 4, 1 } } };
	struct fuse_access_in ac = { .mask = 4 };
	struct fuse_interrupt_in in = { .unique = 7 };
	/* 8 bytes of data, so the struct has no tail padding. */
	struct { struct fuse_write_in w; char d[8]; } wr = {
		{ .fh = 1, .offset = 3, .size = 8 }, "hello!!" };
	static const uint16_t cuts3[] = { 1, 7, 41 };

	FS("init", FUSE_INIT, 0, init, NULL, NULL);
	FN("lookup_file", FUSE_LOOKUP, 1, "file", NULL);
	FN("lookup_up", FUSE_LOOKUP, 1, "up", NULL);
	FN("lookup_dotdot", FUSE_LOOKUP, 1, "..", NULL);
	FN("lookup_etc_passwd", FUSE_LOOKUP, 7, "passwd", NULL);
	FN("lookup_inner_up2", FUSE_LOOKUP, 3, "up2", NULL);
	fuse_seed("lookup_split", 3, cuts3, FUSE_LOOKUP, 3, NULL, 0, "inner", NULL);
	FS("getattr", FUSE_GETATTR, 2, ga, NULL, NULL);
	FS("open", FUSE_OPEN, 2, ro, NULL, NULL);
	FS("open_abs_symlink", FUSE_OPEN, 5, ro, NULL, NULL);
	FS("read", FUSE_READ, 2, rd, NULL, NULL);
	fuse_seed("read_24_out", 0x08, NULL, FUSE_READ, 2, &rd, sizeof(rd), NULL, NULL);
	fuse_seed("read_lying_len", 0x80, NULL, FUSE_READ, 2, &rd, sizeof(rd), NULL, NULL);
	FS("write", FUSE_WRITE, 2, wr, NULL, NULL);
	FN("readlink_up", FUSE_READLINK, 4, NULL, NULL);
	FN("readlink_abs", FUSE_READLINK, 5, NULL, NULL);
	FS("opendir", FUSE_OPENDIR, 3, ro, NULL, NULL);
	FS("readdir", FUSE_READDIR, 3, rdd, NULL, NULL);
	FS("readdirplus", FUSE_READDIRPLUS, 3, rdd, NULL, NULL);
	FS("mkdir", FUSE_MKDIR, 1, mk, "newdir", NULL);
	FS("create", FUSE_CREATE, 1, cr, "newfile", NULL);
	FS("mknod_fifo", FUSE_MKNOD, 1, mn, "fifo", NULL);
	FN("symlink", FUSE_SYMLINK, 1, "ln", "../secret");
	FN("unlink", FUSE_UNLINK, 1, "file", NULL);
	FN("rmdir", FUSE_RMDIR, 1, "dir", NULL);
	FS("rename", FUSE_RENAME, 1, rn, "file", "moved");
	FS("rename2_exchange", FUSE_RENAME2, 1, rn2, "up", "file");
	FS("link", FUSE_LINK, 1, ln, "hard", NULL);
	FS("setattr", FUSE_SETATTR, 2, sa, NULL, NULL);
	FN("statfs", FUSE_STATFS, 1, NULL, NULL);
	FS("getxattr", FUSE_GETXATTR, 2, gx, "user.x", NULL);
	FS("listxattr", FUSE_LISTXATTR, 2, gx, NULL, NULL);
	FS("setxattr", FUSE_SETXATTR, 2, sx, "user.x", "abc");
	FN("removexattr", FUSE_REMOVEXATTR, 2, "user.x", NULL);
	FS("flush", FUSE_FLUSH, 2, fl, NULL, NULL);
	FS("fsync", FUSE_FSYNC, 2, fs, NULL, NULL);
	FS("release", FUSE_RELEASE, 2, rl, NULL, NULL);
	rl.fh = 2;
	FS("releasedir", FUSE_RELEASEDIR, 3, rl, NULL, NULL);
	FS("getlk", FUSE_GETLK, 2, lk, NULL, NULL);
	FS("setlk", FUSE_SETLK, 2, lk, NULL, NULL);
	FS("setlkw", FUSE_SETLKW, 2, lk, NULL, NULL);
	FS("fallocate", FUSE_FALLOCATE, 2, fa, NULL, NULL);
	FS("lseek", FUSE_LSEEK, 2, ls, NULL, NULL);
	FS("copy_file_range", FUSE_COPY_FILE_RANGE, 2, cf, NULL, NULL);
	FS("forget", FUSE_FORGET, 2, fg, NULL, NULL);
	FS("batch_forget", FUSE_BATCH_FORGET, 0, bf, NULL, NULL);
	FS("access", FUSE_ACCESS, 6, ac, NULL, NULL);
	FS("interrupt", FUSE_INTERRUPT, 0, in, NULL, NULL);
	FN("destroy", FUSE_DESTROY, 0, NULL, NULL);
	(void)rw;
}

/* ---- 9p: frames of len[2] split[1] message ---- */

static size_t msg_at;

static void p9_begin(uint8_t type, uint16_t tag)
{
	pos += 3;     /* frame header, filled by p9_end */
	msg_at = pos;
	put32(0);
	put8(type);
	put16(tag);
}

static void p9_str(const char *s)
{
	put16((uint16_t)strlen(s));
	put(s, strlen(s));
}

static void p9_end(uint8_t split)
{
	uint32_t size = (uint32_t)(pos - msg_at);
	uint16_t len = (uint16_t)size;

	memcpy(buf + msg_at, &size, 4);
	memcpy(buf + msg_at - 3, &len, 2);
	buf[msg_at - 1] = split;
}

static void t_version(void) { p9_begin(100, 0xffff); put32(65536); p9_str("9P2000.L"); p9_end(0); }

static void t_attach(uint32_t fid, uint32_t uid)
{
	p9_begin(104, 1); put32(fid); put32(~0u); p9_str(""); p9_str(""); put32(uid); p9_end(0);
}

static void t_walk(uint32_t fid, uint32_t newfid, const char *a, const char *b, uint8_t split)
{
	p9_begin(110, 2); put32(fid); put32(newfid); put16(a ? (b ? 2 : 1) : 0);
	if (a)
		p9_str(a);
	if (b)
		p9_str(b);
	p9_end(split);
}

static void t_fid(uint8_t type, uint32_t fid) { p9_begin(type, 3); put32(fid); p9_end(0); }
static void t_fid32(uint8_t type, uint32_t fid, uint32_t v)
{
	p9_begin(type, 4); put32(fid); put32(v); p9_end(0);
}

static void t_io(uint8_t type, uint32_t fid, uint64_t off, uint32_t count, uint8_t split)
{
	p9_begin(type, 5); put32(fid); put64(off); put32(count); p9_end(split);
}

static void t_lock(uint32_t fid, uint8_t type, uint32_t flags, uint16_t tag)
{
	p9_begin(52, tag); put32(fid); put8(type); put32(flags); put64(0); put64(100);
	put32(42); p9_str("c"); p9_end(0);
}

static void p9_open_file(uint32_t fid, uint32_t flags)
{
	t_version();
	t_attach(0, 0);
	t_walk(0, fid, "file", NULL, 0);
	t_fid32(12, fid, flags);
}

static void p9_seeds(void)
{
	p9_open_file(1, O_RDONLY);
	t_io(116, 1, 0, 4096, 0);
	save("fuzz_p9", "read");

	t_version();
	t_attach(0, 0);
	t_walk(0, 1, "file", NULL, 3);
	t_fid32(12, 1, O_RDONLY);
	t_io(116, 1, 0, 4096, 5);
	save("fuzz_p9", "read_split");

	p9_open_file(1, O_RDWR);
	p9_begin(118, 6); put32(1); put64(2); put32(5); put("hello", 5); p9_end(0);
	t_fid32(50, 1, 0);                              /* Tfsync */
	p9_begin(24, 7); put32(1); put64(0x3fff); p9_end(0); /* Tgetattr all */
	t_fid(120, 1);                                  /* Tclunk */
	save("fuzz_p9", "write_fsync_getattr");

	t_version();
	t_attach(0, 0);
	t_walk(0, 1, "up", NULL, 0);
	t_fid32(12, 1, O_RDONLY);
	t_walk(0, 2, "..", NULL, 0);
	t_walk(0, 3, "etc", "passwd", 0);
	t_walk(0, 4, "dir", "up2", 0);
	t_fid(22, 4);                                   /* Treadlink */
	t_walk(0, 5, "abs", NULL, 0);
	t_fid32(12, 5, O_RDONLY);
	save("fuzz_p9", "walk_escapes");

	t_version();
	t_attach(0, 0);
	t_walk(0, 1, "dir", NULL, 0);
	t_fid32(12, 1, O_RDONLY | O_DIRECTORY);
	t_io(40, 1, 0, 4096, 0);                        /* Treaddir */
	t_fid(8, 0);                                    /* Tstatfs */
	save("fuzz_p9", "readdir_statfs");

	t_version();
	t_attach(0, 0);
	t_walk(0, 1, NULL, NULL, 0);                    /* clone the root */
	p9_begin(14, 8); put32(1); p9_str("new"); put32(O_RDWR | O_CREAT); put32(0644); put32(0);
	p9_end(0);                                      /* Tlcreate */
	p9_begin(72, 9); put32(0); p9_str("d"); put32(0755); put32(0); p9_end(0);  /* Tmkdir */
	p9_begin(16, 10); put32(0); p9_str("s"); p9_str("../secret"); put32(0); p9_end(0);
	p9_begin(18, 11); put32(0); p9_str("n"); put32(S_IFIFO | 0644); put32(0); put32(0);
	put32(0); p9_end(0);                            /* Tmknod */
	t_walk(0, 2, "file", NULL, 0);
	p9_begin(70, 12); put32(0); put32(2); p9_str("hard"); p9_end(0);      /* Tlink */
	p9_begin(74, 13); put32(0); p9_str("file"); put32(0); p9_str("moved"); p9_end(0);
	p9_begin(76, 14); put32(0); p9_str("dir"); put32(0x200); p9_end(0);   /* Tunlinkat */
	p9_begin(20, 15); put32(2); put32(0); p9_str("again"); p9_end(0);     /* Trename */
	t_fid(122, 2);                                  /* Tremove */
	save("fuzz_p9", "create_and_move");

	p9_open_file(1, O_RDWR);
	p9_begin(26, 16); put32(1); put32(0x7f); put32(0600); put32(0); put32(0); put64(3);
	put64(0); put64(0); put64(0); put64(0); p9_end(0);                     /* Tsetattr */
	p9_begin(30, 17); put32(1); put32(2); p9_str("user.x"); p9_end(0);    /* Txattrwalk */
	t_io(116, 2, 0, 64, 0);
	t_walk(0, 3, "file", NULL, 0);
	p9_begin(32, 18); put32(3); p9_str("user.y"); put64(3); put32(0); p9_end(0);
	p9_begin(118, 19); put32(3); put64(0); put32(3); put("abc", 3); p9_end(0);
	t_fid(120, 3);
	save("fuzz_p9", "setattr_xattr");

	p9_open_file(1, O_RDWR);
	t_walk(0, 2, "file", NULL, 0);
	t_fid32(12, 2, O_RDWR);
	t_lock(1, 1 /* write */, 0, 20);
	t_lock(2, 1, 1 /* block */, 21);                /* parks */
	p9_begin(108, 22); put16(21); p9_end(0);        /* Tflush of the parked lock */
	p9_begin(54, 23); put32(2); put8(1); put64(0); put64(100); put32(42); p9_str("c");
	p9_end(0);                                      /* Tgetlock */
	save("fuzz_p9", "lock_park_flush");

	t_version();
	pos += 3;
	msg_at = pos;
	put32(4000); put8(110); put16(2); put32(0); put32(1); put16(1); p9_str("file");
	memcpy(buf + msg_at - 3, &(uint16_t){ (uint16_t)(pos - msg_at) }, 2);
	buf[msg_at - 1] = 0;
	save("fuzz_p9", "lying_size");

	t_version();
	t_attach(0, 1000);                              /* an unprivileged user */
	t_walk(0, 1, "file", NULL, 0);
	t_fid32(12, 1, O_RDWR);
	save("fuzz_p9", "attach_uid1000");
}

/* ---- vq: 16-byte header, then RAM at FZ_GPA (fuzz_vq.c) ---- */

#define GPA 0x10000ULL
#define QSZ 8u
#define DESC 0u
#define AVAIL 128u
#define USED 256u
#define RAM 1024u

static uint8_t ram[RAM];

static void desc(unsigned i, uint64_t off, uint32_t len, uint16_t flags, uint16_t next)
{
	struct vq_desc d = { .addr = GPA + off, .len = len, .flags = flags, .next = next };

	memcpy(ram + DESC + 16 * i, &d, sizeof(d));
}

static void avail(uint16_t idx, const uint16_t *heads, unsigned n)
{
	memcpy(ram + AVAIL + 2, &idx, 2);
	for (unsigned i = 0; i < n; i++)
		memcpy(ram + AVAIL + 4 + 2 * i, &heads[i], 2);
}

static void vq_save(const char *name, uint8_t cfg, uint8_t rounds, uint16_t d,
		    uint16_t base_avail)
{
	put8(cfg);
	put8(rounds);
	put16(d);
	put16(AVAIL);
	put16(USED);
	put16(base_avail);
	put16(base_avail);
	put32(0);
	put(ram, RAM);
	save("fuzz_vq", name);
	memset(ram, 0, sizeof(ram));
}

static void vq_seeds(void)
{
	const uint8_t q8 = 3, ind = 0x10, evt = 0x20, now = 0x40, base = 0x80;

	desc(0, 512, 16, VQ_DESC_F_NEXT, 1);
	desc(1, 600, 32, VQ_DESC_F_WRITE, 0);
	avail(1, (uint16_t[]){ 0 }, 1);
	vq_save("ok_two_desc", q8, 0, DESC, 0);

	desc(0, 512, 16, 0, 0);
	desc(1, 528, 16, VQ_DESC_F_NEXT, 2);
	desc(2, 544, 16, VQ_DESC_F_WRITE | VQ_DESC_F_NEXT, 3);
	desc(3, 560, 0, VQ_DESC_F_WRITE, 0);            /* zero length: dropped */
	avail(2, (uint16_t[]){ 0, 1 }, 2);
	vq_save("ok_two_chains_push_now", q8 | now | evt, 1, DESC, 0);

	desc(0, 768, 32, VQ_DESC_F_INDIRECT, 0);
	memcpy(ram + 768, &(struct vq_desc){ GPA + 512, 8, VQ_DESC_F_NEXT, 1 }, 16);
	memcpy(ram + 784, &(struct vq_desc){ GPA + 520, 8, VQ_DESC_F_WRITE, 0 }, 16);
	avail(1, (uint16_t[]){ 0 }, 1);
	vq_save("ok_indirect", q8 | ind, 0, DESC, 0);

	/* Two chains in ring slots 6 and 7 while avail->idx wraps to 0. */
	desc(0, 512, 16, 0, 0);
	desc(1, 528, 16, VQ_DESC_F_WRITE, 0);
	memcpy(ram + AVAIL + 4 + 2 * 6, &(uint16_t[]){ 0, 1 }, 4);
	vq_save("ok_index_wrap", q8 | base, 0, DESC, 0xfffe);

	desc(0, 512, 16, VQ_DESC_F_NEXT, 0);            /* loops */
	avail(1, (uint16_t[]){ 0 }, 1);
	vq_save("bad_loop", q8, 0, DESC, 0);

	desc(0, 512, 16, VQ_DESC_F_NEXT, 9);            /* next out of range */
	avail(1, (uint16_t[]){ 0 }, 1);
	vq_save("bad_next_range", q8, 0, DESC, 0);

	desc(0, 1000, 64, 0, 0);                        /* runs past the RAM */
	avail(1, (uint16_t[]){ 0 }, 1);
	vq_save("bad_buffer_outside", q8, 0, DESC, 0);

	desc(0, 512, 16, VQ_DESC_F_WRITE | VQ_DESC_F_NEXT, 1);
	desc(1, 528, 16, 0, 0);                         /* readable after writable */
	avail(1, (uint16_t[]){ 0 }, 1);
	vq_save("bad_order", q8, 0, DESC, 0);

	desc(0, 512, 16, 0, 0);
	avail(100, (uint16_t[]){ 0 }, 1);               /* index jumps */
	vq_save("bad_avail_jump", q8, 0, DESC, 0);

	avail(1, (uint16_t[]){ 20 }, 1);                /* head out of range */
	vq_save("bad_head", q8, 0, DESC, 0);

	desc(0, 512, 16, 0, 0);
	avail(2, (uint16_t[]){ 0, 0 }, 2);              /* same head twice */
	vq_save("bad_twice", q8, 0, DESC, 0);

	desc(0, 768, 16, VQ_DESC_F_INDIRECT, 0);
	memcpy(ram + 768, &(struct vq_desc){ GPA + 768, 16, VQ_DESC_F_INDIRECT, 0 }, 16);
	avail(1, (uint16_t[]){ 0 }, 1);
	vq_save("bad_nested_indirect", q8 | ind, 0, DESC, 0);

	desc(0, 768, 16, VQ_DESC_F_INDIRECT, 0);
	avail(1, (uint16_t[]){ 0 }, 1);
	vq_save("bad_indirect_unnegotiated", q8, 0, DESC, 0);

	vq_save("bad_misaligned_desc", q8, 0, 8, 0);
	vq_save("bad_desc_outside", q8, 0, 0xfff0, 0);
	vq_save("bad_size", 11, 0, DESC, 0);            /* 2048 > the maximum */
}

/* ---- vhost-user: byte 0, then records [ctl][le16 len][hdr+payload] (fuzz_vhost_user.c) ---- */

#define VU_UVA 0x7f0000000000ULL

static void vu_rec(uint8_t ctl, uint32_t req, uint32_t flags, const void *p, uint32_t size)
{
	put8(ctl);
	put16((uint16_t)(12 + size));
	put32(req);
	put32(1 | flags);
	put32(size);
	if (size)
		put(p, size);
}

static void vu_u64(uint8_t ctl, uint32_t req, uint64_t v) { vu_rec(ctl, req, 0, &v, 8); }

static void vu_state(uint32_t req, uint32_t index, uint32_t num)
{
	uint32_t s[2] = { index, num };

	vu_rec(0, req, 0, s, 8);
}

/* What QEMU sends to start a device: features, memory, both rings. */
static void vu_start_seq(void)
{
	uint64_t mem[5] = { 0, 0, 1u << 20, VU_UVA, 0 };   /* count+pad, gpa, size, uva, off */

	mem[0] = 1;
	vu_rec(0, 1, 0, NULL, 0);                           /* GET_FEATURES */
	vu_u64(0, 2, (1ULL << 32) | (1ULL << 30) | (1ULL << 29) | (1ULL << 28));
	vu_rec(0, 15, 0, NULL, 0);                          /* GET_PROTOCOL_FEATURES */
	vu_u64(0, 16, (1 << 0) | (1 << 3) | (1 << 15));
	vu_rec(0, 3, 0, NULL, 0);                           /* SET_OWNER */
	vu_rec(1, 5, 0, mem, 40);                           /* SET_MEM_TABLE, one memfd */
	for (uint32_t q = 0; q < 2; q++) {
		uint64_t base = VU_UVA + 0x10000 * (q + 1);
		struct __attribute__((packed)) { uint32_t i, f; uint64_t d, u, a, l; } addr = {
			q, 0, base, base + 0x2000, base + 0x1000, 0,
		};
		vu_state(8, q, 16);                         /* SET_VRING_NUM */
		vu_state(10, q, 0);                         /* SET_VRING_BASE */
		vu_rec(0, 9, 0, &addr, 40);                 /* SET_VRING_ADDR */
		vu_u64(0x11, 12, q);                        /* SET_VRING_KICK, eventfd */
		vu_u64(0x11, 13, q);                        /* SET_VRING_CALL */
		vu_u64(0x11, 14, q);                        /* SET_VRING_ERR */
		vu_state(18, q, 1);                         /* SET_VRING_ENABLE */
	}
}

static void vu_seeds(void)
{
	uint64_t reg[5] = { 0, 2u << 20, 1u << 20, VU_UVA + (2u << 20), 0 };
	uint32_t cfg[3] = { 0, 40, 0 };

	put8(0);
	vu_start_seq();
	vu_state(11, 1, 0);                                 /* GET_VRING_BASE */
	vu_rec(0, 34, 0, NULL, 0);                          /* RESET_DEVICE */
	save("fuzz_vhost_user", "ok_start_stop_reset");

	put8(0);
	vu_start_seq();
	vu_rec(1, 37, 1u << 3, reg, 40);                    /* ADD_MEM_REG, need reply */
	vu_rec(0, 38, 0, reg, 40);                          /* REM_MEM_REG */
	reg[1] = 0;
	reg[3] = VU_UVA;
	vu_rec(0, 38, 0, reg, 40);                          /* the rings' region leaves */
	vu_rec(0, 36, 0, NULL, 0);                          /* GET_MAX_MEM_SLOTS */
	save("fuzz_vhost_user", "ok_add_remove_regions");

	put8(1);
	vu_u64(0, 16, 1 << 9);                              /* CONFIG */
	{
		uint8_t c[12 + 40] = { 0 };

		memcpy(c, cfg, 12);
		vu_rec(0, 24, 0, c, sizeof(c));
	}
	save("fuzz_vhost_user", "ok_get_config");

	put8(0);
	vu_rec(0, 2, 0, cfg, 4);                            /* SET_FEATURES, 4 bytes */
	save("fuzz_vhost_user", "bad_size");

	put8(0);
	vu_rec(2, 5, 0, (uint64_t[]){ 2, 0, 4096, VU_UVA, 0, 2048, 4096, VU_UVA, 0 }, 72);
	save("fuzz_vhost_user", "bad_overlap");

	put8(0);
	vu_rec(0x11, 5, 0, (uint64_t[]){ 1, 0, 4096, VU_UVA, 0 }, 40);   /* an eventfd as memory */
	vu_rec(9, 1, 0, NULL, 0);                           /* nine fds */
	save("fuzz_vhost_user", "bad_fds");
}

/* fuzz_api: a mode byte (bit 0 config file, bit 1 running, bits 2-7 split), then the text. */
static void api_seed(uint8_t mode, const char *text, const char *name)
{
	put8(mode);
	put(text, strlen(text));
	save("fuzz_api", name);
}

static void api_seeds(void)
{
	api_seed(0x80, "PUT /boot-source HTTP/1.1\r\nHost: localhost\r\nContent-Length: 73\r\n\r\n"
		 "{\"kernel_image_path\":\"/k\",\"initrd_path\":\"/i\",\"boot_args\":\"console=ttyS0\"}",
		 "boot_source");
	api_seed(0x40, "PUT /machine-config HTTP/1.1\r\nContent-Length: 35\r\n\r\n"
		 "{\"vcpu_count\":2,\"mem_size_mib\":256}", "machine_config");
	api_seed(0xc0, "PUT /fs/data HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 88\r\n\r\n"
		 "{\"shared_dir\":\"/srv\",\"cache\":\"always\",\"dax_window_size\":\"1G\","
		 "\"readonly\":true,\"queues\":2}", "fs_share");
	api_seed(0x20, "PUT /9p/home HTTP/1.1\r\nContent-Length: 46\r\n\r\n"
		 "{\"tag\":\"home\",\"shared_dir\":\"/h\",\"msize\":65536}", "p9_share");
	api_seed(0x02, "PUT /actions HTTP/1.1\r\nContent-Length: 32\r\n\r\n"
		 "{\"action_type\":\"SendCtrlAltDel\"}", "ctrl_alt_del");
	api_seed(0x00, "PUT /vsock HTTP/1.1\r\nContent-Length: 40\r\n\r\n"
		 "{\"guest_cid\":3,\"uds_path\":\"/tmp/v.sock\"}", "vsock");
	api_seed(0x02, "GET / HTTP/1.1\r\n\r\n", "get_running");
	api_seed(0x00, "PUT /fs/a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", "bad_chunked");
	api_seed(0x00, "PUT /rng HTTP/1.1\r\nContent-Length: 8\r\n\r\n{\"a\":[[[", "bad_json");
	api_seed(0x01, "{\"boot-source\":{\"kernel_image_path\":\"/k\"},\"machine-config\":{\"vcpu_count\":1},"
		 "\"fs\":[{\"tag\":\"a\",\"shared_dir\":\"/a\"}],\"9p\":[{\"tag\":\"b\",\"shared_dir\":\"/b\"}],"
		 "\"console\":{\"mode\":\"none\"},\"rng\":{\"enabled\":true}}", "config_file");
}

/* ---- vsock: records [kind][len][bytes] (fuzz_vsock.c) ---- */

enum { VK_TX, VK_RX, VK_STEP, VK_RESET, VK_HOST, VK_HOST_WRITE, VK_HOST_CLOSE, VK_PEER };

static void vk(uint8_t kind, const void *p, uint8_t n)
{
	put8(kind);
	put8(n);
	put(p, n);
}

/* A guest packet to host port dport from guest port sport (CID 9). */
static void vk_pkt(uint16_t op, uint32_t sport, uint32_t dport, const char *payload,
		   uint32_t buf_alloc)
{
	uint8_t pkt[44 + 64];
	uint32_t len = payload ? (uint32_t)strlen(payload) : 0;
	size_t at = 0;

#define PUTF(v) do { __typeof__(v) _v = (v); memcpy(pkt + at, &_v, sizeof(_v)); at += sizeof(_v); } while (0)
	PUTF((uint64_t)9); PUTF((uint64_t)2); PUTF(sport); PUTF(dport); PUTF(len);
	PUTF((uint16_t)1); PUTF(op); PUTF((uint32_t)0); PUTF(buf_alloc); PUTF((uint32_t)0);
#undef PUTF
	memcpy(pkt + at, payload ? payload : "", len);
	vk(VK_TX, pkt, (uint8_t)(44 + len));
}

static void vk_rx(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		vk(VK_RX, (const uint8_t[]){ 80, (uint8_t)(i * 7) }, 2);
}

static void vsock_seeds(void)
{
	/* The guest connects to UDS_1, sends, the peer answers, both close. */
	vk_rx(4);
	vk_pkt(1, 1000, 1, NULL, 65536);
	vk(VK_STEP, "", 0);
	vk_pkt(5, 1000, 1, "hello", 65536);
	vk(VK_PEER, "world", 5);
	vk(VK_STEP, "", 0);
	vk(VK_STEP, "", 0);
	vk_pkt(4, 1000, 1, NULL, 65536);
	vk(VK_STEP, "", 0);
	save("fuzz_vsock", "guest_connect");
	/* A host process: CONNECT, the guest accepts, data both ways. */
	vk_rx(4);
	vk(VK_HOST, "CONNECT 5\n", 10);
	vk(VK_STEP, "", 0);
	vk(VK_STEP, "", 0);
	vk_pkt(2, 5, 1u << 30, NULL, 65536);
	vk(VK_HOST_WRITE, "data", 4);
	vk(VK_STEP, "", 0);
	vk_pkt(5, 5, 1u << 30, "back", 65536);
	vk(VK_HOST_CLOSE, "", 0);
	vk(VK_STEP, "", 0);
	save("fuzz_vsock", "host_connect");
	/* Garbage lines and a reset with connections open. */
	vk_rx(2);
	vk(VK_HOST, "CONNECT 99999999999\n", 20);
	vk(VK_HOST, "GET / HTTP/1.0\n", 15);
	vk_pkt(1, 7, 2, NULL, 4096);
	vk(VK_STEP, "", 0);
	vk(VK_RESET, "", 0);
	vk_rx(2);
	vk_pkt(5, 7, 2, "x", 4096);
	vk(VK_STEP, "", 0);
	save("fuzz_vsock", "garbage_and_reset");
}

int main(int argc, char **argv)
{
	if (argc > 1)
		outdir = argv[1];
	fuse_seeds();
	p9_seeds();
	vq_seeds();
	vu_seeds();
	api_seeds();
	vsock_seeds();
	return 0;
}
