// SPDX-License-Identifier: GPL-2.0-only
/* The fs-hub resources of the API (see api_hub.h). */
#include "cmd/api_hub.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fs/fuse/fuse_hub.h"

/* The --fs-hub share of tag: its index in cfg, or -1. */
static int find_hub(const struct vm_config *cfg, const char *tag)
{
	for (unsigned i = 0; i < cfg->nr_shares; i++)
		if (cfg->shares[i].is_hub && !strcmp(cfg->shares[i].tag, tag))
			return (int)i;
	return -1;
}

/* {"path": "...", "readonly": bool}: 0, or 400 with msg. */
static int parse_attach(const struct json_doc *d, const char *res, char *path, size_t size,
			bool *readonly, char *msg, size_t msglen)
{
	unsigned p = 0;

	*readonly = false;
	if (d->tok[0].type != JSON_OBJECT) {
		snprintf(msg, msglen, "%s: expected a JSON object", res);
		return 400;
	}
	for (unsigned k = 1; k < d->tok[0].next; k = d->tok[k + 1].next) {
		if (json_str_eq(d, k, "path")) {
			p = k + 1;
		} else if (json_str_eq(d, k, "readonly")) {
			if (d->tok[k + 1].type != JSON_TRUE && d->tok[k + 1].type != JSON_FALSE) {
				snprintf(msg, msglen, "%s: readonly must be true or false", res);
				return 400;
			}
			*readonly = d->tok[k + 1].type == JSON_TRUE;
		} else {
			char key[64];

			if (json_str(d, k, key, sizeof(key)) < 0)
				snprintf(key, sizeof(key), "(a long name)");
			snprintf(msg, msglen, "%s: unknown field '%s'", res, key);
			return 400;
		}
	}
	if (!p) {
		snprintf(msg, msglen, "%s: path is required", res);
		return 400;
	}
	if (d->tok[p].type != JSON_STRING || json_str(d, p, path, size) < 0 || !path[0]) {
		snprintf(msg, msglen, "%s: path must be a non-empty string under %zu bytes", res, size);
		return 400;
	}
	return 0;
}

static int attach(struct fuse_hub *hub, const struct vm_share *sh, const char *res,
		  const char *name, struct json_doc *doc, const char *body, size_t len,
		  char *msg, size_t msglen)
{
	char path[API_HUB_PATH_MAX];
	bool readonly;
	int st, rc;

	if (len == 0 || json_parse(doc, body, len) < 0) {
		snprintf(msg, msglen, "%s: %s", res, len ? doc->err : "expected a JSON object");
		return 400;
	}
	if ((st = parse_attach(doc, res, path, sizeof(path), &readonly, msg, msglen)))
		return st;
	rc = fuse_hub_attach(hub, name, path, readonly);
	switch (rc) {
	case 0:
		return 204;
	case -EEXIST:
		snprintf(msg, msglen, "%s: attached already (DELETE it first)", res);
		return 409;
	case -ENOSPC:
		snprintf(msg, msglen, "%s: too many shares (at most %d)", res, FUSE_HUB_SHARES_MAX);
		return 400;
	case -EXDEV:
		snprintf(msg, msglen, "%s: path %s is not beneath the hub's directory %s", res, path,
			 sh->host_dir ? sh->host_dir : sh->dir);
		return 400;
	case -ENOTDIR:
		snprintf(msg, msglen, "%s: path %s: not a directory (symlinks are not followed)",
			 res, path);
		return 400;
	default:
		snprintf(msg, msglen, "%s: path %s: %s", res, path, strerror(-rc));
		return rc == -ENFILE || rc == -ENOMEM ? 500 : 400;
	}
}

static int list(struct fuse_hub *hub, const char *tag, char *out, size_t outlen)
{
	char names[FUSE_HUB_SHARES_MAX][FUSE_HUB_NAME_MAX + 1];
	unsigned n = fuse_hub_list(hub, names, FUSE_HUB_SHARES_MAX);
	struct json_out o;

	json_out_init(&o, out, outlen);
	json_out_raw(&o, "{\"tag\":");
	json_out_str(&o, tag);
	json_out_raw(&o, ",\"shares\":[");
	for (unsigned i = 0; i < n; i++) {
		if (i)
			json_out_raw(&o, ",");
		json_out_str(&o, names[i]);
	}
	json_out_raw(&o, "]}");
	return 200;
}

int api_hub_request(struct fuse_hub *const *hubs, const struct vm_config *cfg,
		    const char *method, const char *path, struct json_doc *doc,
		    const char *body, size_t len, char *out, size_t outlen,
		    char *msg, size_t msglen)
{
	char tag[VM_TAG_MAX + 2], res[160];
	const char *slash = strchr(path, '/'), *name = NULL;
	size_t taglen = slash ? (size_t)(slash - path) : strlen(path);
	int i;

	if (taglen == 0 || taglen > VM_TAG_MAX) {
		snprintf(msg, msglen, "fs-hub: a tag is 1 to %d bytes", VM_TAG_MAX);
		return 404;
	}
	memcpy(tag, path, taglen);
	tag[taglen] = 0;
	if (slash) {
		if (strncmp(slash, "/shares/", 8) || !slash[8] || strchr(slash + 8, '/')) {
			snprintf(msg, msglen, "fs-hub/%s: unknown resource (fs-hub/%s/shares/NAME)", tag, tag);
			return 404;
		}
		name = slash + 8;
	}
	snprintf(res, sizeof(res), "fs-hub/%s%s%.40s", tag, name ? "/shares/" : "", name ? name : "");
	if ((i = find_hub(cfg, tag)) < 0) {
		snprintf(msg, msglen, "fs-hub/%s: no such hub (--fs-hub %s=DIR, or PUT /fs-hub/%s "
			 "before InstanceStart)", tag, tag, tag);
		return 404;
	}
	if (!hubs[i]) {
		snprintf(msg, msglen, "%s: the VM has not started (shares are attached while it runs)",
			 res);
		return 409;
	}
	if (!name) {
		if (strcmp(method, "GET")) {
			snprintf(msg, msglen, "%s: only GET", res);
			return 405;
		}
		return list(hubs[i], tag, out, outlen);
	}
	if (fuse_hub_name_check(name) < 0) {
		snprintf(msg, msglen, "%s: a share's name is 1 to %d bytes of letters, digits, "
			 "'.', '_', '-' and ':'", res, FUSE_HUB_NAME_MAX);
		return 400;
	}
	if (!strcmp(method, "PUT"))
		return attach(hubs[i], &cfg->shares[i], res, name, doc, body, len, msg, msglen);
	if (!strcmp(method, "DELETE")) {
		if (fuse_hub_detach(hubs[i], name) < 0) {
			snprintf(msg, msglen, "%s: no such share", res);
			return 404;
		}
		return 204;
	}
	snprintf(msg, msglen, "%s: only PUT (attach) and DELETE (detach)", res);
	return 405;
}
