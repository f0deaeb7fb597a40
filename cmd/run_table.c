// SPDX-License-Identifier: GPL-2.0-only
/* `stainless run`'s option table (see run_table.h). */
#include "cmd/run_table.h"

static const struct opt_def own[] = {
	{ "kernel", 0, OPT_VALUE, "PATH", NULL, "the guest kernel: a bzImage or an ELF vmlinux "
	  "(or --config-file, or --api-sock)", "@file", 0, RUN_KERNEL },
	{ "initrd", 0, OPT_VALUE, "PATH", NULL, "an initramfs for the guest", "@file", 0,
	  RUN_INITRD },
	{ "cmdline", 0, OPT_VALUE, "STR", NULL, "the guest kernel's command line (the devices "
	  "are appended)", NULL, 0, RUN_CMDLINE },
	{ "mem", 0, OPT_VALUE, "SIZE", "512M", "guest RAM, 32M to 1T (a bare number is MiB)",
	  NULL, 0, RUN_MEM },
	{ "cpus", 0, OPT_VALUE, "N", "1", "vCPUs, 1 to 255", NULL, 0, RUN_CPUS },
	{ "console", 0, OPT_VALUE, "WHERE", "stdio", "the guest's serial console: stdio, none or "
	  "a file", "stdio none", 0, RUN_CONSOLE },
	{ "fs", 0, OPT_VALUE, "TAG=DIR[,OPTS]", NULL, "a virtio-fs share; OPTS: "
	  "cache=never|auto|always|metadata, dax=SIZE, dax=inode (the server picks "
	  "the files to map), dax-min=SIZE (dax=inode's smallest file, 1M), readonly, xattr[=map], "
	  "writeback, devices, queues=N (1..16; default one per vCPU), timeout=SECONDS (a stuck host file "
	  "system answers EIO after it; default 30, 0: wait), watches=N (with cache=always: "
	  "quiet inodes kept up to 10 s, changed ones 1 s; docs/host-changes.md) (repeatable)", NULL, OPT_REPEAT,
	  RUN_FS },
	{ "fs-hub", 0, OPT_VALUE, "TAG=DIR[,OPTS]", NULL, "a virtio-fs device whose root lists "
	  "shares attached and detached at run time through --api-sock, each a directory "
	  "beneath DIR (docs/fs-hub.md); OPTS: cache=never|auto|always|metadata, xattr[=map] "
	  "(repeatable)", NULL, OPT_REPEAT, RUN_FS_HUB },
	{ "9p", 0, OPT_VALUE, "TAG=DIR[,OPTS]", NULL, "a virtio-9p share; OPTS: msize=BYTES, "
	  "readonly, xattr=map, devices (repeatable)", NULL, OPT_REPEAT, RUN_9P },
	{ "rng", 0, OPT_FLAG, NULL, NULL, "a virtio-rng device (the guest's /dev/hwrng)", NULL,
	  0, RUN_RNG },
	{ "shared-dir", 0, OPT_VALUE, "PATH:TAG[:KEY=VALUE...]", NULL, "a share in crosvm's "
	  "spelling: type=fs|p9 (default p9), cache=, timeout=, writeback=, dax=, uidmap=, "
	  "gidmap=, posix_acl= (docs/crosvm.md) (repeatable)", "@dir", OPT_REPEAT, RUN_SHARED },
	{ "vsock", 0, OPT_VALUE, "CID,UDS[,conns=N]", NULL, "a virtio-vsock device, guest CID >= 3, "
	  "Firecracker's convention: a host process connects to UDS and writes \"CONNECT "
	  "PORT\\n\"; a guest connect to host port P reaches the socket UDS_P; conns=N "
	  "connections at most (default 64; docs/vsock.md)", NULL, 0, RUN_VSOCK },
	{ "api-sock", 0, OPT_VALUE, "PATH", NULL, "serve HTTP/JSON on this Unix socket "
	  "(docs/api.md); without --kernel the VM waits there for its configuration and "
	  "InstanceStart", "@file", 0, RUN_API },
	{ "config-file", 0, OPT_VALUE, "FILE", NULL, "the VM as one JSON document, the API's "
	  "resources (docs/api.md); it starts at once", "@file", 0, RUN_CONFIG },
	{ 0 },
};

static const struct opt_def *const groups[] = {
	own, opt_group_sandbox, opt_group_seccomp, opt_group_log, opt_group_stats,
	opt_group_help, NULL,
};

const struct opt_cmd run_cmd = {
	.name = "run",
	.prog = "stainless run",
	.synopsis = "(--kernel PATH | --config-file FILE | --api-sock PATH) [OPTIONS]",
	.summary = "Boot a microVM on KVM with fast, sandboxed host-folder shares.",
	.description = "Each share is a virtio-fs (FUSE, with an optional DAX window) or "
		"virtio-9p device on virtio-mmio, every virtqueue served inline by its own "
		"io_uring thread. The VMM runs in its own namespaces with only the shares "
		"bind-mounted, under a seccomp filter per thread role. It exits 0 when the "
		"guest powers off or reboots, 2 on a bad command line, 1 on a failure, with "
		"one line saying what, 3 when the guest failed (a triple fault; "
		"docs/exit-codes.md). --stats prints one line per device at exit with the "
		"requests each queue carried.",
	.example = "stainless run --kernel bzImage --initrd initrd.img --cmdline console=ttyS0 "
		"--fs share=/srv/share,cache=auto,dax=1G",
	.groups = groups,
};
