// SPDX-License-Identifier: GPL-2.0-only
/*
 * vu_lifetimes: the lifetimes `stainless vhost-user-fs --cache always
 * --watches N` gives, through the project's vhost-user frontend
 * (tests/vhost/), for tests/host/vhost_user_lifetimes.sh.
 *
 *   vu_lifetimes SOCKET SHARE watch|plain|budget
 *
 * SHARE holds a, b, d, e and sub/x, all quiet (made seconds before).
 * watch: a quiet inode gets a lifetime above 1 s and at most
 * FUSE_WATCH_CAP_SEC (10); after a host touch of a its next reply says
 * 1 s; after a host mv of b, a quiet sibling d (its own ctime untouched:
 * only the directory's watch can tell) drops to 1 s; an append to e
 * by a host process that keeps it open: 1 s and the new size; after a
 * host rm of d, its LOOKUP is ENOENT. plain (--watches 0): a's lifetime
 * is cache=always's day. budget (--watches 1, the root's watch only):
 * a keeps a long lifetime, the unwatched sub and sub/x get 1 s (plain
 * timeouts; the shell checks the one log line). One "ok:" line a step.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/vhost/vu_fuse.h"

#define CAP 10

static struct vu_frontend fe;
static struct vu_fuse_req r;
static const char *share;

static void fail(const char *what, int err)
{
	fprintf(stderr, "FAIL: %s%s%s\n", what, err ? ": " : "", err ? strerror(-err) : "");
	exit(1);
}

static struct fuse_entry_out lookup(uint64_t parent, const char *name)
{
	struct fuse_entry_out e;
	int err = vu_fuse_lookup(&fe, &r, parent, name, &e);

	if (err)
		fail(name, err);
	return e;
}

static struct fuse_attr_out getattr(uint64_t nodeid)
{
	struct fuse_getattr_in in = { 0 };
	struct fuse_attr_out out;
	int n;

	vu_fuse_prep(&r, FUSE_GETATTR, nodeid, &in, sizeof(in), NULL, 0, sizeof(out), 0, 0);
	n = vu_fuse_call(&fe, &r);
	if (n < 0 || (size_t)n < sizeof(out))
		fail("GETATTR", n < 0 ? n : -EPROTO);
	memcpy(&out, r.reply, sizeof(out));
	return out;
}

/* The host's own changes, as another process on the host makes them. */
static const char *in_share(const char *name)
{
	static char path[2][300];
	static int i;

	i ^= 1;
	snprintf(path[i], sizeof(path[i]), "%s/%s", share, name);
	return path[i];
}

/* The watcher reads its events on its own thread: wait up to 2 s for a lifetime of 1 s. */
static uint64_t settle(uint64_t parent, const char *name)
{
	struct fuse_entry_out e;

	for (int i = 0; i < 100; i++, usleep(20000)) {
		e = lookup(parent, name);
		if (e.entry_valid <= 1)
			break;
	}
	return e.entry_valid;
}

static void watch_phase(void)
{
	struct fuse_entry_out a = lookup(FUSE_ROOT_ID, "a"), d;
	struct fuse_attr_out at;
	int fd;

	if (a.entry_valid <= 1 || a.entry_valid > CAP || a.attr_valid > CAP)
		fail("a quiet inode's lifetime is not in (1, 10] s", 0);
	printf("ok: quiet a: entry %llu s, attributes %llu s\n",
	       (unsigned long long)a.entry_valid, (unsigned long long)a.attr_valid);
	if (utimensat(AT_FDCWD, in_share("a"), NULL, 0) < 0)
		fail("touch a", -errno);
	at = getattr(a.nodeid);
	if (at.attr_valid != 1)
		fail("after a host touch GETATTR of a does not say 1 s", 0);
	printf("ok: touch: a's next GETATTR lives %llu s\n", (unsigned long long)at.attr_valid);
	d = lookup(FUSE_ROOT_ID, "d");
	if (d.entry_valid <= 1)
		fail("quiet d already short before the mv", 0);
	if (rename(in_share("b"), in_share("c")) < 0)
		fail("mv b c", -errno);
	if (settle(FUSE_ROOT_ID, "d") != 1)
		fail("after a host mv in its directory d's entry still lives long", 0);
	printf("ok: mv b c: sibling d's entry now lives 1 s (it was %llu s)\n",
	       (unsigned long long)d.entry_valid);
	struct fuse_entry_out e = lookup(FUSE_ROOT_ID, "e");
	fd = open(in_share("e"), O_WRONLY | O_APPEND);
	if (fd < 0 || write(fd, "more\n", 5) != 5)
		fail("append to e", -errno);
	at = getattr(e.nodeid);
	if (at.attr_valid != 1 || at.attr.size != e.attr.size + 5)
		fail("after an append to an open file GETATTR of e is not 1 s with its new size", 0);
	printf("ok: append to open e: %llu s, size %llu -> %llu\n", (unsigned long long)at.attr_valid,
	       (unsigned long long)e.attr.size, (unsigned long long)at.attr.size);
	close(fd);
	if (unlink(in_share("d")) < 0)
		fail("rm d", -errno);
	if (vu_fuse_lookup(&fe, &r, FUSE_ROOT_ID, "d", &d) != -ENOENT)
		fail("LOOKUP of a removed d is not ENOENT", 0);
	printf("ok: rm d: LOOKUP says ENOENT (no negative entry kept)\n");
}

int main(int argc, char **argv)
{
	struct fuse_init_out io;
	int err = -ECONNREFUSED;

	if (argc != 4)
		fail("usage: vu_lifetimes SOCKET SHARE watch|plain|budget", 0);
	share = argv[2];
	for (int i = 0; i < 250 && (err = vu_connect(&fe, argv[1])); i++)
		usleep(20000);
	if (err || (err = vu_setup(&fe, 8u << 20, 0)) || (err = vu_fuse_req_alloc(&fe, &r, 4096)) ||
	    (err = vu_fuse_init(&fe, &r, VU_FUSE_LINUX_FLAGS, &io)))
		fail("connect, set-up and FUSE_INIT", err);
	if (!strcmp(argv[3], "watch")) {
		watch_phase();
	} else if (!strcmp(argv[3], "plain")) {
		struct fuse_entry_out a = lookup(FUSE_ROOT_ID, "a");

		if (a.entry_valid != 86400)
			fail("without watches cache=always's lifetime is not a day", 0);
		printf("ok: --watches 0: a lives %llu s\n", (unsigned long long)a.entry_valid);
	} else {
		struct fuse_entry_out a = lookup(FUSE_ROOT_ID, "a"), s, x;

		usleep(200000);  /* the root's watch is queued at start; let it land */
		a = lookup(FUSE_ROOT_ID, "a");
		s = lookup(FUSE_ROOT_ID, "sub");
		x = lookup(s.nodeid, "x");
		if (a.entry_valid <= 1 || s.entry_valid != 1 || x.entry_valid != 1)
			fail("with the budget spent: a long, sub and sub/x not 1 s", 0);
		printf("ok: --watches 1: a %llu s, unwatched sub %llu s, sub/x %llu s\n",
		       (unsigned long long)a.entry_valid, (unsigned long long)s.entry_valid,
		       (unsigned long long)x.entry_valid);
	}
	vu_close(&fe);
	return 0;
}
