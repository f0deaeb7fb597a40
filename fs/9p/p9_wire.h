/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * 9P2000.L wire encoding: message numbers, flag values and a bounds-checked
 * little-endian reader and writer over flat buffers, plus helpers that move
 * bytes between flat buffers and iovec lists split anywhere.
 *
 * The reader never trusts a length it reads: every get checks what is left
 * and, past the end, returns zero and latches an error that the caller
 * checks once after parsing (p9_rbuf_error). The writer does the same
 * against its capacity, so a reply that would not fit is detected, not
 * written out of bounds.
 */
#ifndef STAINLESS_FS_9P_P9_WIRE_H
#define STAINLESS_FS_9P_P9_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Message types (T = request, R = T + 1). */
enum {
	P9_TLERROR = 6, P9_RLERROR,
	P9_TSTATFS = 8, P9_RSTATFS,
	P9_TLOPEN = 12, P9_RLOPEN,
	P9_TLCREATE = 14, P9_RLCREATE,
	P9_TSYMLINK = 16, P9_RSYMLINK,
	P9_TMKNOD = 18, P9_RMKNOD,
	P9_TRENAME = 20, P9_RRENAME,
	P9_TREADLINK = 22, P9_RREADLINK,
	P9_TGETATTR = 24, P9_RGETATTR,
	P9_TSETATTR = 26, P9_RSETATTR,
	P9_TXATTRWALK = 30, P9_RXATTRWALK,
	P9_TXATTRCREATE = 32, P9_RXATTRCREATE,
	P9_TREADDIR = 40, P9_RREADDIR,
	P9_TFSYNC = 50, P9_RFSYNC,
	P9_TLOCK = 52, P9_RLOCK,
	P9_TGETLOCK = 54, P9_RGETLOCK,
	P9_TLINK = 70, P9_RLINK,
	P9_TMKDIR = 72, P9_RMKDIR,
	P9_TRENAMEAT = 74, P9_RRENAMEAT,
	P9_TUNLINKAT = 76, P9_RUNLINKAT,
	P9_TVERSION = 100, P9_RVERSION,
	P9_TAUTH = 102, P9_RAUTH,
	P9_TATTACH = 104, P9_RATTACH,
	P9_TERROR = 106, P9_RERROR,
	P9_TFLUSH = 108, P9_RFLUSH,
	P9_TWALK = 110, P9_RWALK,
	P9_TOPEN = 112, P9_ROPEN,
	P9_TCREATE = 114, P9_RCREATE,
	P9_TREAD = 116, P9_RREAD,
	P9_TWRITE = 118, P9_RWRITE,
	P9_TCLUNK = 120, P9_RCLUNK,
	P9_TREMOVE = 122, P9_RREMOVE,
	P9_TSTAT = 124, P9_RSTAT,
	P9_TWSTAT = 126, P9_RWSTAT,
};

#define P9_NOTAG    0xffffu
#define P9_NOFID    0xffffffffu
#define P9_NONUNAME 0xffffffffu
#define P9_MAXWELEM 16

/* size[4] type[1] tag[2] */
#define P9_HDRSZ    7u
/* Rread/Rreaddir: header + count[4] before the data. */
#define P9_IOHDRSZ  11u
/* Twrite: header + fid[4] offset[8] count[4] before the data. */
#define P9_TWRITE_HDRSZ 23u
#define P9_QIDSZ    13u

/* qid.type */
#define P9_QTDIR     0x80
#define P9_QTAPPEND  0x40
#define P9_QTEXCL    0x20
#define P9_QTSYMLINK 0x02
#define P9_QTFILE    0x00

/* Tlopen/Tlcreate flags (the protocol's own values; mapped to the host's). */
#define P9_DOTL_RDONLY    00000000
#define P9_DOTL_WRONLY    00000001
#define P9_DOTL_RDWR      00000002
#define P9_DOTL_NOACCESS  00000003
#define P9_DOTL_CREATE    00000100
#define P9_DOTL_EXCL      00000200
#define P9_DOTL_NOCTTY    00000400
#define P9_DOTL_TRUNC     00001000
#define P9_DOTL_APPEND    00002000
#define P9_DOTL_NONBLOCK  00004000
#define P9_DOTL_DSYNC     00010000
#define P9_DOTL_FASYNC    00020000
#define P9_DOTL_DIRECT    00040000
#define P9_DOTL_LARGEFILE 00100000
#define P9_DOTL_DIRECTORY 00200000
#define P9_DOTL_NOFOLLOW  00400000
#define P9_DOTL_NOATIME   01000000
#define P9_DOTL_CLOEXEC   02000000
#define P9_DOTL_SYNC      04000000

/* Tunlinkat flags */
#define P9_DOTL_AT_REMOVEDIR 0x200

/* Tgetattr request_mask / Rgetattr valid */
#define P9_GETATTR_MODE         0x00000001ull
#define P9_GETATTR_NLINK        0x00000002ull
#define P9_GETATTR_UID          0x00000004ull
#define P9_GETATTR_GID          0x00000008ull
#define P9_GETATTR_RDEV         0x00000010ull
#define P9_GETATTR_ATIME        0x00000020ull
#define P9_GETATTR_MTIME        0x00000040ull
#define P9_GETATTR_CTIME        0x00000080ull
#define P9_GETATTR_INO          0x00000100ull
#define P9_GETATTR_SIZE         0x00000200ull
#define P9_GETATTR_BLOCKS       0x00000400ull
#define P9_GETATTR_BTIME        0x00000800ull
#define P9_GETATTR_GEN          0x00001000ull
#define P9_GETATTR_DATA_VERSION 0x00002000ull
#define P9_GETATTR_BASIC        0x000007ffull

/* Tsetattr valid */
#define P9_SETATTR_MODE      0x00000001u
#define P9_SETATTR_UID       0x00000002u
#define P9_SETATTR_GID       0x00000004u
#define P9_SETATTR_SIZE      0x00000008u
#define P9_SETATTR_ATIME     0x00000010u
#define P9_SETATTR_MTIME     0x00000020u
#define P9_SETATTR_CTIME     0x00000040u
#define P9_SETATTR_ATIME_SET 0x00000080u
#define P9_SETATTR_MTIME_SET 0x00000100u

/* Tlock / Tgetlock */
#define P9_LOCK_TYPE_RDLCK 0
#define P9_LOCK_TYPE_WRLCK 1
#define P9_LOCK_TYPE_UNLCK 2
#define P9_LOCK_SUCCESS 0
#define P9_LOCK_BLOCKED 1
#define P9_LOCK_ERROR   2
#define P9_LOCK_GRACE   3
#define P9_LOCK_FLAGS_BLOCK   1u
#define P9_LOCK_FLAGS_RECLAIM 2u

/* Txattrcreate flags (the setxattr(2) ones) */
#define P9_XATTR_CREATE  1u
#define P9_XATTR_REPLACE 2u

struct p9_qid {
	uint8_t type;
	uint32_t version;
	uint64_t path;
};

/* A string inside a received message: not NUL-terminated, not copied. */
struct p9_str {
	const char *s;
	uint16_t len;
};

/* Fixed-size parts of messages, as laid out on the wire (packed, LE). */
struct p9_wire_hdr {
	uint32_t size;
	uint8_t type;
	uint16_t tag;
} __attribute__((packed));
_Static_assert(sizeof(struct p9_wire_hdr) == P9_HDRSZ, "9p header is 7 bytes");

struct p9_wire_qid {
	uint8_t type;
	uint32_t version;
	uint64_t path;
} __attribute__((packed));
_Static_assert(sizeof(struct p9_wire_qid) == P9_QIDSZ, "qid is 13 bytes");

struct p9_wire_twrite {
	struct p9_wire_hdr hdr;
	uint32_t fid;
	uint64_t offset;
	uint32_t count;
} __attribute__((packed));
_Static_assert(sizeof(struct p9_wire_twrite) == P9_TWRITE_HDRSZ, "Twrite header");

struct p9_wire_rread {
	struct p9_wire_hdr hdr;
	uint32_t count;
} __attribute__((packed));
_Static_assert(sizeof(struct p9_wire_rread) == P9_IOHDRSZ, "Rread header");

/* Rgetattr body: valid qid mode uid gid nlink rdev size blksize blocks
 * atime mtime ctime btime (sec+nsec each) gen data_version. */
#define P9_RGETATTR_BODYSZ (8 + P9_QIDSZ + 4 * 3 + 8 * 15)
_Static_assert(P9_RGETATTR_BODYSZ == 153, "Rgetattr body is 153 bytes");

/* Readdir entry: qid offset type name[s] */
#define P9_DIRENT_FIXEDSZ (P9_QIDSZ + 8 + 1 + 2)

struct p9_rbuf {
	const uint8_t *p;
	size_t len;
	size_t pos;
	bool err;
};

void p9_rbuf_init(struct p9_rbuf *r, const void *p, size_t len);
uint8_t p9_get_u8(struct p9_rbuf *r);
uint16_t p9_get_u16(struct p9_rbuf *r);
uint32_t p9_get_u32(struct p9_rbuf *r);
uint64_t p9_get_u64(struct p9_rbuf *r);
/* Points s at the bytes inside the buffer; zero-length on error. */
void p9_get_str(struct p9_rbuf *r, struct p9_str *s);
void p9_get_qid(struct p9_rbuf *r, struct p9_qid *q);
size_t p9_rbuf_left(const struct p9_rbuf *r);
/* 0, or -EPROTO when any get ran past the end. */
int p9_rbuf_error(const struct p9_rbuf *r);

/*
 * Copies a received string into buf as a C string: -ENAMETOOLONG when it
 * does not fit, -EINVAL when it holds a NUL (it would silently shorten).
 */
int p9_str_copy(const struct p9_str *s, char *buf, size_t bufsz);
bool p9_str_eq(const struct p9_str *s, const char *c);

struct p9_wbuf {
	uint8_t *p;
	size_t cap;
	size_t pos;
	bool err;
};

void p9_wbuf_init(struct p9_wbuf *w, void *p, size_t cap);
void p9_put_u8(struct p9_wbuf *w, uint8_t v);
void p9_put_u16(struct p9_wbuf *w, uint16_t v);
void p9_put_u32(struct p9_wbuf *w, uint32_t v);
void p9_put_u64(struct p9_wbuf *w, uint64_t v);
/* Strings longer than 65535 bytes latch an error: they cannot be encoded. */
void p9_put_str(struct p9_wbuf *w, const char *s, size_t len);
void p9_put_cstr(struct p9_wbuf *w, const char *s);
void p9_put_qid(struct p9_wbuf *w, const struct p9_qid *q);
/* Reserves n bytes and returns them (NULL and latched error if no room). */
void *p9_put_reserve(struct p9_wbuf *w, size_t n);
size_t p9_wbuf_left(const struct p9_wbuf *w);
/* 0, or -ENOSPC when any put did not fit. */
int p9_wbuf_error(const struct p9_wbuf *w);

/* Writes size[4] type[1] tag[2] at the start of buf. */
void p9_put_hdr(void *buf, uint32_t size, uint8_t type, uint16_t tag);

struct fs_req;
/*
 * The one error reply: writes Rlerror(err) for tag into req->out and
 * returns its length, 0 when even that does not fit.
 */
uint32_t p9_reply_error(struct fs_req *req, uint16_t tag, int err);

#endif
