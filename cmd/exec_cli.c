// SPDX-License-Identifier: GPL-2.0-only
/* `stainless exec` argument parsing (see exec_cli.h). */
#include "cmd/exec_cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "base/fail.h"
#include "cmd/exec_table.h"
#include "cmd/exec_wire.h"
#include "cmd/run_cli.h"

static int parse_id(const char *s, size_t len, unsigned *out)
{
	unsigned long long v = 0;

	if (len == 0 || len > 10)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v >= UINT32_MAX) /* (uid_t)-1 means "unchanged" to setuid */
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

int exec_parse_user(const char *v, uid_t *uid, gid_t *gid)
{
	const char *colon = strchr(v, ':');
	unsigned u, g;

	if (parse_id(v, colon ? (size_t)(colon - v) : strlen(v), &u) < 0)
		return -EINVAL;
	g = u;
	if (colon && parse_id(colon + 1, strlen(colon + 1), &g) < 0)
		return -EINVAL;
	*uid = u;
	*gid = g;
	return 0;
}

static const struct { const char *name; int res; } rlimit_names[] = {
	{ "nofile", RLIMIT_NOFILE }, { "nproc", RLIMIT_NPROC }, { "core", RLIMIT_CORE },
	{ "stack", RLIMIT_STACK }, { "as", RLIMIT_AS }, { "fsize", RLIMIT_FSIZE },
	{ "memlock", RLIMIT_MEMLOCK }, { "cpu", RLIMIT_CPU },
};

static int parse_limit(const char *s, size_t len, unsigned long long *out)
{
	char *end;

	if (len == 9 && strncmp(s, "unlimited", 9) == 0) {
		*out = RLIM_INFINITY;
		return 0;
	}
	if (len == 0 || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || end != s + len ? -EINVAL : 0;
}

/* --rlimit NAME=SOFT[:HARD]; a missing HARD is SOFT. */
static int parse_rlimit(struct exec_opts *o, const char *v, char *err, size_t errlen)
{
	const char *eq = strchr(v, '='), *colon;
	struct exec_rlimit *r;
	unsigned i;

	if (o->nrl >= EXEC_RLIMITS_MAX)
		return fail_msg(err, errlen, -EINVAL, "--rlimit: at most %d", EXEC_RLIMITS_MAX);
	r = &o->rl[o->nrl];
	for (i = 0; eq && i < sizeof(rlimit_names) / sizeof(rlimit_names[0]); i++)
		if (strlen(rlimit_names[i].name) == (size_t)(eq - v) &&
		    strncmp(v, rlimit_names[i].name, (size_t)(eq - v)) == 0)
			break;
	if (!eq || i == sizeof(rlimit_names) / sizeof(rlimit_names[0]))
		return fail_msg(err, errlen, -EINVAL, "--rlimit '%s': expected NAME=SOFT[:HARD], NAME "
				"one of nofile nproc core stack as fsize memlock cpu", v);
	r->resource = rlimit_names[i].res;
	colon = strchr(eq + 1, ':');
	if (parse_limit(eq + 1, colon ? (size_t)(colon - eq - 1) : strlen(eq + 1), &r->soft) < 0 ||
	    parse_limit(colon ? colon + 1 : eq + 1, strlen(colon ? colon + 1 : eq + 1), &r->hard) < 0)
		return fail_msg(err, errlen, -EINVAL, "--rlimit '%s': limits are numbers or unlimited", v);
	if (r->soft > r->hard)
		return fail_msg(err, errlen, -EINVAL, "--rlimit '%s': the soft limit is above the hard one", v);
	o->nrl++;
	return 0;
}

static int parse_env(struct exec_opts *o, const char *v, char *err, size_t errlen)
{
	const char **n;

	if (!strchr(v, '=') || v[0] == '=')
		return fail_msg(err, errlen, -EINVAL, "--env '%s': expected KEY=VALUE", v);
	if (strlen(v) > EXEC_LEN_MAX)
		return fail_msg(err, errlen, -EINVAL, "--env: longer than %u bytes", EXEC_LEN_MAX);
	n = realloc(o->env, (o->nenv + 1) * sizeof(*n));
	if (!n)
		return fail_msg(err, errlen, -ENOMEM, "out of memory");
	o->env = n;
	o->env[o->nenv++] = v;
	return 0;
}

static int take(struct exec_opts *o, int key, const char *v, char *err, size_t errlen)
{
	switch (key) {
	case EXEC_OPT_ENV:
		return parse_env(o, v, err, errlen);
	case EXEC_OPT_CWD:
		if (v[0] != '/' || strlen(v) > EXEC_LEN_MAX)
			return fail_msg(err, errlen, -EINVAL, "--cwd '%s': must be an absolute path", v);
		o->cwd = v;
		return 0;
	case EXEC_OPT_USER:
		if (exec_parse_user(v, &o->uid, &o->gid) < 0)
			return fail_msg(err, errlen, -EINVAL, "--user '%s': expected UID[:GID], numbers "
					"below 4294967295", v);
		o->user = true;
		return 0;
	case EXEC_OPT_HOSTNAME:
		if (!*v || strlen(v) > EXEC_HOSTNAME_MAX)
			return fail_msg(err, errlen, -EINVAL, "--hostname '%s': 1 to %d bytes", v,
					EXEC_HOSTNAME_MAX);
		o->hostname = v;
		return 0;
	case EXEC_OPT_RLIMIT:
		return parse_rlimit(o, v, err, errlen);
	case EXEC_OPT_CONSOLE_LOG:
		o->console_log = v;
		return 0;
	case RUN_CMDLINE:
		o->cmdline_extra = v;
		return 0;
	}
	return cli_run_option(&o->cfg, &o->sbo, key, v, err, errlen);
}

/* ROOTDIR -- CMD [ARGS...] after the options. */
static int take_operands(struct exec_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	int i = optind;

	if (i < argc && i > 0 && strcmp(argv[i - 1], "--") == 0)
		return fail_msg(err, errlen, -EINVAL, "ROOTDIR is missing before '--' (usage: stainless "
				"exec [OPTIONS] ROOTDIR -- CMD [ARGS...])");
	if (i >= argc)
		return fail_msg(err, errlen, -EINVAL, "ROOTDIR and the command are missing (usage: "
				"stainless exec [OPTIONS] ROOTDIR -- CMD [ARGS...])");
	o->rootdir = argv[i++];
	if (!*o->rootdir || strchr(o->rootdir, ','))
		return fail_msg(err, errlen, -EINVAL, "ROOTDIR '%s': empty or with a comma (a symlink "
				"to it will do)", o->rootdir);
	if (i >= argc || strcmp(argv[i], "--") != 0)
		return fail_msg(err, errlen, -EINVAL, "expected '--' and the command after ROOTDIR "
				"'%s'", o->rootdir);
	i++;
	if (i >= argc || !*argv[i])
		return fail_msg(err, errlen, -EINVAL, "no command after '--'");
	o->argv = argv + i;
	o->argc = (unsigned)(argc - i);
	for (unsigned k = 0; k < o->argc; k++)
		if (strlen(o->argv[k]) > EXEC_LEN_MAX)
			return fail_msg(err, errlen, -EINVAL, "the command's argument %u is longer than "
					"%u bytes", k, EXEC_LEN_MAX);
	return 0;
}

int cli_parse_exec(int argc, char **argv, struct exec_opts *o, char *err, size_t errlen)
{
	struct opt_common cc = { .sandbox = &o->sbo, .log_level = FS_LOG_WARN };
	struct option lo[40];
	char shorts[24];
	int c, rc;

	memset(o, 0, sizeof(*o));
	sandbox_opts_init(&o->sbo);
	o->cfg.mem = VM_MEM_DEFAULT;
	o->cfg.cpus = 1;
	o->cfg.console = CONSOLE_NONE;
	o->cfg.cmdline = "";
	o->hostname = "stainless";
	if (opt_getopt(&exec_cmd, lo, 40, shorts, sizeof(shorts)) < 0)
		return fail_msg(err, errlen, -EINVAL, "the option table is too large");
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct opt_def *d = opt_by_key(&exec_cmd, c);

		if (c == ':')
			return fail_msg(err, errlen, -EINVAL, "%s needs an argument", argv[optind - 1]);
		if (!d)
			return fail_msg(err, errlen, -EINVAL, "unknown option '%s' (see stainless exec "
					"--help)", argv[optind - 1]);
		rc = opt_common_take(&cc, d, optarg, err, errlen);
		if (rc == 1)
			rc = take(o, c, optarg, err, errlen);
		if (rc < 0)
			return rc;
	}
	if (opt_common_finish(&cc, &exec_cmd))
		return 1;
	return take_operands(o, argc, argv, err, errlen);
}

void exec_opts_free(struct exec_opts *o)
{
	free(o->env);
	o->env = NULL;
}
