/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The allow-lists (seccomp_policy.c): rules grouped by what they are for,
 * and each role a list of groups. Private to sandbox/seccomp.c and its tests.
 */
#ifndef STAINLESS_SANDBOX_SECCOMP_POLICY_H
#define STAINLESS_SANDBOX_SECCOMP_POLICY_H

#include <seccomp.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/thread.h"
#include "sandbox/seccomp.h"

#define SC_MAX_ARGS 2

/* One allowed call, or one answered with an error instead of a kill. */
struct sc_rule {
	int nr;                       /* SCMP_SYS(name) */
	int err;                      /* 0: allow; else fails with -err, never kills */
	unsigned nargs;               /* all must hold (several rules: any may) */
	struct scmp_arg_cmp args[SC_MAX_ARGS];
	const char *why;
};

struct sc_group {
	const char *name;
	const struct sc_rule *rules;
	unsigned n;
};

#define SC_MAX_GROUPS 32

/* The groups making up role under cmd (the spawner: every role's). Returns how many. */
unsigned sc_policy_groups(enum sc_command cmd, enum fs_role role,
			  const struct sc_group **out, unsigned max);

#endif
