// SPDX-License-Identifier: GPL-2.0-only
/*
 * fsbattery: command line and shared helpers. Why a program and not shell:
 * Debian's busybox-static has no flock, setfattr/getfattr, renameat2,
 * O_TMPFILE, SEEK_DATA or statx, and locks only mean something when the
 * test controls exactly which process holds what (DESIGN.md).
 *
 *   guest:  fsbattery guest DIR virtiofs|9p [--xattr] [--mmap] [TEST...]
 *           fsbattery readonly DIR virtiofs|9p
 *   host:   fsbattery hold DIR [SECONDS]       hold a POSIX lock and a flock
 *           fsbattery verify DIR virtiofs|9p [--xattr] [--mmap]
 *           fsbattery ro-setup DIR | ro-verify DIR
 *           fsbattery sum FILE                 the big-file checksum
 *           fsbattery xattr-probe DIR          exit 0 if DIR keeps user.* xattrs
 *           fsbattery xattr-names PATH         list PATH's xattr names, one a line
 *           fsbattery falloc-probe DIR         exit 0 if DIR can fallocate
 * Built static (tests/e2e/build-fsbattery) so the same binary runs in the
 * guest initramfs and in the test host.
 */
#include "fsbattery.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

const char *fsb_test = "?";

void fsb_fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s: ", fsb_test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* A measurement or an expected limitation, shown on the test's ok line. */
static char note[256];

void fsb_note(const char *fmt, ...)
{
	va_list ap;
	size_t n = strlen(note);

	if (n && n < sizeof(note) - 2) {
		note[n++] = ';';
		note[n++] = ' ';
	}
	va_start(ap, fmt);
	vsnprintf(note + n, sizeof(note) - n, fmt, ap);
	va_end(ap);
}

const char *fsb_path(const struct fsb *b, const char *fmt, ...)
{
	static char bufs[16][4096 + 64];
	static unsigned next;
	char *p = bufs[next++ % 16];
	int n = snprintf(p, sizeof(bufs[0]), "%s/", b->dir);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p + n, sizeof(bufs[0]) - (size_t)n, fmt, ap);
	va_end(ap);
	return p;
}

int fsb_write_file(const char *path, const void *data, size_t len, int mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ssize_t w;

	if (fd < 0)
		return -1;
	w = write(fd, data, len);
	if (w < 0 || (size_t)w != len) {
		int e = w < 0 ? errno : EIO;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

ssize_t fsb_read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

double fsb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *fsb_errname(int e)
{
	const char *s = strerrorname_np(e);

	return s ? s : "unknown errno";
}

void fsb_gen(uint64_t *state, void *buf, size_t len)
{
	uint64_t x = *state, *w = buf;

	/* xorshift64*: cheap enough for 64 MiB in a nested guest. */
	for (size_t i = 0; i < len / 8; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		w[i] = x * 0x2545f4914f6cdd1dull;
	}
	*state = x;
}

uint64_t fsb_sum(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t i = 0;

	/* Word-at-a-time FNV-style mixing; len is a multiple of 8 here except
	 * for the tail, which goes byte by byte. */
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static int parse_kind(const char *s, struct fsb *b)
{
	if (strcmp(s, "virtiofs") == 0)
		b->kind = FSB_VIRTIOFS;
	else if (strcmp(s, "9p") == 0)
		b->kind = FSB_9P;
	else
		return -1;
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: fsbattery guest DIR virtiofs|9p [--xattr] [--mmap] [TEST...]\n"
		"       fsbattery readonly DIR virtiofs|9p\n"
		"       fsbattery hold DIR [SECONDS] | mkmany DIR\n"
		"       fsbattery verify DIR virtiofs|9p [--xattr] [--mmap]\n"
		"       fsbattery ro-setup DIR | ro-verify DIR | sum FILE\n"
		"       fsbattery dax-attr FILE | mmap-sum FILE\n");
	return 2;
}

/* Runs one test: prints its ok/FAIL line; returns 1 when it failed. */
static int run_one(const struct fsb_case *c, const struct fsb *b)
{
	double t0 = fsb_now();
	int r;

	fsb_test = c->name;
	note[0] = 0;
	r = c->fn(b);
	if (r == 0)
		printf("ok %s (%.1fs)%s%s\n", c->name, fsb_now() - t0, note[0] ? ": " : "",
		       note);
	fflush(stdout);
	return r != 0;
}

static const struct fsb_case *find_case(const char *name)
{
	const struct fsb_case *tabs[] = { fsb_guest_cases, fsb_more_cases };

	for (size_t t = 0; t < 2; t++)
		for (const struct fsb_case *c = tabs[t]; c->name; c++)
			if (strcmp(c->name, name) == 0)
				return c;
	return NULL;
}

static int cmd_guest(struct fsb *b, int argc, char **argv)
{
	int failed = 0, ran = 0;
	char keep[4200];
	double t0 = fsb_now();

	/* Modes in the checks are exact; the guest's init runs with 022. */
	umask(0);
	snprintf(keep, sizeof(keep), "%s/keep", b->dir);
	if (mkdir(keep, 0755) < 0 && errno != EEXIST) {
		printf("FAIL setup: mkdir %s: %s\n", keep, fsb_errname(errno));
		return 1;
	}
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "all") == 0) {
			for (const struct fsb_case *c = fsb_guest_cases; c->name; c++, ran++)
				failed += run_one(c, b);
			for (const struct fsb_case *c = fsb_more_cases; c->name; c++, ran++)
				failed += run_one(c, b);
			continue;
		}
		const struct fsb_case *c = find_case(argv[i]);
		if (!c) {
			printf("FAIL %s: no such test\n", argv[i]);
			failed++;
			continue;
		}
		failed += run_one(c, b);
		ran++;
	}
	printf("%s %d of %d tests failed (%.0fs)\n", failed ? "FAIL battery:" : "ok battery:",
	       failed, ran, fsb_now() - t0);
	return failed > 100 ? 100 : failed;
}

int main(int argc, char **argv)
{
	struct fsb b = { 0 };
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3)
		return usage();
	b.dir = argv[2];
	if (strcmp(argv[1], "hold") == 0)
		return fsb_host_hold(b.dir, argc > 3 ? atoi(argv[3]) : 300);
	if (strcmp(argv[1], "mkmany") == 0)
		return fsb_host_mkmany(b.dir);
	if (strcmp(argv[1], "ro-setup") == 0)
		return fsb_host_ro_setup(b.dir);
	if (strcmp(argv[1], "ro-verify") == 0)
		return fsb_host_ro_verify(b.dir);
	if (strcmp(argv[1], "xattr-probe") == 0) {
		/* Exit 0 when DIR's filesystem keeps user.* xattrs. */
		int ok = setxattr(b.dir, "user.fsbattery-probe", "1", 1, 0) == 0;
		if (ok)
			removexattr(b.dir, "user.fsbattery-probe");
		return !ok;
	}
	if (strcmp(argv[1], "xattr-names") == 0) {
		/* Every name, trusted.* included when run as root. */
		static char list[65536];
		ssize_t n = llistxattr(b.dir, list, sizeof(list));

		if (n < 0) {
			perror(b.dir);
			return 1;
		}
		for (ssize_t off = 0; off < n; off += (ssize_t)strlen(list + off) + 1)
			printf("%s\n", list + off);
		return 0;
	}
	if (strcmp(argv[1], "falloc-probe") == 0) {
		/* Exit 0 when DIR's filesystem can fallocate. */
		char p[4200];
		snprintf(p, sizeof(p), "%s/.falloc-probe", b.dir);
		int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
		int ok = fd >= 0 && fallocate(fd, 0, 0, 4096) == 0;
		if (fd >= 0)
			close(fd);
		unlink(p);
		return !ok;
	}
	if (strcmp(argv[1], "dax-attr") == 0)
		return fsb_dax_attr(b.dir);
	if (strcmp(argv[1], "mmap-sum") == 0)
		return fsb_mmap_sum(b.dir);
	if (strcmp(argv[1], "sum") == 0) {
		static char buf[FSB_BIG_CHUNK];
		uint64_t h = FSB_SUM_SEED;
		ssize_t n;
		int fd = open(b.dir, O_RDONLY);

		if (fd < 0) {
			perror(b.dir);
			return 1;
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			h = fsb_sum(h, buf, (size_t)n);
		close(fd);
		printf("%016llx\n", (unsigned long long)h);
		return n < 0;
	}

	if (argc < 4 || parse_kind(argv[3], &b) < 0)
		return usage();
	/* The 9p client always passes user.* xattrs through. */
	b.xattr = b.kind == FSB_9P;
	for (i = 4; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--xattr") == 0)
			b.xattr = true;
		else if (strcmp(argv[i], "--mmap") == 0)
			b.mmap = true;
		else
			return usage();
	}
	if (strcmp(argv[1], "guest") == 0)
		return cmd_guest(&b, argc - i, argv + i);
	if (strcmp(argv[1], "readonly") == 0) {
		fsb_test = "readonly";
		note[0] = 0;
		if (fsb_guest_readonly(&b) != 0)
			return 1;
		printf("ok readonly%s%s\n", note[0] ? ": " : "", note);
		return 0;
	}
	if (strcmp(argv[1], "verify") == 0)
		return fsb_host_verify(&b);
	return usage();
}
