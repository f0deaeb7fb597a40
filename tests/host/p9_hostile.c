// SPDX-License-Identifier: GPL-2.0-only
/*
 * p9_hostile: a raw 9P2000.L client that behaves like a malicious one, for
 * tests/host/hostile_9p.sh. Standalone on purpose (its own encoder in
 * tests/host/p9_client.c's style, nothing from fs/): a codec bug shared by
 * client and server would hide itself.
 *
 * Each run does one operation and prints its outcome as the first word on
 * stdout: "0" or the errno's name (ENXIO, ELOOP, ...), then any detail.
 * The shell script holds the expectations, so it reads as the spec.
 *
 *   p9_hostile SOCK walk PATH                  Twalk from the root
 *   p9_hostile SOCK lopen PATH FLAGS           Tlopen (r|w|rw), then a Tread
 *   p9_hostile SOCK lcreate DIR NAME FLAGS     Tlcreate without O_EXCL
 *   p9_hostile SOCK mknod DIR NAME c|b|p MAJ MIN
 *   p9_hostile SOCK mkdir DIR NAME
 *   p9_hostile SOCK truncate PATH              Tsetattr size 0
 *   p9_hostile SOCK readlink PATH              prints "0 TARGET"
 *   p9_hostile SOCK xset PATH NAME VALUE       Txattrcreate, Twrite, Tclunk
 *   p9_hostile SOCK xdel PATH NAME             Txattrcreate size 0, Tclunk
 *   p9_hostile SOCK xget PATH NAME             prints "0 VALUE"
 *   p9_hostile SOCK xlist PATH                 prints "0 NAME NAME ..."
 *   p9_hostile SOCK bigfids PATH               attach 0x10000, walk to 0xfffffffe
 *   p9_hostile SOCK attach UID                 Tattach with n_uname UID
 *   p9_hostile SOCK makeas UID f|d DIR NAME MODE GID   attached as UID:
 *                                              Tlcreate or Tmkdir asking for GID
 *   p9_hostile SOCK alive PATH TEXT            new link: read PATH, expect TEXT
 *   p9_hostile SOCK xflood N PID               N fids of 64 KiB xattr values
 *   p9_hostile SOCK fdflood N PATH             N fids walked to PATH
 *   p9_hostile SOCK connflood N PID            N connections held, some waiting
 *   p9_hostile SOCK crowd K N L PATH PID       K connections: N xattr values each, L parked locks
 *
 * Every reply is awaited at most 5 s (exit 4, "TIMEOUT": the server hung),
 * and every reply is searched for the strings in $P9H_DENY (one a line:
 * a secret outside the share, a line of /etc/passwd); finding one prints
 * "LEAK" and exits 3. Exit 1 for a protocol surprise, else 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MSIZE (256 * 1024)
#define XMAX (64 * 1024)
#define NOFID 0xffffffffu
#define TIMEOUT_MS 5000
enum {
	TLERROR = 6, TLOPEN = 12, TLCREATE = 14, TMKNOD = 18, TREADLINK = 22,
	TGETATTR = 24, TSETATTR = 26, TXATTRWALK = 30, TXATTRCREATE = 32,
	TMKDIR = 72, TVERSION = 100, TATTACH = 104, TWALK = 110, TREAD = 116,
	TWRITE = 118, TCLUNK = 120, TLOCK = 52,
};

/* One connection; the encoder works on the current one. */
struct conn {
	int fd;
	size_t txlen, rxpos, rxlen;
	uint16_t tag;
	uint8_t tx[MSIZE], rx[MSIZE];
};

static struct conn *cur;
static const char *sock_path;
static char *deny[8];
static int ndeny;

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("p9_hostile: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void put(const void *p, size_t n)
{
	if (cur->txlen + n > sizeof(cur->tx))
		die("message too large");
	memcpy(cur->tx + cur->txlen, p, n);
	cur->txlen += n;
}
static void p8(uint8_t v) { put(&v, 1); }
static void p16(uint16_t v) { uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) }; put(b, 2); }
static void p32(uint32_t v) { p16((uint16_t)v); p16((uint16_t)(v >> 16)); }
static void p64(uint64_t v) { p32((uint32_t)v); p32((uint32_t)(v >> 32)); }
static void pstr(const char *s) { p16((uint16_t)strlen(s)); put(s, strlen(s)); }

static uint16_t start(uint8_t type)
{
	uint16_t tag = cur->tag++;
	if (cur->tag == 0xffff)
		cur->tag = 1;
	cur->txlen = 0;
	p32(0);
	p8(type);
	p16(tag);
	return tag;
}

static void send_msg(void)
{
	uint8_t *tx = cur->tx;
	size_t len = cur->txlen;

	tx[0] = (uint8_t)len; tx[1] = (uint8_t)(len >> 8);
	tx[2] = (uint8_t)(len >> 16); tx[3] = (uint8_t)(len >> 24);
	for (size_t off = 0; off < len;) {
		ssize_t n = write(cur->fd, tx + off, len - off);
		if (n <= 0)
			die("write: %s", strerror(errno));
		off += (size_t)n;
	}
}

/* Every read waits at most TIMEOUT_MS: a server stuck in open(2) is a failure. */
static void read_full(void *buf, size_t len)
{
	for (size_t off = 0; off < len;) {
		struct pollfd pfd = { .fd = cur->fd, .events = POLLIN };
		int r = poll(&pfd, 1, TIMEOUT_MS);
		if (r == 0) {
			printf("TIMEOUT no reply in %d ms\n", TIMEOUT_MS);
			exit(4);
		}
		ssize_t n = r < 0 ? -1 : read(cur->fd, (uint8_t *)buf + off, len - off);
		if (n <= 0)
			die("connection closed");
		off += (size_t)n;
	}
}

static uint8_t g8(void) { if (cur->rxpos + 1 > cur->rxlen) die("short reply"); return cur->rx[cur->rxpos++]; }
static uint16_t g16(void) { uint16_t v = g8(); return (uint16_t)(v | g8() << 8); }
static uint32_t g32(void) { uint32_t v = g16(); return v | (uint32_t)g16() << 16; }
static uint64_t g64(void) { uint64_t v = g32(); return v | (uint64_t)g32() << 32; }
static void gstr(char *buf, size_t sz)
{
	uint16_t n = g16();
	if (cur->rxpos + n > cur->rxlen || n >= sz)
		die("bad string in reply");
	memcpy(buf, cur->rx + cur->rxpos, n);
	buf[n] = '\0';
	cur->rxpos += n;
}

static void check_leak(void)
{
	for (int i = 0; i < ndeny; i++)
		if (memmem(cur->rx, cur->rxlen, deny[i], strlen(deny[i]))) {
			printf("LEAK a reply holds '%s'\n", deny[i]);
			exit(3);
		}
}

/* Sends the message built, waits for its reply: 0 or -errno. */
static int rpc(uint16_t tag)
{
	uint8_t type = cur->tx[4], *rx = cur->rx;

	send_msg();
	read_full(rx, 4);
	uint32_t size = rx[0] | rx[1] << 8 | rx[2] << 16 | (uint32_t)rx[3] << 24;
	if (size < 7 || size > sizeof(cur->rx))
		die("bad reply size %u", size);
	read_full(rx + 4, size - 4);
	cur->rxlen = size;
	cur->rxpos = 4;
	check_leak();
	uint8_t rtype = g8();
	if (g16() != tag)
		die("reply to another tag");
	if (rtype == TLERROR + 1)
		return -(int)g32();
	if (rtype != type + 1)
		die("reply type %u to %u", rtype, type);
	return 0;
}

static const char *ename(int err)
{
	static const struct { int e; const char *n; } t[] = {
		{ 0, "0" }, { ENXIO, "ENXIO" }, { ELOOP, "ELOOP" }, { EPERM, "EPERM" },
		{ EOPNOTSUPP, "EOPNOTSUPP" }, { ENODATA, "ENODATA" }, { ENOMEM, "ENOMEM" },
		{ ENFILE, "ENFILE" }, { EMFILE, "EMFILE" }, { ENOENT, "ENOENT" },
		{ ENOTDIR, "ENOTDIR" }, { EINVAL, "EINVAL" }, { EBADF, "EBADF" },
		{ EEXIST, "EEXIST" }, { EACCES, "EACCES" }, { ENOSYS, "ENOSYS" },
		{ EISDIR, "EISDIR" }, { E2BIG, "E2BIG" }, { ERANGE, "ERANGE" },
		{ EROFS, "EROFS" }, { EPROTO, "EPROTO" }, { EUSERS, "EUSERS" },
		{ ENOSPC, "ENOSPC" }, { EIO, "EIO" }, { EAGAIN, "EAGAIN" },
		{ EXDEV, "EXDEV" }, { EFBIG, "EFBIG" }, { ETIMEDOUT, "ETIMEDOUT" },
		{ EPIPE, "EPIPE" },
	};
	static char buf[16];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].e == -err)
			return t[i].n;
	snprintf(buf, sizeof(buf), "E%d", -err);
	return buf;
}

static struct conn *conn_new(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		die("out of memory");
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	c->fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("connect %s: %s", sock_path, strerror(errno));
	c->tag = 1;
	return c;
}

static void conn_close(struct conn *c)
{
	close(c->fd);
	free(c);
}

static int version(void)
{
	char v[32];
	uint16_t tag = start(TVERSION);
	p32(MSIZE);
	pstr("9P2000.L");
	int err = rpc(tag);
	if (err)
		return err;
	g32();
	gstr(v, sizeof(v));
	return strcmp(v, "9P2000.L") ? -EPROTO : 0;
}

static int attach(uint32_t fid, uint32_t uid)
{
	uint16_t tag = start(TATTACH);
	p32(fid);
	p32(NOFID);
	pstr("");
	pstr("");
	p32(uid);
	return rpc(tag);
}

/* A new connection, versioned and attached as root on fid 0. */
static struct conn *session(void)
{
	struct conn *c = conn_new();
	int err;

	cur = c;
	if ((err = version()) || (err = attach(0, 0)))
		die("cannot start a session: %s", ename(err));
	return c;
}

/* Walks path ("a/b", "." = the root itself) from fid to newfid. */
static int walk_from(uint32_t fid, const char *path, uint32_t newfid)
{
	char copy[1024], *names[16], *save = NULL;
	int n = 0;

	snprintf(copy, sizeof(copy), "%s", path);
	for (char *t = strtok_r(copy, "/", &save); t && n < 16; t = strtok_r(NULL, "/", &save))
		if (strcmp(t, "."))
			names[n++] = t;
	uint16_t tag = start(TWALK);
	p32(fid);
	p32(newfid);
	p16((uint16_t)n);
	for (int i = 0; i < n; i++)
		pstr(names[i]);
	int err = rpc(tag);
	if (!err && g16() != n)
		return -ENOENT;   /* a partial walk makes no newfid */
	return err;
}

static int walk(const char *path, uint32_t newfid)
{
	return walk_from(0, path, newfid);
}

static int clunk(uint32_t fid)
{
	uint16_t tag = start(TCLUNK);
	p32(fid);
	return rpc(tag);
}

static uint32_t open_flags(const char *s)
{
	if (!strcmp(s, "r"))
		return 0;
	if (!strcmp(s, "w"))
		return 1;
	if (!strcmp(s, "rw"))
		return 2;
	die("flags must be r, w or rw");
	return 0;
}

/* Reads what an open fid gives (the device bytes a server must never hand out). */
static int read_some(uint32_t fid, uint32_t *got)
{
	uint16_t tag = start(TREAD);
	p32(fid);
	p64(0);
	p32(4096);
	int err = rpc(tag);
	*got = err ? 0 : g32();
	return err;
}

static int report(int err)
{
	printf("%s\n", ename(err));
	return 0;
}

/* An open that should have been refused: say what it gave. */
static int report_opened(uint32_t fid)
{
	uint32_t got;
	int err = read_some(fid, &got);
	printf("0 opened; Tread gave %s, %u bytes\n", ename(err), got);
	return 0;
}

static int cmd_walk(const char *path)
{
	return report(walk(path, 1));
}

static int cmd_lopen(const char *path, const char *fl)
{
	int err = walk(path, 1);
	if (err)
		return printf("%s (walk)\n", ename(err)), 0;
	uint16_t tag = start(TLOPEN);
	p32(1);
	p32(open_flags(fl));
	err = rpc(tag);
	return err ? report(err) : report_opened(1);
}

static int cmd_lcreate(const char *dir, const char *name, const char *fl)
{
	int err = walk(dir, 1);
	if (err)
		return printf("%s (walk)\n", ename(err)), 0;
	uint16_t tag = start(TLCREATE);
	p32(1);
	pstr(name);
	p32(open_flags(fl));
	p32(0644);
	p32(0);
	err = rpc(tag);
	return err ? report(err) : report_opened(1);
}

static int cmd_mknod(const char *dir, const char *name, const char *type,
		     const char *maj, const char *min)
{
	uint32_t mode = *type == 'c' ? 0020000 : *type == 'b' ? 0060000 : 0010000;
	int err = walk(dir, 1);
	if (err)
		return printf("%s (walk)\n", ename(err)), 0;
	uint16_t tag = start(TMKNOD);
	p32(1);
	pstr(name);
	p32(mode | 0666);
	p32((uint32_t)strtoul(maj, NULL, 0));
	p32((uint32_t)strtoul(min, NULL, 0));
	p32(0);
	return report(rpc(tag));
}

static int cmd_mkdir(const char *dir, const char *name)
{
	int err = walk(dir, 1);
	if (err)
		return printf("%s (walk)\n", ename(err)), 0;
	uint16_t tag = start(TMKDIR);
	p32(1);
	pstr(name);
	p32(0755);
	p32(0);
	return report(rpc(tag));
}

static int cmd_truncate(const char *path)
{
	int err = walk(path, 1);
	if (err)
		return printf("%s (walk)\n", ename(err)), 0;
	uint16_t tag = start(TSETATTR);
	p32(1);
	p32(0x8);            /* P9_SETATTR_SIZE */
	p32(0); p32(0); p32(0);
	p64(0);              /* size */
	p64(0); p64(0); p64(0); p64(0);
	return report(rpc(tag));
}

static int cmd_readlink(const char *path)
{
	char target[4096];
	int err = walk(path, 1);
	if (err)
		return printf("%s (walk)\n", ename(err)), 0;
	uint16_t tag = start(TREADLINK);
	p32(1);
	err = rpc(tag);
	if (err)
		return report(err);
	gstr(target, sizeof(target));
	printf("0 %s\n", target);
	return 0;
}

/* Txattrcreate fid NAME SIZE, then Twrite the value: 0 or the first error. */
static int xcreate(uint32_t fid, const char *name, const void *value, uint32_t size)
{
	uint16_t tag = start(TXATTRCREATE);
	p32(fid);
	pstr(name);
	p64(size);
	p32(0);
	int err = rpc(tag);
	if (err || !size)
		return err;
	tag = start(TWRITE);
	p32(fid);
	p64(0);
	p32(size);
	put(value, size);
	err = rpc(tag);
	if (!err && g32() != size)
		die("short xattr write");
	return err;
}

/* Set (value) or remove (NULL); the error may come at create or at the committing clunk. */
static int cmd_xset(const char *path, const char *name, const char *value)
{
	int err = walk(path, 1);
	if (err)
		return printf("%s (walk)\n", ename(err)), 0;
	err = xcreate(1, name, value, value ? (uint32_t)strlen(value) : 0);
	if (err)
		return printf("%s (Txattrcreate)\n", ename(err)), 0;
	err = clunk(1);
	return err ? printf("%s (Tclunk)\n", ename(err)), 0 : report(0);
}

/* Txattrwalk NAME ("" = the list) into fid 2 and read it whole. */
static int xfetch(const char *path, const char *name, uint8_t *buf, uint32_t *len)
{
	int err = walk(path, 1);
	if (err)
		return err;
	uint16_t tag = start(TXATTRWALK);
	p32(1);
	p32(2);
	pstr(name);
	if ((err = rpc(tag)))
		return err;
	uint64_t size = g64();
	if (size > XMAX)
		die("xattr size %llu", (unsigned long long)size);
	tag = start(TREAD);
	p32(2);
	p64(0);
	p32(XMAX);
	if ((err = rpc(tag)))
		return err;
	*len = g32();
	if (*len != size)
		die("xattr read %u bytes, announced %llu", *len, (unsigned long long)size);
	memcpy(buf, cur->rx + cur->rxpos, *len);
	return 0;
}

static int cmd_xget(const char *path, const char *name)
{
	static uint8_t buf[XMAX + 1];
	uint32_t len = 0;
	int err = xfetch(path, name, buf, &len);
	if (err)
		return report(err);
	buf[len] = '\0';
	printf("0 %s\n", (char *)buf);
	return 0;
}

static int cmd_xlist(const char *path)
{
	static uint8_t buf[XMAX + 1];
	uint32_t len = 0;
	int err = xfetch(path, "", buf, &len);
	if (err)
		return report(err);
	printf("0");
	for (uint32_t i = 0; i < len; i += (uint32_t)strlen((char *)buf + i) + 1)
		printf(" %s", (char *)buf + i);
	printf("\n");
	return 0;
}

/* Any u32 but NOFID is a fid: a client numbering from 0x10000 must work. */
static int cmd_bigfids(const char *path)
{
	struct conn *c = conn_new();
	uint32_t got;
	int err;

	cur = c;
	if ((err = version()))
		return report(err);
	if ((err = attach(0x10000, 0)))
		return printf("%s (Tattach fid 0x10000)\n", ename(err)), 0;
	if ((err = walk_from(0x10000, path, 0xfffffffeu)))
		return printf("%s (Twalk to fid 0xfffffffe)\n", ename(err)), 0;
	uint16_t tag = start(TLOPEN);
	p32(0xfffffffeu);
	p32(0);
	if ((err = rpc(tag)) || (err = read_some(0xfffffffeu, &got)))
		return printf("%s (Tlopen/Tread fid 0xfffffffe)\n", ename(err)), 0;
	if (!got)
		return printf("EIO (nothing read through fid 0xfffffffe)\n"), 0;
	if ((err = clunk(0xfffffffeu)) || (err = clunk(0x10000)))
		return printf("%s (Tclunk)\n", ename(err)), 0;
	/* NOFID is the one number that is never a fid. */
	err = attach(NOFID, 0);
	if (!err)
		return printf("0 (Tattach to NOFID accepted)\n"), 0;
	return report(0);
}

static int cmd_attach(const char *uid)
{
	cur = conn_new();
	int err = version();
	return report(err ? err : attach(0, (uint32_t)strtoul(uid, NULL, 0)));
}

/* Attached as uid, a new file (f) or directory (d) asking for mode and gid. */
static int cmd_makeas(const char *uid, const char *kind, const char *dir, const char *name,
		      const char *mode, const char *gid)
{
	cur = conn_new();
	int err = version();
	if (!err)
		err = attach(0, (uint32_t)strtoul(uid, NULL, 0));
	if (!err)
		err = walk(dir, 1);
	if (err)
		return printf("%s (attach, walk)\n", ename(err)), 0;
	uint16_t tag = start(*kind == 'f' ? TLCREATE : TMKDIR);
	p32(1);
	pstr(name);
	if (*kind == 'f')
		p32(0100 | 02);  /* O_CREAT | O_RDWR */
	p32((uint32_t)strtoul(mode, NULL, 8));
	p32((uint32_t)strtoul(gid, NULL, 0));
	return report(rpc(tag));
}

/* A fresh connection reads PATH and finds TEXT: the server still serves. */
static int alive(const char *path, const char *text)
{
	struct conn *save = cur, *c = conn_new();
	uint32_t got;
	int err;

	cur = c;
	if (!(err = version()) && !(err = attach(0, 0)))
		err = walk(path, 1);
	if (!err) {
		uint16_t tag = start(TLOPEN);
		p32(1);
		p32(0);
		err = rpc(tag);
	}
	if (!err)
		err = read_some(1, &got);
	if (!err && (got != strlen(text) || memcmp(cur->rx + cur->rxpos, text, got)))
		err = -EIO;
	conn_close(c);
	cur = save;
	return err;
}

static int cmd_alive(const char *path, const char *text)
{
	return report(alive(path, text));
}

static long vmrss_kib(const char *pid)
{
	char path[64], line[256];
	long kib = -1;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		die("cannot read %s", path);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/*
 * n fids, each a Txattrcreate of a 64 KiB value filled by Twrite so the
 * pages are real, all held at once. Prints the first error, how many fids
 * got their buffer, the server's RSS growth in KiB while they are held,
 * and whether a second connection is served meanwhile.
 */
static int cmd_xflood(const char *count, const char *pid)
{
	static uint8_t value[XMAX];
	uint32_t n = (uint32_t)strtoul(count, NULL, 0), held = 0;
	struct conn *c = session();
	int first = 0;

	memset(value, 'x', sizeof(value));
	long before = vmrss_kib(pid);
	for (uint32_t i = 0; i < n; i++) {
		int err = walk("flood", 100 + i);
		if (!err)
			err = xcreate(100 + i, "user.flood", value, XMAX);
		if (err) {
			if (!first)
				first = err;
			continue;
		}
		held++;
	}
	long grown = vmrss_kib(pid) - before;
	int other = alive("hello", "hello\n");
	printf("%s held=%u rss_growth_kib=%ld other=%s\n", ename(first), held, grown, ename(other));
	conn_close(c);
	return 0;
}

/*
 * n fids walked to PATH and held. Prints the first error and how many
 * were held, whether this connection still answers a Tgetattr and
 * Tversion on a second one while they are held, and whether a new
 * connection does real work once this one is gone.
 */
static int cmd_fdflood(const char *count, const char *path)
{
	uint32_t n = (uint32_t)strtoul(count, NULL, 0), held = 0;
	struct conn *c = session();
	int first = 0;

	for (uint32_t i = 0; i < n; i++) {
		int err = walk(path, 100 + i);
		if (err) {
			if (!first)
				first = err;
			continue;
		}
		held++;
	}
	uint16_t tag = start(TGETATTR);
	p32(0);
	p64(0x7ff);
	int same = rpc(tag);
	struct conn *c2 = conn_new();
	cur = c2;
	int second = version();
	int second_attach = second ? second : attach(0, 0);
	conn_close(c2);
	/* A newcomer must do real work too: attach, walk, open, read. */
	int second_work = alive(path, "hello\n");
	cur = c;
	conn_close(c);
	/* The server frees a closed connection's fids in its own time. */
	int after = 0;
	for (int tries = 0; tries < 50; tries++) {
		if (!(after = alive(path, "hello\n")))
			break;
		usleep(100000);
	}
	printf("%s held=%u same_conn=%s second_version=%s second_attach=%s after=%s second_work=%s\n",
	       ename(first), held, ename(same), ename(second), ename(second_attach), ename(after),
	       ename(second_work));
	return 0;
}

/* The process's user+system CPU time in ms (/proc/PID/stat fields 14, 15). */
static long cpu_ms(const char *pid)
{
	char path[64], buf[1024];
	unsigned long ut, st;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f))
		die("cannot read %s", path);
	fclose(f);
	char *p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		die("cannot parse %s", path);
	return (long)((ut + st) * 1000 / (unsigned long)sysconf(_SC_CLK_TCK));
}

/* Whether a reply (or a hang-up) is waiting on c within ms. */
static bool answered(struct conn *c, int ms)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	return poll(&pfd, 1, ms) > 0;
}

/* Whether what waits on c is a reply, not an end or an error. */
static bool replied(struct conn *c)
{
	char b;
	return recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 1;
}

/*
 * n connections, each sending Tversion. Those the server serves answer;
 * the rest must wait (not be dropped) while the server idles: its CPU
 * over one second is printed. Then the served ones leave and a waiting
 * one must be answered. Prints "0 served=S waiting=W cpu_ms=C dropped=D
 * late=E".
 */
static int cmd_connflood(const char *count, const char *pid)
{
	uint32_t n = (uint32_t)strtoul(count, NULL, 0), served = 0, dropped = 0;
	struct conn **cs = calloc(n, sizeof(*cs));

	for (uint32_t i = 0; i < n; i++) {
		cs[i] = cur = conn_new();
		uint16_t tag = start(TVERSION);
		(void)tag;
		p32(MSIZE);
		pstr("9P2000.L");
		send_msg();
	}
	usleep(300000);
	long c0 = cpu_ms(pid);
	sleep(1);
	long spent = cpu_ms(pid) - c0;
	/* A waiting connection must still be waiting: not hung up on. */
	for (uint32_t i = 0; i < n; i++) {
		if (!answered(cs[i], 0))
			continue;
		if (replied(cs[i]))
			served++;
		else
			dropped++;
		conn_close(cs[i]);
		cs[i] = NULL;
	}
	/* The served ones are gone: a waiting one must be served now. */
	int late = -ETIMEDOUT;
	for (uint32_t i = 0; i < n && late; i++)
		if (cs[i] && answered(cs[i], TIMEOUT_MS))
			late = replied(cs[i]) ? 0 : -EPIPE;
	printf("0 served=%u waiting=%u cpu_ms=%ld dropped=%u late=%s\n", served,
	       n - served - dropped, spent, dropped, ename(late));
	return 0;
}

static long threads_of(const char *pid)
{
	char path[64], line[256];
	long n = -1;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		die("cannot read %s", path);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* A Tlock of the whole file on fid, sent; the reply is not awaited (it may park). */
static void lock_send(uint32_t fid, uint8_t type, uint32_t flags)
{
	uint16_t tag = start(TLOCK);
	(void)tag;
	p32(fid);
	p8(type);
	p32(flags);
	p64(0);
	p64(0);
	p32(1);
	pstr("p9_hostile");
	send_msg();
}

/*
 * k connections at once, each holding n 64 KiB xattr values, then (all
 * but the first) l blocking Tlocks that conflict with the first
 * connection's lock: parked helpers. Prints "0 rss_growth_kib=K threads=T".
 */
static int cmd_crowd(const char *kk, const char *count, const char *locks, const char *path,
		     const char *pid)
{
	static uint8_t value[XMAX];
	uint32_t k = (uint32_t)strtoul(kk, NULL, 0), n = (uint32_t)strtoul(count, NULL, 0);
	uint32_t l = (uint32_t)strtoul(locks, NULL, 0);
	struct conn **cs = calloc(k, sizeof(*cs));
	long before = vmrss_kib(pid);

	memset(value, 'x', sizeof(value));
	for (uint32_t c = 0; c < k; c++) {
		cs[c] = session();
		if (walk(path, 1))
			die("walk %s", path);
		uint16_t tag = start(TLOPEN);
		p32(1);
		p32(2);
		if (rpc(tag))
			die("lopen %s", path);
		for (uint32_t i = 0; i < n; i++)
			if (!walk(path, 100 + i))
				(void)xcreate(100 + i, "user.flood", value, XMAX);
	}
	cur = cs[0];
	if (l)
		lock_send(1, 1, 0);     /* the lock everybody else waits for */
	usleep(100000);
	for (uint32_t c = 1; c < k; c++) {
		cur = cs[c];
		for (uint32_t i = 0; i < l; i++)
			lock_send(1, 1, 1);     /* P9_LOCK_FLAGS_BLOCK */
	}
	usleep(500000);
	long grown = vmrss_kib(pid) - before, threads = threads_of(pid);
	printf("0 rss_growth_kib=%ld threads=%ld\n", grown, threads);
	for (uint32_t c = 0; c < k; c++)
		conn_close(cs[c]);
	return 0;
}

static void load_deny(void)
{
	char *list = getenv("P9H_DENY"), *save = NULL;

	if (!list)
		return;
	list = strdup(list);
	for (char *t = strtok_r(list, "\n", &save); t && ndeny < 8; t = strtok_r(NULL, "\n", &save))
		if (*t)
			deny[ndeny++] = t;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		die("usage: p9_hostile SOCK OP ARGS (see the comment at the top)");
	sock_path = argv[1];
	load_deny();
	const char *op = argv[2];
	char **a = argv + 3;
	int n = argc - 3;

	/* Ops that manage their own connections. */
	if (!strcmp(op, "bigfids") && n == 1)
		return cmd_bigfids(a[0]);
	if (!strcmp(op, "attach") && n == 1)
		return cmd_attach(a[0]);
	if (!strcmp(op, "makeas") && n == 6)
		return cmd_makeas(a[0], a[1], a[2], a[3], a[4], a[5]);
	if (!strcmp(op, "alive") && n == 2)
		return cmd_alive(a[0], a[1]);
	if (!strcmp(op, "xflood") && n == 2)
		return cmd_xflood(a[0], a[1]);
	if (!strcmp(op, "fdflood") && n == 2)
		return cmd_fdflood(a[0], a[1]);
	if (!strcmp(op, "connflood") && n == 2)
		return cmd_connflood(a[0], a[1]);
	if (!strcmp(op, "crowd") && n == 5)
		return cmd_crowd(a[0], a[1], a[2], a[3], a[4]);

	session();
	if (!strcmp(op, "walk") && n == 1)
		return cmd_walk(a[0]);
	if (!strcmp(op, "lopen") && n == 2)
		return cmd_lopen(a[0], a[1]);
	if (!strcmp(op, "lcreate") && n == 3)
		return cmd_lcreate(a[0], a[1], a[2]);
	if (!strcmp(op, "mknod") && n == 5)
		return cmd_mknod(a[0], a[1], a[2], a[3], a[4]);
	if (!strcmp(op, "mkdir") && n == 2)
		return cmd_mkdir(a[0], a[1]);
	if (!strcmp(op, "truncate") && n == 1)
		return cmd_truncate(a[0]);
	if (!strcmp(op, "readlink") && n == 1)
		return cmd_readlink(a[0]);
	if (!strcmp(op, "xset") && n == 3)
		return cmd_xset(a[0], a[1], a[2]);
	if (!strcmp(op, "xdel") && n == 2)
		return cmd_xset(a[0], a[1], NULL);
	if (!strcmp(op, "xget") && n == 2)
		return cmd_xget(a[0], a[1]);
	if (!strcmp(op, "xlist") && n == 1)
		return cmd_xlist(a[0]);
	die("unknown op or wrong arguments: %s", op);
}
