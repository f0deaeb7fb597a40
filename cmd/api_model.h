/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The API's resources (boot source, machine config, shares, vsock,
 * console, rng, actions, the instance's state) mapped onto `run`'s
 * struct vm_config. One JSON -> config path serves both the API socket's
 * request bodies and --config-file's whole-VM document, so both refuse
 * the same things with the same words.
 */
#ifndef STAINLESS_CMD_API_MODEL_H
#define STAINLESS_CMD_API_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd/json.h"
#include "vmm/vm_config.h"

#define API_REPLY_MAX (16u * 1024)
#define API_STR_MAX   4096

enum api_state { API_NOT_STARTED, API_RUNNING, API_HALTED };

struct api_vm {
	struct vm_config *cfg;
	enum api_state state;
	bool start;               /* InstanceStart accepted: the configuration wait ends */
	/* SendCtrlAltDel on a running VM (0, -ENODEV: no keyboard driver,
	 * -ENOSPC: keys not read yet); set by whoever runs it. */
	int (*ctrl_alt_del)(void *ctx);
	void *ctx;
	/* What cfg's strings point at once the API or the file set them. */
	char kernel[API_STR_MAX], initrd[API_STR_MAX], cmdline[API_STR_MAX];
	char console_path[API_STR_MAX];
	struct json_doc doc;      /* scratch for one body */
	/* The --fs-hub devices' hubs, by share index, once the VM runs (cmd/api_hub.h). */
	struct fuse_hub *hubs[VM_MAX_SHARES];
};

struct api_reply {
	int status;               /* 200 with body, 204 without, or an error */
	char body[API_REPLY_MAX];
};

void api_vm_init(struct api_vm *a, struct vm_config *cfg);

/* One request: method, path and body in; a status and a JSON body out. */
void api_handle(struct api_vm *a, const char *method, const char *path,
		const char *body, size_t len, struct api_reply *rep);

/* A reply carrying {"fault_message": msg}. */
void api_fault(struct api_reply *rep, int status, const char *msg);

/*
 * A --config-file document: every resource in one object. Returns 0 or
 * -EINVAL with one line in err. Does not start anything.
 */
int api_config_doc(struct api_vm *a, const char *text, size_t len, char *err, size_t errlen);

#endif
