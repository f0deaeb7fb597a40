/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * seccomp for every thread role (base/thread.h): the policy
 * (seccomp_policy.c), one BPF program per role built with libseccomp
 * before any thread starts, `--seccomp kill|log|trap|none` and
 * `--print-seccomp ROLE` for run, fuse-mount, 9p-serve (and vhost-user-fs),
 * and the report of a thread that made a forbidden call.
 *
 *   kill  (default) a forbidden call kills the process at once
 *         (SECCOMP_RET_KILL_PROCESS, exit by SIGSYS); the kernel's audit
 *         line (dmesg: type=1326 ... comm="<thread>" syscall=<nr>) names
 *         the call and the thread, whose name says its role;
 *   trap  the thread's SIGSYS handler writes one line naming the call and
 *         the role on stderr, then the process dies of SIGSYS as in kill;
 *   log   nothing is refused; the kernel logs what would have been;
 *   none  no filter (one warning line).
 *
 * Order (fs_thread.h): sandbox set-up first, then sc_setup(), then the
 * command's threads; sc_setup() itself starts no thread.
 */
#ifndef STAINLESS_SANDBOX_SECCOMP_H
#define STAINLESS_SANDBOX_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/thread.h"

struct sock_fprog;

enum sc_mode { SC_KILL, SC_LOG, SC_TRAP, SC_NONE };

/* Whose main thread the control role is (its rules differ by command). */
enum sc_command { SC_CMD_RUN, SC_CMD_FUSE_MOUNT, SC_CMD_9P_SERVE, SC_CMD_VHOST_USER };

struct sc_opts {
	enum sc_mode mode;
	const char *print_role;   /* --print-seccomp ROLE, or NULL */
};

/*
 * Takes --seccomp MODE and --print-seccomp ROLE (also with '=') out of a
 * command's argv (argv[0] is the command; nothing after "--"), so each
 * command's own parser never sees them. 0, or -EINVAL with a one-line
 * reason in err (bad mode, unknown role, missing value).
 */
int sc_take_args(int *argc, char **argv, struct sc_opts *o, char *err, size_t errlen);

/* The role --print-seccomp names, or -EINVAL. Roles that have no thread
 * under cmd (a vCPU in 9p-serve) are still printed: their rules exist. */
int sc_role_by_name(const char *name);

/*
 * fuse-mount --passthrough: the serving roles (fuse-reader, fuse-uring)
 * may talk to the registrar (sendmsg/recvmsg). Before the filters are
 * built (sandbox_enter()); off by default.
 */
void sc_allow_registrar_client(bool on);

/* Writes role's rules under cmd, one per line with its reason. */
void sc_print_role(FILE *f, enum sc_command cmd, enum fs_role role, enum sc_mode mode);

/* How many distinct system calls role may make under cmd. */
unsigned sc_role_syscalls(enum sc_command cmd, enum fs_role role);

/*
 * Builds role's program under cmd and mode into *prog (free with
 * sc_free()). 0 or -errno. Tests install it themselves.
 */
int sc_build(enum sc_command cmd, enum fs_role role, enum sc_mode mode,
	     struct sock_fprog *prog);
void sc_free(struct sock_fprog *prog);

/*
 * Builds every role's program and hands them to fs_thread_set_filter();
 * in trap mode installs the SIGSYS reporter; with none prints the warning.
 * 0, or -errno with a reason in err.
 */
int sc_setup(enum sc_command cmd, enum sc_mode mode, char *err, size_t errlen);

/*
 * Kill mode's report, for a parent that waits for the process holding the
 * filters (the sandbox's outer process): open the kernel log before that
 * process starts (-1 when it cannot be read: no privilege, no /dev/kmsg),
 * then, with its pid and wait status, one line on f when it died of
 * SIGSYS: the call and the thread (its name says its role) from the
 * kernel's seccomp audit record when the log can be read, else how to
 * find them. Nothing when it did not die of SIGSYS. pid -1: the last
 * such record of a stainless thread in the log (for a supervisor that
 * learns of the death only from the exit code 128 + SIGSYS).
 */
int sc_report_open(void);
void sc_report_exit(FILE *f, int kmsg_fd, int pid, int status);
/* Exposed for tests: from a kernel log record, pid's seccomp kill (0) or -1. */
int sc_audit_record(const char *rec, int pid, char *comm, size_t commlen, int *nr);

#endif
