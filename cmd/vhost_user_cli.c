// SPDX-License-Identifier: GPL-2.0-only
/* `stainless vhost-user-fs` argument parsing (see vhost_user_cli.h). */
#include "cmd/vhost_user_cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fail.h"

void vu_fs_usage(FILE *f, const char *prog)
{
	fprintf(f, "Usage: %s (--socket-path PATH | --fd FD) --shared-dir DIR [OPTIONS]\n"
		"       %s --print-capabilities | --version | --help\n"
		"A drop-in virtiofsd (stainless " STAINLESS_VERSION "): serves one vhost-user frontend\n"
		"(QEMU, cloud-hypervisor) and exits when it disconnects. Every ring is answered\n"
		"inline by its own io_uring worker; no DAX window over vhost-user.\n"
		"\n"
		"Options:\n", prog, prog);
	fputs("      --shared-dir DIR            the directory to share (-o source=DIR)\n"
	      "      --socket-path PATH          listen there for the frontend (--socket: deprecated)\n"
	      "      --fd FD                     or serve on this listening socket, handed over\n"
	      "      --socket-group GROUP        the socket 0660 with this group\n"
	      "      --tag TAG                   offer the device config with this tag\n"
	      "      --cache auto|always|metadata|never\n"
	      "      --readonly  --xattr  --xattr-map  --writeback  --devices\n"
	      "      --log-level error|warn|info|debug|trace|off   --syslog\n"
	      "      --sandbox namespace|chroot|none   --seccomp kill|log|trap|none\n"
	      "      --inode-file-handles=never|prefer   --announce-submounts\n"
	      "      --thread-pool-size N        accepted; there is no pool\n"
	      "      --rlimit-nofile N           RLIMIT_NOFILE (0: as it is)\n"
	      "      --[no-]readdirplus  --[no-]killpriv-v2  --allow-direct-io  --posix-acl\n"
	      "      --allow-mmap  --preserve-noatime   (what stainless always does)\n"
	      "  -o  source=DIR,cache=MODE,xattr,flock,posix_lock,...  C virtiofsd's forms,\n"
	      "      each switch also as no_SWITCH; ,, is a comma in a value\n"
	      "  -f, -d                          foreground (always), debug log\n"
	      "      --print-capabilities        the vhost-user.json backend record\n"
	      "  -V, --version   -h, --help\n"
	      "Refused, with the reason: --xattrmap, --modcaps, --security-label,\n"
	      "--translate-uid/gid, --uid-map/--gid-map, --daemonize, -o timeout=, migration.\n"
	      "Every option: docs/virtiofsd-options.md\n", f);
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

enum {
	O_SOCKET_PATH = 256, O_SOCKET, O_FD, O_SOCKET_GROUP, O_SHARED_DIR, O_TAG, O_CACHE,
	O_READONLY, O_XATTR_MAP, O_DEVICES, O_LOG_LEVEL,
	O_SYSLOG, O_SANDBOX, O_SECCOMP, O_FILE_HANDLES, O_POOL, O_PRINT_CAPS, O_VERSION,
	O_RLIMIT, O_SWITCH, O_REFUSED,
};

/* virtiofsd's switches (vu_opt_switch) and what is refused (vu_opt_refusal). */
#define SWITCH(n)  { n, no_argument, NULL, O_SWITCH }
#define REFUSED(n) { n, optional_argument, NULL, O_REFUSED }

static const struct option longopts[] = {
	{ "socket-path", required_argument, NULL, O_SOCKET_PATH },
	{ "socket", required_argument, NULL, O_SOCKET },
	{ "fd", required_argument, NULL, O_FD },
	{ "socket-group", required_argument, NULL, O_SOCKET_GROUP },
	{ "shared-dir", required_argument, NULL, O_SHARED_DIR },
	{ "tag", required_argument, NULL, O_TAG },
	{ "cache", required_argument, NULL, O_CACHE },
	{ "readonly", no_argument, NULL, O_READONLY },
	{ "xattr-map", no_argument, NULL, O_XATTR_MAP },
	{ "devices", no_argument, NULL, O_DEVICES },
	{ "log-level", required_argument, NULL, O_LOG_LEVEL },
	{ "syslog", no_argument, NULL, O_SYSLOG },
	{ "sandbox", required_argument, NULL, O_SANDBOX },
	{ "seccomp", required_argument, NULL, O_SECCOMP },
	{ "inode-file-handles", required_argument, NULL, O_FILE_HANDLES },
	{ "thread-pool-size", required_argument, NULL, O_POOL },
	{ "print-capabilities", no_argument, NULL, O_PRINT_CAPS },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, O_VERSION },
	{ "rlimit-nofile", required_argument, NULL, O_RLIMIT },
	SWITCH("xattr"), SWITCH("writeback"), SWITCH("announce-submounts"), SWITCH("readdirplus"),
	SWITCH("no-readdirplus"), SWITCH("killpriv-v2"), SWITCH("no-killpriv-v2"),
	SWITCH("allow-direct-io"), SWITCH("posix-acl"), SWITCH("allow-mmap"),
	SWITCH("preserve-noatime"),
	REFUSED("xattrmap"), REFUSED("modcaps"), REFUSED("security-label"),
	REFUSED("translate-uid"), REFUSED("translate-gid"), REFUSED("uid-map"), REFUSED("gid-map"),
	REFUSED("migration-mode"), REFUSED("migration-on-error"),
	REFUSED("migration-verify-handles"), REFUSED("migration-confirm-paths"),
	REFUSED("daemonize"),
	{ 0 },
};

/* The options that take a word from a fixed list. */
static int parse_choice(struct vu_fs_config *c, int opt, const char *v, char *err, size_t errlen)
{
	static const char *const sandboxes[] = { "namespace", "chroot", "none", NULL };
	static const char *const seccomps[] = { "kill", "log", "trap", "none", NULL };
	static const char *const handles[] = { "never", "prefer", "mandatory", "fallback", NULL };
	int i;

	switch (opt) {
	case O_CACHE:
		if (vu_opt_parse_cache(c, v) == 0)
			return 0;
		return fail_msg(err, errlen, -EINVAL, "--cache '%s': must be auto, always, metadata or never", v);
	case O_LOG_LEVEL:
		if (vu_opt_parse_log_level(c, v) == 0)
			return 0;
		return fail_msg(err, errlen, -EINVAL, "--log-level '%s': must be error, warn, info, debug, trace or off", v);
	case O_SANDBOX:
		if ((i = pick(v, sandboxes)) < 0)
			return fail_msg(err, errlen, -EINVAL, "--sandbox '%s': must be namespace, chroot or none", v);
		c->sandbox = (enum vu_sandbox)i;
		return 0;
	case O_SECCOMP:
		if ((i = pick(v, seccomps)) < 0)
			return fail_msg(err, errlen, -EINVAL, "--seccomp '%s': must be kill, log, trap or none", v);
		c->seccomp = (enum vu_seccomp)i;
		return 0;
	case O_FILE_HANDLES:
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
	case O_SOCKET_PATH:  c->socket_path = v; return 0;
	case O_SOCKET:       c->socket_path = v; c->socket_deprecated = true; return 0;
	case O_SOCKET_GROUP: c->socket_group = v; return 0;
	case O_SHARED_DIR:   c->shared_dir = v; return 0;
	case O_READONLY:     c->opts.readonly = true; return 0;
	case O_XATTR_MAP:    c->opts.xattr = c->opts.xattr_map = true; return 0;
	case O_DEVICES:      c->opts.devices = true; return 0;
	case O_SYSLOG:       c->syslog = true; return 0;
	case O_PRINT_CAPS:   c->print_capabilities = true; return 0;
	case 'f':            return 0;           /* virtiofsd's foreground: always */
	case 'd':            c->log_level = VU_LOG_DEBUG; return 0;
	case 'o':            return vu_opt_parse_o(c, v, err, errlen);
	case O_TAG:
		if (!*v || strlen(v) > VU_TAG_MAX)
			return fail_msg(err, errlen, -EINVAL, "--tag '%s': must be 1 to %d bytes", v, VU_TAG_MAX);
		c->tag = v;
		return 0;
	case O_FD:
		if (parse_ulong(v, 1u << 30, &n) < 0)
			return fail_msg(err, errlen, -EINVAL, "--fd '%s': not a file descriptor number", v);
		c->fd = (int)n;
		return 0;
	case O_RLIMIT:
		/* 0 leaves the limit as it is, as virtiofsd's does. */
		if (parse_ulong(v, 1u << 30, &n) < 0)
			return fail_msg(err, errlen, -EINVAL, "--rlimit-nofile '%s': not a number", v);
		c->rlimit_nofile = n;
		return 0;
	case O_POOL:
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
	char name[64];
	const char *why;
	int opt, rc, li;

	memset(c, 0, sizeof(*c));
	c->prog = vu_fs_prog_name(argc > 0 ? argv[0] : NULL);
	fs_options_default(&c->opts);
	c->fd = -1;
	c->log_level = VU_LOG_INFO;
	c->file_handles = VU_FH_NEVER;
	optind = 0;   /* full re-initialisation: tests parse many times */
	opterr = 0;
	while ((li = -1, opt = getopt_long(argc, argv, "+:o:fdhV", longopts, &li)) != -1) {
		switch (opt) {
		case O_SWITCH:
			vu_opt_switch(c, longopts[li].name);
			break;
		case O_REFUSED:
			why = vu_opt_refusal(longopts[li].name);
			return fail_msg(err, errlen, -EINVAL, "--%s: not supported: %s", longopts[li].name,
				    why ? why : "not implemented");
		case 'h':
			vu_fs_usage(stdout, c->prog);
			return 1;
		case 'V':
		case O_VERSION:
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
