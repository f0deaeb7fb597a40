// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest's init for `stainless exec` (docs/containers.md): pid 1 of a
 * microVM whose root is the host's ROOTDIR over virtio-fs (tag "root").
 * Built static (gcc -static) and packed alone into the initramfs that the
 * stainless binary carries.
 *
 *  1. mount the share at /newroot and make it the root (MS_MOVE and
 *     chroot: the initramfs cannot be pivoted away), then /proc, /sys,
 *     /dev (devtmpfs) and /dev/pts inside it;
 *  2. connect to the host over vsock (control port first, cmd/exec_wire.h)
 *     and read the command: argv, env, cwd, uid/gid, host name, rlimits,
 *     whether it gets a terminal;
 *  3. connect the three stdio ports; without a terminal the command's fds
 *     0, 1 and 2 are those sockets themselves (no copy here), with one it
 *     gets a pty's slave and init copies between the master and the
 *     sockets;
 *  4. fork and exec the command in a session of its own, with its
 *     supplementary groups cleared; an exec that fails comes back over a
 *     close-on-exec pipe and is reported as ERROR 127 (not found) or 126;
 *  5. reap every child (it is pid 1), pass SIGNAL frames to the command,
 *     WINSIZE to the pty; when the command ends, kill what it left, report
 *     EXIT, and reset the VM (reboot=k: stainless ends cleanly).
 * Anything that fails before the host is reached goes to /dev/kmsg (the
 * console with --console-log) and the VM resets; the host then says the
 * guest stopped before the command ran.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <linux/vm_sockets.h>

#include "cmd/exec_wire.h"

#define SPEC_MAX   (4u << 20)   /* the command line and environment, all told */
#define WORDS_MAX  65536u
#define RLIMITS_MAX 16

extern char **environ;

struct spec {
	char **argv, **envp;
	unsigned argc, envc;
	char *cwd, *hostname;
	bool user;
	uid_t uid;
	gid_t gid;
	bool tty;
	struct winsize ws;
	unsigned nr_rl;
	struct { int res; struct rlimit rl; } rl[RLIMITS_MAX];
	int pending_sig;   /* a SIGNAL that came before the command ran */
};

static void say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = snprintf(line, sizeof(line), "stainless-exec-init: ");
	n += vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(line) - 1)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open("/dev/console", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		(void)!write(fd, line, n);
		close(fd);
	}
}

/* The VM's end: reset (the kernel's reboot=k), which ends stainless's VMM. */
static void __attribute__((noreturn)) finish(void)
{
	sync();
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

static void __attribute__((noreturn)) die(const char *what)
{
	say("%s: %s", what, strerror(errno));
	finish();
}

static void mount_or_die(const char *src, const char *dst, const char *type,
			 unsigned long flags, const char *data)
{
	mkdir(dst, 0755); /* a root without it gets one: ENOENT is worse */
	if (mount(src, dst, type, flags, data) < 0) {
		say("mount %s on %s: %s", type ? type : src, dst, strerror(errno));
		finish();
	}
}

static void enter_root(void)
{
	/* The initramfs's own /dev first, so say() has /dev/kmsg meanwhile. */
	mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755");
	mount_or_die("root", "/newroot", "virtiofs", 0, NULL);
	umount2("/dev", MNT_DETACH);
	if (chdir("/newroot") < 0)
		die("chdir /newroot");
	if (mount(".", "/", NULL, MS_MOVE, NULL) < 0)
		die("move the root");
	if (chroot(".") < 0 || chdir("/") < 0)
		die("chroot");
	mount_or_die("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mount_or_die("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mount_or_die("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755");
	mount_or_die("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		     "newinstance,ptmxmode=0666,mode=0620,gid=5");
}

static int vsock_connect(unsigned port)
{
	struct sockaddr_vm a = { .svm_family = AF_VSOCK, .svm_cid = VMADDR_CID_HOST,
				 .svm_port = port };
	int fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die("vsock socket");
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		say("connect to host port %u: %s", port, strerror(errno));
		finish();
	}
	return fd;
}

static bool write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

static void send_frame(int ctl, uint8_t type, const void *data, size_t len)
{
	uint8_t buf[EXEC_HDR + 1 + EXEC_MSG_MAX];
	size_t used = 0;

	if (exec_frame_put(buf, sizeof(buf), &used, type, data, len) == 0)
		write_all(ctl, buf, used);
}

/* ---- the command, as the host sends it ----------------------------------- */

struct reader {
	int fd;
	uint8_t buf[EXEC_HDR + EXEC_LEN_MAX];
	size_t n;
	size_t used;   /* the frame next_frame() handed out last */
};

/* The next whole frame into *f (valid until the next call); false at EOF or junk. */
static bool next_frame(struct reader *r, struct exec_frame *f)
{
	if (r->used) { /* drop the frame handed out last time */
		memmove(r->buf, r->buf + r->used, r->n - r->used);
		r->n -= r->used;
		r->used = 0;
	}
	for (;;) {
		int got = exec_frame_next(r->buf, r->n, f);
		ssize_t n;

		if (got < 0)
			return false;
		if (got > 0) {
			r->used = (size_t)got;
			return true;
		}
		n = read(r->fd, r->buf + r->n, sizeof(r->buf) - r->n);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		r->n += (size_t)n;
	}
}

static char *dup_word(const struct exec_frame *f, size_t *budget)
{
	char *s;

	if (f->len + 1u > *budget || memchr(f->data, 0, f->len))
		return NULL;
	*budget -= f->len + 1u;
	s = malloc(f->len + 1u);
	if (s) {
		memcpy(s, f->data, f->len);
		s[f->len] = '\0';
	}
	return s;
}

static bool push(char ***v, unsigned *n, char *s)
{
	char **nv;

	if (!s || *n >= WORDS_MAX)
		return false;
	nv = realloc(*v, (*n + 2) * sizeof(char *));
	if (!nv)
		return false;
	nv[(*n)++] = s;
	nv[*n] = NULL;
	*v = nv;
	return true;
}

static bool take(struct spec *s, const struct exec_frame *f, size_t *budget)
{
	switch (f->type) {
	case EXEC_ARG:
		return push(&s->argv, &s->argc, dup_word(f, budget));
	case EXEC_ENV:
		return push(&s->envp, &s->envc, dup_word(f, budget));
	case EXEC_CWD:
		free(s->cwd);
		return (s->cwd = dup_word(f, budget)) != NULL;
	case EXEC_HOSTNAME:
		free(s->hostname);
		return (s->hostname = dup_word(f, budget)) != NULL;
	case EXEC_USER:
		if (f->len != 8)
			return false;
		s->user = true;
		s->uid = exec_get_u32(f->data);
		s->gid = exec_get_u32(f->data + 4);
		return true;
	case EXEC_RLIMIT:
		if (f->len != 20 || s->nr_rl >= RLIMITS_MAX)
			return false;
		s->rl[s->nr_rl].res = (int)exec_get_u32(f->data);
		s->rl[s->nr_rl].rl.rlim_cur = exec_get_u64(f->data + 4);
		s->rl[s->nr_rl].rl.rlim_max = exec_get_u64(f->data + 12);
		s->nr_rl++;
		return true;
	case EXEC_TTY:
		if (f->len != 4)
			return false;
		s->tty = true;
		s->ws.ws_row = exec_get_u16(f->data);
		s->ws.ws_col = exec_get_u16(f->data + 2);
		return true;
	}
	return false;
}

static void read_spec(struct reader *r, struct spec *s)
{
	size_t budget = SPEC_MAX;
	struct exec_frame f;

	for (;;) {
		if (!next_frame(r, &f)) {
			say("the host's command ended early or was malformed");
			finish();
		}
		if (f.type == EXEC_START)
			break;
		if (f.type == EXEC_SIGNAL && f.len == 4) {
			s->pending_sig = (int)exec_get_u32(f.data);
			continue;
		}
		if (f.type == EXEC_WINSIZE)
			continue;
		if (!take(s, &f, &budget)) {
			say("a bad frame (type %u, %u bytes) in the host's command", f.type, f.len);
			finish();
		}
	}
	if (s->argc == 0) {
		say("the host sent no command");
		finish();
	}
}

/* ---- the command's process ------------------------------------------------ */

/* Why the exec failed, to the parent: errno and the stage. */
struct failure {
	int err;
	char what[64];
};

static void __attribute__((noreturn)) child_fail(int pipe_fd, const char *what)
{
	struct failure f = { .err = errno };

	snprintf(f.what, sizeof(f.what), "%s", what);
	(void)!write(pipe_fd, &f, sizeof(f));
	_exit(127);
}

static void child(struct spec *s, int fds[3], const char *pty_name, int pipe_fd)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();
	if (pty_name) {
		int t = open(pty_name, O_RDWR);

		if (t < 0 || ioctl(t, TIOCSCTTY, 0) < 0)
			child_fail(pipe_fd, "the terminal");
		fds[0] = fds[1] = fds[2] = t;
	}
	for (int i = 0; i < 3; i++)
		if (dup2(fds[i], i) < 0)
			child_fail(pipe_fd, "stdio");
	if (pty_name && fds[0] > 2)
		close(fds[0]);
	for (unsigned i = 0; i < s->nr_rl; i++)
		if (setrlimit(s->rl[i].res, &s->rl[i].rl) < 0)
			child_fail(pipe_fd, "setrlimit");
	if (s->user) {
		if (setgroups(0, NULL) < 0 || setgid(s->gid) < 0)
			child_fail(pipe_fd, "setgid");
		if (setuid(s->uid) < 0)
			child_fail(pipe_fd, "setuid");
	}
	if (chdir(s->cwd ? s->cwd : "/") < 0)
		child_fail(pipe_fd, s->cwd ? s->cwd : "/");
	environ = s->envp;  /* execvp searches the PATH given */
	execvp(s->argv[0], s->argv);
	child_fail(pipe_fd, s->argv[0]);
}

/* ERROR 127 for a command not found, 126 for one that cannot run. */
static void report_failure(int ctl, const struct failure *f, const char *cmd)
{
	uint8_t msg[1 + EXEC_MSG_MAX];
	bool exec_stage = strcmp(f->what, cmd) == 0;
	int n;

	msg[0] = exec_stage && f->err == ENOENT ? 127 : 126;
	if (exec_stage && f->err == ENOENT)
		n = snprintf((char *)msg + 1, EXEC_MSG_MAX, "%s: command not found", cmd);
	else
		n = snprintf((char *)msg + 1, EXEC_MSG_MAX, "%s: %s", f->what, strerror(f->err));
	if (n < 0 || n >= (int)EXEC_MSG_MAX)
		n = EXEC_MSG_MAX - 1;
	send_frame(ctl, EXEC_ERROR, msg, 1 + (size_t)n);
}

/* ---- after the exec: relay and reap ------------------------------------- */

struct pump {
	int from, to;
	uint8_t buf[16384];
	size_t off, len;
	bool done;
};

/* One step: read when empty, write what is held. false once it is over. */
static void pump_step(struct pump *p, short revents, bool is_from)
{
	ssize_t n;

	if (p->done)
		return;
	if (is_from && p->len == 0 && revents) {
		n = read(p->from, p->buf, sizeof(p->buf));
		if (n <= 0 && !(n < 0 && (errno == EINTR || errno == EAGAIN))) {
			p->done = true;
			return;
		}
		p->off = 0;
		p->len = n > 0 ? (size_t)n : 0;
	}
	if (!is_from && p->len && revents) {
		n = write(p->to, p->buf + p->off, p->len);
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			p->done = true;
			return;
		}
		if (n > 0) {
			p->off += (size_t)n;
			p->len -= (size_t)n;
		}
	}
}

static void add_pump(struct pollfd *pfd, unsigned *n, struct pump *p, int *ix_from,
		     int *ix_to)
{
	*ix_from = *ix_to = -1;
	if (p->done)
		return;
	if (p->len == 0) {
		*ix_from = (int)*n;
		pfd[(*n)++] = (struct pollfd){ .fd = p->from, .events = POLLIN };
	} else {
		*ix_to = (int)*n;
		pfd[(*n)++] = (struct pollfd){ .fd = p->to, .events = POLLOUT };
	}
}

static short rev(const struct pollfd *pfd, int ix)
{
	return ix < 0 ? 0 : pfd[ix].revents;
}

/* Frames from the host after START: signals for the command, window sizes. */
static void control(struct reader *r, pid_t cmd, int master, bool *host_gone)
{
	struct exec_frame f;
	ssize_t n;
	int got;

	n = read(r->fd, r->buf + r->n, sizeof(r->buf) - r->n);
	if (n <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			*host_gone = true;
		return;
	}
	r->n += (size_t)n;
	while ((got = exec_frame_next(r->buf, r->n, &f)) > 0) {
		if (f.type == EXEC_SIGNAL && f.len == 4) {
			uint32_t sig = exec_get_u32(f.data);

			if (sig >= 1 && sig <= 64)
				kill(cmd, (int)sig);
		} else if (f.type == EXEC_WINSIZE && f.len == 4 && master >= 0) {
			struct winsize ws = { .ws_row = exec_get_u16(f.data),
					      .ws_col = exec_get_u16(f.data + 2) };
			ioctl(master, TIOCSWINSZ, &ws);
		}
		memmove(r->buf, r->buf + got, r->n - (size_t)got);
		r->n -= (size_t)got;
	}
	if (got < 0)
		*host_gone = true;
}

/* Reaps every child; the command's status once it has one. */
static bool reap(pid_t cmd, int *status)
{
	bool ended = false;
	pid_t w;
	int st;

	while ((w = waitpid(-1, &st, WNOHANG)) > 0)
		if (w == cmd) {
			*status = st;
			ended = true;
		}
	return ended;
}

static int serve(struct reader *r, pid_t cmd, int sfd, int master, int in, int out)
{
	struct pump to_pty = { .from = in, .to = master, .done = master < 0 };
	struct pump from_pty = { .from = master, .to = out, .done = master < 0 };
	bool host_gone = false;
	int status = 0;

	for (;;) {
		struct pollfd pfd[6];
		int a, b, c, d;
		unsigned n = 0;

		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		if (!host_gone)
			pfd[n++] = (struct pollfd){ .fd = r->fd, .events = POLLIN };
		add_pump(pfd, &n, &to_pty, &a, &b);
		add_pump(pfd, &n, &from_pty, &c, &d);
		if (poll(pfd, n, -1) < 0)
			continue;
		if (pfd[0].revents) {
			struct signalfd_siginfo si;

			(void)!read(sfd, &si, sizeof(si));
			if (reap(cmd, &status))
				break;
		}
		if (!host_gone && pfd[1].revents)
			control(r, cmd, master, &host_gone);
		pump_step(&to_pty, rev(pfd, a), true);
		pump_step(&to_pty, rev(pfd, b), false);
		pump_step(&from_pty, rev(pfd, c), true);
		pump_step(&from_pty, rev(pfd, d), false);
	}
	/* What the command wrote last is still in the pty: pass it on. */
	if (master >= 0) {
		fcntl(master, F_SETFL, O_NONBLOCK);
		for (;;) {
			if (from_pty.len && !write_all(out, from_pty.buf + from_pty.off, from_pty.len))
				break;
			ssize_t m = read(master, from_pty.buf, sizeof(from_pty.buf));

			if (m <= 0)
				break;
			from_pty.off = 0;
			from_pty.len = (size_t)m;
		}
	}
	return status;
}

int main(void)
{
	struct reader *r = calloc(1, sizeof(*r));
	struct spec s = { 0 };
	int fds[3], pipe_fds[2], master = -1, sfd, status;
	char pty_name[64] = "";
	struct failure fl;
	sigset_t sigs;
	pid_t cmd;
	ssize_t n;

	if (!r)
		die("calloc");
	if (getpid() != 1) {
		fprintf(stderr, "stainless-exec-init: this is a guest's init (pid 1), not a program\n");
		return 1;
	}
	enter_root();
	r->fd = vsock_connect(EXEC_PORT_CTL);
	read_spec(r, &s);
	if (s.hostname && sethostname(s.hostname, strlen(s.hostname)) < 0)
		say("sethostname %s: %s", s.hostname, strerror(errno));
	fds[0] = vsock_connect(EXEC_PORT_STDIN);
	fds[1] = vsock_connect(EXEC_PORT_STDOUT);
	fds[2] = vsock_connect(EXEC_PORT_STDERR);
	if (s.tty) {
		master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0 ||
		    ptsname_r(master, pty_name, sizeof(pty_name)) != 0)
			die("a pty");
		ioctl(master, TIOCSWINSZ, &s.ws);
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGCHLD);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0 || pipe2(pipe_fds, O_CLOEXEC) < 0)
		die("signalfd");
	cmd = fork();
	if (cmd < 0)
		die("fork");
	if (cmd == 0)
		child(&s, fds, s.tty ? pty_name : NULL, pipe_fds[1]);
	close(pipe_fds[1]);
	do {
		n = read(pipe_fds[0], &fl, sizeof(fl));
	} while (n < 0 && errno == EINTR);
	close(pipe_fds[0]);
	if (s.pending_sig >= 1 && s.pending_sig <= 64)
		kill(cmd, s.pending_sig);
	if (n == sizeof(fl)) {
		waitpid(cmd, NULL, 0);
		report_failure(r->fd, &fl, s.argv[0]);
		finish();
	}
	/* Without a pty the command holds the sockets; init keeps none of
	 * them, so the host sees EOF when the last holder is gone. */
	if (!s.tty) {
		close(fds[1]);
		close(fds[2]);
		close(fds[0]);
		fds[0] = fds[1] = -1;
	} else {
		close(fds[2]);
	}
	status = serve(r, cmd, sfd, master, fds[0], fds[1]);
	/* The command is gone: so is everything it left behind. */
	kill(-1, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	if (fds[1] >= 0)
		close(fds[1]);
	if (fds[0] >= 0)
		close(fds[0]);
	uint8_t ex[2] = { WIFSIGNALED(status) ? 1 : 0,
			  (uint8_t)(WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status)) };
	send_frame(r->fd, EXEC_EXIT, ex, sizeof(ex));
	/* The host hangs up once it has every byte; then the VM ends. */
	shutdown(r->fd, SHUT_WR);
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	while (poll(&p, 1, 5000) > 0 && read(r->fd, r->buf, sizeof(r->buf)) > 0)
		;
	finish();
}
