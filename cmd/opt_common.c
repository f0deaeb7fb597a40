// SPDX-License-Identifier: GPL-2.0-only
/* The option groups commands share (see opt_common.h). */
#include "cmd/opt_common.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "base/fail.h"

const struct opt_def opt_group_fs[] = {
	{ "cache", 0, OPT_VALUE, "MODE", "auto", "how long the kernel may keep names, attributes "
	  "and data", "never auto always metadata", 0, OK_CACHE },
	{ "readonly", 0, OPT_FLAG, NULL, NULL, "refuse every change (EROFS)", NULL, 0, OK_READONLY },
	{ "xattr", 0, OPT_FLAG, NULL, NULL, "serve extended attributes (user.*, POSIX ACLs)",
	  NULL, 0, OK_XATTR },
	{ "xattr-map", 0, OPT_FLAG, NULL, NULL, "xattr, and keep security.* and trusted.* as "
	  "user.stainless.*", NULL, 0, OK_XATTR_MAP },
	{ "writeback", 0, OPT_FLAG, NULL, NULL, "let the kernel cache writes (writeback cache)",
	  NULL, 0, OK_WRITEBACK },
	{ "devices", 0, OPT_FLAG, NULL, NULL, "allow device nodes (mknod of char/block devices)",
	  NULL, 0, OK_DEVICES },
	{ 0 },
};

const struct opt_def opt_group_sandbox[] = {
	{ "sandbox", 0, OPT_VALUE, "MODE", "namespace", "confine the server: its own namespaces "
	  "and root, or a chroot, or none", "namespace chroot none", 0, OK_SANDBOX },
	{ "no-sandbox", 0, OPT_FLAG, NULL, NULL, "the same as --sandbox none", NULL, 0,
	  OK_NO_SANDBOX },
	{ "uid-map", 0, OPT_VALUE, ":IN:OUT:COUNT:", NULL, "a user namespace's uid map "
	  "(repeatable, virtiofsd's form)", NULL, OPT_REPEAT, OK_UID_MAP },
	{ "gid-map", 0, OPT_VALUE, ":IN:OUT:COUNT:", NULL, "its gid map (repeatable)", NULL,
	  OPT_REPEAT, OK_GID_MAP },
	{ 0 },
};

const struct opt_def opt_group_seccomp[] = {
	{ "seccomp", 0, OPT_VALUE, "MODE", "kill", "what a thread's forbidden system call does",
	  "kill log trap none", OPT_BEFORE, OK_SECCOMP },
	{ "print-seccomp", 0, OPT_VALUE, "ROLE", NULL, "print a thread role's seccomp rules and "
	  "exit", "control vcpu queue lock-wait console fuse-reader fuse-uring 9p-conn "
	  "vhost-user spawner supervisor relay vsock exec-relay", OPT_BEFORE, OK_PRINT_SECCOMP },
	{ 0 },
};

const struct opt_def opt_group_log[] = {
	{ "log-level", 0, OPT_VALUE, "LEVEL", "info", "the least a line must matter to be "
	  "logged; trace: one line per request", "error warn info debug trace off", 0,
	  OK_LOG_LEVEL },
	{ NULL, 'd', OPT_FLAG, NULL, NULL, "the same as --log-level debug", NULL, 0, OK_DEBUG },
	{ 0 },
};

const struct opt_def opt_group_stats[] = {
	{ "stats", 0, OPT_FLAG, NULL, NULL, "at exit, one line with the requests served", NULL, 0,
	  OK_STATS },
	{ 0 },
};

const struct opt_def opt_group_help[] = {
	{ "help", 'h', OPT_FLAG, NULL, NULL, "this text, then exit", NULL, 0, OK_HELP },
	{ "version", 'V', OPT_FLAG, NULL, NULL, "the version, then exit", NULL, 0, OK_VERSION_V },
	{ 0 },
};

static int take_fs(struct fs_options *o, int key, const char *v, char *err, size_t errlen)
{
	switch (key) {
	case OK_CACHE:
		if (fs_parse_cache(v, &o->cache) < 0)
			return fail_msg(err, errlen, -EINVAL, "--cache '%s': must be never, auto, always or metadata", v);
		return 0;
	case OK_READONLY:  o->readonly = true; return 0;
	case OK_XATTR:     o->xattr = true; return 0;
	case OK_XATTR_MAP: o->xattr = o->xattr_map = true; return 0;
	case OK_WRITEBACK: o->writeback = true; return 0;
	case OK_DEVICES:   o->devices = true; return 0;
	}
	return 1;
}

int opt_common_take(struct opt_common *cc, const struct opt_def *d, const char *v, char *err,
		    size_t errlen)
{
	int r;

	if (cc->fs && (r = take_fs(cc->fs, d->key, v, err, errlen)) <= 0)
		return r;
	switch (d->key) {
	case OK_SANDBOX: case OK_NO_SANDBOX: case OK_UID_MAP: case OK_GID_MAP:
		if (!cc->sandbox)
			return 1;
		return sandbox_opt(cc->sandbox, d->name, v, err, errlen) < 0 ? -EINVAL : 0;
	case OK_LOG_LEVEL:
		if (fs_log_parse_level(v, &cc->log_level) < 0)
			return fail_msg(err, errlen, -EINVAL, "--log-level '%s': must be " FS_LOG_LEVELS " or off", v);
		return 0;
	case OK_DEBUG:     cc->log_level = FS_LOG_DEBUG; return 0;
	case OK_STATS:     cc->stats = true; return 0;
	case OK_HELP:      cc->help = true; return 0;
	case OK_VERSION_V: cc->version = true; return 0;
	}
	return 1;
}

int opt_common_finish(const struct opt_common *cc, const struct opt_cmd *c)
{
	if (cc->help) {
		opt_usage(stdout, c);
		return 1;
	}
	if (cc->version) {
		printf("%s %s\n", c->prog, STAINLESS_VERSION);
		return 1;
	}
	fs_log_init(cc->log_level, c->prog);
	return 0;
}