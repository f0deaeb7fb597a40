// SPDX-License-Identifier: GPL-2.0-only
/* CPU time of a process tree (see proc_tree.h). */
#include "bench/proc_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* utime+stime of one /proc/PID/stat, in ticks; its parent in *ppid. -1: gone. */
static long long ticks_of(const char *pid, pid_t *ppid)
{
	char path[300], buf[1024];
	unsigned long long ut, st;
	ssize_t n;
	char *c;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	c = strrchr(buf, ')');  /* comm may hold spaces */
	if (!c || sscanf(c + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 ppid, &ut, &st) != 3)
		return -1;
	return (long long)(ut + st);
}

long long proc_tree_ticks(pid_t root)
{
	enum { MAXP = 4096 };
	static pid_t pid[MAXP], ppid[MAXP];
	static long long ticks[MAXP];
	static bool in[MAXP];
	DIR *d = opendir("/proc");
	struct dirent *de;
	long long sum = -1;
	int n = 0;

	while (d && (de = readdir(d)) && n < MAXP) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if ((ticks[n] = ticks_of(de->d_name, &ppid[n])) < 0)
			continue;
		pid[n] = atoi(de->d_name);
		in[n] = pid[n] == root;
		n++;
	}
	if (d)
		closedir(d);
	/* Descendants: grow the set until no process's parent is newly in it. */
	for (bool grew = true; grew;) {
		grew = false;
		for (int i = 0; i < n; i++)
			for (int j = 0; !in[i] && j < n; j++)
				if (in[j] && ppid[i] == pid[j])
					in[i] = grew = true;
	}
	for (int i = 0; i < n; i++)
		if (in[i])
			sum = (sum < 0 ? 0 : sum) + ticks[i];
	return sum;
}
