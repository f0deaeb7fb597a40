/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tmpfs mounted inside a test's share, in a mount namespace of the
 * forked test's own, for tests of what a server does at a mount boundary.
 *
 * The mount has to be made before the server's first request: that
 * request limits the test thread's capabilities (fs_caps_limit), after
 * which it can neither mount nor unmount. So submount_make() also forks a
 * janitor that keeps the privileges, and submount_undo() has it unmount,
 * so the share can be removed afterwards.
 */
#ifndef STAINLESS_TESTS_UNIT_SUBMOUNT_H
#define STAINLESS_TESTS_UNIT_SUBMOUNT_H

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t submount_janitor = -1;
static int submount_pipe = -1;

/* NULL when path is a fresh tmpfs mount, else why not (then skip). */
static inline const char *submount_make(const char *path)
{
	int p[2];

	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return "no private mount namespace here";
	if (mkdir(path, 0755) != 0 || mount("tmpfs", path, "tmpfs", 0, "size=1m") != 0)
		return "cannot mount a tmpfs inside the share";
	if (pipe(p) != 0)
		return "no pipe";
	submount_janitor = fork();
	if (submount_janitor == 0) {
		char c;

		close(p[1]);
		(void)!read(p[0], &c, 1);    /* until submount_undo() or the test's end */
		_exit(umount2(path, MNT_DETACH) == 0 ? 0 : 1);
	}
	close(p[0]);
	submount_pipe = p[1];
	return submount_janitor < 0 ? "cannot fork" : NULL;
}

static inline void submount_undo(void)
{
	if (submount_janitor <= 0)
		return;
	close(submount_pipe);
	waitpid(submount_janitor, NULL, 0);
	submount_janitor = -1;
}

#endif
