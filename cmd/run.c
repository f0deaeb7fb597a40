// SPDX-License-Identifier: GPL-2.0-only
/*
 * `stainless run`: the command line read (run_cli.c), the process sandbox
 * entered, then the VM (vmm/vm.c) built and run. The sandbox's lockdown
 * comes in the middle of the VM's set-up (vm.h: the lockdown hook): after
 * the VM opened what it reads by path, before the devices open the shares.
 */
#include "cmd/run.h"

#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "base/fail.h"
#include "cmd/run_api.h"
#include "cmd/run_cli.h"
#include "fs/fs_fdbudget.h"
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
	for (unsigned i = 0; i < cfg->nr_shares; i++)
		cfg->shares[i].dir = sandbox_path(sb, cfg->shares[i].dir);
	return 0;
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
		return rc < 0 ? 2 : 0;
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
	for (unsigned i = 0; i < r->cfg.nr_shares; i++)
		r->sandbox.devices |= r->cfg.shares[i].opts.devices;
	rc = sandbox_enter(&r->sandbox, &code);
	if (rc != 0) {
		run_api_close(&r->api);
		free(r);
		return rc > 0 ? code : 1;
	}
	fs_fd_raise_nofile(); /* best effort: the shares then just keep fewer fds */
	rc = vm_run(&r->cfg, &hooks, &t0);
	/* Without a supervisor nobody else removes the socket's file. */
	if (r->sandbox_opts.mode == SANDBOX_NONE)
		run_api_ended(&r->api);
	run_api_close(&r->api);
	free(r);
	return rc;
}
