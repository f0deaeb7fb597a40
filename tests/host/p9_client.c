// SPDX-License-Identifier: GPL-2.0-only
/*
 * p9_client: a small raw 9P2000.L client over a Unix socket, for the host
 * tests of `stainless 9p-serve` (tests/host/p9_raw.sh) in what diod's tools
 * do not exercise. Standalone on purpose (its own encoder, nothing from
 * fs/): a codec bug shared by client and server would hide itself.
 *
 *   p9_client SOCK ls DIR            list DIR ("." = root), one name a line
 *   p9_client SOCK cat FILE          print FILE
 *   p9_client SOCK put FILE          create FILE from stdin
 *   p9_client SOCK rename DIR OLD NEW   Trenameat inside DIR
 *   p9_client SOCK xattr FILE NAME VALUE   set, read back, list, remove
 *   p9_client SOCK lock FILE HOSTPATH   locks against a host lock holder
 *   p9_client SOCK flush FILE        Tflush cancels a blocked Tlock
 *   p9_client SOCK badframe          a broken frame closes only that link
 *   p9_client SOCK attach            just connect and attach (exit 0 if allowed)
 *   p9_client SOCK movedout DIR      holds fids on DIR, prints "held" and waits
 *            for a line on stdin (the host moves DIR out of the share and
 *            puts SECRET in it); then every use of DIR's names must fail;
 *            prints "checked", waits for a second line (DIR moved back)
 *            and walks to DIR/f0, which must work again
 *
 * Options before SOCK: -u UID attaches as UID (default 0); -F BASE numbers
 * the fids from BASE (default 0), e.g. 0x10000.
 *
 * Exit 0 on success; on failure one line on stderr saying what differed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MSIZE (256 * 1024)
enum {
	TLERROR = 6, TLOPEN = 12, TLCREATE = 14, TXATTRWALK = 30, TXATTRCREATE = 32,
	TREADDIR = 40, TLOCK = 52, TRENAMEAT = 74, TVERSION = 100, TATTACH = 104,
	TMKDIR = 72, TUNLINKAT = 76, TFLUSH = 108, TWALK = 110, TREAD = 116, TWRITE = 118, TCLUNK = 120,
};

static int sock;
static uint32_t attach_uid;      /* -u: the n_uname Tattach sends */
static uint8_t tx[MSIZE], rx[MSIZE];
static size_t txlen, rxpos, rxlen;
static uint16_t next_tag = 1;

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("p9_client: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void put(const void *p, size_t n)
{
	if (txlen + n > sizeof(tx))
		die("message too large");
	memcpy(tx + txlen, p, n);
	txlen += n;
}
static void p8(uint8_t v) { put(&v, 1); }
static void p16(uint16_t v) { uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) }; put(b, 2); }
static void p32(uint32_t v) { p16((uint16_t)v); p16((uint16_t)(v >> 16)); }
static void p64(uint64_t v) { p32((uint32_t)v); p32((uint32_t)(v >> 32)); }
static void pstr(const char *s) { p16((uint16_t)strlen(s)); put(s, strlen(s)); }
/* Fids are numbered from -F's base: a server must take any 32-bit number. */
static uint32_t fid_base;
static void pfid(uint32_t n) { p32(fid_base + n); }

static uint16_t start(uint8_t type)
{
	uint16_t tag = next_tag++;
	txlen = 0;
	p32(0);
	p8(type);
	p16(tag);
	return tag;
}

static void send_msg(void)
{
	tx[0] = (uint8_t)txlen; tx[1] = (uint8_t)(txlen >> 8);
	tx[2] = (uint8_t)(txlen >> 16); tx[3] = (uint8_t)(txlen >> 24);
	for (size_t off = 0; off < txlen;) {
		ssize_t n = write(sock, tx + off, txlen - off);
		if (n <= 0)
			die("write: %s", strerror(errno));
		off += (size_t)n;
	}
}

static int read_full(void *buf, size_t len)
{
	for (size_t off = 0; off < len;) {
		ssize_t n = read(sock, (uint8_t *)buf + off, len - off);
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

static uint8_t g8(void) { if (rxpos + 1 > rxlen) die("short reply"); return rx[rxpos++]; }
static uint16_t g16(void) { uint16_t v = g8(); return (uint16_t)(v | g8() << 8); }
static uint32_t g32(void) { uint32_t v = g16(); return v | (uint32_t)g16() << 16; }
static uint64_t g64(void) { uint64_t v = g32(); return v | (uint64_t)g32() << 32; }
static void gstr(char *buf, size_t sz)
{
	uint16_t n = g16();
	if (rxpos + n > rxlen || n >= sz)
		die("bad string in reply");
	memcpy(buf, rx + rxpos, n);
	buf[n] = '\0';
	rxpos += n;
}

/* Reads one reply; returns its type and tag, body positioned in rx. */
static uint8_t recv_msg(uint16_t *tag)
{
	if (read_full(rx, 4) < 0)
		die("connection closed");
	uint32_t size = rx[0] | rx[1] << 8 | rx[2] << 16 | (uint32_t)rx[3] << 24;
	if (size < 7 || size > sizeof(rx))
		die("bad reply size %u", size);
	if (read_full(rx + 4, size - 4) < 0)
		die("connection closed");
	rxlen = size;
	rxpos = 4;
	uint8_t type = g8();
	*tag = g16();
	return type;
}

/* Sends the message built and waits for its reply: 0 or -errno. */
static int rpc(uint16_t tag)
{
	uint16_t rtag;
	uint8_t type = tx[4];
	send_msg();
	uint8_t rtype = recv_msg(&rtag);
	if (rtag != tag)
		die("reply tag %u, expected %u", rtag, tag);
	if (rtype == TLERROR + 1)
		return -(int)g32();
	if (rtype != type + 1)
		die("reply type %u to %u", rtype, type);
	return 0;
}

static void connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char v[32];

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	sock = socket(AF_UNIX, SOCK_STREAM, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("connect %s: %s", path, strerror(errno));
	uint16_t tag = start(TVERSION);
	p32(MSIZE);
	pstr("9P2000.L");
	if (rpc(tag))
		die("Tversion refused");
	g32();
	gstr(v, sizeof(v));
	if (strcmp(v, "9P2000.L"))
		die("version %s", v);
	tag = start(TATTACH);
	pfid(0);
	p32(~0u);
	pstr("root");
	pstr("");
	p32(attach_uid);
	int err = rpc(tag);
	if (err)
		die("Tattach as uid %u refused: %s", attach_uid, strerror(-err));
}

/* Walks path ("a/b", "." = the root itself) from fid 0 to newfid. */
static int walk(const char *path, uint32_t newfid)
{
	char copy[1024], *names[16], *save = NULL;
	int n = 0;

	snprintf(copy, sizeof(copy), "%s", path);
	for (char *t = strtok_r(copy, "/", &save); t && n < 16; t = strtok_r(NULL, "/", &save))
		if (strcmp(t, "."))
			names[n++] = t;
	uint16_t tag = start(TWALK);
	pfid(0);
	pfid(newfid);
	p16((uint16_t)n);
	for (int i = 0; i < n; i++)
		pstr(names[i]);
	int err = rpc(tag);
	if (!err && g16() != n)
		return -ENOENT;
	return err;
}

static int lopen(uint32_t fid, uint32_t flags)
{
	uint16_t tag = start(TLOPEN);
	pfid(fid);
	p32(flags);
	return rpc(tag);
}

static int clunk(uint32_t fid)
{
	uint16_t tag = start(TCLUNK);
	pfid(fid);
	return rpc(tag);
}

static void must(int err, const char *what)
{
	if (err)
		die("%s: %s", what, strerror(-err));
}

static int cmd_ls(const char *dir)
{
	uint64_t off = 0;
	char name[512];

	must(walk(dir, 1), "walk");
	must(lopen(1, 0), "lopen");
	for (;;) {
		uint16_t tag = start(TREADDIR);
		pfid(1);
		p64(off);
		p32(MSIZE - 11);
		must(rpc(tag), "readdir");
		uint32_t count = g32();
		if (count == 0)
			return 0;
		size_t end = rxpos + count;
		while (rxpos < end) {
			g8(); g32(); g64();     /* qid */
			off = g64();
			g8();
			gstr(name, sizeof(name));
			if (strcmp(name, ".") && strcmp(name, ".."))
				printf("%s\n", name);
		}
	}
}

static int cmd_cat(const char *file)
{
	uint64_t off = 0;

	must(walk(file, 1), "walk");
	must(lopen(1, 0), "lopen");
	for (;;) {
		uint16_t tag = start(TREAD);
		pfid(1);
		p64(off);
		p32(MSIZE - 11);
		must(rpc(tag), "read");
		uint32_t n = g32();
		if (n == 0)
			return 0;
		fwrite(rx + rxpos, 1, n, stdout);
		off += n;
	}
}

static int cmd_put(const char *file)
{
	static char buf[MSIZE - 64];
	const char *slash = strrchr(file, '/');
	char dir[1024] = ".";
	uint64_t off = 0;
	size_t n;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - file), file);
	must(walk(dir, 1), "walk");
	uint16_t tag = start(TLCREATE);
	pfid(1);
	pstr(slash ? slash + 1 : file);
	p32(02 | 01000);   /* RDWR | TRUNC */
	p32(0644);
	p32(0);
	must(rpc(tag), "lcreate");
	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0) {
		tag = start(TWRITE);
		pfid(1);
		p64(off);
		p32((uint32_t)n);
		put(buf, n);
		must(rpc(tag), "write");
		if (g32() != n)
			die("short write");
		off += n;
	}
	return clunk(1);
}

static int cmd_rename(const char *dir, const char *old, const char *new)
{
	must(walk(dir, 1), "walk");
	uint16_t tag = start(TRENAMEAT);
	pfid(1);
	pstr(old);
	pfid(1);
	pstr(new);
	must(rpc(tag), "renameat");
	return 0;
}

static int cmd_xattr(const char *file, const char *name, const char *value)
{
	char buf[4096];

	must(walk(file, 1), "walk");
	must(walk(file, 2), "walk");
	uint16_t tag = start(TXATTRCREATE);
	pfid(2);
	pstr(name);
	p64(strlen(value));
	p32(0);
	must(rpc(tag), "xattrcreate");
	tag = start(TWRITE);
	pfid(2);
	p64(0);
	p32((uint32_t)strlen(value));
	put(value, strlen(value));
	must(rpc(tag), "xattr write");
	must(clunk(2), "xattr commit");
	/* Read it back, then list with an empty name. */
	for (int pass = 0; pass < 2; pass++) {
		tag = start(TXATTRWALK);
		pfid(1);
		pfid(3);
		pstr(pass ? "" : name);
		must(rpc(tag), "xattrwalk");
		uint64_t size = g64();
		tag = start(TREAD);
		pfid(3);
		p64(0);
		p32(sizeof(buf));
		must(rpc(tag), "xattr read");
		uint32_t n = g32();
		if (n != size || n > sizeof(buf))
			die("xattr size %u, announced %llu", n, (unsigned long long)size);
		memcpy(buf, rx + rxpos, n);
		if (!pass && (n != strlen(value) || memcmp(buf, value, n)))
			die("xattr value differs");
		if (pass && !memmem(buf, n, name, strlen(name) + 1))
			die("xattr list lacks %s", name);
		must(clunk(3), "clunk");
	}
	printf("xattr ok\n");
	return 0;
}

static int tlock(uint32_t fid, uint8_t type, uint32_t flags, uint16_t *tagp, bool wait)
{
	uint16_t tag = start(TLOCK);
	pfid(fid);
	p8(type);
	p32(flags);
	p64(0);
	p64(0);
	p32((uint32_t)getpid());
	pstr("p9_client");
	if (tagp)
		*tagp = tag;
	if (!wait) {
		send_msg();
		return 0;
	}
	int err = rpc(tag);
	return err ? err : g8();
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A host process holds a POSIX lock: the client must be refused, then granted. */
static int cmd_lock(const char *file, const char *hostpath)
{
	int ready[2];
	char c;

	if (pipe(ready) < 0)
		die("pipe");
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(hostpath, O_RDWR);
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		if (fd < 0 || fcntl(fd, F_SETLK, &fl) < 0)
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		usleep(500000);    /* hold it half a second, then exit (releases) */
		_exit(0);
	}
	if (read(ready[0], &c, 1) != 1)
		die("host lock holder failed");
	must(walk(file, 1), "walk");
	must(lopen(1, 2), "lopen");
	int st = tlock(1, 1, 0, NULL, true);
	if (st != 1)
		die("non-blocking lock while the host holds it: status %d, want BLOCKED", st);
	double t0 = now();
	st = tlock(1, 1, 1, NULL, true);     /* blocking: parked until released */
	double waited = now() - t0;
	if (st != 0)
		die("blocking lock: status %d, want SUCCESS", st);
	if (waited < 0.2)
		die("blocking lock granted after %.3fs while the host held it", waited);
	waitpid(pid, NULL, 0);
	printf("lock ok: refused while held, granted %.3fs later\n", waited);
	return 0;
}

/* Tflush of a blocked Tlock: Rlerror(EINTR) for it first, then Rflush. */
static int cmd_flush(const char *file)
{
	uint16_t ltag, rtag;

	must(walk(file, 1), "walk");
	must(walk(file, 2), "walk");
	must(lopen(1, 2), "lopen");
	must(lopen(2, 2), "lopen");
	if (tlock(1, 1, 0, NULL, true) != 0)
		die("first lock refused");
	tlock(2, 1, 1, &ltag, false);
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	if (poll(&pfd, 1, 200) != 0)
		die("the conflicting blocking lock was answered at once");
	uint16_t ftag = start(TFLUSH);
	p16(ltag);
	send_msg();
	uint8_t t1 = recv_msg(&rtag);
	if (rtag != ltag || t1 != TLERROR + 1 || g32() != EINTR)
		die("flushed lock: reply type %u tag %u, want Rlerror(EINTR) tag %u", t1, rtag, ltag);
	uint8_t t2 = recv_msg(&rtag);
	if (rtag != ftag || t2 != TFLUSH + 1)
		die("no Rflush after the cancelled lock");
	/* The connection still serves. */
	if (tlock(1, 2, 0, NULL, true) != 0 || tlock(2, 1, 0, NULL, true) != 0)
		die("locks after flush");
	printf("flush ok\n");
	return 0;
}

/* Walks names from fid to newfid (none: a clone). 0 or -errno. */
static int walk_from(uint32_t fid, uint32_t newfid, const char *name)
{
	uint16_t tag = start(TWALK);
	pfid(fid);
	pfid(newfid);
	p16(name ? 1 : 0);
	if (name)
		pstr(name);
	int err = rpc(tag);
	if (!err && name && g16() != 1)
		return -ENOENT;
	return err;
}

static void wait_line(const char *say)
{
	char line[64];

	printf("%s\n", say);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		die("stdin closed before the host was done");
}

/* An operation on a directory moved out of the share: it must be refused. */
static int refused(const char *what, int err)
{
	if (err) {
		printf("refused: %s: %s\n", what, strerror(-err));
		return 0;
	}
	printf("ALLOWED: %s\n", what);
	return 1;
}

static int cmd_movedout(const char *dir)
{
	int bad = 0;
	uint16_t tag;

	must(walk(dir, 1), "walk");
	must(walk(dir, 2), "walk");
	must(lopen(2, 0), "lopen");
	wait_line("held");
	bad += refused("walk to SECRET", walk_from(1, 3, "SECRET"));
	bad += refused("walk to ..", walk_from(1, 3, ".."));
	tag = start(TREADDIR);
	pfid(2);
	p64(0);
	p32(8192);
	bad += refused("readdir", rpc(tag));
	must(walk_from(1, 4, NULL), "clone");
	tag = start(TLCREATE);
	pfid(4);
	pstr("created");
	p32(02);
	p32(0644);
	p32(0);
	bad += refused("lcreate", rpc(tag));
	tag = start(TMKDIR);
	pfid(1);
	pstr("made");
	p32(0755);
	p32(0);
	bad += refused("mkdir", rpc(tag));
	tag = start(TUNLINKAT);
	pfid(1);
	pstr("SECRET");
	p32(0);
	bad += refused("unlinkat SECRET", rpc(tag));
	tag = start(TRENAMEAT);
	pfid(1);
	pstr("SECRET");
	pfid(1);
	pstr("renamed");
	bad += refused("renameat SECRET", rpc(tag));
	wait_line("checked");
	must(walk_from(1, 5, "f0"), "walk to f0 once the directory is back");
	printf("back: walk to f0 ok\n");
	return bad ? 1 : 0;
}

static int cmd_badframe(const char *path)
{
	uint8_t bad[4] = { 3, 0, 0, 0 };   /* a size below the header */
	if (write(sock, bad, 4) != 4)
		die("write");
	if (read(sock, rx, 1) != 0)
		die("server did not close the broken connection");
	close(sock);
	connect_to(path);
	must(walk(".", 1), "walk after reconnect");
	printf("badframe ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "+u:F:")) != -1) {
		if (opt == 'u')
			attach_uid = (uint32_t)strtoul(optarg, NULL, 0);
		else if (opt == 'F')
			fid_base = (uint32_t)strtoul(optarg, NULL, 0);
		else
			die("bad option");
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (argc < 3)
		die("usage: p9_client [-u UID] [-F FIDBASE] SOCK "
		    "ls|cat|put|rename|xattr|lock|flush|badframe|attach|movedout ARGS");
	connect_to(argv[1]);
	const char *c = argv[2];
	if (!strcmp(c, "ls") && argc == 4)
		return cmd_ls(argv[3]);
	if (!strcmp(c, "cat") && argc == 4)
		return cmd_cat(argv[3]);
	if (!strcmp(c, "put") && argc == 4)
		return cmd_put(argv[3]);
	if (!strcmp(c, "rename") && argc == 6)
		return cmd_rename(argv[3], argv[4], argv[5]);
	if (!strcmp(c, "xattr") && argc == 6)
		return cmd_xattr(argv[3], argv[4], argv[5]);
	if (!strcmp(c, "lock") && argc == 5)
		return cmd_lock(argv[3], argv[4]);
	if (!strcmp(c, "flush") && argc == 4)
		return cmd_flush(argv[3]);
	if (!strcmp(c, "movedout") && argc == 4)
		return cmd_movedout(argv[3]);
	if (!strcmp(c, "badframe") && argc == 3)
		return cmd_badframe(argv[1]);
	if (!strcmp(c, "attach") && argc == 3) {
		printf("attach as uid %u ok\n", attach_uid);
		return 0;
	}
	die("unknown command or wrong arguments: %s", c);
}
