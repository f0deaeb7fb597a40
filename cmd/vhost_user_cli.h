/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `stainless vhost-user-fs` command line -> struct vu_fs_config, without
 * side effects. It takes virtiofsd's spellings, so that Kata Containers,
 * libvirt and QEMU users can start stainless where they start virtiofsd:
 * the Rust virtiofsd's options and the C virtiofsd's (-o lists as
 * libvirt builds them, -f, -d), and the project's own FS OPTIONS. The
 * switches and the refusals live in vhost_user_opts.c; every option and
 * what it does here: docs/virtiofsd-options.md. Anything else is refused
 * with one line naming it.
 */
#ifndef STAINLESS_CMD_VHOST_USER_CLI_H
#define STAINLESS_CMD_VHOST_USER_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "cmd/vhost_user_opts.h"

/*
 * Parse argv: argv[0] is "vhost-user-fs" (`stainless vhost-user-fs`) or
 * the program's path when it runs under a virtiofsd's name. 0; 1 when
 * --help or --version was asked (printed already); -EINVAL with one line
 * in err.
 */
int vu_fs_parse_args(int argc, char **argv, struct vu_fs_config *c, char *err, size_t errlen);
void vu_fs_usage(FILE *f, const char *prog);
/* The name messages give: argv[0]'s base name, or "stainless vhost-user-fs". */
const char *vu_fs_prog_name(const char *argv0);
/* What `--print-capabilities` prints: the vhost-user.json backend record. */
void vu_fs_print_capabilities(FILE *f);

#endif
