/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `run`'s console: where the UART's output goes (stdout, a file, nowhere),
 * the host terminal in raw mode while the guest runs, and the input thread
 * (role console) that feeds stdin to the UART. Ctrl-A x quits, as in QEMU.
 *
 * Input has a thread of its own so that the bytes a user (or whatever is
 * piped in) types are handled under a filter that can do little else:
 * read stdin, poll, queue bytes in the UART and raise its interrupt.
 */
#ifndef STAINLESS_VMM_CONSOLE_H
#define STAINLESS_VMM_CONSOLE_H

#include <pthread.h>
#include <stdbool.h>
#include <termios.h>

#include "vmm/vm_config.h"
#include "vmm/serial.h"

/* The quit key's answer: stop the VM with exit code 0. */
typedef void console_quit_fn(void *ctx);

struct console {
	enum vm_console kind;
	int out_fd;               /* the UART's output, -1: none */
	bool owned;               /* out_fd is a file we opened */
	bool tty_raw;
	struct termios saved_tio;
	struct serial *serial;
	int stop_fd;              /* readable once the VM stops; not owned */
	console_quit_fn *quit;
	void *ctx;
	pthread_t thread;
	bool started;
};

/* Opens the output (and makes a terminal on stdin raw). 0 or -errno, with a
 * one-line reason in err. */
int console_open(struct console *c, enum vm_console kind, const char *path,
		 char *err, unsigned errlen);

/* With --console stdio, starts the input thread. 0 or -errno. */
int console_start_input(struct console *c, struct serial *s, int stop_fd,
			console_quit_fn *quit, void *ctx);

/* Ends the input thread (stop_fd must be readable by now), restores the
 * terminal and closes the output. */
void console_close(struct console *c);

#endif
