// SPDX-License-Identifier: GPL-2.0-only
/*
 * `stainless run`: the command line read (run_cli.c), the process sandbox
 * entered, then the VM (vmm/vm.c) built and run. The sandbox's lockdown
 * comes in the middle of the VM's set-up (vm.h: the lockdown hook): after
 * the VM opened what it reads by path, before the devices open the shares.
 */
#include "cmd/run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <time.h>

#include "base/exit.h"
#include "base/fail.h"
#include "cmd/run_api.h"
#include "cmd/run_cli.h"
#include "fs/fs_fdbudget.h"
#include "fs/fuse/fuse_hub.h"
#include "sandbox/sandbox.h"
#include "vmm/vm.h"

struct run {
	struct vm_config cfg;
	struct sandbox_opts sandbox_opts;
	struct sandbox sandbox;
	struct run_api api;       /* --config-file, --api-sock */
};

/*
 * What the VM reaches from the host once set up: its shares (and for 9p
 * the user database). The kernel, initrd, console file and /dev/kvm are
 * open by now and stay out of the new root (sandbox/sandbox.h); the shares
 * are then opened by their paths inside it.
 */
static int run_lockdown(void *ctx, struct vm_config *cfg)
{
	struct sandbox *sb = ctx;
	int rc;

	for (unsigned i = 0; i < cfg->nr_shares; i++) {
		const struct vm_share *sh = &cfg->shares[i];
		if ((rc = sandbox_add_share(sb, sh->dir, sh->opts.readonly)) < 0)
			return rc;
		if (sh->is_9p && (rc = sandbox_add_user_db(sb)) < 0)
			return rc;
	}
	if ((rc = sandbox_lockdown(sb)) < 0)
		return rc;
	for (unsigned i = 0; i < cfg->nr_shares; i++) {
		cfg->shares[i].host_dir = cfg->shares[i].dir;
		cfg->shares[i].dir = sandbox_path(sb, cfg->shares[i].dir);
	}
	return 0;
}

/*
 * What the command line names on the host, checked before the sandbox or
 * KVM, so the first error names the option it came from ("--fs TAG",
 * not the sandbox's bind mount). The VM opens them again later; this only
 * reports early.
 */
static int run_check_inputs(const struct vm_config *cfg)
{
	struct stat st;
	int fd;

	/* No --kernel: the API socket or the config file gives one, checked there. */
	if (cfg->kernel) {
		fd = open(cfg->kernel, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail(-errno, "--kernel %s: %s", cfg->kernel, strerror(errno));
		close(fd);
	}
	if (cfg->initrd) {
		fd = open(cfg->initrd, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail(-errno, "--initrd %s: %s", cfg->initrd, strerror(errno));
		close(fd);
	}
	for (unsigned i = 0; i < cfg->nr_shares; i++) {
		const struct vm_share *sh = &cfg->shares[i];
		const char *opt = sh->is_9p ? "--9p" : sh->is_hub ? "--fs-hub" : "--fs";

		if (stat(sh->dir, &st) < 0)
			return fail(-errno, "%s %s: %s: %s", opt, sh->tag, sh->dir, strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return fail(-ENOTDIR, "%s %s: %s: not a directory", opt, sh->tag, sh->dir);
	}
	return 0;
}

int run_config(struct vm_config *cfg, const struct sandbox_opts *sbo)
{
	struct sandbox *sb = calloc(1, sizeof(*sb));
	struct vm_hooks hooks = { .lockdown = run_lockdown, .ctx = sb };
	struct timespec t0;
	int rc, code;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	signal(SIGPIPE, SIG_IGN);
	if (!sb)
		return fail(-ENOMEM, "out of memory");
	if ((rc = run_check_inputs(cfg)) < 0) {
		free(sb);
		return rc;
	}
	sandbox_init(sb, fail_command() ? fail_command() : "run", sbo);
	for (unsigned i = 0; i < cfg->nr_shares; i++)
		sb->devices |= cfg->shares[i].opts.devices;
	rc = sandbox_enter(sb, &code);
	if (rc == 0) {
		fs_fd_raise_nofile();
		rc = vm_run(cfg, &hooks, &t0);
	} else if (rc > 0) {
		rc = code;
	}
	free(sb);
	return rc;
}

int run_main(int argc, char **argv)
{
	struct run *r = calloc(1, sizeof(*r));
	struct timespec t0;
	char err[256];
	int rc, code;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* A console whose reader went away must not kill the VM: the write
	 * fails with EPIPE and the output is dropped. */
	signal(SIGPIPE, SIG_IGN);
	if (!r)
		return fail(1, "out of memory");
	rc = cli_parse_run(argc, argv, &r->cfg, &r->sandbox_opts, err, sizeof(err));
	if (rc != 0) {
		if (rc < 0)
			fail(rc, "%s", err);
		free(r);
		return rc < 0 ? EXIT_USAGE : EXIT_OK;
	}
	if ((rc = run_check_inputs(&r->cfg)) < 0) {
		free(r);
		return rc;
	}
	/* The config file and the socket's configuration wait come first:
	 * the sandbox is made for the shares they name. */
	rc = run_api_setup(&r->api, &r->cfg, r->cfg.config_file, r->cfg.api_sock);
	if (rc != 0) {
		run_api_close(&r->api);
		free(r);
		return rc;
	}
	struct vm_hooks hooks = { .lockdown = run_lockdown, .ctx = &r->sandbox };

	run_api_hooks(&r->api, &hooks);
	sandbox_init(&r->sandbox, "run", &r->sandbox_opts);
	if (r->api.serving)
		r->sandbox.hooks = (struct sandbox_hooks){ .ended = run_api_ended, .ctx = &r->api };
	for (unsigned i = 0; i < r->cfg.nr_shares; i++) {
		r->sandbox.devices |= r->cfg.shares[i].opts.devices;
		/* Before the filters are built: the control thread then attaches shares. */
		if (r->cfg.shares[i].is_hub)
			fuse_hub_announce();
	}
	rc = sandbox_enter(&r->sandbox, &code);
	if (rc != 0) {
		run_api_close(&r->api);
		free(r);
		return rc > 0 ? code : rc;
	}
	fs_fd_raise_nofile(); /* best effort: the shares then just keep fewer fds */
	rc = vm_run(&r->cfg, &hooks, &t0);
	/* Without a supervisor nobody else removes the socket's file. */
	if (r->sandbox_opts.mode == SANDBOX_NONE)
		run_api_ended(&r->api, 0);
	run_api_close(&r->api);
	free(r);
	return rc;
}
