// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sandbox's credentials (see sandbox.h): limits first, while
 * CAP_SYS_RESOURCE may still raise them, then the capabilities, then
 * no_new_privs. The capability set is the servers' own (fs_caps_keep(),
 * fs_caps_limit in base/creds.c): the sandbox applies it to the whole
 * process before its first thread, the servers' per-thread call then finds
 * nothing more to drop, and the two cannot disagree.
 */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "base/fail.h"
#include "base/creds.h"
#include "sandbox/sandbox_int.h"

#define SANDBOX_CAPS_EXTRA (1ull << CAP_SYS_NICE)

static int limits(struct sandbox *sb)
{
	struct rlimit rl;

	/*
	 * RLIMIT_NOFILE as high as the fd budget will use, then fixed there:
	 * the budget is read from it once, and a server that could raise it
	 * later would only outgrow the budget. (Raised by sandbox_lockdown.)
	 */
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return fail(-errno, "sandbox: RLIMIT_NOFILE: %s", strerror(errno));
	rl.rlim_max = rl.rlim_cur;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		return fail(-errno, "sandbox: RLIMIT_NOFILE: %s", strerror(errno));
	/* A core of a server holds guest or client data. */
	rl = (struct rlimit){ 0, 0 };
	if (setrlimit(RLIMIT_CORE, &rl) < 0)
		return fail(-errno, "sandbox: RLIMIT_CORE: %s", strerror(errno));
	/*
	 * The reader threads go back from SCHED_IDLE to SCHED_OTHER
	 * (transport/fs_keeper.c), which CAP_SYS_NICE allowed; without it an
	 * RLIMIT_NICE of 20 does (nice 0, no higher). Best effort: only root
	 * may raise the hard limit, and without it the keeper works anyway.
	 */
	if (getrlimit(RLIMIT_NICE, &rl) == 0 && rl.rlim_cur < 20) {
		rl.rlim_cur = 20;
		if (rl.rlim_max < 20)
			rl.rlim_max = 20;
		(void)setrlimit(RLIMIT_NICE, &rl);
	}
	return 0;
}

int sandbox_drop_privileges(struct sandbox *sb)
{
	int r = limits(sb);

	if (r < 0)
		return r;
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	r = fs_caps_limit_to(fs_caps_keep() |
			     (sb->opts.mode == SANDBOX_NAMESPACE ? SANDBOX_CAPS_EXTRA : 0));
	if (r < 0)
		return fail(r, "sandbox: cannot drop capabilities: %s", strerror(-r));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(-errno, "sandbox: no_new_privs: %s", strerror(errno));
	return 0;
}
