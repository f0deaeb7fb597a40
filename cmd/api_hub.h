/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The API's fs-hub resources (docs/fs-hub.md): shares attached to and
 * detached from a running VM's --fs-hub device.
 *
 *   PUT    /fs-hub/TAG/shares/NAME   {"path": DIR, "readonly": BOOL}
 *   DELETE /fs-hub/TAG/shares/NAME
 *   GET    /fs-hub/TAG                {"tag":..., "shares":[...]}
 */
#ifndef STAINLESS_CMD_API_HUB_H
#define STAINLESS_CMD_API_HUB_H

#include <stddef.h>

#include "cmd/json.h"
#include "vmm/vm_config.h"

#define API_HUB_PATH_MAX 4096

/*
 * One request; path is what follows "/fs-hub/". hubs[i] is the hub of
 * cfg->shares[i] once the VM runs (NULL before). Returns the HTTP
 * status; the JSON body of a GET in out, or for an error its one line in
 * msg. doc is scratch for the body.
 */
int api_hub_request(struct fuse_hub *const *hubs, const struct vm_config *cfg,
		    const char *method, const char *path, struct json_doc *doc,
		    const char *body, size_t len, char *out, size_t outlen,
		    char *msg, size_t msglen);

#endif
