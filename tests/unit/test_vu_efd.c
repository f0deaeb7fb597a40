// SPDX-License-Identifier: GPL-2.0-only
/*
 * The call and err eventfds of a vhost-user ring (transport/vhost_user_ring.c)
 * under the production filters (kill mode): a worker-role thread signals
 * without pause while the connection thread, under the vhost-user role,
 * swaps the fd 20,000 times (QEMU does so whenever a guest masks or unmasks
 * a queue's interrupt vector): the swap sleeps until the signaller is out
 * and nobody is killed. A blocking eventfd whose counter is at its maximum
 * (a frontend that made it without EFD_NONBLOCK and has not read it) does
 * not hold the signaller: the interrupt is pending already.
 */
#include <check.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/check_main.h"
#include "transport/vhost_user_ring.h"
#include "sandbox/seccomp.h"

#define SWAPS 20000
#define EFD_FULL 0xfffffffffffffffeull   /* the most an eventfd counter holds */

static struct sock_fprog queue_prog, conn_prog;
static struct vu_efd efd;
static atomic_bool stop;
static atomic_ulong signals;
static unsigned long rounds;   /* 0: until stop */

static void enter(struct sock_fprog *prog)
{
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) < 0)
		_exit(90);
}

/* A ring's worker: the queue role's filter, then signals. */
static void *worker(void *arg)
{
	enter(&queue_prog);
	for (unsigned long i = 0; !atomic_load(&stop) && (!rounds || i < rounds); i++) {
		vu_efd_signal(&efd);
		atomic_fetch_add(&signals, 1);
	}
	return arg;
}

/*
 * Forks a child that runs prepare, then starts the worker thread and puts
 * itself (the connection thread) under their production filters; body runs
 * on the connection thread. The child's wait status: 0 when body returned 0.
 */
static int run_child(int (*prepare)(void), int (*body)(pthread_t))
{
	int st;
	pid_t pid;

	ck_assert_int_eq(sc_build(SC_CMD_VHOST_USER, FS_ROLE_QUEUE, SC_KILL, &queue_prog), 0);
	ck_assert_int_eq(sc_build(SC_CMD_VHOST_USER, FS_ROLE_VHOST_USER, SC_KILL, &conn_prog), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pthread_t t;

		alarm(20);   /* a signaller stuck in a full eventfd ends the child */
		if (prepare && prepare())
			_exit(92);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    pthread_create(&t, NULL, worker, NULL))
			_exit(91);
		enter(&conn_prog);
		_exit(body(t));
	}
	sc_free(&queue_prog);
	sc_free(&conn_prog);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return st;
}

static int swap_many(pthread_t t)
{
	for (int i = 0; i < SWAPS; i++) {
		int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

		if (fd < 0)
			return 2;
		vu_efd_set(&efd, fd);
	}
	atomic_store(&stop, true);
	if (pthread_join(t, NULL))
		return 3;
	vu_efd_set(&efd, -1);
	return atomic_load(&signals) > 0 ? 0 : 4;
}

START_TEST(t_swap_under_signals)
{
	vu_efd_init(&efd);
	int st = run_child(NULL, swap_many);

	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "%d swaps under a signalling worker: status %#x (%s %d)", SWAPS, st,
		      WIFSIGNALED(st) ? "signal" : "exit",
		      WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}
END_TEST

static int full_fd = -1, fd2 = -1, fd2_copy = -1;

/* A blocking eventfd at its maximum, in place before the worker starts
 * (dup: the vhost-user role has no dup; the test keeps a copy to read). */
static int fill(void)
{
	full_fd = eventfd(0, EFD_CLOEXEC);
	fd2 = eventfd(0, EFD_CLOEXEC);
	if (full_fd < 0 || fd2 < 0 || (fd2_copy = dup(fd2)) < 0 ||
	    eventfd_write(full_fd, EFD_FULL) < 0)
		return 1;
	vu_efd_set(&efd, dup(full_fd));
	return 0;
}

/* The worker's 100 signals pass (none blocks); the counter stays full. */
static int full_counter(pthread_t t)
{
	eventfd_t v = 0;

	if (pthread_join(t, NULL))
		return 3;
	if (atomic_load(&signals) != rounds || eventfd_read(full_fd, &v) < 0 || v != EFD_FULL)
		return 4;
	/* Once read, a blocking eventfd takes signals again. */
	vu_efd_set(&efd, fd2);
	vu_efd_signal(&efd);
	if (eventfd_read(fd2_copy, &v) < 0 || v != 1)
		return 5;
	vu_efd_set(&efd, -1);
	return 0;
}

START_TEST(t_full_blocking_counter_does_not_block)
{
	vu_efd_init(&efd);
	rounds = 100;
	int st = run_child(fill, full_counter);

	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "signals on a full blocking eventfd: status %#x (%s %d)", st,
		      WIFSIGNALED(st) ? "signal" : "exit",
		      WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vu_efd");
	TCase *tc = tcase_create("efd");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_swap_under_signals);
	tcase_add_test(tc, t_full_blocking_counter_does_not_block);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
