// SPDX-License-Identifier: GPL-2.0-only
/* `stainless run` argument parsing (see run_cli.h). */
#include "cmd/run_cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fail.h"
#include "cmd/run_table.h"
#include "cmd/shared_dir.h"

void cli_run_usage(FILE *f)
{
	opt_usage(f, &run_cmd);
}

static int parse_share(struct vm_config *cfg, const char *arg, bool is_9p,
		       char *err, size_t errlen)
{
	const char *opt = is_9p ? "--9p" : "--fs";
	struct vm_share *sh;
	char *spec, *eq, *word, *save;

	if (cfg->nr_shares >= VM_MAX_SHARES)
		return fail_msg(err, errlen, -EINVAL, "%s %s: too many shares (at most %d)", opt, arg,
			    VM_MAX_SHARES);
	if (strlen(arg) >= sizeof(cfg->share_specs[0]))
		return fail_msg(err, errlen, -EINVAL, "%s: argument too long", opt);
	spec = cfg->share_specs[cfg->nr_shares];
	strcpy(spec, arg);
	sh = &cfg->shares[cfg->nr_shares];
	memset(sh, 0, sizeof(*sh));
	sh->is_9p = is_9p;
	fs_options_default(&sh->opts);

	eq = strchr(spec, '=');
	if (!eq || eq == spec)
		return fail_msg(err, errlen, -EINVAL, "%s %s: expected TAG=DIR[,options]", opt, arg);
	*eq = '\0';
	if (strlen(spec) > VM_TAG_MAX)
		return fail_msg(err, errlen, -EINVAL, "%s: tag '%s' longer than %d bytes", opt, spec, VM_TAG_MAX);
	strcpy(sh->tag, spec);
	for (unsigned i = 0; i < cfg->nr_shares; i++)
		if (strcmp(cfg->shares[i].tag, sh->tag) == 0)
			return fail_msg(err, errlen, -EINVAL, "%s: duplicate tag '%s'", opt, sh->tag);

	/* DIR runs to the first comma; a directory with a comma in its name
	 * can be reached through a symlink. */
	sh->dir = strtok_r(eq + 1, ",", &save);
	if (!sh->dir || !*sh->dir || eq[1] == ',')
		return fail_msg(err, errlen, -EINVAL, "%s %s: missing directory", opt, arg);
	while ((word = strtok_r(NULL, ",", &save))) {
		const char *why = "";

		if (fs_options_parse_word(&sh->opts, word, is_9p, &why) < 0)
			return fail_msg(err, errlen, -EINVAL, "%s %s: '%s': %s", opt, sh->tag, word, why);
	}
	cfg->nr_shares++;
	return 0;
}

/* --mem: a size; a bare number means MiB, as with QEMU's -m. */
static int parse_mem(const char *arg, uint64_t *mem, char *err, size_t errlen)
{
	int rc = parse_size(arg, mem);

	if (rc == 0 && strspn(arg, "0123456789") == strlen(arg))
		*mem = *mem > (VM_MEM_MAX >> 20) ? UINT64_MAX : *mem << 20;
	if (rc < 0)
		return fail_msg(err, errlen, -EINVAL, "--mem '%s': not a size (try 512M or 2G)", arg);
	if (*mem < VM_MEM_MIN)
		return fail_msg(err, errlen, -EINVAL, "--mem '%s': too small (at least 32M)", arg);
	if (*mem > VM_MEM_MAX)
		return fail_msg(err, errlen, -EINVAL, "--mem '%s': too large (at most 1T)", arg);
	if (*mem % 4096)
		return fail_msg(err, errlen, -EINVAL, "--mem '%s': not a multiple of 4K", arg);
	return 0;
}

static int parse_cpus(const char *arg, unsigned *cpus, char *err, size_t errlen)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || end == arg || n < 1 || n > VM_CPUS_MAX)
		return fail_msg(err, errlen, -EINVAL, "--cpus '%s': must be a number from 1 to %d",
			    arg, VM_CPUS_MAX);
	*cpus = (unsigned)n;
	return 0;
}

/* --console stdio|none|PATH */
static int parse_console(const char *arg, struct vm_config *cfg, char *err, size_t errlen)
{
	if (strcmp(arg, "stdio") == 0) {
		cfg->console = CONSOLE_STDIO;
	} else if (strcmp(arg, "none") == 0) {
		cfg->console = CONSOLE_NONE;
	} else if (*arg) {
		cfg->console = CONSOLE_FILE;
		cfg->console_path = arg;
	} else {
		return fail_msg(err, errlen, -EINVAL, "--console: expected stdio, none or a file path");
	}
	return 0;
}

/* One of run's own options (run_table.h): 0, or -EINVAL with err. */
static int take(struct vm_config *cfg, struct sandbox_opts *sbo, int key, const char *v,
		char *err, size_t errlen)
{
	switch (key) {
	case RUN_KERNEL:  cfg->kernel = v; return 0;
	case RUN_INITRD:  cfg->initrd = v; return 0;
	case RUN_CMDLINE: cfg->cmdline = v; return 0;
	case RUN_RNG:     cfg->rng = true; return 0;
	case RUN_MEM:     return parse_mem(v, &cfg->mem, err, errlen);
	case RUN_CPUS:    return parse_cpus(v, &cfg->cpus, err, errlen);
	case RUN_CONSOLE: return parse_console(v, cfg, err, errlen);
	case RUN_FS:
	case RUN_9P:      return parse_share(cfg, v, key == RUN_9P, err, errlen);
	case RUN_API:     cfg->api_sock = v; return 0;
	case RUN_CONFIG:  cfg->config_file = v; return 0;
	case RUN_SHARED:  return shared_dir_parse(cfg, sbo, v, err, errlen);
	case RUN_VSOCK:   return vsock_parse_config(v, &cfg->vsock, err, errlen) < 0 ? -EINVAL : 0;
	}
	return fail_msg(err, errlen, -EINVAL, "no such option");
}

int cli_run_option(struct vm_config *cfg, struct sandbox_opts *sbo, int key, const char *v,
		   char *err, size_t errlen)
{
	return take(cfg, sbo, key, v, err, errlen);
}

int cli_parse_run(int argc, char **argv, struct vm_config *cfg, struct sandbox_opts *sbo,
		  char *err, size_t errlen)
{
	struct opt_common cc = { .sandbox = sbo, .log_level = FS_LOG_INFO };
	struct option lo[48];
	char shorts[16];
	int c, rc;

	memset(cfg, 0, sizeof(*cfg));
	sandbox_opts_init(sbo);
	cfg->mem = VM_MEM_DEFAULT;
	cfg->cpus = 1;
	cfg->console = CONSOLE_STDIO;
	cfg->cmdline = "";
	if (opt_getopt(&run_cmd, lo, 48, shorts, sizeof(shorts)) < 0)
		return fail_msg(err, errlen, -EINVAL, "the option table is too large");

	optind = 0; /* full re-initialisation: tests parse many times */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct opt_def *d = opt_by_key(&run_cmd, c);

		if (c == ':')
			return fail_msg(err, errlen, -EINVAL, "%s needs an argument", argv[optind - 1]);
		if (!d)
			return fail_msg(err, errlen, -EINVAL, "unknown option '%s' (see stainless run --help)",
				    argv[optind - 1]);
		rc = opt_common_take(&cc, d, optarg, err, errlen);
		if (rc == 1)
			rc = take(cfg, sbo, c, optarg, err, errlen);
		if (rc < 0)
			return rc;
	}
	cfg->stats = cc.stats;
	if (opt_common_finish(&cc, &run_cmd))
		return 1;
	if (optind < argc)
		return fail_msg(err, errlen, -EINVAL, "unexpected argument '%s'", argv[optind]);
	if (!cfg->kernel && !cfg->api_sock && !cfg->config_file)
		return fail_msg(err, errlen, -EINVAL,
				"--kernel PATH is required (or --config-file, or --api-sock)");
	return 0;
}
