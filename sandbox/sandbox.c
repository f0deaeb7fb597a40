// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sandbox's two steps and the supervisor (see sandbox.h).
 *
 * Three processes in namespace mode:
 *   supervisor  the process the user started (whose pid a service manager
 *               or a test holds), in the host's namespaces: takes
 *               SIGINT/SIGTERM/SIGHUP and ends with the server's status;
 *   init        made by clone3 with the new namespaces, pid 1 of the new
 *               pid namespace, with no capabilities: makes the net
 *               namespace (make_net), forwards the signals and passes the
 *               status through;
 *   server      forked by init, where sandbox_enter() returns 0.
 * The supervisor and init run under seccomp filters of their own (roles
 * supervisor and relay, sandbox/seccomp_policy.c) from the moment they are
 * set up: each holds only its child's pidfd (and the supervisor the fds
 * its hooks need), waits, and signals that child through the pidfd.
 * Why the middle one: a new pid namespace takes effect only for children,
 * and a raw clone3 leaves glibc's idea of the thread id (which
 * pthread_kill and mutexes use) at the parent's, so the command must run in
 * a child forked by glibc. Being pid 1 would also change signals: the
 * kernel drops signals init has no handler for. The server, an ordinary
 * process, dies of SIGTERM as it would without a sandbox; init, which
 * cannot die of a signal, reports that death as exit status 128 + signal,
 * what a shell shows for it anyway.
 */
#include "sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fail.h"
#include "fs/fs_log.h"
#include "base/creds.h"
#include "fs/fs_fdbudget.h"
#include "base/thread.h"
#include "sandbox/sandbox_int.h"

void sandbox_init(struct sandbox *sb, const char *cmd, const struct sandbox_opts *o)
{
	memset(sb, 0, sizeof(*sb));
	sb->cmd = cmd;
	sb->opts = *o;
	sb->net_ready = -1;
}

static void (*supervise_fn)(void);

void sandbox_on_supervise(void (*fn)(void))
{
	supervise_fn = fn;
}

int sandbox_keep_fd(struct sandbox *sb, int fd)
{
	if (fd < 0)
		return 0;
	if (sb->nkeep >= SANDBOX_KEEP_MAX)
		return -ENOSPC;
	sb->keep[sb->nkeep++] = fd;
	return 0;
}

static void stop_signals(sigset_t *set, bool with_chld)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	if (with_chld)
		sigaddset(set, SIGCHLD);
}

static int by_fd(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Closes every fd from 3 up but the n in keep (which it sorts). */
static void close_all_but(int *keep, unsigned n)
{
	unsigned from = 3;

	qsort(keep, n, sizeof(*keep), by_fd);
	for (unsigned i = 0; i < n; i++) {
		if (keep[i] < (int)from)
			continue;
		if ((unsigned)keep[i] > from)
			close_range(from, (unsigned)keep[i] - 1, 0);
		from = (unsigned)keep[i] + 1;
	}
	close_range(from, ~0u, 0);
}

/* The child's status as the supervisor's own: an exit code, or the same death. */
static int pass_status(int st)
{
	if (WIFSIGNALED(st)) {
		int sig = WTERMSIG(st);
		struct rlimit no_core = { 0, 0 };
		sigset_t one;

		setrlimit(RLIMIT_CORE, &no_core); /* the child's core is the one that matters */
		signal(sig, SIG_DFL);
		sigemptyset(&one);
		sigaddset(&one, sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(sig); /* tgkill of itself: the one signal its filter lets it send but by pidfd */
		return 128 + sig; /* a signal that does not kill (SIGCHLD...) */
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/*
 * Forwards the stop signals to pid (by its pidfd) until it ends; its wait
 * status. hooks: the supervisor's (NULL in init).
 */
static int relay(const struct sandbox_hooks *hooks, int pidfd, pid_t pid)
{
	sigset_t set;
	int st = 0;

	stop_signals(&set, true);
	for (;;) {
		int sig = sigwaitinfo(&set, NULL);

		if (sig < 0)
			continue; /* EINTR: a stopped-and-continued supervisor */
		if (sig == SIGCHLD) {
			pid_t w;
			/* init reaps every orphan; pid's status is the one that counts */
			while ((w = waitpid(-1, &st, WNOHANG)) > 0 && w != pid)
				;
			if (w == pid || (w < 0 && errno == ECHILD))
				break;
			continue;
		}
		if (!hooks || !hooks->stop || hooks->stop(hooks->ctx, sig))
			syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
	}
	return st;
}

/*
 * The net namespace costs more to make than the others together (a
 * loopback device, every protocol's per-namespace state: ~0.5 ms here,
 * more while an earlier one is torn down), and the server needs it only at
 * lockdown. So init makes it after forking the server, while the server
 * sets itself up, and the server joins it at lockdown (sandbox_join_net).
 * Returns the errno (0: made) that init sends.
 */
static int make_net(int fd)
{
	int err = unshare(CLONE_NEWNET) < 0 ? errno : 0;

	(void)!write(fd, &err, sizeof(err));
	close(fd);
	return err;
}

int sandbox_join_net(struct sandbox *sb)
{
	int err = EIO, pidfd;
	ssize_t n;

	if (sb->net_ready < 0)
		return 0;
	do {
		n = read(sb->net_ready, &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(sb->net_ready);
	sb->net_ready = -1;
	if (n != sizeof(err))
		err = EIO;
	if (err)
		return fail(-err, "sandbox: cannot create a net namespace: %s", strerror(err));
	/* init is this process's parent, pid 1 of the new pid namespace. */
	pidfd = (int)syscall(SYS_pidfd_open, getppid(), 0);
	if (pidfd < 0 || setns(pidfd, CLONE_NEWNET) < 0)
		err = errno;
	if (pidfd >= 0)
		close(pidfd);
	if (err)
		return fail(-err, "sandbox: cannot enter the net namespace: %s", strerror(err));
	return 0;
}

/* init, once the server is forked: only waits and relays, under its filter. */
static void init_relay(struct sandbox *sb, pid_t server, int net_fd)
{
	int pidfd, r, st;

	if (make_net(net_fd) != 0)
		_exit(1); /* the server says why */
	pidfd = (int)syscall(SYS_pidfd_open, server, 0);
	if (pidfd < 0) {
		fail(-errno, "sandbox: pidfd_open: %s", strerror(errno));
		kill(server, SIGKILL);
		_exit(1);
	}
	/* init keeps nothing but the server's pidfd and can do nothing but wait and signal. */
	close_all_but(&pidfd, 1);
	(void)fs_caps_limit_to(0);
	(void)prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if ((r = fs_thread_enter_alone(FS_ROLE_RELAY)) < 0) {
		fail(r, "sandbox: seccomp (relay): %s", strerror(-r));
		syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
		_exit(1);
	}
	st = relay(NULL, pidfd, server);
	_exit(WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}

/* init: fork the server, then only relay. Returns in the server alone. */
static int init_main(struct sandbox *sb, int syncfd, const sigset_t *old)
{
	int net[2], cwd;
	pid_t server;
	ssize_t n;
	char c;

	/* The supervisor killed with SIGKILL must not leave a server behind. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (syncfd >= 0) {
		/* A user namespace: its maps are the supervisor's to write first. */
		do {
			n = read(syncfd, &c, 1);
		} while (n < 0 && errno == EINTR);
		close(syncfd);
		if (n != 1)
			_exit(1); /* the supervisor failed and said why */
	}
	/* What only the supervisor may hold (sandbox_keep_fd). */
	for (unsigned i = 0; i < sb->nkeep; i++)
		close(sb->keep[i]);
	sb->nkeep = 0;
	/* Nothing mounted from here on may show up in the host's namespace. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		_exit(fail(1, "sandbox: cannot make the mounts private: %s", strerror(errno)));
	/* A name for the new uts namespace only: nothing depends on it. */
	(void)!sethostname("stainless", 9);
	/*
	 * init must not hold the old tree once the server pivots away from it:
	 * pivot_root moves a cwd only if it is the old root itself, and a cwd
	 * deeper in would keep the host's mounts copied into this namespace
	 * alive (without root they cannot be detached one by one: they are
	 * locked), a FUSE mount among them. The server gets the cwd back.
	 */
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (chdir("/") < 0)
		_exit(fail(1, "sandbox: chdir /: %s", strerror(errno)));
	if (pipe2(net, O_CLOEXEC) < 0)
		_exit(fail(1, "sandbox: pipe: %s", strerror(errno)));
	server = fork();
	if (server == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(net[1]);
		sb->net_ready = net[0];
		if (cwd >= 0 && fchdir(cwd) < 0)
			return fail(-errno, "sandbox: cannot return to the working directory: %s",
					    strerror(errno));
		if (cwd >= 0)
			close(cwd);
		sigprocmask(SIG_SETMASK, old, NULL);
		return 0;
	}
	if (server < 0)
		_exit(fail(1, "sandbox: fork: %s", strerror(errno)));
	close(net[0]);
	init_relay(sb, server, net[1]);
	return -EIO; /* not reached */
}

/* The supervisor, once its child runs: keeps only what its hooks need, then relays. */
static int supervise(struct sandbox *sb, int pidfd, int *exit_code)
{
	int keep[SANDBOX_KEEP_MAX + 1], r, st;

	/*
	 * The supervisor keeps nothing else of the command's: a /dev/fuse fd
	 * or a listening socket held here would outlive a dead server.
	 */
	memcpy(keep, sb->keep, sb->nkeep * sizeof(int));
	keep[sb->nkeep] = pidfd;
	close_all_but(keep, sb->nkeep + 1);
	if (supervise_fn)
		supervise_fn();
	if ((r = fs_thread_enter_alone(FS_ROLE_SUPERVISOR)) < 0) {
		fail(r, "sandbox: seccomp (supervisor): %s", strerror(-r));
		syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
		waitpid(sb->child, NULL, 0);
		*exit_code = 1;
		return 1;
	}
	st = relay(&sb->hooks, pidfd, sb->child);
	if (sb->hooks.ended)
		sb->hooks.ended(sb->hooks.ctx, st);
	*exit_code = pass_status(st);
	return 1;
}

static int enter_namespaces(struct sandbox *sb, int *exit_code)
{
	/* CLONE_NEWNET: init's, later (make_net). */
	uint64_t flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_PIDFD;
	int sync[2] = { -1, -1 }, pidfd = -1, r;
	sigset_t set, old;
	long pid;

	sb->userns = geteuid() != 0 || sb->opts.nuid || sb->opts.ngid;
	if (sb->userns)
		flags |= CLONE_NEWUSER;
	if (sb->userns && pipe2(sync, O_CLOEXEC) < 0)
		return fail(-errno, "sandbox: pipe: %s", strerror(errno));
	/* Blocked before the fork: no stop signal falls between the two. */
	stop_signals(&set, true);
	sigprocmask(SIG_BLOCK, &set, &old);
	struct clone_args ca = { .flags = flags, .pidfd = (uintptr_t)&pidfd, .exit_signal = SIGCHLD };
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0) {
		if (sync[1] >= 0)
			close(sync[1]);
		return init_main(sb, sync[0], &old);
	}
	r = pid < 0 ? -errno : 0;
	if (sync[0] >= 0)
		close(sync[0]);
	if (r == 0 && sb->userns)
		r = sandbox_write_idmaps(sb, (pid_t)pid);
	if (r < 0) {
		if (sync[1] >= 0)
			close(sync[1]);
		if (pid > 0)
			waitpid((pid_t)pid, NULL, 0); /* it sees EOF and exits */
		if (pidfd >= 0)
			close(pidfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (pid < 0 && sb->userns)
			sandbox_explain_userns(sb, r);
		else if (pid < 0)
			fail(r, "sandbox: cannot create namespaces: %s", strerror(-r));
		return r;
	}
	sb->child = (pid_t)pid;
	if (sync[1] >= 0) {
		(void)!write(sync[1], "g", 1);
		close(sync[1]);
	}
	return supervise(sb, pidfd, exit_code);
}

static int enter(struct sandbox *sb, int *exit_code)
{
	switch (sb->opts.mode) {
	case SANDBOX_NONE:
		fs_log(FS_LOG_WARN, "--sandbox none: no namespaces, all capabilities, "
		       "the whole host in reach (for debugging only)");
		return 0;
	case SANDBOX_CHROOT:
		if (sb->opts.nuid || sb->opts.ngid)
			return fail(-EINVAL, "sandbox: --uid-map and --gid-map need "
					    "--sandbox namespace");
		if (geteuid() != 0)
			return fail(-EPERM, "sandbox: --sandbox chroot needs root "
					    "(without it, use --sandbox namespace)");
		return 0;
	case SANDBOX_NAMESPACE:
		break;
	}
	if (sb->kernel_ids && !sandbox_maps_keep_ids(&sb->opts))
		return fail(-EINVAL, "sandbox: --uid-map/--gid-map: the host's kernel names "
				    "host ids here, so each map must keep them (:ID:ID:COUNT:)");
	return enter_namespaces(sb, exit_code);
}

int sandbox_enter(struct sandbox *sb, int *exit_code)
{
	int r;

	/* Before any filter is built and before the capabilities are limited. */
	fs_caps_allow_devices(sb->devices);
	r = enter(sb, exit_code);
	/* The server's filters, built while it sets itself up (fs_thread.h). */
	if (r == 0)
		fs_thread_prebuild();
	return r;
}

static int add_bind(struct sandbox *sb, const char *path, bool readonly, bool device, bool file)
{
	char *real = realpath(path, NULL);

	if (!real)
		return fail(-errno, "sandbox: %s: %s", path, strerror(errno));
	for (unsigned i = 0; i < sb->nbinds; i++) {
		if (strcmp(sb->binds[i].path, real) == 0) {
			/* One directory shared twice: writable if either share is. */
			sb->binds[i].readonly &= readonly;
			free(real);
			return 0;
		}
	}
	if (sb->nbinds >= sizeof(sb->binds) / sizeof(sb->binds[0])) {
		free(real);
		return fail(-ENOSPC, "sandbox: too many shares");
	}
	sb->binds[sb->nbinds++] = (struct sandbox_bind){
		.path = real, .orig = path, .readonly = readonly, .device = device, .file = file,
	};
	return 0;
}

int sandbox_add_share(struct sandbox *sb, const char *path, bool readonly)
{
	unsigned shares = 0;

	for (unsigned i = 0; i < sb->nbinds; i++)
		shares += !sb->binds[i].file;
	if (sb->opts.mode == SANDBOX_CHROOT && shares == 1)
		return fail(-EINVAL, "sandbox: --sandbox chroot serves one share "
				    "(use --sandbox namespace for more)");
	return add_bind(sb, path, readonly, false, false);
}

int sandbox_add_device(struct sandbox *sb, const char *path)
{
	return add_bind(sb, path, false, true, true);
}

int sandbox_add_user_db(struct sandbox *sb)
{
	static const char *const db[] = { "/etc/passwd", "/etc/group", "/etc/nsswitch.conf" };

	for (size_t i = 0; i < sizeof(db) / sizeof(db[0]); i++) {
		int r;
		if (access(db[i], R_OK) < 0)
			continue;
		if ((r = add_bind(sb, db[i], true, false, true)) < 0)
			return r;
	}
	return 0;
}

int sandbox_lockdown(struct sandbox *sb)
{
	int r = 0;

	if (sb->opts.mode == SANDBOX_NONE)
		return 0;
	/* While /proc/sys/fs/nr_open is in reach (sandbox_creds.c fixes it). */
	fs_fd_raise_nofile();
	switch (sb->opts.mode) {
	case SANDBOX_NONE:
		return 0;
	case SANDBOX_CHROOT:
		r = sandbox_chroot(sb);
		break;
	case SANDBOX_NAMESPACE:
		r = sandbox_join_net(sb);
		if (r == 0)
			r = sandbox_build_root(sb);
		/* More ids mapped than one's own: serve each caller as itself (creds.h). */
		if (r == 0 && sb->userns && (sb->opts.nuid || sb->opts.ngid))
			fs_creds_switch_ids(geteuid(), getegid());
		break;
	}
	if (r == 0)
		r = sandbox_drop_privileges(sb);
	sb->locked = r == 0;
	return r;
}

const char *sandbox_path(const struct sandbox *sb, const char *path)
{
	if (!sb->locked)
		return path;
	for (unsigned i = 0; i < sb->nbinds; i++) {
		if (sb->binds[i].orig == path || strcmp(sb->binds[i].orig, path) == 0)
			return sb->opts.mode == SANDBOX_CHROOT ? "/" : sb->binds[i].path;
	}
	return path;
}
