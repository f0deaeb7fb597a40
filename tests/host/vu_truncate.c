// SPDX-License-Identifier: GPL-2.0-only
/*
 * vu_truncate: a vhost-user frontend that truncates its memory file after
 * SET_MEM_TABLE, for tests/host/vhost_user_truncate.sh.
 *
 *   vu_truncate SOCKET NAME unsealed|sealable|sealed -- BACKEND [ARGS...]
 *
 * unsealed: memory from a memfd that takes no seals (QEMU's seal=off).
 * Connect, FUSE_INIT, LOOKUP of NAME (served), then ftruncate the memfd
 * to 0. The frontend keeps working on a private copy of its memory (its
 * own accesses would fault too), submits a GETATTR and kicks: the backend
 * finds its mapping gone at its next access. It must stay alive (checked
 * for a second), answer or stop the ring, and exit with status 0 when the
 * frontend leaves. sealable: the memfd takes seals but has none, so
 * SET_MEM_TABLE must be refused and nothing served. sealed: sealed as
 * QEMU's memory-backend-memfd seals by default (shrink, grow, seal):
 * served, and the truncation itself fails. One "ok:" line per
 * step; exit 0 when all passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/vhost/vu_fuse.h"

static pid_t backend = -1;

static void fail(const char *what, int err)
{
	fprintf(stderr, "FAIL: %s%s%s\n", what, err ? ": " : "", err ? strerror(-err) : "");
	if (backend > 0)
		kill(backend, SIGKILL);
	exit(1);
}

static void spawn(char **argv)
{
	backend = fork();
	if (backend < 0)
		fail("fork", -errno);
	if (backend == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
}

/* 0 once the backend exited (status in *st), -1 while it runs after ms. */
static int reap(int ms, int *st)
{
	for (int i = 0; i < ms / 20; i++, usleep(20000))
		if (waitpid(backend, st, WNOHANG) == backend)
			return 0;
	return -1;
}

static void connect_backend(struct vu_frontend *fe, const char *sock)
{
	int st;

	for (int i = 0; i < 250; i++) {
		if (vu_connect(fe, sock) == 0)
			return;
		if (waitpid(backend, &st, WNOHANG) == backend) {
			backend = -1;
			fail("the backend exited before accepting", 0);
		}
		usleep(20000);
	}
	fail("connect to the backend", -ETIMEDOUT);
}

/* Truncates the file the backend maps; this side goes on with a private copy. */
static void truncate_memory(struct vu_frontend *fe)
{
	void *copy = malloc(fe->mem_size);

	if (!copy)
		fail("malloc", -ENOMEM);
	memcpy(copy, fe->mem, fe->mem_size);
	if (ftruncate(fe->memfd, 0) < 0)
		fail("ftruncate of the memory file", -errno);
	if (mmap(fe->mem, fe->mem_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		fail("mmap", -errno);
	memcpy(fe->mem, copy, fe->mem_size);
	free(copy);
}

int main(int argc, char **argv)
{
	struct vu_frontend fe;
	struct vu_fuse_req r;
	struct fuse_init_out io;
	struct fuse_entry_out e;
	int err, st;

	if (argc < 6 || strcmp(argv[4], "--"))
		fail("usage: vu_truncate SOCKET NAME unsealed|sealable|sealed -- BACKEND [ARGS...]", 0);
	bool sealable = !strcmp(argv[3], "sealable"), sealed = !strcmp(argv[3], "sealed");
	spawn(argv + 5);
	connect_backend(&fe, argv[1]);
	err = vu_setup(&fe, 8u << 20, sealable ? VU_SEALABLE_MEMORY : sealed ? VU_SEALED_MEMORY : 0);
	if (sealable) {
		if (!err)
			err = vu_fuse_req_alloc(&fe, &r, 4096);
		if (!err)
			err = vu_fuse_init(&fe, &r, VU_FUSE_LINUX_FLAGS, &io);
		if (!err)
			fail("a memfd that can be sealed but lacks F_SEAL_SHRINK was served", 0);
		printf("ok: a shrinkable sealable memfd is refused (%s)\n", strerror(-err));
		vu_close(&fe);
		if (reap(5000, &st) < 0)
			fail("the backend did not exit after the refusal", 0);
		printf("ok: the backend exited (status %d)\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		return 0;
	}
	if (err || (err = vu_fuse_req_alloc(&fe, &r, 4096)) ||
	    (err = vu_fuse_init(&fe, &r, VU_FUSE_LINUX_FLAGS, &io)))
		fail("set-up and FUSE_INIT", err);
	if ((err = vu_fuse_lookup(&fe, &r, FUSE_ROOT_ID, argv[2], &e)))
		fail("LOOKUP before the truncation", err);
	printf("ok: a request served before the truncation\n");
	if (sealed) {
		if (ftruncate(fe.memfd, 0) == 0)
			fail("a memfd sealed against shrinking was truncated", 0);
		if ((err = vu_fuse_lookup(&fe, &r, FUSE_ROOT_ID, argv[2], &e)))
			fail("LOOKUP after the refused truncation", err);
		printf("ok: sealed memory: the truncation fails (%s), requests are served\n", strerror(errno));
		vu_close(&fe);
		if (reap(5000, &st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			fail("the backend did not exit 0 when the frontend left", 0);
		return 0;
	}
	truncate_memory(&fe);
	struct fuse_getattr_in ga = { 0 };
	vu_fuse_prep(&r, FUSE_GETATTR, e.nodeid, &ga, sizeof(ga), NULL, 0,
		     sizeof(struct fuse_attr_out), 0, 0);
	if ((err = vu_fuse_submit(&fe, VU_REQUEST, &r)) || (err = vu_kick(&fe, VU_REQUEST)))
		fail("submit after the truncation", err);
	if (reap(1000, &st) == 0)
		fprintf(stderr, "status: %s %d\n", WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st)),
		fail(WIFSIGNALED(st) ? "the backend was killed by a signal" : "the backend exited", 0);
	printf("ok: the backend is alive a second after the truncated memory was touched\n");
	vu_close(&fe);
	if (reap(5000, &st) < 0)
		fail("the backend did not exit after the frontend left", 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail("the backend's exit status is not 0", 0);
	printf("ok: the backend exited 0 when the frontend left\n");
	return 0;
}
