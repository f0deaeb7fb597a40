// SPDX-License-Identifier: GPL-2.0-only
/* The console's output, the raw terminal and the input thread (see console.h). */
#include "vmm/console.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/thread.h"

#define ESCAPE_CHAR 0x01 /* Ctrl-A, then x: quit */

int console_open(struct console *c, enum vm_console kind, const char *path,
		 char *err, unsigned errlen)
{
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->out_fd = -1;
	switch (kind) {
	case CONSOLE_STDIO:
		c->out_fd = STDOUT_FILENO;
		if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &c->saved_tio) == 0) {
			struct termios raw = c->saved_tio;

			cfmakeraw(&raw);
			raw.c_oflag |= OPOST; /* keep \n -> \r\n for the host tty */
			if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0)
				c->tty_raw = true;
		}
		break;
	case CONSOLE_FILE:
		c->out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (c->out_fd < 0) {
			snprintf(err, errlen, "--console '%s': %s", path, strerror(errno));
			return -errno;
		}
		c->owned = true;
		break;
	case CONSOLE_NONE:
		break;
	}
	return 0;
}

/*
 * Bytes go to the UART; Ctrl-A x quits like QEMU's. Returns false once
 * stdin is finished (end of file or an error).
 */
static bool console_input(struct console *c, size_t room, bool *escape)
{
	uint8_t buf[SERIAL_RX_SIZE], out[SERIAL_RX_SIZE];
	size_t m = 0;
	ssize_t n;

	n = read(STDIN_FILENO, buf, room);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	for (ssize_t i = 0; i < n; i++) {
		if (c->tty_raw && *escape) {
			*escape = false;
			if (buf[i] == 'x') {
				c->quit(c->ctx);
				return true;
			}
			if (buf[i] != ESCAPE_CHAR)
				continue;
		} else if (c->tty_raw && buf[i] == ESCAPE_CHAR) {
			*escape = true;
			continue;
		}
		out[m++] = buf[i];
	}
	serial_rx(c->serial, out, m);
	return true;
}

static void *input_main(void *arg)
{
	struct console *c = arg;
	bool escape = false;

	(void)pthread_setname_np(pthread_self(), "console");
	for (;;) {
		/* Read stdin only while the UART has room; when the guest is
		 * not draining its input, look again every 10 ms. */
		size_t room = serial_rx_room(c->serial);
		struct pollfd p[2] = {
			{ .fd = c->stop_fd, .events = POLLIN },
			{ .fd = room ? STDIN_FILENO : -1, .events = POLLIN },
		};

		if (poll(p, 2, room ? -1 : 10) < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			break;
		/* At end of input (e.g. </dev/null) the guest keeps running. */
		if ((p[1].revents & (POLLIN | POLLHUP | POLLERR)) && !console_input(c, room, &escape))
			break;
		if (p[1].revents & POLLNVAL)
			break;
	}
	return NULL;
}

int console_start_input(struct console *c, struct serial *s, int stop_fd,
			console_quit_fn *quit, void *ctx)
{
	int rc;

	if (c->kind != CONSOLE_STDIO)
		return 0;
	c->serial = s;
	c->stop_fd = stop_fd;
	c->quit = quit;
	c->ctx = ctx;
	rc = fs_thread_create(&c->thread, NULL, FS_ROLE_CONSOLE, input_main, c);
	c->started = rc == 0;
	return rc;
}

void console_close(struct console *c)
{
	if (c->started)
		pthread_join(c->thread, NULL);
	c->started = false;
	if (c->tty_raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &c->saved_tio);
	c->tty_raw = false;
	if (c->owned)
		close(c->out_fd);
	c->owned = false;
}
