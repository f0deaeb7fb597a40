// SPDX-License-Identifier: GPL-2.0-only
/*
 * The user namespace's id maps, written by the supervisor for its child
 * (see sandbox.h). Without root a process may map only its own uid and
 * gid, once each, and only after denying setgroups in the namespace;
 * more ids (--uid-map/--gid-map beyond one's own) come from the setuid
 * helpers newuidmap/newgidmap and /etc/subuid, as for rootless containers.
 * A process holding CAP_SETUID and CAP_SETGID (root, or a container's
 * process that kept them: the crun handler's) writes any map of its own
 * namespace's ids itself, whatever its uid.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/creds.h"
#include "base/fail.h"
#include "sandbox/sandbox_int.h"

static int write_file(pid_t pid, const char *name, const char *text)
{
	char path[64];
	size_t len = strlen(text);
	int fd, r = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		r = -errno;
	close(fd);
	return r;
}

static void map_text(char *buf, size_t size, const struct sandbox_idmap *m, unsigned n)
{
	size_t used = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%u %u %u\n",
					 m[i].inside, m[i].outside, m[i].count);
}

/* newuidmap PID IN OUT COUNT...: 0, or -errno (-ENOENT: not installed). */
static int run_helper(const char *helper, pid_t pid, const struct sandbox_idmap *m, unsigned n)
{
	char nums[SANDBOX_IDMAPS_MAX * 3 + 1][12];
	char *argv[SANDBOX_IDMAPS_MAX * 3 + 3];
	int st, k = 0;
	pid_t h;

	argv[k++] = (char *)helper;
	snprintf(nums[0], sizeof(nums[0]), "%d", (int)pid);
	argv[k++] = nums[0];
	for (unsigned i = 0; i < n; i++) {
		const uint32_t v[3] = { m[i].inside, m[i].outside, m[i].count };
		for (int j = 0; j < 3; j++) {
			snprintf(nums[k - 1], sizeof(nums[0]), "%u", v[j]);
			argv[k] = nums[k - 1];
			k++;
		}
	}
	argv[k] = NULL;
	h = fork();
	if (h < 0)
		return -errno;
	if (h == 0) {
		execvp(helper, argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	if (waitpid(h, &st, 0) < 0)
		return -errno;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		return -ENOENT;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EPERM;
}

static bool only_self(const struct sandbox_idmap *m, unsigned n, uint32_t self)
{
	return n == 1 && m[0].outside == self && m[0].count == 1;
}

int sandbox_write_idmaps(struct sandbox *sb, pid_t child)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	/* run: the user is the guest's root; host front ends: itself (sandbox.h). */
	struct sandbox_idmap du = { sb->host_ids ? uid : 0, uid, 1 };
	struct sandbox_idmap dg = { sb->host_ids ? gid : 0, gid, 1 };
	const struct sandbox_idmap *um = sb->opts.nuid ? sb->opts.uid : &du;
	const struct sandbox_idmap *gm = sb->opts.ngid ? sb->opts.gid : &dg;
	unsigned nu = sb->opts.nuid ? sb->opts.nuid : 1, ng = sb->opts.ngid ? sb->opts.ngid : 1;
	bool set_ids = fs_caps_effective(CAP_SETUID) && fs_caps_effective(CAP_SETGID);
	char text[SANDBOX_IDMAPS_MAX * 36];
	int r;

	if (!set_ids && (!only_self(um, nu, uid) || !only_self(gm, ng, gid))) {
		r = run_helper("newuidmap", child, um, nu);
		if (r == 0)
			r = run_helper("newgidmap", child, gm, ng);
		if (r == -ENOENT)
			return fail(r, "sandbox: --uid-map/--gid-map beyond your own ids need "
					    "newuidmap and newgidmap (Debian package uidmap)");
		if (r < 0)
			return fail(r, "sandbox: newuidmap/newgidmap refused the maps "
					    "(see /etc/subuid and /etc/subgid)");
		return 0;
	}
	/* Without CAP_SETGID, gid_map needs setgroups denied first (user_namespaces(7)). */
	if (!fs_caps_effective(CAP_SETGID) && (r = write_file(child, "setgroups", "deny")) < 0)
		return fail(r, "sandbox: setgroups: %s", strerror(-r));
	map_text(text, sizeof(text), um, nu);
	if ((r = write_file(child, "uid_map", text)) < 0)
		return fail(r, "sandbox: uid_map: %s", strerror(-r));
	map_text(text, sizeof(text), gm, ng);
	if ((r = write_file(child, "gid_map", text)) < 0)
		return fail(r, "sandbox: gid_map: %s", strerror(-r));
	return 0;
}

static bool sysctl_is_zero(const char *path)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return strcmp(buf, "0\n") == 0 || strcmp(buf, "0") == 0;
}

void sandbox_explain_userns(const struct sandbox *sb, int err)
{
	if (sysctl_is_zero("/proc/sys/kernel/unprivileged_userns_clone"))
		fail(err, "sandbox: this host forbids unprivileged user namespaces "
			     "(kernel.unprivileged_userns_clone=0): run as root, or with "
			     "--sandbox none");
	else if (sysctl_is_zero("/proc/sys/user/max_user_namespaces"))
		fail(err, "sandbox: this host forbids user namespaces "
			     "(user.max_user_namespaces=0): run as root, or with --sandbox none");
	else
		fail(err, "sandbox: cannot create a user namespace: %s", strerror(-err));
}
