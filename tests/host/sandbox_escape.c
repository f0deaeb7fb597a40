// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a compromised serving thread can still reach (issue 22, items 1
 * and 2). The program enters the real sandbox of one command
 * (sandbox_enter and sandbox_lockdown as the command calls them, its
 * seccomp filters from sc_setup), starts a thread under that command's
 * serving role (fs_thread_create) with the serving capabilities
 * (fs_caps_limit, as every server does at its first request), and from
 * there attacks as code running in that thread could:
 *
 *   handles       open_by_handle_at on the share's fd with the real handle
 *                 of SECRET (a file beside the share on the same file
 *                 system, taken before the sandbox: as if it had leaked)
 *                 and with ext4's FILEID_INO32_GEN forged from inode
 *                 numbers around SECRET's (generation 0, which ext4 does
 *                 not check). Any fd is an escape: it reads and writes.
 *   mknod         mknodat in the share: a FIFO and the 0:0 whiteout (must
 *                 work), then a block device 7:0 (a host disk node).
 *   mknod-legacy  the old mknod(2) call, which no role needs.
 *
 * usage: sandbox_escape CMD LAYER ATTACK SHARE SECRET [devices]
 *   CMD: run, fuse-mount, fuse-mount-uring (fuse-mount's --uring role),
 *        9p-serve, vhost-user-fs;  LAYER: seccomp (the command's filters,
 *        kill mode) or caps (no filter: the capability limits alone).
 * One line on stdout says what happened ("refused", "made", "ESCAPE").
 * Exit 0 when the attack ran to its end, 1 on an escape, 2 on a set-up
 * error, 77 when it cannot run here; under seccomp a forbidden call kills
 * the whole process with SIGSYS (the supervisor passes that on: 159).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/creds.h"
#include "base/thread.h"
#include "sandbox/sandbox.h"
#include "sandbox/seccomp.h"

#define FILEID_INO32_GEN 1
#define SCAN 64

static const struct {
	const char *arg, *cmd;
	enum sc_command sc;
	enum fs_role role;
} cmds[] = {
	{ "run", "run", SC_CMD_RUN, FS_ROLE_QUEUE },
	{ "fuse-mount", "fuse-mount", SC_CMD_FUSE_MOUNT, FS_ROLE_FUSE_READER },
	{ "fuse-mount-uring", "fuse-mount", SC_CMD_FUSE_MOUNT, FS_ROLE_FUSE_URING },
	{ "9p-serve", "9p-serve", SC_CMD_9P_SERVE, FS_ROLE_P9_CONN },
	{ "vhost-user-fs", "vhost-user-fs", SC_CMD_VHOST_USER, FS_ROLE_QUEUE },
};

static struct {
	const char *attack, *share;
	_Alignas(struct file_handle) unsigned char real[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	ino_t ino;
} g;

/* One result line: "WHAT: VERDICT THING (errno)". */
static int say(const char *what, const char *verdict, const char *thing, int err)
{
	printf("%s: %s %s%s%s%s\n", what, verdict, thing, err ? " (" : "",
	       err ? strerror(err) : "", err ? ")" : "");
	fflush(stdout);
	return 0;
}

/* An fd on SECRET: read it, write it. The escape the sandbox must prevent. */
static int escaped(int fd, const char *how)
{
	char buf[64] = { 0 };
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	printf("ESCAPE: %s opened a file outside the share: read %zd bytes \"%s\"\n", how, n,
	       n > 0 ? strtok(buf, "\n") : "");
	fflush(stdout);
	close(fd);
	return 1;
}

/* 1 when h opened SECRET; any other inode it opens is counted in *others. */
static int try_handle(int dir, struct file_handle *h, const char *how, int *err, int *others)
{
	int fd = open_by_handle_at(dir, h, O_RDWR);
	struct stat st;

	if (fd < 0)
		fd = open_by_handle_at(dir, h, O_RDONLY);
	if (fd < 0) {
		*err = errno;
		return 0;
	}
	if (fstat(fd, &st) == 0 && st.st_ino == g.ino)
		return escaped(fd, how);
	close(fd);
	++*others;
	return 0;
}

static int attack_handles(int dir)
{
	_Alignas(struct file_handle) unsigned char buf[sizeof(struct file_handle) + 8];
	struct file_handle *h = (struct file_handle *)buf;
	int err = 0, tries = 1, others = 0;
	uint32_t f[2] = { 0, 0 };

	h->handle_bytes = sizeof(f);
	h->handle_type = FILEID_INO32_GEN;
	/* Around the real number, and the real number itself: no luck involved. */
	for (long d = -SCAN; d <= SCAN; d++, tries++) {
		if ((long)g.ino + d <= 0)
			continue;
		f[0] = (uint32_t)((long)g.ino + d);
		memcpy(h->f_handle, f, sizeof(f));
		if (try_handle(dir, h, "a forged FILEID_INO32_GEN handle", &err, &others))
			return 1;
	}
	/* A handle that leaked (the real one): forging needs no luck, this none at all. */
	if (try_handle(dir, (struct file_handle *)g.real, "the real handle", &err, &others))
		return 1;
	if (others) {
		printf("ESCAPE: forged handles opened %d other inodes outside the share\n", others);
		fflush(stdout);
		return 1;
	}
	printf("handles: refused, all %d tried (%s)\n", tries, strerror(err));
	fflush(stdout);
	return 0;
}

static int attack_mknod(int dir)
{
	if (mknodat(dir, "fifo", S_IFIFO | 0600, 0) < 0)
		return say("mknod", "failed to make", "a FIFO", errno), 2;
	if (mknodat(dir, "whiteout", S_IFCHR | 0600, 0) < 0)
		return say("mknod", "failed to make", "the 0:0 whiteout", errno), 2;
	if (mknodat(dir, "disk", S_IFBLK | 0666, makedev(7, 0)) == 0)
		return say("mknod", "made", "a block device 7:0", 0);
	return say("mknod", "refused", "a block device 7:0", errno);
}

static void *attacker(void *arg)
{
	char path[4096];
	int dir, r = fs_caps_limit();

	(void)arg;
	if (r < 0 || (dir = open(g.share, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "sandbox_escape: cannot start the attack: %s\n", strerror(errno));
		return (void *)2L;
	}
	if (strcmp(g.attack, "handles") == 0)
		r = attack_handles(dir);
	else if (strcmp(g.attack, "mknod") == 0)
		r = attack_mknod(dir);
	else {
		snprintf(path, sizeof(path), "%s/legacy", g.share);
		r = syscall(SYS_mknod, path, S_IFIFO | 0600, 0) == 0 ? 0 : errno;
		say("mknod(2)", r ? "refused" : "made", "a FIFO", r);
		r = 0;
	}
	close(dir);
	return (void *)(long)r;
}

/* The trusted part, before any sandbox: SECRET's handle, and that it decodes here. */
static int take_secret(const char *share, const char *secret)
{
	struct file_handle *h = (struct file_handle *)g.real;
	struct stat st;
	int mount_id, dir, fd;

	h->handle_bytes = MAX_HANDLE_SZ;
	if (stat(secret, &st) < 0 || name_to_handle_at(AT_FDCWD, secret, h, &mount_id, 0) < 0) {
		printf("SKIP: %s: no file handle (%s)\n", secret, strerror(errno));
		return 77;
	}
	g.ino = st.st_ino;
	dir = open(share, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = dir < 0 ? -1 : open_by_handle_at(dir, h, O_RDONLY);
	if (fd < 0) {
		printf("SKIP: handles do not decode on this host (%s)\n", strerror(errno));
		return 77;
	}
	close(fd);
	close(dir);
	return 0;
}

int main(int argc, char **argv)
{
	struct sandbox_opts o;
	struct sandbox sb;
	char err[256];
	unsigned c;
	pthread_t t;
	void *res;
	int code = 0, r;

	for (c = 0; argc >= 6 && c < sizeof(cmds) / sizeof(cmds[0]); c++)
		if (strcmp(argv[1], cmds[c].arg) == 0)
			break;
	if (argc < 6 || c == sizeof(cmds) / sizeof(cmds[0])) {
		fprintf(stderr, "usage: sandbox_escape CMD seccomp|caps handles|mknod|mknod-legacy "
			"SHARE SECRET [devices]\n");
		return 2;
	}
	if (geteuid() != 0) {
		printf("SKIP: needs root (the capabilities to drop)\n");
		return 77;
	}
	g.attack = argv[3];
	if ((r = take_secret(argv[4], argv[5])) != 0)
		return r;
	sandbox_opts_init(&o);
	sandbox_init(&sb, cmds[c].cmd, &o);
	/* As each command sets its sandbox up (transport/, vmm/vm.c). */
	sb.host_ids = cmds[c].sc != SC_CMD_RUN;
	sb.kernel_ids = cmds[c].sc == SC_CMD_FUSE_MOUNT;
	sb.devices = argc > 6 && strcmp(argv[6], "devices") == 0;
	if (strcmp(argv[2], "seccomp") == 0 && sc_setup(cmds[c].sc, SC_KILL, err, sizeof(err)) < 0) {
		fprintf(stderr, "sandbox_escape: seccomp: %s\n", err);
		return 2;
	}
	r = sandbox_enter(&sb, &code);
	if (r != 0)
		return r > 0 ? code : 2;
	if (sandbox_add_share(&sb, argv[4], false) < 0 ||
	    (cmds[c].sc == SC_CMD_9P_SERVE && sandbox_add_user_db(&sb) < 0) ||
	    sandbox_lockdown(&sb) < 0)
		return 2;
	g.share = sandbox_path(&sb, argv[4]);
	if (fs_thread_create(&t, NULL, cmds[c].role, attacker, NULL) < 0)
		return 2;
	pthread_join(t, &res);
	return (int)(long)res;
}
