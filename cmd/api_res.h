/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The configuring resources, each a function from one JSON object (a
 * request body or a member of a config file) to the VM's config. Each
 * checks every field before it changes anything, so a refused request
 * leaves the config as it was. Returns 0 or -EINVAL with err naming the
 * resource and the field.
 */
#ifndef STAINLESS_CMD_API_RES_H
#define STAINLESS_CMD_API_RES_H

#include <stddef.h>

#include "cmd/api_model.h"

/* id: the tag from the path (PUT /fs/TAG), or NULL to take the body's "tag". */
typedef int api_put_fn(struct api_vm *a, const struct json_doc *d, unsigned obj,
		       const char *id, char *err, size_t errlen);

api_put_fn api_put_boot_source, api_put_machine_config, api_put_fs, api_put_9p,
	   api_put_fs_hub, api_put_vsock, api_put_console, api_put_rng;

/* Looks a member up by name: the value's token index, or 0 (never a value). */
unsigned api_member(const struct json_doc *d, unsigned obj, const char *name);

#endif
