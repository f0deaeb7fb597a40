// SPDX-License-Identifier: GPL-2.0-only
/*
 * vu_stuck: a stuck FUSE mount inside a vhost-user-fs share must not wedge
 * the queue (docs/stuck-host-fs.md), driven through our own frontend
 * (tests/vhost). The share holds sub/, a FUSE mount served by INNER_PID,
 * and a healthy file `healthy`.
 *
 *   vu_stuck SOCKET INNER_PID BACKEND_PID DEADLINE_S
 *
 * Looks both up, lets the backend's helpers idle out and counts its fds
 * and threads, SIGSTOPs INNER_PID, sends a GETATTR of sub/f1 and, while it
 * is in flight on the same queue, GETATTRs of `healthy` one after another.
 * Checks: the stuck one is answered EIO within DEADLINE_S + 1.5 s; at
 * least one healthy GETATTR was answered while it was in flight (the
 * queue is not wedged); a second one on the stuck mount is EIO (fenced);
 * after SIGCONT sub/f1 answers; once the helpers idled out the backend has
 * the fds and threads it had. Prints the figures; exits 0 when all hold.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/vhost/vu_fuse.h"

static int fails;

static void check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	fails += !ok;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int count(int pid, const char *what)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The backend's threads by name. */
static void names(int pid)
{
	char path[64], cmd[128];

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	snprintf(cmd, sizeof(cmd), "cat %s/*/comm | sort | uniq -c | tr -s ' \\n' ' '; echo", path);
	printf("     threads: ");
	fflush(stdout);
	if (system(cmd) != 0)
		printf("?\n");
}

static void getattr_prep(struct vu_fuse_req *r, uint64_t nodeid)
{
	struct fuse_getattr_in in = { 0 };

	vu_fuse_prep(r, FUSE_GETATTR, nodeid, &in, sizeof(in), NULL, 0,
		     sizeof(struct fuse_attr_out), 0, 0);
}

static int getattr(struct vu_frontend *fe, struct vu_fuse_req *r, uint64_t nodeid)
{
	getattr_prep(r, nodeid);
	int n = vu_fuse_call(fe, r);
	return n < 0 ? n : 0;
}

/*
 * The stuck GETATTR in flight, healthy ones after each other on the same
 * queue until it is answered: returns its result, *ms when it came,
 * *healthy the healthy answers before it and *worst their slowest.
 */
static int race(struct vu_frontend *fe, struct vu_fuse_req *rs, uint64_t stuck,
		struct vu_fuse_req *rh, uint64_t healthy, double limit_ms, double *ms,
		int *nhealthy, double *worst)
{
	double t0 = now_ms();
	int res = -ETIMEDOUT;
	bool stuck_done = false;

	*nhealthy = 0;
	*worst = 0;
	getattr_prep(rs, stuck);
	if (vu_fuse_submit(fe, VU_REQUEST, rs) || vu_kick(fe, VU_REQUEST))
		return -EIO;
	while (!stuck_done && now_ms() - t0 < limit_ms) {
		double h0 = now_ms();
		bool healthy_done = false;

		getattr_prep(rh, healthy);
		if (vu_fuse_submit(fe, VU_REQUEST, rh) || vu_kick(fe, VU_REQUEST))
			return -EIO;
		while (!healthy_done && now_ms() - t0 < limit_ms) {
			struct vu_done d[2];
			int n = vu_reap(fe, VU_REQUEST, d, 2, 100);

			for (int i = 0; i < n; i++) {
				if (d[i].cookie == rs) {
					stuck_done = true;
					res = vu_fuse_result(rs, d[i].len);
					*ms = now_ms() - t0;
				} else if (d[i].cookie == rh) {
					healthy_done = true;
					if (vu_fuse_result(rh, d[i].len) < 0)
						return -EPROTO;
					if (!stuck_done) {
						++*nhealthy;
						if (now_ms() - h0 > *worst)
							*worst = now_ms() - h0;
					}
				}
			}
		}
	}
	/* The last healthy one may still be in flight: take it. */
	while (fe->q[VU_REQUEST].inflight) {
		struct vu_done d;

		if (vu_reap(fe, VU_REQUEST, &d, 1, 10000) <= 0)
			return -ETIMEDOUT;
	}
	return res;
}

/*
 * Healthy GETATTRs one after another for MS ms, whatever else is in
 * flight: returns how many were answered; *others: other answers seen;
 * *pending: the last healthy one is still in flight.
 */
static int healthy_for(struct vu_frontend *fe, struct vu_fuse_req *rh, uint64_t healthy,
		       double ms, int *others, bool *pending)
{
	double t0 = now_ms();
	int n = 0;

	*pending = false;
	while (now_ms() - t0 < ms) {
		struct vu_done d[8];

		if (!*pending) {
			getattr_prep(rh, healthy);
			if (vu_fuse_submit(fe, VU_REQUEST, rh) || vu_kick(fe, VU_REQUEST))
				return -EIO;
			*pending = true;
		}
		int k = vu_reap(fe, VU_REQUEST, d, 8, 100);
		for (int i = 0; i < k; i++) {
			if (d[i].cookie == rh) {
				*pending = false;
				n++;
			} else {
				++*others;
			}
		}
	}
	return n;
}

/* Waits for everything in flight (the backend may answer now): how many came. */
static int drain(struct vu_frontend *fe)
{
	int n = 0;

	while (fe->q[VU_REQUEST].inflight) {
		struct vu_done d;

		if (vu_reap(fe, VU_REQUEST, &d, 1, 10000) <= 0)
			return -ETIMEDOUT;
		n++;
	}
	return n;
}

/*
 * The bench row (bench/stuck_bench.sh): K GETATTRs of sub/f1 in flight on
 * the stopped mount, then healthy GETATTRs for 5 s; whatever the backend
 * does. Prints one line; the stuck ones are drained after SIGCONT.
 */
static int row(struct vu_frontend *fe, struct vu_fuse_req *rh, uint64_t healthy, uint64_t stuck,
	       int inner, const char *name, int k)
{
	struct vu_fuse_req *rs = calloc((size_t)k, sizeof(*rs));
	int before, during, others = 0, late;
	bool pending;

	/* Four descriptors each, of VU_QUEUE_SIZE: room for 31 besides the healthy one. */
	if (!rs || k < 1 || k > 31)
		return fprintf(stderr, "STUCK_REQUESTS: 1..31\n"), 1;
	for (int i = 0; i < k; i++)
		if (vu_fuse_req_alloc(fe, &rs[i], 4096))
			return fprintf(stderr, "out of guest memory\n"), 1;
	before = healthy_for(fe, rh, healthy, 5000, &others, &pending);
	if (before < 0 || drain(fe) < 0)
		return fprintf(stderr, "the healthy requests failed before the stop\n"), 1;
	if (kill(inner, SIGSTOP))
		return perror("SIGSTOP"), 1;
	for (int i = 0; i < k; i++) {
		getattr_prep(&rs[i], stuck);
		if (vu_fuse_submit(fe, VU_REQUEST, &rs[i]))
			return fprintf(stderr, "cannot submit\n"), 1;
	}
	vu_kick(fe, VU_REQUEST);
	others = 0;
	during = healthy_for(fe, rh, healthy, 5000, &others, &pending);
	kill(inner, SIGCONT);
	late = drain(fe);
	if (during < 0)
		return fprintf(stderr, "%s: the healthy requests failed\n", name), 1;
	printf("row %s: healthy GETATTRs answered in 5 s: %d before the stop, %d with %d GETATTRs "
	       "on the stopped mount in flight (%d of them answered meanwhile, ", name, before,
	       during, k, others);
	if (late < 0)
		printf("some still not 10 s after SIGCONT)\n");
	else
		printf("%d after SIGCONT)\n", late - pending);
	return 0;
}

int main(int argc, char **argv)
{
	struct vu_frontend fe = { 0 };
	struct vu_fuse_req rs, rh;
	struct fuse_init_out io;
	struct fuse_entry_out sub, f1, h;
	int inner, backend, nhealthy, r;
	double deadline_ms, ms = 0, worst, t;
	char line[160];

	if (argc != 5 && !(argc == 8 && strcmp(argv[5], "--row") == 0)) {
		fprintf(stderr, "usage: vu_stuck SOCKET INNER_PID BACKEND_PID DEADLINE_S "
			"[--row NAME STUCK_REQUESTS]\n");
		return 2;
	}
	inner = atoi(argv[2]);
	backend = atoi(argv[3]);
	deadline_ms = atof(argv[4]) * 1e3;
	for (int i = 0; vu_connect(&fe, argv[1]); i++) {
		if (i == 100)
			return fprintf(stderr, "cannot connect to %s\n", argv[1]), 1;
		usleep(100000);
	}
	if (vu_setup(&fe, 16u << 20, 0) || vu_fuse_req_alloc(&fe, &rs, 4096) ||
	    vu_fuse_req_alloc(&fe, &rh, 4096) || vu_fuse_init(&fe, &rs, VU_FUSE_LINUX_FLAGS, &io) ||
	    vu_fuse_lookup(&fe, &rs, FUSE_ROOT_ID, "sub", &sub) ||
	    vu_fuse_lookup(&fe, &rs, sub.nodeid, "f1", &f1) ||
	    vu_fuse_lookup(&fe, &rs, FUSE_ROOT_ID, "healthy", &h) ||
	    getattr(&fe, &rs, f1.nodeid) || getattr(&fe, &rh, h.nodeid))
		return fprintf(stderr, "set-up failed\n"), 1;
	if (argc == 8)
		return row(&fe, &rh, h.nodeid, f1.nodeid, inner, argv[6], atoi(argv[7]));
	sleep(3); /* helpers and the watcher of the first visit idle out */
	int fd0 = count(backend, "fd"), task0 = count(backend, "task");
	names(backend);

	if (kill(inner, SIGSTOP))
		return perror("SIGSTOP"), 1;
	r = race(&fe, &rs, f1.nodeid, &rh, h.nodeid, deadline_ms + 5000, &ms, &nhealthy, &worst);
	snprintf(line, sizeof(line), "GETATTR sub/f1 on the stopped mount: %d (%s) in %.0f ms "
		 "(deadline %.0f ms)", r, strerror(-r), ms, deadline_ms);
	check(r == -EIO && ms <= deadline_ms + 1500, line);
	snprintf(line, sizeof(line), "healthy GETATTRs answered on the same queue meanwhile: %d, "
		 "slowest %.0f ms", nhealthy, worst);
	check(nhealthy > 0, line);
	t = now_ms();
	r = getattr(&fe, &rs, f1.nodeid);
	snprintf(line, sizeof(line), "GETATTR sub/f1 again (fenced): %d in %.0f ms", r, now_ms() - t);
	check(r == -EIO, line);
	kill(inner, SIGCONT);
	usleep(500000); /* the stuck call returns: that lifts the fence */
	r = getattr(&fe, &rs, f1.nodeid);
	snprintf(line, sizeof(line), "GETATTR sub/f1 after SIGCONT: %d", r);
	check(r == 0, line);
	sleep(3);
	int fd1 = count(backend, "fd"), task1 = count(backend, "task");
	snprintf(line, sizeof(line), "backend fds %d -> %d, threads %d -> %d", fd0, fd1, task0, task1);
	check(fd1 == fd0 && task1 == task0, line);
	names(backend);
	vu_close(&fe);
	return fails ? 1 : 0;
}
