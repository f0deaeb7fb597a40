// SPDX-License-Identifier: GPL-2.0-only
/* `stainless exec`'s relay (see exec_relay.h). */
#include "cmd/exec_relay.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "base/exit.h"
#include "base/fail.h"
#include "base/thread.h"
#include "cmd/exec_wire.h"

/* Bytes from one fd to another, never blocking the loop on either. */
struct pump {
	int from, to;
	uint8_t buf[65536];
	size_t off, len;
	bool eof;        /* from said EOF (or failed): nothing more comes */
	bool done;       /* and all of it is out (or to failed) */
};

struct relay {
	struct exec_relay *r;
	int conn[EXEC_STREAMS];
	int sfd;
	struct pump in, out, err;
	size_t spec_off;
	uint8_t ctl[EXEC_GUEST_FRAME_MAX];  /* the guest's bytes: never more */
	size_t ctl_len;
	bool ctl_eof;
	bool have_result;
	struct exec_result res;
	int stopped_by;          /* a signal that came before the guest took the command */
	bool vmm_done;
	int vmm_status;
	struct termios saved;
	bool raw;
};

static void pump_init(struct pump *p, int from, int to)
{
	p->from = from;
	p->to = to;
	p->off = p->len = 0;
	p->eof = p->done = false;
}

/* The pollfd it waits on (fd -1 when it waits for nothing). */
static struct pollfd pump_poll(const struct pump *p)
{
	if (p->done || p->from < 0 || p->to < 0)
		return (struct pollfd){ .fd = -1 };
	if (p->len)
		return (struct pollfd){ .fd = p->to, .events = POLLOUT };
	return (struct pollfd){ .fd = p->from, .events = POLLIN };
}

static void pump_step(struct pump *p, short revents)
{
	ssize_t n;

	if (!revents || p->done)
		return;
	if (p->len == 0) {
		n = read(p->from, p->buf, sizeof(p->buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			return;
		if (n <= 0) {
			p->eof = p->done = true;
			return;
		}
		p->off = 0;
		p->len = (size_t)n;
	}
	n = write(p->to, p->buf + p->off, p->len);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n < 0) {  /* the reader is gone: so is the rest */
		p->done = true;
		return;
	}
	p->off += (size_t)n;
	p->len -= (size_t)n;
}

static int queue(struct exec_relay *r, uint8_t type, const void *data, size_t len)
{
	uint8_t *n = realloc(r->spec, r->spec_len + EXEC_HDR + len);
	size_t cap = r->spec_len + EXEC_HDR + len;

	if (!n)
		return -ENOMEM;
	r->spec = n;
	return exec_frame_put(r->spec, cap, &r->spec_len, type, data, len);
}

static void queue_winsize(struct relay *s)
{
	struct winsize ws;
	uint8_t p[4];

	if (ioctl(0, TIOCGWINSZ, &ws) < 0)
		return;
	exec_put_u16(p, ws.ws_row);
	exec_put_u16(p + 2, ws.ws_col);
	queue(s->r, EXEC_WINSIZE, p, sizeof(p));
}

static void stop_vmm(struct relay *s, int sig)
{
	if (!s->vmm_done)
		syscall(SYS_pidfd_send_signal, s->r->vmm_pidfd, sig, NULL, 0);
}

static void on_signal(struct relay *s)
{
	struct signalfd_siginfo si;
	uint8_t p[4];

	if (read(s->sfd, &si, sizeof(si)) != sizeof(si))
		return;
	if (si.ssi_signo == SIGWINCH) {
		if (s->r->tty && s->conn[EXEC_CTL] >= 0)
			queue_winsize(s);
		return;
	}
	if (s->have_result)
		return;
	if (s->conn[EXEC_CTL] < 0) {
		/* Still booting: nobody to pass it to, so it stops the VM. */
		s->stopped_by = (int)si.ssi_signo;
		stop_vmm(s, SIGTERM);
		return;
	}
	exec_put_u32(p, si.ssi_signo);
	queue(s->r, EXEC_SIGNAL, p, sizeof(p));
}

static int protocol_error(struct relay *s, const char *why)
{
	fail(-EPROTO, "the guest broke exec's protocol: %s", why);
	stop_vmm(s, SIGKILL);
	return -EPROTO;
}

/* The guest's control bytes: at most one frame, EXIT or ERROR. */
static int on_ctl(struct relay *s)
{
	struct exec_frame f;
	const char *why;
	ssize_t n;
	int got;

	if (s->ctl_len == sizeof(s->ctl))
		return protocol_error(s, "a frame longer than any the guest may send");
	n = read(s->conn[EXEC_CTL], s->ctl + s->ctl_len, sizeof(s->ctl) - s->ctl_len);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		s->ctl_eof = true;
		return 0;
	}
	s->ctl_len += (size_t)n;
	got = exec_frame_next(s->ctl, s->ctl_len, &f);
	if (got < 0)
		return protocol_error(s, "a frame header that is not one");
	if (got == 0)
		return 0;
	if (s->have_result)
		return protocol_error(s, "a second status");
	if (exec_guest_msg(&f, &s->res, &why) < 0)
		return protocol_error(s, why);
	s->have_result = true;
	memmove(s->ctl, s->ctl + got, s->ctl_len - (size_t)got);
	s->ctl_len -= (size_t)got;
	return 0;
}

static void on_accept(struct relay *s, int i)
{
	int fd = accept4(s->r->listen[i], NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	/* One connection a stream: a second connect is refused. */
	close(s->r->listen[i]);
	s->r->listen[i] = -1;
	s->conn[i] = fd;
	if (i == EXEC_IN)
		s->in.to = fd;
	else if (i == EXEC_OUT)
		s->out.from = fd;
	else if (i == EXEC_ERR)
		s->err.from = fd;
	else if (s->r->tty)
		queue_winsize(s); /* the size may have changed since the command was made */
}

/* stdin's end reaches the command as EOF. */
static void pass_stdin_eof(struct relay *s)
{
	if (s->in.done && s->conn[EXEC_IN] >= 0) {
		shutdown(s->conn[EXEC_IN], SHUT_WR);
		close(s->conn[EXEC_IN]);
		s->conn[EXEC_IN] = -1;
		s->in.to = -1;
	}
}

/* The output is all out: both streams ended (or never came, the VM being gone). */
static bool output_done(const struct relay *s)
{
	bool out = s->out.done || (s->vmm_done && s->conn[EXEC_OUT] < 0);
	bool err = s->err.done || (s->vmm_done && s->conn[EXEC_ERR] < 0);

	return out && err;
}

static void on_vmm(struct relay *s)
{
	if (wait4(s->r->vmm, &s->vmm_status, WNOHANG, NULL) == s->r->vmm)
		s->vmm_done = true;
}

static int loop(struct relay *s)
{
	struct exec_relay *r = s->r;

	while (!(s->have_result && output_done(s)) && !(s->vmm_done && output_done(s))) {
		struct pollfd pfd[12];
		int li[EXEC_STREAMS], ci, pi;
		unsigned n = 0;

		pfd[n++] = (struct pollfd){ .fd = s->sfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = s->vmm_done ? -1 : r->vmm_pidfd, .events = POLLIN };
		for (int i = 0; i < EXEC_STREAMS; i++) {
			li[i] = (int)n;
			pfd[n++] = (struct pollfd){ .fd = r->listen[i], .events = POLLIN };
		}
		ci = (int)n;
		pfd[n] = (struct pollfd){ .fd = s->ctl_eof ? -1 : s->conn[EXEC_CTL], .events = POLLIN };
		if (s->conn[EXEC_CTL] >= 0 && s->spec_off < r->spec_len)
			pfd[n] = (struct pollfd){ .fd = s->conn[EXEC_CTL],
						  .events = (short)(POLLOUT | (s->ctl_eof ? 0 : POLLIN)) };
		n++;
		pi = (int)n;
		pfd[n++] = pump_poll(&s->in);
		pfd[n++] = pump_poll(&s->out);
		pfd[n++] = pump_poll(&s->err);
		if (poll(pfd, n, -1) < 0)
			continue;
		if (pfd[0].revents)
			on_signal(s);
		if (pfd[1].revents)
			on_vmm(s);
		for (int i = 0; i < EXEC_STREAMS; i++)
			if (pfd[li[i]].fd >= 0 && pfd[li[i]].revents)
				on_accept(s, i);
		if (pfd[ci].revents & POLLOUT) {
			ssize_t w = write(s->conn[EXEC_CTL], r->spec + s->spec_off,
					  r->spec_len - s->spec_off);
			if (w > 0)
				s->spec_off += (size_t)w;
			else if (w < 0 && errno != EAGAIN && errno != EINTR)
				s->ctl_eof = true;
		}
		if ((pfd[ci].revents & ~POLLOUT) && on_ctl(s) < 0)
			return -EPROTO;
		pump_step(&s->in, pfd[pi].revents);
		pass_stdin_eof(s);
		pump_step(&s->out, pfd[pi + 1].revents);
		pump_step(&s->err, pfd[pi + 2].revents);
	}
	return 0;
}

static int signals(struct relay *s)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGWINCH);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return s->sfd < 0 ? fail(-errno, "signalfd: %s", strerror(errno)) : 0;
}

static void tty_raw(struct relay *s)
{
	struct termios t;

	if (!s->r->tty || tcgetattr(0, &s->saved) < 0)
		return;
	t = s->saved;
	cfmakeraw(&t);
	if (tcsetattr(0, TCSANOW, &t) == 0)
		s->raw = true;
}

static void tty_restore(struct relay *s)
{
	if (s->raw)
		tcsetattr(0, TCSANOW, &s->saved);
	s->raw = false;
}

/* The VMM once the talking is over: the guest resets when the host hangs up. */
static void reap_vmm(struct relay *s)
{
	struct pollfd p = { .fd = s->r->vmm_pidfd, .events = POLLIN };

	if (s->vmm_done)
		return;
	if (poll(&p, 1, 10000) <= 0)
		stop_vmm(s, SIGKILL);
	while (wait4(s->r->vmm, &s->vmm_status, 0, NULL) < 0 && errno == EINTR)
		;
	s->vmm_done = true;
}

static int status_of(struct relay *s, int rc)
{
	int st = s->vmm_status;

	if (rc < 0)
		return rc;
	if (s->have_result) {
		if (s->res.how == EXEC_FAILED)
			fail(1, "%s", s->res.msg);
		return exec_result_status(&s->res);
	}
	if (s->stopped_by)
		return 128 + s->stopped_by;
	if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
		return WEXITSTATUS(st); /* the VMM said why */
	if (WIFSIGNALED(st))
		return fail(EXIT_FAILED, "the VMM was killed by signal %d before the command ended",
			    WTERMSIG(st));
	return fail(EXIT_FAILED, "the guest stopped before it reported the command's status "
		    "(--console-log FILE shows its console)");
}

int exec_relay_run(struct exec_relay *r)
{
	struct relay *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return fail(-ENOMEM, "out of memory");
	s->r = r;
	for (int i = 0; i < EXEC_STREAMS; i++)
		s->conn[i] = -1;
	pump_init(&s->in, 0, -1);
	pump_init(&s->out, -1, 1);
	pump_init(&s->err, -1, 2);
	if ((rc = signals(s)) == 0) {
		tty_raw(s);
		rc = fs_thread_enter_alone(FS_ROLE_EXEC_RELAY);
		if (rc < 0)
			fail(rc, "seccomp (exec-relay): %s", strerror(-rc));
		else
			rc = loop(s);
	}
	for (int i = 0; i < EXEC_STREAMS; i++) {
		if (s->conn[i] >= 0)
			close(s->conn[i]);
		if (r->listen[i] >= 0)
			close(r->listen[i]);
		r->listen[i] = -1;
	}
	if (rc < 0)
		stop_vmm(s, SIGKILL);
	reap_vmm(s);
	tty_restore(s);
	rc = status_of(s, rc);
	if (s->sfd >= 0)
		close(s->sfd);
	close(r->vmm_pidfd);
	free(r->spec);
	r->spec = NULL;
	free(s);
	return rc;
}

int exec_relay_queue(struct exec_relay *r, uint8_t type, const void *data, size_t len)
{
	return queue(r, type, data, len);
}
