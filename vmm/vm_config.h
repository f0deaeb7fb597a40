/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `stainless run` asks of the VM: the parsed command line the VM is
 * built from (cmd/run_cli.c fills it; the VM only reads it).
 */
#ifndef STAINLESS_VMM_VM_CONFIG_H
#define STAINLESS_VMM_VM_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/virtio_vsock.h"
#include "fs/fs_options.h"

#define VM_MAX_SHARES   16
#define VM_TAG_MAX      36   /* virtio-fs config tag is 36 bytes */
#define VM_MEM_MIN      (32ull << 20)
#define VM_MEM_MAX      (1ull << 40)
#define VM_MEM_DEFAULT  (512ull << 20)
#define VM_CPUS_MAX     255  /* xAPIC ids; KVM's own limit is checked at start */

enum vm_console { CONSOLE_STDIO, CONSOLE_NONE, CONSOLE_FILE };

struct fuse_hub;

struct vm_share {
	bool is_9p;
	bool is_hub;              /* --fs-hub: dir is the base shares are attached from */
	struct fuse_hub **hub_out; /* where the device leaves its hub (NULL: nowhere) */
	const char *host_dir;     /* dir as the host names it, once dir is the sandbox's */
	char tag[VM_TAG_MAX + 1];
	const char *dir;          /* points into share_specs of the same config */
	struct fs_options opts;
};

struct vm_config {
	const char *kernel;
	const char *initrd;
	const char *cmdline;
	uint64_t mem;
	unsigned cpus;
	enum vm_console console;
	const char *console_path;
	bool rng;
	struct vsock_config vsock; /* --vsock CID,UDS; cid 0: none */
	bool stats;               /* --stats: per-queue request counts at exit */
	const char *api_sock;     /* --api-sock, --config-file: read by cmd/run_api.c only */
	const char *config_file;
	unsigned nr_shares;
	struct vm_share shares[VM_MAX_SHARES];
	char share_specs[VM_MAX_SHARES][4096]; /* writable copies of TAG=DIR,opts */
};

#endif
