// SPDX-License-Identifier: GPL-2.0-only
/*
 * bootmeter: start a VMM, watch its console for the guest's first marker,
 * and report how long that took and what the VMM process cost by then —
 * the same way for every VMM, so stainless and QEMU are measured alike.
 *
 *   bootmeter MARKER TIMEOUT_SECONDS GUEST_RAM_NAME CMD [ARGS...]
 *
 * Prints one line:
 *   bootmeter: marker_ms=… cpu_ms=… rss_kib=… guest_kib=…
 * where cpu_ms is the CPU time of the VMM's threads and rss_kib its
 * resident memory without the guest RAM mapping (whose smaps path
 * contains GUEST_RAM_NAME; its resident size is guest_kib).
 * Lines of the VMM's output that start with "boot-trace:" are passed on.
 * The VMM is killed once the marker is seen. Exit 0, or 1 on timeout.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * Resident memory of pid in KiB, without the mappings whose path contains
 * `exclude` (the guest RAM memfd). The VMM's own binary and libraries
 * count wherever they live (on a disk: RssFile; in an initramfs: shmem).
 */
static long rss_kib(pid_t pid, const char *exclude)
{
	char path[64], line[512];
	bool skip = false;
	long total = 0, kib;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* A mapping's header starts with its (lower-case hex) address
		 * range; its fields start with a capital letter. */
		if (line[0] && strchr("0123456789abcdef", line[0])) {
			skip = exclude && strstr(line, exclude);
			continue;
		}
		if (!skip && sscanf(line, "Rss: %ld kB", &kib) == 1)
			total += kib;
	}
	fclose(f);
	return total;
}

/*
 * CPU time of every thread of pid so far, in ms, from the scheduler's
 * nanosecond counters (/proc/PID/stat's clock ticks are too coarse for a
 * VMM that starts in a few ms). Threads that already exited are not
 * counted; the VMMs measured here keep theirs until the end.
 */
static double cpu_ms(pid_t pid)
{
	char path[320], buf[128];
	unsigned long long ns, total = 0;
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", (int)pid, d->d_name);
		f = fopen(path, "r");
		if (f && fgets(buf, sizeof(buf), f) && sscanf(buf, "%llu", &ns) == 1)
			total += ns;
		if (f)
			fclose(f);
	}
	closedir(dir);
	return (double)total / 1e6;
}

int main(int argc, char **argv)
{
	char buf[65536], line[4096], last[4096] = "(none)";
	size_t llen = 0;
	int pfd[2], status;
	pid_t pid;
	double t0, deadline;

	if (argc < 5) {
		fprintf(stderr, "usage: bootmeter MARKER TIMEOUT_SECONDS GUEST_RAM_NAME CMD [ARGS...]\n");
		return 2;
	}
	const char *marker = argv[1];
	if (pipe(pfd) < 0)
		return 2;
	t0 = now_ms();
	deadline = t0 + atof(argv[2]) * 1000.0;
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		execvp(argv[4], argv + 4);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int left = (int)(deadline - now_ms());
		ssize_t n;

		if (left <= 0 || poll(&p, 1, left) <= 0)
			break;
		n = read(pfd[0], buf, sizeof(buf));
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n' && llen < sizeof(line) - 1) {
				line[llen++] = buf[i];
				continue;
			}
			line[llen] = '\0';
			llen = 0;
			if (line[0] && line[0] != '\r')
				snprintf(last, sizeof(last), "%s", line);
			if (strncmp(line, "boot-trace:", 11) == 0)
				printf("%s\n", line);
			if (strstr(line, marker)) {
				double ms = now_ms() - t0, cpu = cpu_ms(pid);
				long all = rss_kib(pid, NULL), own = rss_kib(pid, argv[3]);

				printf("bootmeter: marker_ms=%.1f cpu_ms=%.1f rss_kib=%ld guest_kib=%ld\n",
				       ms, cpu, own, all - own);
				fflush(stdout);
				kill(pid, SIGKILL);
				waitpid(pid, &status, 0);
				return 0;
			}
		}
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	printf("bootmeter: no '%s' within %s s; last output: %s\n", marker, argv[2], last);
	return 1;
}
