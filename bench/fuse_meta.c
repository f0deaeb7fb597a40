// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse_meta: the metadata rows of bench-fuse, timed against any directory
 * (a FUSE mount or plain tmpfs), so every backend sees the same syscalls:
 *
 *   create   open(O_CREAT|O_EXCL) + close of N new files
 *   stat     fstatat() of each of the N names (a LOOKUP per name when the
 *            kernel may not cache entries, as with cache=never / --nocache)
 *   readdir  opendir + readdir to the end + closedir of the N-entry
 *            directory, repeated; counted in entries
 *   unlink   unlinkat() of the N files
 *
 *   fuse_meta DIR [--files N] [--readdir-passes P]
 *
 * Prints one line of key=value figures (ops per second); create+unlink is
 * N pairs over the create and unlink time together. Works in a private
 * subdirectory it removes again; exits non-zero on the first failure.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILES 1000000
#define MAX_PASSES 1000

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *name)
{
	fprintf(stderr, "fuse_meta: %s%s%s: %s\n", what, name ? " " : "", name ? name : "",
		strerror(errno));
	exit(1);
}

static void name_of(char *buf, size_t len, long i)
{
	snprintf(buf, len, "f%06ld", i);
}

/* Returns entries seen (., .. included: the server returned them too). */
static long read_dir(const char *path)
{
	DIR *d = opendir(path);
	long n = 0;

	if (!d)
		die("opendir", path);
	errno = 0;
	while (readdir(d))
		n++;
	if (errno)
		die("readdir", path);
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	long files = 10000, passes = 3;
	const char *top = NULL;
	char dir[4096], name[32];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--files") && i + 1 < argc)
			files = atol(argv[++i]);
		else if (!strcmp(argv[i], "--readdir-passes") && i + 1 < argc)
			passes = atol(argv[++i]);
		else if (argv[i][0] != '-' && !top)
			top = argv[i];
		else
			top = NULL, i = argc;
	}
	if (!top || files < 1 || files > MAX_FILES || passes < 1 || passes > MAX_PASSES) {
		fprintf(stderr, "usage: fuse_meta DIR [--files 1..%d] [--readdir-passes 1..%d]\n",
			MAX_FILES, MAX_PASSES);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/meta.%d", top, (int)getpid());
	if (mkdir(dir, 0755) < 0)
		die("mkdir", dir);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		die("open", dir);

	double t0 = now();
	for (long i = 0; i < files; i++) {
		name_of(name, sizeof(name), i);
		int fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0)
			die("create", name);
		close(fd);
	}
	double t_create = now() - t0;

	struct stat st;
	t0 = now();
	for (long i = 0; i < files; i++) {
		name_of(name, sizeof(name), i);
		if (fstatat(dfd, name, &st, 0) < 0)
			die("stat", name);
	}
	double t_stat = now() - t0;

	long entries = 0;
	t0 = now();
	for (long p = 0; p < passes; p++) {
		long n = read_dir(dir);
		if (n < files) {
			errno = EIO; /* a short listing would make the rate meaningless */
			die("readdir returned too few entries in", dir);
		}
		entries += n;
	}
	double t_readdir = now() - t0;

	t0 = now();
	for (long i = 0; i < files; i++) {
		name_of(name, sizeof(name), i);
		if (unlinkat(dfd, name, 0) < 0)
			die("unlink", name);
	}
	double t_unlink = now() - t0;
	close(dfd);
	if (rmdir(dir) < 0)
		die("rmdir", dir);

	printf("files=%ld create_per_s=%.0f stat_per_s=%.0f readdir_entries_per_s=%.0f "
	       "unlink_per_s=%.0f create_unlink_per_s=%.0f\n",
	       files, (double)files / t_create, (double)files / t_stat,
	       (double)entries / t_readdir, (double)files / t_unlink,
	       (double)files / (t_create + t_unlink));
	return 0;
}
