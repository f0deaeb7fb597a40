/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `stainless vhost-user-fs` command line -> struct vu_fs_config, without
 * side effects. It takes virtiofsd's spellings, so that Kata Containers,
 * libvirt and QEMU users can start stainless where they start virtiofsd:
 * the Rust virtiofsd's options (--socket-path, --fd, --shared-dir,
 * --cache, --xattr, --readonly, --tag, --log-level, --syslog, --sandbox,
 * --seccomp, --inode-file-handles, --announce-submounts,
 * --thread-pool-size, --print-capabilities, --socket-group and the
 * deprecated --socket), its compatibility forms (-o source=,cache=,xattr,
 * announce_submounts,..., -f, -d), and the project's own FS OPTIONS.
 * Any other option is refused with one line naming it.
 */
#ifndef STAINLESS_TRANSPORT_VHOST_USER_CLI_H
#define STAINLESS_TRANSPORT_VHOST_USER_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fs/fs_options.h"

enum vu_sandbox { VU_SANDBOX_NAMESPACE, VU_SANDBOX_CHROOT, VU_SANDBOX_NONE };
enum vu_seccomp { VU_SECCOMP_KILL, VU_SECCOMP_LOG, VU_SECCOMP_TRAP, VU_SECCOMP_NONE };
enum vu_log_level { VU_LOG_OFF, VU_LOG_ERROR, VU_LOG_WARN, VU_LOG_INFO, VU_LOG_DEBUG,
		    VU_LOG_TRACE };
enum vu_file_handles { VU_FH_NEVER, VU_FH_PREFER, VU_FH_MANDATORY };

#define VU_TAG_MAX 36

struct vu_fs_config {
	const char *prog;            /* how it was called, for messages */
	const char *socket_path;     /* --socket-path or --socket */
	bool socket_deprecated;      /* it was --socket */
	int fd;                      /* --fd: a listening socket handed over; -1 */
	const char *socket_group;
	const char *shared_dir;      /* --shared-dir or -o source= */
	const char *tag;             /* --tag: offer the CONFIG protocol feature */
	struct fs_options opts;
	bool cache_metadata;         /* --cache metadata, served as never */
	enum vu_log_level log_level;
	bool syslog;
	bool print_capabilities;
	enum vu_sandbox sandbox;
	enum vu_seccomp seccomp;
	enum vu_file_handles file_handles;
	bool thread_pool_given;
	unsigned long thread_pool_size;
	char obuf[4096];             /* copies of the -o arguments */
	size_t oused;
};

/*
 * Parse argv: argv[0] is "vhost-user-fs" (`stainless vhost-user-fs`) or
 * the program's path when it runs under a virtiofsd's name. 0; 1 when --help or --version
 * was asked (printed already); -EINVAL with one line in err.
 */
int vu_fs_parse_args(int argc, char **argv, struct vu_fs_config *c, char *err, size_t errlen);
void vu_fs_usage(FILE *f, const char *prog);
/* The name messages give: argv[0]'s base name, or "stainless vhost-user-fs". */
const char *vu_fs_prog_name(const char *argv0);
/* What `--print-capabilities` prints: the vhost-user.json backend record. */
void vu_fs_print_capabilities(FILE *f);

#endif
