// SPDX-License-Identifier: GPL-2.0-only
/* The API's routing, actions and instance state (see api_model.h). */
#include "cmd/api_model.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/api_hub.h"
#include "cmd/api_res.h"

/*
 * The resources. `id` ones take the last path component as their name
 * (PUT /fs/TAG). All of these configure, so only before InstanceStart;
 * shares added to a running VM (issue 26 item 4) will be routes of their
 * own with a `live` handler beside `put`.
 */
struct api_route {
	const char *path;     /* with a trailing '/' when an id follows */
	api_put_fn *put;
};

static const struct api_route routes[] = {
	{ "/boot-source", api_put_boot_source },
	{ "/machine-config", api_put_machine_config },
	{ "/fs/", api_put_fs },
	{ "/9p/", api_put_9p },
	{ "/fs-hub/", api_put_fs_hub },
	{ "/vsock", api_put_vsock },
	{ "/console", api_put_console },
	{ "/rng", api_put_rng },
};

void api_vm_init(struct api_vm *a, struct vm_config *cfg)
{
	memset(a, 0, sizeof(*a));
	a->cfg = cfg;
}

void api_fault(struct api_reply *rep, int status, const char *msg)
{
	struct json_out o;

	rep->status = status;
	json_out_init(&o, rep->body, sizeof(rep->body));
	json_out_raw(&o, "{\"fault_message\":");
	json_out_str(&o, msg);
	json_out_raw(&o, "}");
}

static const char *state_name(enum api_state s)
{
	return s == API_RUNNING ? "Running" : s == API_HALTED ? "Halted" : "Not started";
}

static void out_opt_str(struct json_out *o, const char *name, const char *v, bool comma)
{
	json_out_fmt(o, "%s\"%s\":", comma ? "," : "", name);
	if (v)
		json_out_str(o, v);
	else
		json_out_raw(o, "null");
}

static void out_share(struct json_out *o, const struct vm_share *sh)
{
	const struct fs_options *f = &sh->opts;

	json_out_raw(o, "{\"tag\":");
	json_out_str(o, sh->tag);
	out_opt_str(o, "shared_dir", sh->dir, true);
	json_out_fmt(o, ",\"readonly\":%s,\"xattr_map\":%s,\"devices\":%s",
		     f->readonly ? "true" : "false", f->xattr_map ? "true" : "false",
		     f->devices ? "true" : "false");
	if (sh->is_9p)
		json_out_fmt(o, ",\"msize\":%u", f->msize ? f->msize : P9_MSIZE_DEFAULT);
	else
		json_out_fmt(o, ",\"cache\":\"%s\",\"dax_window_size\":%llu,\"xattr\":%s,"
			     "\"writeback\":%s,\"queues\":%u", fs_cache_name(f->cache),
			     (unsigned long long)f->dax_size, f->xattr ? "true" : "false",
			     f->writeback ? "true" : "false", f->queues);
	json_out_raw(o, "}");
}

/* The shares of one kind, under the config file's name for them. */
static void out_shares(struct json_out *o, const struct vm_config *c, bool is_9p, bool is_hub)
{
	bool first = true;

	json_out_fmt(o, ",\"%s\":[", is_9p ? "9p" : is_hub ? "fs-hub" : "fs");
	for (unsigned i = 0; i < c->nr_shares; i++) {
		if (c->shares[i].is_9p != is_9p || c->shares[i].is_hub != is_hub)
			continue;
		if (!first)
			json_out_raw(o, ",");
		out_share(o, &c->shares[i]);
		first = false;
	}
	json_out_raw(o, "]");
}

/* GET / and GET /vm: the state and the whole configuration. */
static void get_vm(const struct api_vm *a, struct api_reply *rep)
{
	const struct vm_config *c = a->cfg;
	static const char *const consoles[] = { "stdio", "none", "file" };
	struct json_out o;

	json_out_init(&o, rep->body, sizeof(rep->body));
	json_out_fmt(&o, "{\"state\":\"%s\",\"vmm_version\":\"%s\",\"config\":{",
		     state_name(a->state), STAINLESS_VERSION);
	out_opt_str(&o, "boot-source\":{\"kernel_image_path", c->kernel, false);
	out_opt_str(&o, "initrd_path", c->initrd, true);
	out_opt_str(&o, "boot_args", c->cmdline, true);
	json_out_fmt(&o, "},\"machine-config\":{\"vcpu_count\":%u,\"mem_size_mib\":%llu}",
		     c->cpus, (unsigned long long)(c->mem >> 20));
	out_shares(&o, c, false, false);
	out_shares(&o, c, true, false);
	out_shares(&o, c, false, true);
	json_out_fmt(&o, ",\"console\":{\"mode\":\"%s\"", consoles[c->console]);
	if (c->console == CONSOLE_FILE)
		out_opt_str(&o, "path", c->console_path, true);
	json_out_fmt(&o, "},\"rng\":{\"enabled\":%s}}}", c->rng ? "true" : "false");
	if (o.full)
		return api_fault(rep, 500, "the configuration does not fit in a reply");
	rep->status = 200;
}

static void put_action(struct api_vm *a, const struct json_doc *d, struct api_reply *rep)
{
	unsigned v = api_member(d, 0, "action_type");

	if (d->tok[0].type != JSON_OBJECT || !v || d->tok[v].type != JSON_STRING ||
	    d->tok[0].next != 3)
		return api_fault(rep, 400, "actions: expected {\"action_type\": \"InstanceStart\" "
				 "or \"SendCtrlAltDel\"}");
	rep->status = 204;
	if (json_str_eq(d, v, "InstanceStart")) {
		if (a->state != API_NOT_STARTED || a->start)
			return api_fault(rep, 409, "InstanceStart: the VM has already started");
		if (!a->cfg->kernel)
			return api_fault(rep, 400, "InstanceStart: boot-source kernel_image_path is not set");
		a->start = true;
	} else if (json_str_eq(d, v, "SendCtrlAltDel")) {
		if (a->state != API_RUNNING || !a->ctrl_alt_del)
			return api_fault(rep, 409, "SendCtrlAltDel: the VM is not running");
		int rc = a->ctrl_alt_del(a->ctx);

		if (rc == -ENODEV)
			return api_fault(rep, 409, "SendCtrlAltDel: the guest has not enabled its "
					 "keyboard (no i8042/atkbd driver yet, or none)");
		if (rc < 0)
			return api_fault(rep, 409, "SendCtrlAltDel: the guest has not read the "
					 "keys sent before; try again later");
	} else {
		api_fault(rep, 400, "actions: action_type must be InstanceStart or SendCtrlAltDel");
	}
}

static const struct api_route *find_route(const char *path, const char **id)
{
	for (unsigned i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		size_t n = strlen(routes[i].path);

		if (routes[i].path[n - 1] == '/') {
			if (strncmp(path, routes[i].path, n) == 0 && path[n] && !strchr(path + n, '/')) {
				*id = path + n;
				return &routes[i];
			}
		} else if (strcmp(path, routes[i].path) == 0) {
			*id = NULL;
			return &routes[i];
		}
	}
	return NULL;
}

static int parse_body(struct api_vm *a, const char *body, size_t len, struct api_reply *rep)
{
	if (len == 0) {
		api_fault(rep, 400, "request body: expected a JSON object");
		return -EINVAL;
	}
	if (json_parse(&a->doc, body, len) < 0) {
		api_fault(rep, 400, a->doc.err);
		return -EINVAL;
	}
	return 0;
}

void api_handle(struct api_vm *a, const char *method, const char *path,
		const char *body, size_t len, struct api_reply *rep)
{
	const struct api_route *r;
	const char *id = NULL;
	char msg[256];

	rep->body[0] = '\0';
	if (strcmp(path, "/") == 0 || strcmp(path, "/vm") == 0) {
		if (strcmp(method, "GET") != 0)
			return api_fault(rep, 405, "only GET on the instance");
		return get_vm(a, rep);
	}
	if (strcmp(path, "/actions") == 0) {
		if (strcmp(method, "PUT") != 0)
			return api_fault(rep, 405, "only PUT on /actions");
		if (parse_body(a, body, len, rep) < 0)
			return;
		return put_action(a, &a->doc, rep);
	}
	/* /fs-hub/TAG/shares/NAME and GET /fs-hub/TAG run on the hub; PUT /fs-hub/TAG
	 * configures one (below). */
	if (strncmp(path, "/fs-hub/", 8) == 0 &&
	    (strchr(path + 8, '/') || strcmp(method, "PUT") != 0)) {
		rep->status = api_hub_request(a->hubs, a->cfg, method, path + 8, &a->doc, body, len,
					      rep->body, sizeof(rep->body), msg, sizeof(msg));
		if (rep->status >= 400)
			api_fault(rep, rep->status, msg);
		return;
	}
	if (!(r = find_route(path, &id))) {
		snprintf(msg, sizeof(msg), "unknown resource '%s'", path);
		return api_fault(rep, 404, msg);
	}
	if (strcmp(method, "PUT") != 0) {
		snprintf(msg, sizeof(msg), "only PUT on %s (GET / shows the configuration)", path);
		return api_fault(rep, 405, msg);
	}
	if (a->state != API_NOT_STARTED || a->start) {
		snprintf(msg, sizeof(msg), "%s: the VM has started; configure before InstanceStart",
			 path);
		return api_fault(rep, 409, msg);
	}
	if (parse_body(a, body, len, rep) < 0)
		return;
	if (r->put(a, &a->doc, 0, id, msg, sizeof(msg)) < 0)
		return api_fault(rep, 400, msg);
	rep->status = 204;
}

/* A config file member that is a list: each element through the resource. */
static int doc_list(struct api_vm *a, const struct json_doc *d, unsigned v, const char *name,
		    api_put_fn *put, char *err, size_t errlen)
{
	if (d->tok[v].type != JSON_ARRAY) {
		snprintf(err, errlen, "%s: expected a list of shares", name);
		return -EINVAL;
	}
	for (unsigned e = v + 1; e < d->tok[v].next; e = d->tok[e].next) {
		int rc = put(a, d, e, NULL, err, errlen);

		if (rc < 0)
			return rc;
	}
	return 0;
}

int api_config_doc(struct api_vm *a, const char *text, size_t len, char *err, size_t errlen)
{
	static const struct { const char *name; api_put_fn *put; bool list; } members[] = {
		{ "boot-source", api_put_boot_source, false },
		{ "machine-config", api_put_machine_config, false },
		{ "fs", api_put_fs, true },
		{ "9p", api_put_9p, true },
		{ "fs-hub", api_put_fs_hub, true },
		{ "vsock", api_put_vsock, false },
		{ "console", api_put_console, false },
		{ "rng", api_put_rng, false },
	};
	const struct json_doc *d = &a->doc;
	char key[64];

	if (json_parse(&a->doc, text, len) < 0) {
		snprintf(err, errlen, "%s", a->doc.err);
		return -EINVAL;
	}
	if (d->tok[0].type != JSON_OBJECT) {
		snprintf(err, errlen, "expected a JSON object of resources");
		return -EINVAL;
	}
	for (unsigned k = 1; k < d->tok[0].next; k = d->tok[k + 1].next) {
		unsigned i, n = sizeof(members) / sizeof(members[0]);
		int rc;

		for (i = 0; i < n && !json_str_eq(d, k, members[i].name); i++)
			;
		if (i == n) {
			if (json_str(d, k, key, sizeof(key)) < 0)
				snprintf(key, sizeof(key), "(a long name)");
			snprintf(err, errlen, "unknown resource '%s'", key);
			return -EINVAL;
		}
		rc = members[i].list ? doc_list(a, d, k + 1, members[i].name, members[i].put, err, errlen)
				     : members[i].put(a, d, k + 1, NULL, err, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}
