/* SPDX-License-Identifier: GPL-2.0-only */
/* `stainless run` command line → struct vm_config (no side effects). */
#ifndef STAINLESS_VMM_CLI_H
#define STAINLESS_VMM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "fs/fs_options.h"
#include "sandbox/sandbox.h"

#define VM_MAX_SHARES   16
#define VM_TAG_MAX      36   /* virtio-fs config tag is 36 bytes */
#define VM_MEM_MIN      (32ull << 20)
#define VM_MEM_MAX      (1ull << 40)
#define VM_MEM_DEFAULT  (512ull << 20)
#define VM_CPUS_MAX     255  /* xAPIC ids; KVM's own limit is checked at start */

enum vm_console { CONSOLE_STDIO, CONSOLE_NONE, CONSOLE_FILE };

struct vm_share {
	bool is_9p;
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
	struct sandbox_opts sandbox;
	bool rng;
	bool stats;               /* --stats: per-queue request counts at exit */
	unsigned nr_shares;
	struct vm_share shares[VM_MAX_SHARES];
	char share_specs[VM_MAX_SHARES][4096]; /* writable copies of TAG=DIR,opts */
};

/*
 * Parse `run` arguments (argv[0] is "run"). Returns 0, 1 when --help was
 * asked for (usage already printed), or -EINVAL with a one-line reason in
 * err. Checks only what the command line itself can tell; files and KVM
 * are checked when the VM is built.
 */
int cli_parse_run(int argc, char **argv, struct vm_config *cfg,
		  char *err, size_t errlen);
void cli_run_usage(FILE *f);

/* One clear line on stderr, "stainless run: ...", for `run`'s set-up; returns rc. */
int cli_run_err(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
