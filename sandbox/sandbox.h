/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The process sandbox of every command that serves a share (`run`,
 * `fuse-mount`, `9p-serve`, `vhost-user-fs`): what the process could reach
 * even if a server had a bug. Two steps, because what a command must open
 * on the host (a kernel, a socket, /dev/fuse, its mount) and what it may
 * reach afterwards differ:
 *
 *   sandbox_enter()     right after the command line, before any thread:
 *                       namespace mode forks into new mount, pid, ipc, uts
 *                       and net namespaces (and a user namespace when not
 *                       root). The parent stays behind as a supervisor that
 *                       forwards SIGINT/SIGTERM/SIGHUP and passes the
 *                       child's exit status through; the child returns and
 *                       carries on, still seeing the host's files (and in
 *                       the host's network until lockdown: its namespace
 *                       is made meanwhile, see sandbox.c). The supervisor
 *                       and the pid-1 relay between them run under seccomp
 *                       roles of their own (FS_ROLE_SUPERVISOR, _RELAY).
 *   sandbox_lockdown()  once the command has opened what it needs from the
 *                       host, before its first thread and its first guest
 *                       instruction or client request: a tmpfs root holding
 *                       only the shares (nodev, nosuid; read-only shares
 *                       read-only), the device nodes asked for and a
 *                       pid-only /proc; pivot_root, the old root detached;
 *                       then no_new_privs, the capabilities a passthrough
 *                       needs (fs_caps_keep()) and no others, RLIMIT_NOFILE
 *                       fixed at the fd budget, RLIMIT_CORE 0.
 *
 * chroot mode (virtiofsd's --sandbox chroot, for hosts without namespaces)
 * forks nothing and chroots into the one share at lockdown; none only
 * warns. Threads started after lockdown inherit all of it.
 */
#ifndef STAINLESS_SANDBOX_SANDBOX_H
#define STAINLESS_SANDBOX_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum sandbox_mode { SANDBOX_NAMESPACE, SANDBOX_CHROOT, SANDBOX_NONE };

/* One line of a user namespace's uid_map or gid_map. */
struct sandbox_idmap {
	uint32_t inside, outside, count;
};

#define SANDBOX_IDMAPS_MAX 8
#define SANDBOX_SHARES_MAX 24
#define SANDBOX_DEVS_MAX   4
#define SANDBOX_KEEP_MAX   6

/* What the command line says (sandbox_opt). */
struct sandbox_opts {
	enum sandbox_mode mode;
	unsigned nuid, ngid;
	struct sandbox_idmap uid[SANDBOX_IDMAPS_MAX], gid[SANDBOX_IDMAPS_MAX];
};

/* For usage lines. */
#define SANDBOX_USAGE "[--sandbox namespace|chroot|none] [--uid-map :IN:OUT:COUNT:] " \
		      "[--gid-map :IN:OUT:COUNT:]"

void sandbox_opts_init(struct sandbox_opts *o);

/*
 * One command-line option, name without its dashes: "sandbox" (value
 * namespace, chroot or none), "no-sandbox" (no value: none), "uid-map" and
 * "gid-map" (virtiofsd's ":namespace_id:host_id:count:", repeatable).
 * 0: taken; 1: not a sandbox option; -EINVAL with a one-line reason in err.
 */
int sandbox_opt(struct sandbox_opts *o, const char *name, const char *value,
		char *err, size_t errlen);
/* Whether sandbox_opt(name) wants a value (the argv loops ask first). */
bool sandbox_opt_has_value(const char *name);

/*
 * In the supervisor (the parent left behind in namespace mode), never in
 * the sandboxed child. stop: a stop signal arrived; return true to forward
 * it to the child as well (NULL: always forward). ended: the child is gone
 * with wait status status, to clean up what it made on the host.
 */
struct sandbox_hooks {
	bool (*stop)(void *ctx, int sig);
	void (*ended)(void *ctx, int status);
	void *ctx;
};

struct sandbox_bind {
	char *path;             /* canonical: where it is inside the new root too */
	const char *orig;       /* as the command named it */
	bool readonly;
	bool device;            /* a device node: not nodev */
	bool file;              /* a file (a device node, or a user database) */
};

struct sandbox {
	struct sandbox_opts opts;
	const char *cmd;        /* "run", "fuse-mount", ...: messages */
	/*
	 * Clients name host ids (fuse-mount, 9p-serve: the host kernel and host
	 * processes): without root, map the user to itself. Otherwise (run:
	 * a guest's ids) the user is root inside.
	 */
	bool host_ids;
	/*
	 * The client is the host's own kernel (fuse-mount): its requests, and
	 * the attributes and permission checks (default_permissions) it bases
	 * on the replies, are in host ids, which the server passes to the
	 * kernel unchanged. So every --uid-map/--gid-map line must keep the
	 * ids it names (inside = outside): any other map would give a caller's
	 * file to another host id and show the user's own files as root's.
	 */
	bool kernel_ids;
	/*
	 * Some share has `devices`: only then may the servers make character
	 * and block device nodes, so only then do they keep CAP_MKNOD and does
	 * their seccomp filter allow those modes (fs_caps_allow_devices(),
	 * which sandbox_enter() calls before the filters are built).
	 */
	bool devices;
	struct sandbox_hooks hooks;
	unsigned nbinds;
	struct sandbox_bind binds[SANDBOX_SHARES_MAX + SANDBOX_DEVS_MAX];
	/* fds only the process that cleans up on the host uses (sandbox_keep_fd). */
	unsigned nkeep;
	int keep[SANDBOX_KEEP_MAX];
	/* State. */
	bool userns;            /* the child is in a user namespace of its own */
	bool locked;
	pid_t child;            /* in the supervisor */
	int net_ready;          /* in the server: init's word that the net namespace is made */
};

/* A fresh sandbox for command cmd with the parsed options. */
void sandbox_init(struct sandbox *sb, const char *cmd, const struct sandbox_opts *o);

/*
 * See the top. 0: carry on (the sandboxed child, or no fork was needed);
 * 1: this is the supervisor and the child has ended: return *exit_code
 * from the command (a child killed by a signal kills the supervisor with
 * the same signal first); -errno after printing one line saying why.
 */
int sandbox_enter(struct sandbox *sb, int *exit_code);

/*
 * A share (a directory; readonly: mounted read-only) or a device node the
 * command opens after lockdown. Before sandbox_lockdown(); 0 or -errno.
 */
int sandbox_add_share(struct sandbox *sb, const char *path, bool readonly);
int sandbox_add_device(struct sandbox *sb, const char *path);

/*
 * The host's user database, read-only (/etc/passwd, /etc/group and
 * /etc/nsswitch.conf where they exist): the 9p server looks a client's
 * groups up there (getgrouplist). 0 or -errno.
 */
int sandbox_add_user_db(struct sandbox *sb);

/*
 * An fd of the command's that only the hooks use (fuse-mount's mountinfo,
 * abort file, fusermount3's socket). Namespace mode: the supervisor keeps
 * it past closing everything else, the sandboxed processes close it (a
 * socket to a helper that unmounts when it closes must be held by the
 * supervisor alone). Other modes: the process keeps it. Before
 * sandbox_enter(); 0 or -ENOSPC.
 */
int sandbox_keep_fd(struct sandbox *sb, int fd);

/*
 * The composition root's part of every supervisor (cmd/main.c): fn runs
 * there once the supervisor has closed the command's fds and before its
 * seccomp filter, to open what it reads under the filter (the kernel log,
 * for the kill report). Process-wide, before sandbox_enter().
 */
void sandbox_on_supervise(void (*fn)(void));

/* See the top. 0, or -errno after printing one line saying why. */
int sandbox_lockdown(struct sandbox *sb);

/*
 * The path to open a share added with sandbox_add_share() by, after
 * lockdown: its canonical path in namespace mode, "/" in chroot mode,
 * path itself without a sandbox.
 */
const char *sandbox_path(const struct sandbox *sb, const char *path);

#endif
