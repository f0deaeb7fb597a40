// SPDX-License-Identifier: GPL-2.0-only
/*
 * crun handler "stainless" (annotation run.oci.handler=stainless): the
 * container's process becomes the process of a microVM whose root is the
 * container's root over virtio-fs, run by `stainless exec`.
 *
 * crun does everything it does for any container (namespaces, cgroup,
 * mounts, the user and capabilities, pivot_root); then, where it would
 * execv() the process, it calls run_func, which execs stainless instead.
 * What the VMM needs and the container has not got is lent read-only:
 *   - the tools directory (STAINLESS_CRUN_TOOLS: stainless, its loader and
 *     libraries, the guest kernel; dist/crun/mktools makes it) is bind
 *     mounted read-only, nosuid, nodev at /dev/.stainless, inside the
 *     container's own /dev tmpfs, so nothing is written to its rootfs;
 *   - /dev/kvm must come from the configuration (linux.devices; podman
 *     --device /dev/kvm): the plugin does not widen the container's device
 *     policy, it checks the node is there and says what to add if not.
 * crun exec is refused: a second process would need an agent in the guest.
 * crun's own environment (read at load, before crun replaces it with the
 * container's) may name another tools directory (STAINLESS_CRUN_TOOLS)
 * and exec's seccomp mode (STAINLESS_CRUN_SECCOMP=log, the tests' pass).
 */
#include "dist/crun/crun_handler.h"
#include "dist/crun/oci_args.h"
#include "base/creds.h"
#include "sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#ifndef STAINLESS_CRUN_TOOLS
#define STAINLESS_CRUN_TOOLS "/usr/local/lib/stainless/crun"
#endif

/* Where the tools appear in the container (and so in the guest's root share's /dev, which the
 * guest's init covers with its own devtmpfs). */
#define IN_TOOLS "/dev/.stainless"
/* The container's root again, as a directory the VMM can share (its sandbox
 * will not share "/" itself, the root it pivots away from). */
#define IN_ROOT "/dev/.stainless-root"

#define KVM_MAJOR 10
#define KVM_MINOR 232

struct sh_state {
	char tools[4096];	/* on the host */
	char seccomp[8];	/* STAINLESS_CRUN_SECCOMP: exec's --seccomp, or "" */
	char *config;		/* config.json's text, read before the mounts */
};

static int sh_error(libcrun_error_t *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* An error crun prints and frees (free(msg), free(err)); its own maker is not exported. */
static int sh_error(libcrun_error_t *err, int errnum, const char *fmt, ...)
{
	struct libcrun_error_s *e = calloc(1, sizeof(*e));
	char *msg = NULL, *full = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (e && msg && errnum &&
	    asprintf(&full, "stainless handler: %s: %s", msg, strerror(errnum)) < 0)
		full = NULL;
	else if (e && msg && !errnum && asprintf(&full, "stainless handler: %s", msg) < 0)
		full = NULL;
	free(msg);
	if (e && full) {
		e->status = errnum;
		e->msg = full;
		*err = e;
	} else {
		free(e);
		free(full);
	}
	return -(errnum ? errnum : EINVAL);
}

static int sh_load(void **cookie, libcrun_error_t *err)
{
	struct sh_state *st = calloc(1, sizeof(*st));
	const char *tools = getenv("STAINLESS_CRUN_TOOLS");
	const char *seccomp = getenv("STAINLESS_CRUN_SECCOMP");

	if (!st)
		return sh_error(err, ENOMEM, "cannot allocate its state");
	/* crun's own environment (the host's), never the container's. */
	snprintf(st->tools, sizeof(st->tools), "%s", tools && *tools ? tools : STAINLESS_CRUN_TOOLS);
	/* The tests' log pass (tests/e2e/cases/crun.sh); stainless checks the word. */
	if (seccomp && *seccomp && strlen(seccomp) < sizeof(st->seccomp) &&
	    strspn(seccomp, "abcdefghijklmnopqrstuvwxyz") == strlen(seccomp))
		snprintf(st->seccomp, sizeof(st->seccomp), "%s", seccomp);
	*cookie = st;
	return 0;
}

static int sh_unload(void *cookie, libcrun_error_t *err)
{
	struct sh_state *st = cookie;

	if (st)
		free(st->config);
	free(st);
	return 0;
}

static int read_text(const char *path, char **out)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f)
		return -errno;
	do {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 16384);

			if (!nb || cap > (64u << 20)) {
				free(nb ? nb : buf);
				fclose(f);
				return nb ? -EFBIG : -ENOMEM;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, 4096, f);
		len += got;
	} while (got > 0);
	fclose(f);
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/* Before the mounts, the configuration is still reachable where crun loaded it. */
static int keep_config(struct sh_state *st, libcrun_container_t *c, libcrun_error_t *err)
{
	int rc;

	free(st->config);
	st->config = NULL;
	if (c->config_file_content) {
		st->config = strdup(c->config_file_content);
		return st->config ? 0 : sh_error(err, ENOMEM, "cannot copy config.json");
	}
	if (!c->config_file)
		return sh_error(err, 0, "crun gave no configuration to read");
	rc = read_text(c->config_file, &st->config);
	if (rc < 0)
		return sh_error(err, -rc, "cannot read %s", c->config_file);
	return 0;
}

static int open_beneath(int dirfd, const char *name, int flags)
{
	struct open_how how = {
		.flags = (unsigned)flags | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, dirfd, name, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

/*
 * The container's /dev, as a tmpfs of its own (the configuration mounts
 * one; crun's default and podman's do): an image's own dev directory, or
 * a symlink in its place, is refused, so the bind below can only land in
 * the container's private tmpfs.
 */
static int open_dev(const char *rootfs, libcrun_error_t *err)
{
	int root = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct statfs sfs;
	int dev;

	if (root < 0)
		return sh_error(err, errno, "open the container's root %s", rootfs);
	dev = open_beneath(root, "dev", O_PATH | O_DIRECTORY);
	close(root);
	if (dev < 0)
		return sh_error(err, -dev, "open the container's /dev");
	if (fstatfs(dev, &sfs) < 0 || sfs.f_type != TMPFS_MAGIC) {
		close(dev);
		return sh_error(err, 0, "the container's /dev is not a tmpfs of its own: the "
				"configuration must mount one (crun spec's and podman's do)");
	}
	return dev;
}

static int check_kvm(int dev, libcrun_error_t *err)
{
	struct stat st;

	if (fstatat(dev, "kvm", &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISCHR(st.st_mode) ||
	    major(st.st_rdev) != KVM_MAJOR || minor(st.st_rdev) != KVM_MINOR)
		return sh_error(err, 0, "the container has no /dev/kvm: add it to linux.devices "
				"and allow c 10:232 rwm in linux.resources.devices (podman: "
				"--device /dev/kvm)");
	return 0;
}

static int mount_tools(struct sh_state *st, int dev, libcrun_error_t *err)
{
	char target[64];
	int dir, rc = 0;

	if (mkdirat(dev, ".stainless", 0755) < 0 && errno != EEXIST)
		return sh_error(err, errno, "mkdir /dev/.stainless in the container");
	dir = open_beneath(dev, ".stainless", O_PATH | O_DIRECTORY);
	if (dir < 0)
		return sh_error(err, -dir, "open /dev/.stainless in the container");
	snprintf(target, sizeof(target), "/proc/self/fd/%d", dir);
	if (mount(st->tools, target, NULL, MS_BIND | MS_REC, NULL) < 0)
		rc = sh_error(err, errno, "bind %s on the container's " IN_TOOLS, st->tools);
	close(dir);
	if (rc < 0)
		return rc;
	/* Read-only, no set-id, no devices: the guest process can read the tools, nothing more. */
	dir = open_beneath(dev, ".stainless", O_PATH | O_DIRECTORY);
	if (dir < 0)
		return sh_error(err, -dir, "open the bound " IN_TOOLS);
	snprintf(target, sizeof(target), "/proc/self/fd/%d", dir);
	if (mount(NULL, target, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
		  NULL) < 0)
		rc = sh_error(err, errno, "make " IN_TOOLS " read-only");
	close(dir);
	return rc;
}

/*
 * The container's whole mount tree (crun's mounts made, before pivot_root)
 * bound again at /dev/.stainless-root, read-only if root.readonly: crun's
 * read-only remount of the root, which comes later, does not reach a
 * second bind of it.
 */
static int mount_root(struct sh_state *st, int dev, const char *rootfs, libcrun_error_t *err)
{
	char target[64];
	int dir, rc = 0;

	if (mkdirat(dev, ".stainless-root", 0755) < 0 && errno != EEXIST)
		return sh_error(err, errno, "mkdir " IN_ROOT " in the container");
	dir = open_beneath(dev, ".stainless-root", O_PATH | O_DIRECTORY);
	if (dir < 0)
		return sh_error(err, -dir, "open " IN_ROOT " in the container");
	snprintf(target, sizeof(target), "/proc/self/fd/%d", dir);
	if (mount(rootfs, target, NULL, MS_BIND | MS_REC, NULL) < 0)
		rc = sh_error(err, errno, "bind the container's root on " IN_ROOT);
	close(dir);
	if (rc < 0 || !oci_root_readonly(st->config))
		return rc;
	dir = open_beneath(dev, ".stainless-root", O_PATH | O_DIRECTORY);
	if (dir < 0)
		return sh_error(err, -dir, "open the bound " IN_ROOT);
	snprintf(target, sizeof(target), "/proc/self/fd/%d", dir);
	if (mount(NULL, target, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0)
		rc = sh_error(err, errno, "make " IN_ROOT " read-only (root.readonly)");
	close(dir);
	return rc;
}

static int configure(struct sh_state *st, enum handler_configure_phase phase,
		     libcrun_container_t *c, const char *rootfs, libcrun_error_t *err)
{
	int dev, rc;

	if (phase == HANDLER_CONFIGURE_BEFORE_MOUNTS)
		return keep_config(st, c, err);
	if (phase != HANDLER_CONFIGURE_AFTER_MOUNTS)
		return 0;
	if (!rootfs)
		return sh_error(err, 0, "crun gave no root file system");
	if (access(st->tools, R_OK | X_OK) < 0)
		return sh_error(err, errno, "tools directory %s (make install-crun, "
				"docs/containers.md)", st->tools);
	dev = open_dev(rootfs, err);
	if (dev < 0)
		return dev;
	rc = check_kvm(dev, err);
	if (rc == 0)
		rc = mount_tools(st, dev, err);
	if (rc == 0)
		rc = mount_root(st, dev, rootfs, err);
	close(dev);
	return rc;
}

/*
 * crun 1.8.1 replaces an error from the mounts' phases with its own line
 * built from errno ("failed configuring mounts for handler ..."), so the
 * reason is printed here, and errno carries the code.
 */
static int sh_configure(void *cookie, enum handler_configure_phase phase, libcrun_context_t *ctx,
			libcrun_container_t *c, const char *rootfs, libcrun_error_t *err)
{
	int rc = configure(cookie, phase, c, rootfs, err);

	if (rc < 0 && phase != HANDLER_CONFIGURE_BEFORE_MOUNTS && *err) {
		fprintf(stderr, "%s\n", (*err)->msg);
		free((*err)->msg);
		free(*err);
		*err = NULL;
		errno = -rc;
	}
	return rc;
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * --uid-map/--gid-map NAME: every id this namespace has (its
 * /proc/self/uid_map's first and last columns), each mapped to itself, so
 * the VMM's user namespace holds the container's ids as they are: a
 * process.user of 1000 is 1000 in the guest and on the host, a rootfs's
 * root- and nobody-owned files keep their owners. -ERANGE: more lines
 * than the sandbox takes.
 */
static int push_own_ids(struct oci_args *a, const char *name)
{
	char path[32], line[128];
	unsigned in, out, count, n = 0;
	int rc = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/%s", name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%u %u %u", &in, &out, &count) != 3)
			continue;
		rc = ++n > SANDBOX_IDMAPS_MAX ? -ERANGE :
			oci_args_push(a, "--%.3s-map=:%u:%u:%u:", name, in, in, count);
	}
	fclose(f);
	return rc < 0 ? rc : n ? 0 : -ENOENT;
}

/*
 * The VMM's sandbox takes its namespaces from a user namespace (crun left
 * the process its configured user and capabilities, not CAP_SYS_ADMIN).
 * With CAP_SETUID and CAP_SETGID it maps all the container's ids; without,
 * a process may map only its own uid and gid, which become the sandbox's
 * root, as for a rootless user (the guest's other users are then unmapped).
 */
static int push_idmaps(struct oci_args *a, char *msg, size_t msglen)
{
	int rc;

	if (fs_caps_effective(CAP_SETUID) && fs_caps_effective(CAP_SETGID)) {
		rc = push_own_ids(a, "uid_map");
		if (rc == 0)
			rc = push_own_ids(a, "gid_map");
		if (rc < 0 && rc != -ENOMEM)
			snprintf(msg, msglen, "the container's id maps: %s", rc == -ERANGE ?
				 "more lines than stainless's sandbox takes" : strerror(-rc));
		return rc;
	}
	rc = oci_args_push(a, "--uid-map=:0:%u:1:", (unsigned)getuid());
	return rc ? rc : oci_args_push(a, "--gid-map=:0:%u:1:", (unsigned)getgid());
}

/* Called by crun in the container, where it would execv() pathname. */
static int sh_run(void *cookie, libcrun_container_t *c, const char *pathname, char *const argv[])
{
	static char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	struct sh_state *st = cookie;
	struct oci_args a = { 0 };
	char msg[512];
	int rc;

	if (!st || !st->config) {
		fprintf(stderr, "stainless handler: the configuration was not read before the mounts\n");
		return EINVAL;
	}
	rc = oci_args_push(&a, IN_TOOLS "/loader");
	if (rc == 0)
		rc = oci_args_push(&a, "--library-path");
	if (rc == 0)
		rc = oci_args_push(&a, IN_TOOLS "/lib");
	if (rc == 0)
		rc = oci_args_push(&a, IN_TOOLS "/stainless");
	if (rc == 0)
		rc = oci_args_push(&a, "exec");
	if (rc == 0)
		rc = oci_args_push(&a, "--kernel=" IN_TOOLS "/vmlinux");
	if (rc == 0 && st->seccomp[0])
		rc = oci_args_push(&a, "--seccomp=%s", st->seccomp);
	msg[0] = '\0';
	if (rc == 0)
		rc = push_idmaps(&a, msg, sizeof(msg));
	if (rc == 0)
		rc = oci_to_exec_args(st->config, &a, is_dir, msg, sizeof(msg));
	if (rc == 0)
		rc = oci_args_push(&a, IN_ROOT);
	if (rc == 0)
		rc = oci_args_push(&a, "--");
	/* argv[0] as the configuration spells it: the guest resolves it in its own PATH. */
	for (size_t i = 0; rc == 0 && argv && argv[i]; i++)
		rc = oci_args_push(&a, "%s", argv[i]);
	if (rc < 0) {
		fprintf(stderr, "stainless handler: %s\n", msg[0] ? msg : strerror(-rc));
		oci_args_free(&a);
		return -rc;
	}
	execve(a.v[0], a.v, envp);
	rc = errno;
	fprintf(stderr, "stainless handler: exec %s: %s\n", a.v[0], strerror(rc));
	oci_args_free(&a);
	return rc;
}

static int sh_exec(void *cookie, libcrun_container_t *c, const char *pathname, char *const argv[])
{
	fprintf(stderr, "stainless handler: crun exec is not supported: the container's process "
		"runs in its own microVM, which has no agent to start a second process\n");
	return -ENOTSUP;
}

static struct custom_handler_s stainless_handler = {
	.name = "stainless",
	.feature_string = "STAINLESS",
	.alias = NULL,
	.load = sh_load,
	.unload = sh_unload,
	.run_func = sh_run,
	.exec_func = sh_exec,
	.configure_container = sh_configure,
	/* Only by name: a container that did not ask keeps its usual runtime. */
	.can_handle_container = NULL,
	.modify_oci_configuration = NULL,
};

__attribute__((visibility("default"))) struct custom_handler_s *run_oci_handler_get_handler(void)
{
	return &stainless_handler;
}
