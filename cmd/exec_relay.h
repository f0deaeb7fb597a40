/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `stainless exec`'s host side once the VMM runs: a process of one thread
 * (seccomp role exec-relay) that accepts the guest init's four vsock
 * streams (Unix sockets, Firecracker's convention: a guest connect to host
 * port P reaches UDS_P), sends the command on the control stream, copies
 * stdin to the guest and the guest's stdout and stderr to its own, passes
 * SIGINT/SIGTERM/SIGHUP (and SIGWINCH's new size) on, and reads the
 * command's status (cmd/exec_wire.h).
 */
#ifndef STAINLESS_CMD_EXEC_RELAY_H
#define STAINLESS_CMD_EXEC_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum { EXEC_CTL, EXEC_IN, EXEC_OUT, EXEC_ERR, EXEC_STREAMS };

struct exec_relay {
	int listen[EXEC_STREAMS];   /* bound and listening, closed once accepted */
	pid_t vmm;
	int vmm_pidfd;
	bool tty;                   /* stdin is a terminal: it goes raw meanwhile */
	uint8_t *spec;              /* the command's frames, malloc'd; sent first */
	size_t spec_len;
};

/*
 * Runs until the command's status is in and its output is all out, or the
 * VMM ends. Returns the exit code: the command's (exec_result_status),
 * 128+N when a signal stopped stainless before the guest took the
 * command, the VMM's own code when it failed, 1 after a line saying why
 * when the guest broke the protocol or stopped without a status.
 * Reaps the VMM. Takes every fd of r (and r->spec).
 */
int exec_relay_run(struct exec_relay *r);

/* Appends one frame to r->spec (the command, before the relay runs). 0 or -errno. */
int exec_relay_queue(struct exec_relay *r, uint8_t type, const void *data, size_t len);

#endif
