/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The exit-code contract of every command (docs/exit-codes.md):
 *   0    success: the guest powered off or reset cleanly; a server stopped
 *        by SIGINT/SIGTERM or left by its client
 *   1    a runtime failure of stainless or the host, after one line saying what
 *   2    bad usage or a bad value on the command line
 *   3    the guest failed: a triple fault, a crash it reported, a halt
 *        with interrupts off
 *   128+N  `run` stopped by signal N (SIGTERM: 143); 159 (SIGSYS) a
 *        thread killed by its seccomp filter
 */
#ifndef STAINLESS_BASE_EXIT_H
#define STAINLESS_BASE_EXIT_H

enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1,
	EXIT_USAGE = 2,
	EXIT_GUEST = 3,
};

/*
 * The one mapping of a command's result to the process's exit status:
 * an exit code (0..255) passes as it is; a -errno (whose line was already
 * printed) is a runtime failure, never its raw value modulo 256.
 */
int exit_status(int result);

#endif
