// SPDX-License-Identifier: GPL-2.0-only
/* `stainless 9p-serve`'s option table and command line (see p9_serve_cli.h). */
#include "cmd/p9_serve_cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/exit.h"
#include "base/fail.h"
#include "fs/9p/p9_wire.h"
#include "transport/p9_conn.h"
#include "transport/unix_listen.h"

enum { K_SOCKET = OPT_KEY_BASE, K_GROUP, K_MSIZE, K_XATTR_MAP, K_POLL, K_CONNS, K_MEM };

static const struct opt_def own[] = {
	{ "socket", 0, OPT_VALUE, "PATH", NULL, "listen on this Unix socket (0600; required)",
	  "@file", 0, K_SOCKET },
	{ "socket-group", 0, OPT_VALUE, "GROUP", NULL, "the socket 0660 with this group (a name "
	  "or a number)", NULL, 0, K_GROUP },
	{ "msize", 0, OPT_VALUE, "BYTES", "the client's", "the largest message, 4096 to 16M",
	  NULL, 0, K_MSIZE },
	{ "readonly", 0, OPT_FLAG, NULL, NULL, "refuse every change (EROFS)", NULL, 0,
	  OK_READONLY },
	{ "devices", 0, OPT_FLAG, NULL, NULL, "allow device nodes (mknod of char/block devices)",
	  NULL, 0, OK_DEVICES },
	{ "xattr-map", 0, OPT_FLAG, NULL, NULL, "keep security.* and trusted.* as "
	  "user.stainless.*", NULL, 0, K_XATTR_MAP },
	{ "poll", 0, OPT_OPTIONAL, NULL, NULL, "gone", NULL, OPT_HIDDEN, K_POLL },
	{ "max-connections", 0, OPT_VALUE, "N", "64", "connections served at once, 1 to 65536",
	  NULL, 0, K_CONNS },
	{ "max-memory", 0, OPT_VALUE, "BYTES", "128M", "the buffers of all connections, 2M to "
	  "1T", NULL, 0, K_MEM },
	{ 0 },
};

static const struct opt_def *const groups[] = {
	own, opt_group_sandbox, opt_group_seccomp, opt_group_log, opt_group_stats,
	opt_group_help, NULL,
};

const struct opt_cmd p9_serve_cmd = {
	.name = "9p-serve",
	.prog = "stainless 9p-serve",
	.synopsis = "--socket PATH DIR [OPTIONS]",
	.summary = "Serve DIR over 9P2000.L on a Unix socket, one thread per connection.",
	.description = "Each connection is answered by its own thread with the same 9p server "
		"a guest's virtio-9p device uses, so diod's and the kernel's 9p clients can "
		"test it. A client is served as the user SO_PEERCRED names; the server runs in "
		"its own namespaces with the share alone in its root, under a seccomp filter "
		"per thread role. It prints one line when it is ready and ends on SIGINT or "
		"SIGTERM.",
	.example = "stainless 9p-serve --socket /run/share.9p /srv/share --log-level trace",
	.groups = groups,
	.permute = true,
};

/* One of 9p-serve's own options: -1 taken, else the exit code. */
static int take(struct p9_serve_args *a, int key, const char *v)
{
	uint64_t n;

	switch (key) {
	case K_SOCKET:
		a->sock = v;
		break;
	case K_GROUP:
		if (unix_parse_group(v, &a->gid) < 0)
			return fail(EXIT_USAGE, "--socket-group must be a group name or number, not '%s'", v);
		break;
	case K_MSIZE:
		if (parse_size(v, &n) < 0 || n < P9_MSIZE_MIN || n > P9_MSIZE_MAX)
			return fail(EXIT_USAGE, "--msize must be a size between 4096 and 16M, not '%s'", v);
		a->opts.msize = (uint32_t)n;
		break;
	case OK_READONLY:
		a->opts.readonly = true;
		break;
	case OK_DEVICES:
		a->opts.devices = true;
		break;
	case K_XATTR_MAP:
		a->opts.xattr_map = true;
		break;
	case K_POLL:
		/* A busy-wait that did not earn its place (transport/p9_conn.c). */
		return fail(EXIT_USAGE, "--poll is gone: connections sleep until the next request");
	case K_CONNS:
		if (parse_size(v, &n) < 0 || n < 1 || n > 65536)
			return fail(EXIT_USAGE, "--max-connections must be 1 to 65536, not '%s'", v);
		a->max_conns = (unsigned)n;
		break;
	case K_MEM:
		/* At least two floors: one slot and a pool as large. */
		if (parse_size(v, &n) < 0 || n < 2 * P9_SERVE_MEM_FLOOR || n > (1ull << 40))
			return fail(EXIT_USAGE, "--max-memory must be a size from 2M to 1T, not '%s'", v);
		a->max_mem = n;
		break;
	}
	return -1;
}

int p9_serve_parse(int argc, char **argv, struct p9_serve_args *a)
{
	struct option lo[64];
	char shorts[32], why[160];
	int c, r;

	*a = (struct p9_serve_args){ .gid = (gid_t)-1, .max_conns = P9_SERVE_MAX_CONNS,
				     .max_mem = P9_SERVE_MEM };
	fs_options_default(&a->opts);
	sandbox_opts_init(&a->sbo);
	a->cc = (struct opt_common){ .sandbox = &a->sbo, .log_level = FS_LOG_INFO };
	if (opt_getopt(&p9_serve_cmd, lo, 64, shorts, sizeof(shorts)) < 0)
		return fail(EXIT_USAGE, "the option table is too large");
	opterr = 0;
	optind = 0;   /* full re-initialisation: tests parse many times */
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct opt_def *d = opt_by_key(&p9_serve_cmd, c);

		if (c == ':')
			return fail(EXIT_USAGE, "%s needs a value (see %s --help)", argv[optind - 1],
				    p9_serve_cmd.prog);
		if (!d)
			return fail(EXIT_USAGE, "'%s' is not an option 9p-serve takes (see %s --help)",
				    argv[optind - 1], p9_serve_cmd.prog);
		r = opt_common_take(&a->cc, d, optarg, why, sizeof(why));
		if (r < 0)
			return fail(EXIT_USAGE, "%s", why);
		if (r == 1 && (r = take(a, c, optarg)) >= 0)
			return r;
	}
	if (opt_common_finish(&a->cc, &p9_serve_cmd))
		return 0;
	if (!a->sock)
		return fail(EXIT_USAGE, "%s", "--socket PATH is required");
	if (optind != argc - 1)
		return fail(EXIT_USAGE, "%s", optind >= argc ? "missing the directory to share"
						 : "exactly one directory to share expected");
	a->dir = argv[optind];
	return -1;
}
