/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `run --config-file FILE` and `run --api-sock PATH` put together: the
 * file read into the config before anything else, the socket opened, and
 * without a kernel yet the configuration wait until InstanceStart; then
 * the hooks that let the VM's control loop serve the socket (reads and
 * actions) while the guest runs.
 */
#ifndef STAINLESS_CMD_RUN_API_H
#define STAINLESS_CMD_RUN_API_H

#include <stdbool.h>

#include "cmd/api_model.h"
#include "cmd/api_server.h"
#include "vmm/vm.h"

#define RUN_CONFIG_MAX JSON_TEXT_MAX

struct run_api {
	struct api_vm api;
	struct api_server srv;
	bool serving;
	int (*ctrl_alt_del)(void *vm); /* the running VM's keyboard, for SendCtrlAltDel */
	void *vm;
	char file[RUN_CONFIG_MAX + 1];
};

/*
 * Before the sandbox: returns 0 to go on (cfg complete), or the exit code
 * after one line on stderr -- 2 for a bad config file or a missing
 * kernel, 1 for a socket that cannot be served.
 */
int run_api_setup(struct run_api *ra, struct vm_config *cfg, const char *config_file,
		  const char *api_sock);

/* Fills h's control-loop part when a socket is served. */
void run_api_hooks(struct run_api *ra, struct vm_hooks *h);

/* The socket file's removal, for the sandbox's supervisor (sandbox_hooks.ended). */
void run_api_ended(void *ctx, int status);

void run_api_close(struct run_api *ra);

#endif
