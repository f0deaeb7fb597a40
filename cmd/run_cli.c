// SPDX-License-Identifier: GPL-2.0-only
/* `stainless run` argument parsing (see run_cli.h). */
#include "cmd/run_cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_run_usage(FILE *f)
{
	fputs("usage: stainless run --kernel PATH [--initrd PATH] [--cmdline STR]\n"
	      "         [--mem SIZE] [--cpus N] [--console stdio|none|PATH]\n"
	      "         [--fs TAG=DIR[,cache=never|auto|always|metadata][,dax=SIZE][,readonly][,xattr[=map]][,writeback][,devices][,queues=N]]...\n"
	      "         [--9p TAG=DIR[,msize=BYTES][,readonly][,xattr=map][,devices]]... [--rng] [--stats]\n"
	      "         [--vsock CID,UDS[,conns=N]]\n"
	      "         " SANDBOX_USAGE "\n"
	      "  queues=N   virtio-fs request queues, 1..16, each with its own worker thread\n"
	      "             (default: one per vCPU, at most 16)\n"
	      "  --stats    at exit, one line per device on stderr with the requests each\n"
	      "             queue carried: \"stainless run: stats: virtio-fs tag=TAG q0=N q1=N\"\n"
	      "             (virtio-fs: q0 is the hiprio queue, q1.. the request queues)\n"
	      "  --vsock    virtio-vsock, guest CID >= 3, Firecracker's convention: a host\n"
	      "             process connects to UDS and writes \"CONNECT <port>\\n\"; a guest\n"
	      "             connect to host port P reaches the socket UDS_P (docs/vsock.md);\n"
	      "             conns=N connections at most (default 64)\n", f);
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_share(struct vm_config *cfg, const char *arg, bool is_9p,
		       char *err, size_t errlen)
{
	const char *opt = is_9p ? "--9p" : "--fs";
	struct vm_share *sh;
	char *spec, *eq, *word, *save;

	if (cfg->nr_shares >= VM_MAX_SHARES)
		return fail(err, errlen, "%s %s: too many shares (at most %d)", opt, arg,
			    VM_MAX_SHARES);
	if (strlen(arg) >= sizeof(cfg->share_specs[0]))
		return fail(err, errlen, "%s: argument too long", opt);
	spec = cfg->share_specs[cfg->nr_shares];
	strcpy(spec, arg);
	sh = &cfg->shares[cfg->nr_shares];
	memset(sh, 0, sizeof(*sh));
	sh->is_9p = is_9p;
	fs_options_default(&sh->opts);

	eq = strchr(spec, '=');
	if (!eq || eq == spec)
		return fail(err, errlen, "%s %s: expected TAG=DIR[,options]", opt, arg);
	*eq = '\0';
	if (strlen(spec) > VM_TAG_MAX)
		return fail(err, errlen, "%s: tag '%s' longer than %d bytes", opt, spec, VM_TAG_MAX);
	strcpy(sh->tag, spec);
	for (unsigned i = 0; i < cfg->nr_shares; i++)
		if (strcmp(cfg->shares[i].tag, sh->tag) == 0)
			return fail(err, errlen, "%s: duplicate tag '%s'", opt, sh->tag);

	/* DIR runs to the first comma; a directory with a comma in its name
	 * can be reached through a symlink. */
	sh->dir = strtok_r(eq + 1, ",", &save);
	if (!sh->dir || !*sh->dir || eq[1] == ',')
		return fail(err, errlen, "%s %s: missing directory", opt, arg);
	while ((word = strtok_r(NULL, ",", &save))) {
		const char *why = "";

		if (fs_options_parse_word(&sh->opts, word, is_9p, &why) < 0)
			return fail(err, errlen, "%s %s: '%s': %s", opt, sh->tag, word, why);
	}
	cfg->nr_shares++;
	return 0;
}

enum { OPT_SANDBOX = 256, OPT_9P, OPT_RNG, OPT_STATS, OPT_VSOCK };

static const struct option run_opts[] = {
	{ "kernel", required_argument, NULL, 'k' },
	{ "initrd", required_argument, NULL, 'i' },
	{ "cmdline", required_argument, NULL, 'c' },
	{ "mem", required_argument, NULL, 'm' },
	{ "cpus", required_argument, NULL, 'n' },
	{ "console", required_argument, NULL, 'C' },
	{ "fs", required_argument, NULL, 'f' },
	{ "9p", required_argument, NULL, OPT_9P },
	{ "rng", no_argument, NULL, OPT_RNG },
	{ "vsock", required_argument, NULL, OPT_VSOCK },
	{ "no-sandbox", no_argument, NULL, OPT_SANDBOX },
	{ "sandbox", required_argument, NULL, OPT_SANDBOX },
	{ "uid-map", required_argument, NULL, OPT_SANDBOX },
	{ "gid-map", required_argument, NULL, OPT_SANDBOX },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* --mem: a size; a bare number means MiB, as with QEMU's -m. */
static int parse_mem(const char *arg, uint64_t *mem, char *err, size_t errlen)
{
	int rc = parse_size(arg, mem);

	if (rc == 0 && strspn(arg, "0123456789") == strlen(arg))
		*mem = *mem > (VM_MEM_MAX >> 20) ? UINT64_MAX : *mem << 20;
	if (rc < 0)
		return fail(err, errlen, "--mem '%s': not a size (try 512M or 2G)", arg);
	if (*mem < VM_MEM_MIN)
		return fail(err, errlen, "--mem '%s': too small (at least 32M)", arg);
	if (*mem > VM_MEM_MAX)
		return fail(err, errlen, "--mem '%s': too large (at most 1T)", arg);
	if (*mem % 4096)
		return fail(err, errlen, "--mem '%s': not a multiple of 4K", arg);
	return 0;
}

static int parse_cpus(const char *arg, unsigned *cpus, char *err, size_t errlen)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || end == arg || n < 1 || n > VM_CPUS_MAX)
		return fail(err, errlen, "--cpus '%s': must be a number from 1 to %d",
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
		return fail(err, errlen, "--console: expected stdio, none or a file path");
	}
	return 0;
}

int cli_parse_run(int argc, char **argv, struct vm_config *cfg, struct sandbox_opts *sbo,
		  char *err, size_t errlen)
{
	int c, rc, idx = 0;

	memset(cfg, 0, sizeof(*cfg));
	sandbox_opts_init(sbo);
	cfg->mem = VM_MEM_DEFAULT;
	cfg->cpus = 1;
	cfg->console = CONSOLE_STDIO;
	cfg->cmdline = "";

	optind = 0; /* full re-initialisation: tests parse many times */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", run_opts, &idx)) != -1) {
		switch (c) {
		case 'k':
			cfg->kernel = optarg;
			break;
		case 'i':
			cfg->initrd = optarg;
			break;
		case 'c':
			cfg->cmdline = optarg;
			break;
		case 'm':
			rc = parse_mem(optarg, &cfg->mem, err, errlen);
			if (rc < 0)
				return rc;
			break;
		case 'n':
			rc = parse_cpus(optarg, &cfg->cpus, err, errlen);
			if (rc < 0)
				return rc;
			break;
		case 'C':
			rc = parse_console(optarg, cfg, err, errlen);
			if (rc < 0)
				return rc;
			break;
		case 'f':
		case OPT_9P:
			rc = parse_share(cfg, optarg, c == OPT_9P, err, errlen);
			if (rc < 0)
				return rc;
			break;
		case OPT_RNG:
			cfg->rng = true;
			break;
		case OPT_STATS:
			cfg->stats = true;
			break;
		case OPT_VSOCK:
			if (vsock_parse_config(optarg, &cfg->vsock, err, errlen) < 0)
				return -EINVAL;
			break;
		case OPT_SANDBOX:
			if (sandbox_opt(sbo, run_opts[idx].name, optarg, err, errlen) < 0)
				return -EINVAL;
			break;
		case 'h':
			cli_run_usage(stdout);
			return 1;
		case ':':
			return fail(err, errlen, "%s needs an argument", argv[optind - 1]);
		default:
			return fail(err, errlen, "unknown option '%s' (see stainless run --help)",
				    argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fail(err, errlen, "unexpected argument '%s'", argv[optind]);
	if (!cfg->kernel)
		return fail(err, errlen, "--kernel PATH is required");
	return 0;
}
