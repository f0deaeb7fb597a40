/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fsbattery: the end-to-end share battery (tests/e2e/fsbattery*.c). One
 * static program, run by the e2e guest against a mounted virtio-fs or 9p
 * share and by the test host against the same directory (lock holder,
 * checks after the guest is gone). Every check prints "ok NAME[: note]" or
 * "FAIL NAME: why"; the exit status counts the failures.
 */
#ifndef FSBATTERY_H
#define FSBATTERY_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

enum fsb_kind { FSB_VIRTIOFS, FSB_9P };

struct fsb {
	const char *dir;     /* the share: guest mount point or host directory */
	enum fsb_kind kind;  /* which Linux client the guest mounted it with */
	bool xattr;          /* user.* xattrs expected to work */
	bool mmap;           /* MAP_SHARED writable mappings expected to work */
};

/* The test being run, for FAIL lines. */
extern const char *fsb_test;

void fsb_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fsb_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A path under the share, in one of 16 rotating buffers: a path used
 * after more than 15 other calls must be copied. */
const char *fsb_path(const struct fsb *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int fsb_write_file(const char *path, const void *data, size_t len, int mode);
/* Reads at most cap-1 bytes and NUL-terminates; returns the length or -1. */
ssize_t fsb_read_file(const char *path, char *buf, size_t cap);
double fsb_now(void);
const char *fsb_errname(int e);

/* The big file's content: a xorshift stream, and the checksum over it. */
#define FSB_BIG_SIZE (64u << 20)
#define FSB_BIG_CHUNK (1u << 20)
void fsb_gen(uint64_t *state, void *buf, size_t len);
uint64_t fsb_sum(uint64_t h, const void *buf, size_t len);
#define FSB_GEN_SEED 0x5eed5eed5eed5eedull
#define FSB_SUM_SEED 0xcbf29ce484222325ull

/* Fixed values the guest sets and the host checks. */
#define FSB_FILE_TEXT "hello from the guest\n"
#define FSB_ATTR_UID 1234
#define FSB_ATTR_GID 5678
#define FSB_ATTR_MODE 0751
#define FSB_MTIME_SEC 1000000000
#define FSB_MTIME_NSEC 123456789
#define FSB_ATIME_SEC 999999999
#define FSB_ATIME_NSEC 500000000
#define FSB_MANY 10000 /* host-made entries in many/ */
#define FSB_MADE 200   /* guest-made entries in made/ */
#define FSB_SECRET_PREFIX "STAINLESS-HOST-SECRET"
#define FSB_HOLD_DELAY 2 /* seconds the holder waits before releasing */

/*
 * Checks that end the current test: fail with the expression's text and
 * errno, or with what came back instead of the wanted error.
 */
#define WANT(cond, ...)                            \
	do {                                       \
		if (!(cond)) {                     \
			fsb_fail(__VA_ARGS__);     \
			return -1;                 \
		}                                  \
	} while (0)
#define WANT_OK(expr)                                                           \
	do {                                                                    \
		if ((long)(expr) < 0) {                                         \
			fsb_fail("%s: %s", #expr, fsb_errname(errno));          \
			return -1;                                              \
		}                                                               \
	} while (0)
#define WANT_ERR2(expr, e1, e2)                                                 \
	do {                                                                    \
		errno = 0;                                                      \
		long r_ = (long)(expr);                                         \
		int e_ = errno;                                                 \
		if (r_ != -1 || (e_ != (e1) && e_ != (e2))) {                   \
			fsb_fail("%s: got %s, want %s", #expr,                  \
				 r_ == -1 ? fsb_errname(e_) : "success",        \
				 fsb_errname(e1));                              \
			return -1;                                              \
		}                                                               \
	} while (0)
#define WANT_ERR(expr, e) WANT_ERR2(expr, e, e)

/* Guest side (fsbattery_guest.c, fsbattery_more.c). */
struct fsb_case {
	const char *name;
	int (*fn)(const struct fsb *b);
};
extern const struct fsb_case fsb_guest_cases[];
extern const struct fsb_case fsb_more_cases[];
int fsb_guest_readonly(const struct fsb *b);

/* Host side (fsbattery_host.c). */
int fsb_host_hold(const char *dir, int timeout);
int fsb_host_mkmany(const char *dir);
int fsb_host_verify(const struct fsb *b);
int fsb_host_ro_setup(const char *dir);
int fsb_host_ro_verify(const char *dir);

/* fsbattery_dax.c: per-file DAX (e2e/fs-dax-inode) */
int fsb_dax_attr(const char *path);
int fsb_mmap_sum(const char *path);

#endif
