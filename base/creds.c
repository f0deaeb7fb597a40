// SPDX-License-Identifier: GPL-2.0-only
/* Per-thread credentials and capabilities (see creds.h). */
#include "base/creds.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * Whether this process switches ids per request, and the ids it returns
 * to. Root does; so does a server in a user namespace that maps more ids
 * than its own (fs_creds_switch_ids), whatever its own id is there: with
 * fuse-mount's maps that keep ids it is the user, not 0. Set before any
 * serving thread starts and only read after.
 */
static int switching = -1;      /* -1: not decided yet (root or not) */
static uid_t own_uid;
static gid_t own_gid;

void fs_creds_switch_ids(uid_t uid, gid_t gid)
{
	switching = 1;
	own_uid = uid;
	own_gid = gid;
}

static bool switches(void)
{
	if (switching < 0)
		switching = geteuid() == 0; /* own ids 0 */
	return switching;
}

/*
 * This thread's fsuid as last set here, where that is sure to have taken
 * effect (a switching process whose own uid is 0), else -1: a raise to 0
 * that is already in effect then costs no call, which is most of them (a
 * lookup raises twice, and a request from root switches nothing).
 */
static __thread long fsuid_now = -1;

static void fsuid_known(uid_t uid)
{
	if (switches() && own_uid == 0)
		fsuid_now = uid;
}

uid_t fs_creds_raise(void)
{
	uid_t was;

	if (fsuid_now == 0)
		return 0;
	was = (uid_t)setfsuid(0);
	fsuid_known(0);
	return was;
}

void fs_creds_lower(uid_t was)
{
	if (was == 0)
		return;
	setfsuid(was);
	fsuid_known(was);
}

int fs_creds_set(uid_t uid, gid_t gid, const gid_t *groups, size_t ngroups)
{
	if (!switches())
		return 0;
	/*
	 * Groups first, while fsuid is still 0 and we may change them. EPERM
	 * with CAP_SETGID held means a user namespace whose setgroups is
	 * denied (rootless, the one self-mapping: sandbox_idmap.c): the thread
	 * keeps the groups it has, which are the user's own.
	 */
	if (syscall(SYS_setgroups, ngroups, groups) < 0 && errno != EPERM)
		return -errno;
	setfsgid(gid);
	if ((gid_t)setfsgid((gid_t)-1) != gid)
		return -EPERM;
	setfsuid(uid);
	if ((uid_t)setfsuid((uid_t)-1) != uid) {
		fsuid_now = -1;
		return -EPERM;
	}
	fsuid_known(uid);
	return 0;
}

void fs_creds_reset(void)
{
	if (!switches())
		return;
	setfsuid(own_uid);
	fsuid_known(own_uid);
	setfsgid(own_gid);
	syscall(SYS_setgroups, 0, NULL);
}

/* Written once by the command before any thread; read after. */
static bool devices;

void fs_caps_allow_devices(bool on)
{
	devices = on;
}

bool fs_caps_devices(void)
{
	return devices;
}

uint64_t fs_caps_keep(void)
{
	return FS_CAPS_KEEP | (devices ? 1ull << CAP_MKNOD : 0);
}

bool fs_caps_effective(int cap)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	return cap >= 0 && cap < 32 * _LINUX_CAPABILITY_U32S_3 &&
	       syscall(SYS_capget, &h, d) == 0 && (d[cap / 32].effective & (1u << (cap % 32)));
}

int fs_caps_limit(void)
{
	return fs_caps_limit_to(fs_caps_keep());
}

int fs_caps_limit_to(uint64_t keep_mask)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	/* pid 0: this thread alone, which is the point. */
	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	/*
	 * The bounding set first, while CAP_SETPCAP may still be ours. It
	 * ends at EPERM (no CAP_SETPCAP: the bounding set stays, fine) or
	 * EINVAL (past the kernel's last capability).
	 */
	for (int cap = 0; cap < 64; cap++) {
		if (keep_mask & (1ull << cap))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
			break;
	}
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		uint32_t keep = (uint32_t)(keep_mask >> (32 * i));

		d[i].effective &= keep;
		d[i].permitted &= keep;
		d[i].inheritable &= keep;
	}
	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

int fs_caps_limit_once(void)
{
	static __thread bool limited;
	int r;

	if (limited)
		return 0;
	r = fs_caps_limit();
	limited = r == 0;
	return r;
}
