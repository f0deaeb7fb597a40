// SPDX-License-Identifier: GPL-2.0-only
/*
 * An OCI runtime configuration (config.json) turned into the options of
 * `stainless exec`: what the container's process would have had, the
 * guest's process gets (docs/containers.md, "crun").
 */
#ifndef STAINLESS_CRUN_OCI_ARGS_H
#define STAINLESS_CRUN_OCI_ARGS_H

#include <stdbool.h>
#include <stddef.h>

struct oci_args {
	char **v;
	size_t n, cap;
};

int oci_args_push(struct oci_args *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void oci_args_free(struct oci_args *a);

/*
 * Appends to a the exec options config.json asks for: --env, --cwd,
 * --user, --hostname, --rlimit, --cpus, --mem and one --fs per bind
 * mount of a directory. is_dir says whether a mount's destination is a
 * directory (the caller looks in the container's root). 0, or -errno with
 * the reason in err.
 */
int oci_to_exec_args(const char *json, struct oci_args *a, int (*is_dir)(const char *path),
		     char *err, size_t errlen);

/* root.readonly: true. */
bool oci_root_readonly(const char *json);

#endif
