// SPDX-License-Identifier: GPL-2.0-only
/* `stainless vhost-user-fs`'s option table (see vhost_user_table.h). */
#include "cmd/vhost_user_table.h"

#define SWITCH(n, h)  { n, 0, OPT_FLAG, NULL, NULL, h, NULL, 0, VU_K_SWITCH }
#define REFUSED(n)    { n, 0, OPT_OPTIONAL, NULL, NULL, "refused", NULL, OPT_REFUSED, VU_K_REFUSED }

static const struct opt_def own[] = {
	{ "shared-dir", 0, OPT_VALUE, "DIR", NULL, "the directory to share (-o source=DIR)",
	  "@dir", 0, VU_K_SHARED_DIR },
	{ "socket-path", 0, OPT_VALUE, "PATH", NULL, "listen there for the frontend", "@file", 0,
	  VU_K_SOCKET_PATH },
	{ "socket", 0, OPT_VALUE, "PATH", NULL, "deprecated spelling of --socket-path", "@file",
	  OPT_HIDDEN, VU_K_SOCKET },
	{ "fd", 0, OPT_VALUE, "FD", NULL, "or serve on this listening socket, handed over", NULL,
	  0, VU_K_FD },
	{ "socket-group", 0, OPT_VALUE, "GROUP", NULL, "the socket 0660 with this group", NULL, 0,
	  VU_K_SOCKET_GROUP },
	{ "tag", 0, OPT_VALUE, "TAG", NULL, "offer the device config with this tag (1 to 36 "
	  "bytes)", NULL, 0, VU_K_TAG },
	{ "cache", 0, OPT_VALUE, "MODE", "auto", "how long the guest may keep names, attributes "
	  "and data (none is never)", "auto always metadata never none", 0, VU_K_CACHE },
	{ "dax-window", 0, OPT_VALUE, "SIZE", NULL, "a DAX window of SIZE (a multiple of 2M, at "
	  "most 64G) for a frontend that maps it (VHOST_USER_PROTOCOL_F_SHMEM; docs/dax.md)",
	  NULL, 0, VU_K_DAX_WINDOW },
	{ "watches", 0, OPT_VALUE, "N", "0", "watch up to N looked-up directories with inotify "
	  "and give what changed on the host short lifetimes, what stayed quiet up to 10 s "
	  "(cache=always or metadata; docs/host-changes.md)", NULL, 0, VU_K_WATCHES },
	{ "readonly", 0, OPT_FLAG, NULL, NULL, "refuse every change (EROFS)", NULL, 0,
	  VU_K_READONLY },
	{ "xattr-map", 0, OPT_FLAG, NULL, NULL, "xattr, and keep security.* and trusted.* as "
	  "user.stainless.*", NULL, 0, VU_K_XATTR_MAP },
	{ "devices", 0, OPT_FLAG, NULL, NULL, "allow device nodes (mknod of char/block devices)",
	  NULL, 0, VU_K_DEVICES },
	{ "log-level", 0, OPT_VALUE, "LEVEL", "info", "the least a line must matter to be "
	  "logged; trace: one line per request", "error warn info debug trace off", 0,
	  VU_K_LOG_LEVEL },
	{ "syslog", 0, OPT_FLAG, NULL, NULL, "log to the system log (/dev/log), not stderr",
	  NULL, 0, VU_K_SYSLOG },
	{ "stats", 0, OPT_FLAG, NULL, NULL, "when the frontend leaves, one line with the "
	  "requests each ring carried", NULL, 0, VU_K_STATS },
	{ "sandbox", 0, OPT_VALUE, "MODE", "namespace", "confine the backend: its own namespaces "
	  "and root, or a chroot, or none", "namespace chroot none", 0, VU_K_SANDBOX },
	/* Its own parser takes it too (main.c takes it first): c->seccomp. */
	{ "seccomp", 0, OPT_VALUE, "MODE", "kill", "what a thread's forbidden system call does",
	  "kill log trap none", 0, VU_K_SECCOMP },
	{ "inode-file-handles", 0, OPT_VALUE, "MODE", "never", "accepted: no file handles are "
	  "kept (prefer is served as never)", "never prefer", 0, VU_K_FILE_HANDLES },
	{ "thread-pool-size", 0, OPT_VALUE, "N", NULL, "accepted; there is no pool (each ring "
	  "has its own worker)", NULL, 0, VU_K_POOL },
	{ "rlimit-nofile", 0, OPT_VALUE, "N", "0", "RLIMIT_NOFILE (0: as it is)", NULL, 0,
	  VU_K_RLIMIT },
	{ "print-capabilities", 0, OPT_FLAG, NULL, NULL, "the vhost-user.json backend record, "
	  "then exit", NULL, 0, VU_K_PRINT_CAPS },
	{ NULL, 'o', OPT_VALUE, "OPTIONS", NULL, "the C virtiofsd's forms: source=DIR, "
	  "cache=MODE, log_level=LEVEL, sandbox=MODE, watches=N and each switch, also as no_SWITCH; ,, is "
	  "a comma in a value (repeatable)", NULL, OPT_REPEAT, 'o' },
	{ NULL, 'f', OPT_FLAG, NULL, NULL, "foreground (always)", NULL, 0, 'f' },
	{ NULL, 'd', OPT_FLAG, NULL, NULL, "the same as --log-level debug", NULL, 0, 'd' },
	SWITCH("xattr", "serve extended attributes (user.*, POSIX ACLs)"),
	SWITCH("writeback", "let the guest cache writes (writeback cache)"),
	SWITCH("posix-acl", "serve POSIX ACLs (implies --xattr)"),
	SWITCH("readdirplus", "answer READDIRPLUS (the default)"),
	SWITCH("no-readdirplus", "answer READDIR only"),
	SWITCH("killpriv-v2", "offer FUSE_HANDLE_KILLPRIV_V2 (the default)"),
	SWITCH("no-killpriv-v2", "do not offer it"),
	SWITCH("allow-direct-io", "honour a guest's O_DIRECT"),
	SWITCH("announce-submounts", "accepted: always so"),
	SWITCH("allow-mmap", "accepted: always so (shared mmap of direct-io files)"),
	SWITCH("preserve-noatime", "accepted: always so (the guest's O_NOATIME kept)"),
	REFUSED("xattrmap"), REFUSED("modcaps"), REFUSED("security-label"),
	REFUSED("translate-uid"), REFUSED("translate-gid"), REFUSED("uid-map"), REFUSED("gid-map"),
	REFUSED("migration-mode"), REFUSED("migration-on-error"),
	REFUSED("migration-verify-handles"), REFUSED("migration-confirm-paths"),
	REFUSED("daemonize"),
	{ 0 },
};

/* --print-seccomp alone: main.c takes it before the parser. */
static const struct opt_def *const groups[] = { own, &opt_group_seccomp[1], opt_group_help,
						NULL };

const struct opt_cmd vhost_user_cmd = {
	.name = "vhost-user-fs",
	.prog = "stainless vhost-user-fs",
	.synopsis = "(--socket-path PATH | --fd FD) --shared-dir DIR [OPTIONS]",
	.summary = "A drop-in virtiofsd: serve one vhost-user frontend (QEMU, cloud-hypervisor).",
	.description = "Every ring is answered inline by its own io_uring worker; a DAX window "
		"(--dax-window) only for a frontend that speaks VHOST_USER_PROTOCOL_F_SHMEM. It exits when the frontend disconnects. Under the name "
		"virtiofsd or stainless-virtiofsd the binary is this command with no command "
		"word, as libvirt, Kata and QEMU's vhost-user descriptors run a virtiofsd. With "
		"neither --fd nor --socket-path, systemd's socket activation (LISTEN_FDS) is "
		"served. Every option: docs/virtiofsd-options.md.",
	.example = "stainless vhost-user-fs --socket-path /run/vfs.sock --shared-dir /srv/share "
		"--cache auto",
	.notes = "Each refused option says why and what to use instead; "
		"see docs/virtiofsd-options.md.",
	.groups = groups,
};
