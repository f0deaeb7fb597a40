// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host side of tests/host/fuse_rename_race.sh (built by the test with
 * cc): rename_race BASE SECONDS moves directories of BASE/share under a
 * walking FUSE client until SECONDS have passed: a -> c -> a (rename),
 * a <-> b (renameat2 RENAME_EXCHANGE), and m out of the share to
 * BASE/outside/m, where it gets a file MARKER while it is out (the walker
 * must never see it), then back. Prints the rounds it made.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int must(int r, const char *what)
{
	if (r < 0) {
		perror(what);
		exit(1);
	}
	return r;
}

int main(int argc, char **argv)
{
	long rounds = 0;
	time_t end;
	int base, f;

	if (argc != 3) {
		fprintf(stderr, "usage: rename_race BASE SECONDS\n");
		return 2;
	}
	base = must(open(argv[1], O_PATH | O_DIRECTORY), argv[1]);
	end = time(NULL) + atoi(argv[2]);
	while (time(NULL) < end) {
		must(renameat(base, "share/a", base, "share/c"), "a -> c");
		must(renameat(base, "share/c", base, "share/a"), "c -> a");
		must(renameat2(base, "share/a", base, "share/b", RENAME_EXCHANGE), "a <-> b");
		must(renameat(base, "share/m", base, "outside/m"), "m out");
		f = must(openat(base, "outside/m/MARKER", O_WRONLY | O_CREAT | O_TRUNC, 0644), "MARKER");
		must((int)write(f, "OUTSIDE\n", 8), "write MARKER");
		close(f);
		usleep(2000);
		must(unlinkat(base, "outside/m/MARKER", 0), "unlink MARKER");
		must(renameat(base, "outside/m", base, "share/m"), "m back");
		usleep(500);
		rounds++;
	}
	printf("%ld rounds\n", rounds);
	return 0;
}
