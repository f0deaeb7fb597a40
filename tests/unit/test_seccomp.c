// SPDX-License-Identifier: GPL-2.0-only
/*
 * seccomp per thread role (sandbox/seccomp.c, sandbox/seccomp_policy.c,
 * base/thread.c): each role's real filter is installed in a forked child,
 * which then makes one call. Every role dies of SIGSYS on a call it has no
 * rule for and on a writable+executable mapping; the calls the role lives
 * on (KVM_RUN for a vCPU, io_uring_enter for a queue...) pass; ioctl is
 * checked by request number; clone only for threads, clone3 ENOSYS;
 * threads made through fs_thread_create carry their own role's filter even
 * when their creator's is narrower; trap mode names the call and the role
 * on stderr; --seccomp / --print-seccomp are taken out of argv.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/kvm.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "devices/virtio_rng.h"
#include "base/thread.h"
#include "tests/unit/check_main.h"
#include "tests/unit/fake_driver.h"
#include "sandbox/seccomp.h"

/* A call made under a role's filter; returns 0 when it behaved as the role needs. */
typedef int probe_fn(void);

static void *nothing(void *arg) { return arg; }

/*
 * Forks; the child installs role's filter (cmd, kill mode) and runs probe.
 * It has made a thread first, as the real process has (its spawner) before
 * any filter: glibc installs its internal signal handlers then.
 */
static int under_filter(enum sc_command cmd, enum fs_role role, probe_fn *probe)
{
	struct sock_fprog prog;
	int st;
	pid_t pid;

	ck_assert_int_eq(sc_build(cmd, role, SC_KILL, &prog), 0);
	ck_assert_uint_gt(prog.len, 10);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pthread_t t;

		if (pthread_create(&t, NULL, nothing, NULL) || pthread_join(t, NULL))
			_exit(91);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
			_exit(90);
		_exit(probe() ? 1 : 0);
	}
	sc_free(&prog);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return st;
}

#define EXPECT_SIGSYS(cmd, role, probe) do {                                         \
		int st_ = under_filter((cmd), (role), (probe));                      \
		ck_assert_msg(WIFSIGNALED(st_) && WTERMSIG(st_) == SIGSYS,           \
			      "role %s, %s: not killed by SIGSYS (status %#x)",      \
			      fs_role_name(role), #probe, st_);                      \
	} while (0)

#define EXPECT_PASSES(cmd, role, probe) do {                                         \
		int st_ = under_filter((cmd), (role), (probe));                      \
		ck_assert_msg(WIFEXITED(st_) && WEXITSTATUS(st_) == 0,               \
			      "role %s, %s: status %#x", fs_role_name(role), #probe, st_); \
	} while (0)

/* ---- probes ------------------------------------------------------------ */

static int open_file(void) { return open("/dev/null", O_RDONLY) >= 0 ? 0 : 1; }
static int exec_shell(void) { execl("/bin/true", "true", (char *)NULL); return 1; }
static int map_wx(void)
{
	return mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED;
}
static int protect_wx(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED || mprotect(p, 4096, PROT_READ | PROT_WRITE | PROT_EXEC) < 0;
}
static int map_rw_then_rx(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED || mprotect(p, 4096, PROT_READ | PROT_EXEC) < 0;
}
/* Answered EBADF, not killed: the request number is allowed. */
static int kvm_run_ioctl(void) { return !(ioctl(-1, KVM_RUN, 0) < 0 && errno == EBADF); }
static int tty_ioctl(void) { struct termios t; return ioctl(0, TCGETS, &t); }
static int tty_inject(void) { char c = 'x'; return ioctl(0, TIOCSTI, &c); }
/* The console's end of a run on a terminal: the mode read at start put back. */
static int pty_fd = -1;
static struct termios pty_saved;
static int tty_restore(void) { return tcsetattr(pty_fd, TCSANOW, &pty_saved) != 0; }
static int uring_enter(void) { return !(syscall(__NR_io_uring_enter, -1, 0, 0, 0, NULL, 0) < 0 && errno == EBADF); }
static int accept_call(void) { return accept4(-1, NULL, NULL, 0) >= 0; }
static int socket_refused(void) { return !(socket(AF_INET, SOCK_STREAM, 0) < 0 && errno == EACCES); }
static int fork_process(void) { return syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) < 0; }
static int clone3_enosys(void) { return !(syscall(__NR_clone3, NULL, 0) < 0 && errno == ENOSYS); }
static int kill_init(void) { return syscall(SYS_tgkill, 1, 1, 0) < 0; }
static int poll_now(void) { return poll(NULL, 0, 0) != 0; }
static int poll_wait(void) { return poll(NULL, 0, 10) != 0; }
static int recv_call(void) { char c; return !(recv(-1, &c, 1, 0) < 0 && errno == EBADF); }

static int kill_parent(void) { return kill(getppid(), 0) < 0; }
static int pidfd_signal(void) { return !(syscall(SYS_pidfd_send_signal, -1, 0, NULL, 0) < 0 && errno == EBADF); }
static int reap(void) { return !(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD); }
static int unlink_missing(void) { return !(unlink("/nonexistent/stainless") < 0 && errno == ENOENT); }
static int umount_missing(void) { return !(umount2("/nonexistent/stainless", 0) < 0); }

static int thread_create(void)
{
	pthread_t t;

	return pthread_create(&t, NULL, nothing, NULL) || pthread_join(t, NULL);
}

/* ---- every role -------------------------------------------------------- */

static const struct { enum sc_command cmd; enum fs_role role; } every_role[] = {
	{ SC_CMD_RUN, FS_ROLE_CONTROL }, { SC_CMD_FUSE_MOUNT, FS_ROLE_CONTROL },
	{ SC_CMD_9P_SERVE, FS_ROLE_CONTROL }, { SC_CMD_VHOST_USER, FS_ROLE_CONTROL },
	{ SC_CMD_RUN, FS_ROLE_VCPU }, { SC_CMD_RUN, FS_ROLE_QUEUE },
	{ SC_CMD_RUN, FS_ROLE_LOCK_WAIT },
	{ SC_CMD_RUN, FS_ROLE_CONSOLE }, { SC_CMD_FUSE_MOUNT, FS_ROLE_FUSE_READER },
	{ SC_CMD_FUSE_MOUNT, FS_ROLE_FUSE_URING }, { SC_CMD_9P_SERVE, FS_ROLE_P9_CONN },
	{ SC_CMD_VHOST_USER, FS_ROLE_VHOST_USER }, { SC_CMD_RUN, FS_ROLE_SPAWNER },
	{ SC_CMD_RUN, FS_ROLE_SUPERVISOR }, { SC_CMD_FUSE_MOUNT, FS_ROLE_SUPERVISOR },
	{ SC_CMD_9P_SERVE, FS_ROLE_SUPERVISOR }, { SC_CMD_VHOST_USER, FS_ROLE_SUPERVISOR },
	{ SC_CMD_RUN, FS_ROLE_RELAY }, { SC_CMD_RUN, FS_ROLE_EXEC_RELAY },
};
#define NR_ROLES (sizeof(every_role) / sizeof(every_role[0]))

START_TEST(t_every_role_refuses_exec)
{
	EXPECT_SIGSYS(every_role[_i].cmd, every_role[_i].role, exec_shell);
}
END_TEST

START_TEST(t_every_role_refuses_wx_mappings)
{
	EXPECT_SIGSYS(every_role[_i].cmd, every_role[_i].role, map_wx);
	EXPECT_SIGSYS(every_role[_i].cmd, every_role[_i].role, protect_wx);
	EXPECT_PASSES(every_role[_i].cmd, every_role[_i].role, map_rw_then_rx);
}
END_TEST

START_TEST(t_every_role_signals_only_its_own_threads)
{
	EXPECT_SIGSYS(every_role[_i].cmd, every_role[_i].role, kill_init);
}
END_TEST

/* Only the spawner makes threads: a compromised thread cannot add one. */
START_TEST(t_only_the_spawner_clones)
{
	if (every_role[_i].role == FS_ROLE_SPAWNER)
		EXPECT_PASSES(every_role[_i].cmd, every_role[_i].role, thread_create);
	else
		EXPECT_SIGSYS(every_role[_i].cmd, every_role[_i].role, fork_process);
}
END_TEST

/* ---- each role's own forbidden call and needed ones -------------------- */

START_TEST(t_control)
{
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_CONTROL, open_file);
	/* run's control loop serves --api-sock: its clients, their requests. */
	EXPECT_PASSES(SC_CMD_RUN, FS_ROLE_CONTROL, accept_call);
	EXPECT_PASSES(SC_CMD_RUN, FS_ROLE_CONTROL, recv_call);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_CONTROL, tty_inject);  /* TCSETS and TCGETS only */
	EXPECT_SIGSYS(SC_CMD_FUSE_MOUNT, FS_ROLE_CONTROL, accept_call);
	EXPECT_SIGSYS(SC_CMD_9P_SERVE, FS_ROLE_CONTROL, open_file);
	EXPECT_SIGSYS(SC_CMD_9P_SERVE, FS_ROLE_CONTROL, uring_enter);
	EXPECT_SIGSYS(SC_CMD_VHOST_USER, FS_ROLE_CONTROL, open_file);
}
END_TEST

/* `stainless run` on a terminal puts its mode back at the end (glibc's
 * tcsetattr: TCGETS, TCSETS, TCGETS), after every guest's exit. */
START_TEST(t_control_restores_terminal)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY);

	if (master < 0 || grantpt(master) || unlockpt(master))
		UNIT_SKIP("no pseudo-terminal: %s", strerror(errno));
	pty_fd = open(ptsname(master), O_RDWR | O_NOCTTY);
	ck_assert_int_ge(pty_fd, 0);
	ck_assert_int_eq(tcgetattr(pty_fd, &pty_saved), 0);
	EXPECT_PASSES(SC_CMD_RUN, FS_ROLE_CONTROL, tty_restore);
	close(pty_fd);
	close(master);
}
END_TEST

START_TEST(t_vcpu)
{
	EXPECT_PASSES(SC_CMD_RUN, FS_ROLE_VCPU, kvm_run_ioctl);
	/* A reset looks for stale kicks without waiting; a vCPU never sleeps in poll. */
	EXPECT_PASSES(SC_CMD_RUN, FS_ROLE_VCPU, poll_now);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_VCPU, poll_wait);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_VCPU, tty_ioctl);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_VCPU, open_file);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_VCPU, uring_enter);
}
END_TEST

START_TEST(t_queue)
{
	EXPECT_PASSES(SC_CMD_RUN, FS_ROLE_QUEUE, uring_enter);
	EXPECT_PASSES(SC_CMD_RUN, FS_ROLE_QUEUE, open_file);
	EXPECT_PASSES(SC_CMD_RUN, FS_ROLE_QUEUE, socket_refused);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_QUEUE, tty_ioctl);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_QUEUE, kvm_run_ioctl);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_QUEUE, accept_call);
}
END_TEST

START_TEST(t_lock_wait)
{
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_LOCK_WAIT, open_file);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_LOCK_WAIT, uring_enter);
}
END_TEST

START_TEST(t_console)
{
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_CONSOLE, open_file);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_CONSOLE, kvm_run_ioctl);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_CONSOLE, tty_ioctl);
}
END_TEST

START_TEST(t_fuse_reader)
{
	EXPECT_PASSES(SC_CMD_FUSE_MOUNT, FS_ROLE_FUSE_READER, open_file);
	EXPECT_SIGSYS(SC_CMD_FUSE_MOUNT, FS_ROLE_FUSE_READER, accept_call);
	EXPECT_SIGSYS(SC_CMD_FUSE_MOUNT, FS_ROLE_FUSE_READER, tty_ioctl);
	EXPECT_SIGSYS(SC_CMD_FUSE_MOUNT, FS_ROLE_FUSE_READER, uring_enter);
}
END_TEST

START_TEST(t_fuse_uring)
{
	EXPECT_PASSES(SC_CMD_FUSE_MOUNT, FS_ROLE_FUSE_URING, uring_enter);
	EXPECT_SIGSYS(SC_CMD_FUSE_MOUNT, FS_ROLE_FUSE_URING, recv_call);
	EXPECT_SIGSYS(SC_CMD_FUSE_MOUNT, FS_ROLE_FUSE_URING, tty_ioctl);
}
END_TEST

START_TEST(t_p9_conn)
{
	EXPECT_PASSES(SC_CMD_9P_SERVE, FS_ROLE_P9_CONN, recv_call);
	EXPECT_PASSES(SC_CMD_9P_SERVE, FS_ROLE_P9_CONN, socket_refused);
	EXPECT_SIGSYS(SC_CMD_9P_SERVE, FS_ROLE_P9_CONN, accept_call);
	EXPECT_SIGSYS(SC_CMD_9P_SERVE, FS_ROLE_P9_CONN, tty_ioctl);
	EXPECT_SIGSYS(SC_CMD_9P_SERVE, FS_ROLE_P9_CONN, uring_enter);
}
END_TEST

START_TEST(t_vhost_user)
{
	EXPECT_PASSES(SC_CMD_VHOST_USER, FS_ROLE_VHOST_USER, accept_call);
	EXPECT_SIGSYS(SC_CMD_VHOST_USER, FS_ROLE_VHOST_USER, open_file);
	EXPECT_SIGSYS(SC_CMD_VHOST_USER, FS_ROLE_VHOST_USER, kvm_run_ioctl);
}
END_TEST

START_TEST(t_spawner)
{
	EXPECT_PASSES(SC_CMD_RUN, FS_ROLE_SPAWNER, clone3_enosys);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_SPAWNER, fork_process);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_SPAWNER, tty_ioctl);
}
END_TEST

/* ---- fs_thread_create under real filters ------------------------------- */

static int filters_of_this_thread(void)
{
	char line[256];
	int n = -1;
	FILE *f = fopen("/proc/thread-self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "Seccomp_filters: %d", &n);
	if (f)
		fclose(f);
	return n;
}

struct child_view {
	int filters;
	int open_ok;
	int sigusr2_blocked;
};

static void *queue_thread(void *arg)
{
	struct child_view *v = arg;
	sigset_t m;
	int fd = open("/dev/null", O_RDONLY);

	v->open_ok = fd >= 0;
	if (fd >= 0)
		close(fd);
	v->filters = filters_of_this_thread();
	pthread_sigmask(SIG_SETMASK, NULL, &m);
	v->sigusr2_blocked = sigismember(&m, SIGUSR2);
	return NULL;
}

/*
 * A vCPU (which may not open files) starts a queue worker (which must):
 * the worker gets the queue's filter, not the vCPU's, and the vCPU's mask.
 */
START_TEST(t_thread_from_narrower_creator)
{
	char err[256];
	int st;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct child_view v = { 0 };
		sigset_t m;
		pthread_t t;

		if (sc_setup(SC_CMD_RUN, SC_KILL, err, sizeof(err)) < 0)
			_exit(10);
		sigemptyset(&m);
		sigaddset(&m, SIGUSR2);
		pthread_sigmask(SIG_BLOCK, &m, NULL);
		if (fs_thread_enter(FS_ROLE_VCPU) < 0)
			_exit(11);
		if (fs_thread_create(&t, NULL, FS_ROLE_QUEUE, queue_thread, &v) < 0)
			_exit(12);
		pthread_join(t, NULL);
		/* spawner's + the queue's own */
		_exit(v.filters == 2 && v.open_ok && v.sigusr2_blocked ? 0 : 13);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
}
END_TEST

START_TEST(t_thread_bad_role)
{
	pthread_t t;

	ck_assert_int_eq(fs_thread_create(&t, NULL, FS_ROLE_NONE, nothing, NULL), -EINVAL);
	ck_assert_int_eq(fs_thread_create(&t, NULL, FS_ROLE_SPAWNER, nothing, NULL), -EINVAL);
	ck_assert_int_eq(fs_thread_create(&t, NULL, FS_ROLE_COUNT, nothing, NULL), -EINVAL);
}
END_TEST

/*
 * What a vCPU does to a device through its registers, under the vCPU's
 * filter: negotiate, set a queue up, DRIVER_OK (a worker starts), a kick,
 * reset (the worker stops), and again, as a guest's unbind/bind and its
 * shutdown do. In trap mode a missing rule is named on stderr.
 */
START_TEST(t_vcpu_drives_device_lifecycle)
{
	char err[256], buf[512] = { 0 };
	int fds[2], st;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct vmmio_config c = { .vm_fd = -1, .base = 0xd0000000, .gsi = 5 };
		struct virtio_dev *d = NULL;
		struct fake_vq fv;
		struct fd_mem mem;
		struct vmmio *t;

		dup2(fds[1], STDERR_FILENO);
		if (virtio_rng_create(&d) < 0 || fd_mem_init(&mem, 1 << 20) < 0)
			_exit(10);
		c.gm = &mem.gm;
		c.dev = d;
		fvq_init(&fv, &mem, RNG_QUEUE_SIZE);
		if (vmmio_create(&t, &c) < 0 || sc_setup(SC_CMD_RUN, SC_TRAP, err, sizeof(err)) < 0 ||
		    fs_thread_enter(FS_ROLE_VCPU) < 0)
			_exit(11);
		for (int round = 0; round < 2; round++) {
			fd_negotiate(t, VIRTIO_FEAT_VERSION_1 | VIRTIO_FEAT_EVENT_IDX);
			fd_setup_queue(t, 0, &fv);
			if (fd_driver_ok(t) & VIRTIO_STATUS_NEEDS_RESET)
				_exit(12);
			fvq_set_desc(&fv, 0, fd_alloc(&mem, 64, 8), 64, VQ_DESC_F_WRITE, 0);
			fvq_publish(&fv, 0);
			fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
			fd_wr(t, VMMIO_STATUS, 0);
			fvq_init(&fv, &mem, RNG_QUEUE_SIZE);
		}
		_exit(0);
	}
	close(fds[1]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	(void)!read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x: %s", st, buf);
}
END_TEST

static void *churn_heap(void *arg)
{
	void *p[64];

	for (unsigned i = 0; i < 64; i++)
		p[i] = malloc(32 << 10);
	for (unsigned i = 64; i-- > 0;)
		free(p[i]);          /* glibc trims this thread's heap now */
	return arg;
}

/*
 * glibc opens /proc/sys/vm/overcommit_memory the first time it trims a
 * thread arena's heap; a vCPU may open nothing. sc_setup makes glibc do
 * it before any filter, so a vCPU thread that frees a lot survives.
 */
START_TEST(t_heap_trim_under_vcpu_filter)
{
	char err[256];
	int st;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pthread_t t;

		if (sc_setup(SC_CMD_RUN, SC_KILL, err, sizeof(err)) < 0 ||
		    fs_thread_create(&t, NULL, FS_ROLE_VCPU, churn_heap, NULL) < 0)
			_exit(10);
		pthread_join(t, NULL);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
}
END_TEST

/* ---- trap mode: one line naming the call and the role, then SIGSYS ------ */

START_TEST(t_trap_reports_call_and_role)
{
	char err[256], buf[512] = { 0 };
	int fds[2], st;
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fds[1], STDERR_FILENO);
		if (sc_setup(SC_CMD_RUN, SC_TRAP, err, sizeof(err)) < 0 ||
		    fs_thread_enter(FS_ROLE_CONSOLE) < 0)
			_exit(10);
		open("/dev/null", O_RDONLY);
		_exit(11);
	}
	close(fds[1]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "status %#x", st);
	ck_assert_int_gt(n, 0);
	ck_assert_msg(strstr(buf, "role console") && strstr(buf, "openat"), "stderr: %s", buf);
	ck_assert_int_eq((int)(strchr(buf, '\n') - buf), (int)n - 1);   /* one line */
}
END_TEST

/*
 * Kill mode: the process dies of SIGSYS with nothing said; the parent that
 * waits for it names the call and the thread from the kernel's audit record
 * or, where that record cannot be read, says where to look.
 */
START_TEST(t_kill_reported_by_parent)
{
	int kmsg = sc_report_open(), st;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct sock_fprog prog;

		if (sc_build(SC_CMD_RUN, FS_ROLE_CONSOLE, SC_KILL, &prog) < 0)
			_exit(10);
		prctl(PR_SET_NAME, "console");
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
		open("/dev/null", O_RDONLY);
		_exit(11);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "status %#x", st);
	f = open_memstream(&buf, &len);
	sc_report_exit(f, kmsg, pid, st);
	sc_report_exit(f, kmsg, pid, 0);      /* a clean exit says nothing */
	fclose(f);
	ck_assert_int_eq((int)(strchr(buf, '\n') - buf), (int)len - 1);
	/* The kernel rate-limits its log (10 lines in 5 s, shared with the
	 * whole machine): the record may be missing, and then the line says
	 * where to look. STRICT_KMSG=1 insists on the record. */
	if (getenv("STRICT_KMSG") || !strstr(buf, "--seccomp trap"))
		ck_assert_msg(strstr(buf, "'console' (role console) made a forbidden system call: "
				     "openat (257)"), "%s", buf);
	else
		ck_assert_msg(strstr(buf, "SIGSYS"), "%s", buf);
	free(buf);
	if (kmsg >= 0)
		close(kmsg);
}
END_TEST

START_TEST(t_audit_record_parsed)
{
	static const char rec[] = "6,5000,11313976914,-;audit: type=1326 audit(1796131026.270:767): "
		"auid=4294967295 uid=0 gid=0 ses=4294967295 pid=4242 comm=\"virtio-fs/q1\" "
		"exe=\"/usr/bin/stainless\" sig=31 arch=c000003e syscall=41 compat=0 ip=0x7f code=0x80000000\n";
	char comm[64];
	int nr = 0;

	ck_assert_int_eq(sc_audit_record(rec, 4242, comm, sizeof(comm), &nr), 0);
	ck_assert_str_eq(comm, "virtio-fs/q1");
	ck_assert_int_eq(nr, 41);
	ck_assert_int_eq(sc_audit_record(rec, 424, comm, sizeof(comm), &nr), -1);
	ck_assert_int_eq(sc_audit_record("6,1,2,-;audit: type=1400 pid=4242 syscall=1", 4242, comm,
					 sizeof(comm), &nr), -1);
}
END_TEST

/* ---- the options --------------------------------------------------------- */

static int take(struct sc_opts *o, char *err, int *argc, char **argv)
{
	return sc_take_args(argc, argv, o, err, 256);
}

START_TEST(t_take_args)
{
	char a0[] = "run", a1[] = "--seccomp", a2[] = "trap", a3[] = "--kernel", a4[] = "k",
	     a5[] = "--print-seccomp=vcpu", a6[] = "--", a7[] = "--seccomp";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, NULL };
	int argc = 8;
	struct sc_opts o;
	char err[256];

	ck_assert_int_eq(take(&o, err, &argc, argv), 0);
	ck_assert_int_eq(o.mode, SC_TRAP);
	ck_assert_str_eq(o.print_role, "vcpu");
	/* Everything else stays, in order; after "--" nothing is taken. */
	ck_assert_int_eq(argc, 5);
	ck_assert_str_eq(argv[1], "--kernel");
	ck_assert_str_eq(argv[2], "k");
	ck_assert_str_eq(argv[3], "--");
	ck_assert_str_eq(argv[4], "--seccomp");
	ck_assert_ptr_null(argv[5]);
}
END_TEST

START_TEST(t_take_args_default_and_equals)
{
	char a0[] = "9p-serve", a1[] = "--seccomp=none", a2[] = "dir";
	char *argv[] = { a0, a1, a2, NULL };
	char b0[] = "9p-serve", b1[] = "dir";
	char *argv2[] = { b0, b1, NULL };
	int argc = 3, argc2 = 2;
	struct sc_opts o;
	char err[256];

	ck_assert_int_eq(take(&o, err, &argc, argv), 0);
	ck_assert_int_eq(o.mode, SC_NONE);
	ck_assert_int_eq(argc, 2);
	ck_assert_int_eq(take(&o, err, &argc2, argv2), 0);
	ck_assert_int_eq(o.mode, SC_KILL);
	ck_assert_ptr_null(o.print_role);
}
END_TEST

START_TEST(t_take_args_refused)
{
	char a0[] = "run", bad_mode[] = "--seccomp=maybe", bad_role[] = "--print-seccomp=root",
	     bare[] = "--seccomp", bare_role[] = "--print-seccomp";
	char *m[] = { a0, bad_mode, NULL }, *r[] = { a0, bad_role, NULL };
	char *b[] = { a0, bare, NULL }, *br[] = { a0, bare_role, NULL };
	struct sc_opts o;
	char err[256];
	int argc;

	argc = 2;
	ck_assert_int_eq(take(&o, err, &argc, m), -EINVAL);
	ck_assert_msg(strstr(err, "maybe") && strstr(err, "kill, log, trap or none"), "%s", err);
	argc = 2;
	ck_assert_int_eq(take(&o, err, &argc, r), -EINVAL);
	ck_assert_msg(strstr(err, "root") && strstr(err, "vcpu"), "%s", err);
	argc = 2;
	ck_assert_int_eq(take(&o, err, &argc, b), -EINVAL);
	ck_assert_msg(strstr(err, "needs a mode"), "%s", err);
	argc = 2;
	ck_assert_int_eq(take(&o, err, &argc, br), -EINVAL);
	ck_assert_msg(strstr(err, "needs a role"), "%s", err);
	ck_assert(!strchr(err, '\n'));
}
END_TEST

/* --print-seccomp: the rules with their reasons, the count in the header. */
START_TEST(t_print_role)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char head[64];

	sc_print_role(f, SC_CMD_RUN, FS_ROLE_VCPU, SC_KILL);
	fclose(f);
	snprintf(head, sizeof(head), "# role vcpu: %u system calls",
		 sc_role_syscalls(SC_CMD_RUN, FS_ROLE_VCPU));
	ck_assert_msg(strncmp(buf, head, strlen(head)) == 0, "%s", buf);
	ck_assert_ptr_nonnull(strstr(buf, "KVM_RUN"));
	ck_assert_ptr_nonnull(strstr(buf, "\nioctl arg1&0xffffffff==0xae80\t# "));
	ck_assert_ptr_null(strstr(buf, "\nopenat"));
	free(buf);
	ck_assert_int_eq(sc_role_by_name("9p-conn"), FS_ROLE_P9_CONN);
	ck_assert_int_eq(sc_role_by_name("none"), -EINVAL);
	ck_assert_int_eq(sc_role_by_name("root"), -EINVAL);
}
END_TEST

/*
 * The sandbox's processes: they wait, reap and signal their child by
 * pidfd; kill(), opening files, mounting and the serving calls kill them.
 */
START_TEST(t_supervisor)
{
	for (enum sc_command c = SC_CMD_RUN; c <= SC_CMD_VHOST_USER; c++) {
		EXPECT_PASSES(c, FS_ROLE_SUPERVISOR, pidfd_signal);
		EXPECT_PASSES(c, FS_ROLE_SUPERVISOR, reap);
		EXPECT_SIGSYS(c, FS_ROLE_SUPERVISOR, kill_parent);
		EXPECT_SIGSYS(c, FS_ROLE_SUPERVISOR, open_file);
		EXPECT_SIGSYS(c, FS_ROLE_SUPERVISOR, accept_call);
		EXPECT_SIGSYS(c, FS_ROLE_SUPERVISOR, recv_call);
		EXPECT_SIGSYS(c, FS_ROLE_SUPERVISOR, kvm_run_ioctl);
	}
	/* Each command's own clean-up on the host, and no other's. */
	EXPECT_PASSES(SC_CMD_9P_SERVE, FS_ROLE_SUPERVISOR, unlink_missing);
	EXPECT_PASSES(SC_CMD_VHOST_USER, FS_ROLE_SUPERVISOR, unlink_missing);
	EXPECT_PASSES(SC_CMD_RUN, FS_ROLE_SUPERVISOR, unlink_missing);  /* --api-sock's file */
	EXPECT_SIGSYS(SC_CMD_FUSE_MOUNT, FS_ROLE_SUPERVISOR, unlink_missing);
	EXPECT_PASSES(SC_CMD_FUSE_MOUNT, FS_ROLE_SUPERVISOR, umount_missing);
	EXPECT_SIGSYS(SC_CMD_9P_SERVE, FS_ROLE_SUPERVISOR, umount_missing);
}
END_TEST

START_TEST(t_relay)
{
	EXPECT_PASSES(SC_CMD_RUN, FS_ROLE_RELAY, pidfd_signal);
	EXPECT_PASSES(SC_CMD_RUN, FS_ROLE_RELAY, reap);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_RELAY, kill_parent);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_RELAY, open_file);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_RELAY, unlink_missing);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_RELAY, umount_missing);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_RELAY, recv_call);
}
END_TEST

/* exec's relay: signals the VMM by pidfd and reaps it, opens and kills nothing. */
START_TEST(t_exec_relay)
{
	EXPECT_PASSES(SC_CMD_RUN, FS_ROLE_EXEC_RELAY, pidfd_signal);
	EXPECT_PASSES(SC_CMD_RUN, FS_ROLE_EXEC_RELAY, reap);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_EXEC_RELAY, kill_parent);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_EXEC_RELAY, open_file);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_EXEC_RELAY, umount_missing);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_EXEC_RELAY, recv_call);
}
END_TEST

/* The spawner's union is of thread roles: no process role's calls in it. */
START_TEST(t_spawner_has_no_process_rules)
{
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_SPAWNER, pidfd_signal);
	EXPECT_SIGSYS(SC_CMD_RUN, FS_ROLE_SPAWNER, reap);
}
END_TEST

static Suite *seccomp_suite(void)
{
	Suite *s = suite_create("seccomp");
	TCase *roles = tcase_create("roles"), *threads = tcase_create("threads");
	TCase *cli = tcase_create("cli");

	tcase_set_timeout(roles, 60);
	tcase_add_loop_test(roles, t_every_role_refuses_exec, 0, NR_ROLES);
	tcase_add_loop_test(roles, t_every_role_refuses_wx_mappings, 0, NR_ROLES);
	tcase_add_loop_test(roles, t_every_role_signals_only_its_own_threads, 0, NR_ROLES);
	tcase_add_loop_test(roles, t_only_the_spawner_clones, 0, NR_ROLES);
	tcase_add_test(roles, t_control);
	tcase_add_test(roles, t_control_restores_terminal);
	tcase_add_test(roles, t_vcpu);
	tcase_add_test(roles, t_queue);
	tcase_add_test(roles, t_lock_wait);
	tcase_add_test(roles, t_console);
	tcase_add_test(roles, t_fuse_reader);
	tcase_add_test(roles, t_fuse_uring);
	tcase_add_test(roles, t_p9_conn);
	tcase_add_test(roles, t_vhost_user);
	tcase_add_test(roles, t_spawner);
	tcase_add_test(roles, t_supervisor);
	tcase_add_test(roles, t_relay);
	tcase_add_test(roles, t_exec_relay);
	tcase_add_test(roles, t_spawner_has_no_process_rules);
	suite_add_tcase(s, roles);
	tcase_add_test(threads, t_thread_from_narrower_creator);
	tcase_add_test(threads, t_thread_bad_role);
	tcase_add_test(threads, t_vcpu_drives_device_lifecycle);
	tcase_add_test(threads, t_heap_trim_under_vcpu_filter);
	tcase_add_test(threads, t_trap_reports_call_and_role);
	tcase_add_test(threads, t_kill_reported_by_parent);
	tcase_add_test(threads, t_audit_record_parsed);
	suite_add_tcase(s, threads);
	tcase_add_test(cli, t_take_args);
	tcase_add_test(cli, t_take_args_default_and_equals);
	tcase_add_test(cli, t_take_args_refused);
	tcase_add_test(cli, t_print_role);
	suite_add_tcase(s, cli);
	return s;
}

int main(void)
{
	return unit_main(seccomp_suite());
}
