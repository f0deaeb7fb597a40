/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * virtiofsd's option words, decided one by one (docs/virtiofsd-options.md):
 * the on/off switches of the C and the Rust virtiofsd (one table, spelled
 * with dashes: --no-readdirplus and -o no_readdirplus are one switch), the
 * C virtiofsd's -o lists as libvirt builds them, and the options stainless
 * refuses, each with the reason and what to use instead.
 */
#ifndef STAINLESS_CMD_VHOST_USER_OPTS_H
#define STAINLESS_CMD_VHOST_USER_OPTS_H

#include <stdbool.h>
#include <stddef.h>

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
	enum vu_log_level log_level;
	bool syslog;
	bool stats;                  /* --stats: the requests per ring, when the frontend left */
	bool print_capabilities;
	enum vu_sandbox sandbox;
	enum vu_seccomp seccomp;
	enum vu_file_handles file_handles;
	bool thread_pool_given;
	unsigned long thread_pool_size;
	unsigned long rlimit_nofile; /* --rlimit-nofile: 0 leaves the limit as it is */
	bool max_idle_given;         /* -o max_idle_threads=: there is no pool */
	char obuf[4096];             /* copies of the -o arguments */
	size_t oused;
};

/* The value words: --cache/-o cache= (none is never), --log-level/-o log_level=. */
int vu_opt_parse_cache(struct vu_fs_config *c, const char *v);
/* --watches N / -o watches=N: 0, or -EINVAL. */
int vu_opt_parse_watches(struct vu_fs_config *c, const char *v);
int vu_opt_parse_log_level(struct vu_fs_config *c, const char *v);
/* A switch by name ("xattr", "no-flock", ...): 0, or 1 when it is not one. */
int vu_opt_switch(struct vu_fs_config *c, const char *name);
/* Why virtiofsd's option NAME (dashes) is refused here, or NULL. */
const char *vu_opt_refusal(const char *name);
/*
 * One -o argument: comma-separated words, ",," a comma inside a value
 * (libvirt doubles the commas of a path). Copies go to c->obuf, so the
 * values live as long as c. 0 or -EINVAL with one line in err.
 */
int vu_opt_parse_o(struct vu_fs_config *c, const char *arg, char *err, size_t errlen);

#endif
