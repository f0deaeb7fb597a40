// SPDX-License-Identifier: GPL-2.0-only
/* `stainless vhost-user-fs` argument parsing (see vhost_user_cli.h). */
#include "cmd/vhost_user_cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fail.h"
#include "cmd/vhost_user_table.h"

void vu_fs_usage(FILE *f, const char *prog)
{
	struct opt_cmd c = vhost_user_cmd;

	c.prog = prog;   /* "virtiofsd" under that name */
	opt_usage(f, &c);
}

void vu_fs_print_capabilities(FILE *f)
{
	/* "separate-options": the --option spellings above; no migration. */
	fputs("{\n  \"type\": \"fs\",\n  \"features\": [\n    \"separate-options\"\n  ]\n}\n", f);
}

const char *vu_fs_prog_name(const char *argv0)
{
	const char *base = argv0 ? strrchr(argv0, '/') : NULL;

	base = base ? base + 1 : argv0;
	if (!base || !*base || strcmp(base, "vhost-user-fs") == 0)
		return "stainless vhost-user-fs";
	return base;
}

/* Index of s in names (NULL-terminated), or -1. */
static int pick(const char *s, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

static int parse_ulong(const char *v, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long n;

	if (!v || *v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n > max)
		return -EINVAL;
	*out = n;
	return 0;
}

/* The options that take a word from a fixed list. */
static int parse_choice(struct vu_fs_config *c, int opt, const char *v, char *err, size_t errlen)
{
	static const char *const sandboxes[] = { "namespace", "chroot", "none", NULL };
	static const char *const seccomps[] = { "kill", "log", "trap", "none", NULL };
	static const char *const handles[] = { "never", "prefer", "mandatory", "fallback", NULL };
	int i;

	switch (opt) {
	case VU_K_CACHE:
		if (vu_opt_parse_cache(c, v) == 0)
			return 0;
		return fail_msg(err, errlen, -EINVAL, "--cache '%s': must be auto, always, metadata or never", v);
	case VU_K_LOG_LEVEL:
		if (vu_opt_parse_log_level(c, v) == 0)
			return 0;
		return fail_msg(err, errlen, -EINVAL, "--log-level '%s': must be error, warn, info, debug, trace or off", v);
	case VU_K_SANDBOX:
		if ((i = pick(v, sandboxes)) < 0)
			return fail_msg(err, errlen, -EINVAL, "--sandbox '%s': must be namespace, chroot or none", v);
		c->sandbox = (enum vu_sandbox)i;
		return 0;
	case VU_K_SECCOMP:
		if ((i = pick(v, seccomps)) < 0)
			return fail_msg(err, errlen, -EINVAL, "--seccomp '%s': must be kill, log, trap or none", v);
		c->seccomp = (enum vu_seccomp)i;
		return 0;
	case VU_K_FILE_HANDLES:
		if ((i = pick(v, handles)) < 0)
			return fail_msg(err, errlen, -EINVAL, "--inode-file-handles '%s': must be never or prefer", v);
		if (i == VU_FH_MANDATORY)
			return fail_msg(err, errlen, -EINVAL, "--inode-file-handles=mandatory: not supported: stainless "
				    "keeps no file handles (its fd budget bounds the fds it holds); "
				    "use never or prefer");
		c->file_handles = i == 3 ? VU_FH_PREFER : (enum vu_file_handles)i;
		return 0;
	}
	return fail_msg(err, errlen, -EINVAL, "no such choice");
}

/* Everything but the choices: one option into c. */
static int parse_one(struct vu_fs_config *c, int opt, const char *v, char *err, size_t errlen)
{
	unsigned long n;

	switch (opt) {
	case VU_K_SOCKET_PATH:  c->socket_path = v; return 0;
	case VU_K_SOCKET:       c->socket_path = v; c->socket_deprecated = true; return 0;
	case VU_K_SOCKET_GROUP: c->socket_group = v; return 0;
	case VU_K_SHARED_DIR:   c->shared_dir = v; return 0;
	case VU_K_READONLY:     c->opts.readonly = true; return 0;
	case VU_K_XATTR_MAP:    c->opts.xattr = c->opts.xattr_map = true; return 0;
	case VU_K_DEVICES:      c->opts.devices = true; return 0;
	case VU_K_SYSLOG:       c->syslog = true; return 0;
	case VU_K_PRINT_CAPS:   c->print_capabilities = true; return 0;
	case VU_K_STATS:        c->stats = true; return 0;
	case 'f':            return 0;           /* virtiofsd's foreground: always */
	case 'd':            c->log_level = VU_LOG_DEBUG; return 0;
	case 'o':            return vu_opt_parse_o(c, v, err, errlen);
	case VU_K_TAG:
		if (!*v || strlen(v) > VU_TAG_MAX)
			return fail_msg(err, errlen, -EINVAL, "--tag '%s': must be 1 to %d bytes", v, VU_TAG_MAX);
		c->tag = v;
		return 0;
	case VU_K_FD:
		if (parse_ulong(v, 1u << 30, &n) < 0)
			return fail_msg(err, errlen, -EINVAL, "--fd '%s': not a file descriptor number", v);
		c->fd = (int)n;
		return 0;
	case VU_K_DAX_WINDOW: {
		char word[64];
		const char *why;

		snprintf(word, sizeof(word), "dax=%s", v);
		/* A size only: dax=inode is run's share option, not a window. */
		if (strcmp(v, "inode") == 0 || fs_options_parse_word(&c->opts, word, false, &why) < 0)
			return fail_msg(err, errlen, -EINVAL, "--dax-window '%s': must be a size, "
					"a multiple of 2M, at most 64G", v);
		return 0;
	}
	case VU_K_WATCHES:
		if (vu_opt_parse_watches(c, v) < 0)
			return fail_msg(err, errlen, -EINVAL, "--watches '%s': must be a number "
					"of directories from 0 to %u", v, FS_WATCHES_MAX);
		return 0;
	case VU_K_RLIMIT:
		/* 0 leaves the limit as it is, as virtiofsd's does. */
		if (parse_ulong(v, 1u << 30, &n) < 0)
			return fail_msg(err, errlen, -EINVAL, "--rlimit-nofile '%s': not a number", v);
		c->rlimit_nofile = n;
		return 0;
	case VU_K_POOL:
		if (parse_ulong(v, 1u << 20, &n) < 0)
			return fail_msg(err, errlen, -EINVAL, "--thread-pool-size '%s': not a number", v);
		c->thread_pool_given = true;
		c->thread_pool_size = n;
		return 0;
	}
	return parse_choice(c, opt, v, err, errlen);
}

/* The option as the user wrote it, without any =value. */
static void option_name(const char *arg, char *buf, size_t len)
{
	size_t n = strcspn(arg, "=");

	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), arg);
}

/*
 * systemd's socket activation (sd_listen_fds(3)): with neither --fd nor
 * --socket-path, a listening socket handed over as fd 3 for this very
 * process (LISTEN_PID) is the one to serve. The variables are removed, as
 * sd_listen_fds(1) does, so nothing started later takes them for its own.
 * The fd, -1 when not activated, -EINVAL when it handed over several.
 */
static int socket_activated(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	unsigned long p, n;
	int rc = -1;

	if (!pid || !fds)
		return -1;
	if (parse_ulong(pid, 1ul << 30, &p) == 0 && p == (unsigned long)getpid() &&
	    parse_ulong(fds, 1ul << 20, &n) == 0 && n > 0)
		rc = n == 1 ? 3 : -EINVAL;   /* SD_LISTEN_FDS_START; one frontend */
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	return rc;
}

static int check_config(const struct vu_fs_config *c, char *err, size_t errlen)
{
	if (c->print_capabilities)
		return 0;
	if (!c->shared_dir)
		return fail_msg(err, errlen, -EINVAL, "--shared-dir DIR (or -o source=DIR) is required");
	if (!c->socket_path && c->fd < 0)
		return fail_msg(err, errlen, -EINVAL, "--socket-path PATH or --fd FD is required (or systemd's "
			    "socket activation)");
	if (c->socket_path && c->fd >= 0)
		return fail_msg(err, errlen, -EINVAL, "--fd and --socket-path exclude each other");
	if (c->socket_group && c->fd >= 0)
		return fail_msg(err, errlen, -EINVAL, "--socket-group needs --socket-path (a socket handed over with --fd "
			    "is already made)");
	return 0;
}

int vu_fs_parse_args(int argc, char **argv, struct vu_fs_config *c, char *err, size_t errlen)
{
	struct option longopts[96];
	char name[64], shorts[32];
	const char *why;
	int opt, rc, li;

	memset(c, 0, sizeof(*c));
	c->prog = vu_fs_prog_name(argc > 0 ? argv[0] : NULL);
	fs_options_default(&c->opts);
	c->fd = -1;
	c->log_level = VU_LOG_INFO;
	c->file_handles = VU_FH_NEVER;
	if (opt_getopt(&vhost_user_cmd, longopts, 96, shorts, sizeof(shorts)) < 0)
		return fail_msg(err, errlen, -EINVAL, "the option table is too large");
	optind = 0;   /* full re-initialisation: tests parse many times */
	opterr = 0;
	while ((li = -1, opt = getopt_long(argc, argv, shorts, longopts, &li)) != -1) {
		switch (opt) {
		case VU_K_SWITCH:
			vu_opt_switch(c, longopts[li].name);
			break;
		case VU_K_REFUSED:
			why = vu_opt_refusal(longopts[li].name);
			return fail_msg(err, errlen, -EINVAL, "--%s: not supported: %s", longopts[li].name,
				    why ? why : "not implemented");
		case 'h':
			vu_fs_usage(stdout, c->prog);
			return 1;
		case 'V':
			/* virtiofsd's shape: its name and a version on one line. */
			printf("%s %s%s\n", c->prog, STAINLESS_VERSION,
			       strncmp(c->prog, "stainless ", 10) ? " (stainless)" : "");
			return 1;
		case ':':
			option_name(argv[optind - 1], name, sizeof(name));
			return fail_msg(err, errlen, -EINVAL, "%s needs a value", name);
		case '?':
			option_name(argv[optind - 1], name, sizeof(name));
			return fail_msg(err, errlen, -EINVAL, "'%s' is not an option %s takes (see %s --help)",
				    name, c->prog, c->prog);
		default:
			rc = parse_one(c, opt, optarg, err, errlen);
			if (rc)
				return rc;
		}
	}
	if (optind < argc)
		return fail_msg(err, errlen, -EINVAL, "unexpected argument '%s'", argv[optind]);
	if (!c->print_capabilities && !c->socket_path && c->fd < 0) {
		c->fd = socket_activated();
		if (c->fd == -EINVAL)
			return fail_msg(err, errlen, -EINVAL, "socket activation: LISTEN_FDS names more than one "
				    "socket; one frontend is served, on one");
	}
	return check_config(c, err, errlen);
}
