/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef STAINLESS_VMM_VM_H
#define STAINLESS_VMM_VM_H

#include <poll.h>
#include <time.h>

#include "vmm/vm_config.h"

/*
 * What the command does for the VM once the VM holds every host file it
 * opens by path (/dev/kvm, the console, the kernel and initrd) and before
 * the devices open their shares: confine the process, and point each
 * share's dir at its path inside the confinement. 0 or -errno after one
 * line. NULL: nothing to do.
 */
struct vm_hooks {
	int (*lockdown)(void *ctx, struct vm_config *cfg);
	void *ctx;
	/*
	 * A source the control loop serves besides signals and stop
	 * requests (run's API socket, cmd/run_api.c), so the loop knows
	 * nothing of it: its fd and timeout before each poll, its turn after.
	 * running() is called once the vCPUs run, with the VM's Ctrl+Alt+Del
	 * (i8042_ctrl_alt_del: 0, -ENODEV or -ENOSPC). NULL: none.
	 */
	void (*ctl_pollfd)(void *ctx, struct pollfd *p);
	int (*ctl_timeout_ms)(void *ctx);
	void (*ctl_service)(void *ctx, const struct pollfd *p);
	void (*running)(void *ctx, int (*ctrl_alt_del)(void *vm), void *vm);
	void *ctl_ctx;
};

/*
 * Build the VM cfg describes, run it until the guest resets or powers
 * off, an error or a signal, and tear it down. t0: when the command began
 * (STAINLESS_BOOT_TRACE). Returns the process exit code.
 */
int vm_run(struct vm_config *cfg, const struct vm_hooks *hooks, const struct timespec *t0);

#endif
