// SPDX-License-Identifier: GPL-2.0-only
/* The configuring resources of the API and the config file (see api_res.h). */
#include "cmd/api_res.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fail.h"

#define VSOCK_UDS_MAX 107   /* sun_path less its NUL */

unsigned api_member(const struct json_doc *d, unsigned obj, const char *name)
{
	for (unsigned k = obj + 1; k < d->tok[obj].next; k = d->tok[k + 1].next)
		if (json_str_eq(d, k, name))
			return k + 1;
	return 0;
}

/* Every member of obj must be one of names (NULL-terminated). */
static int known_fields(const struct json_doc *d, unsigned obj, const char *res,
			const char *const *names, char *err, size_t errlen)
{
	char key[64];

	if (d->tok[obj].type != JSON_OBJECT)
		return fail_msg(err, errlen, -EINVAL, "%s: expected a JSON object, not %s", res,
			   json_type_name(d->tok[obj].type));
	for (unsigned k = obj + 1; k < d->tok[obj].next; k = d->tok[k + 1].next) {
		bool ok = false;

		for (const char *const *n = names; *n && !ok; n++)
			ok = json_str_eq(d, k, *n);
		if (!ok) {
			if (json_str(d, k, key, sizeof(key)) < 0)
				snprintf(key, sizeof(key), "(a long name)");
			return fail_msg(err, errlen, -EINVAL, "%s: unknown field '%s'", res, key);
		}
	}
	return 0;
}

static int get_str(const struct json_doc *d, unsigned v, const char *res, const char *field,
		   char *buf, size_t size, char *err, size_t errlen)
{
	int rc;

	if (d->tok[v].type != JSON_STRING)
		return fail_msg(err, errlen, -EINVAL, "%s: %s must be a string, not %s", res, field,
			   json_type_name(d->tok[v].type));
	rc = json_str(d, v, buf, size);
	if (rc == -E2BIG)
		return fail_msg(err, errlen, -EINVAL, "%s: %s longer than %zu bytes", res, field, size - 1);
	if (rc < 0)
		return fail_msg(err, errlen, -EINVAL, "%s: %s holds a NUL character", res, field);
	if (!buf[0])
		return fail_msg(err, errlen, -EINVAL, "%s: %s is empty", res, field);
	return 0;
}

static int get_bool(const struct json_doc *d, unsigned v, const char *res, const char *field,
		    bool *out, char *err, size_t errlen)
{
	if (d->tok[v].type != JSON_TRUE && d->tok[v].type != JSON_FALSE)
		return fail_msg(err, errlen, -EINVAL, "%s: %s must be true or false, not %s", res, field,
			   json_type_name(d->tok[v].type));
	*out = d->tok[v].type == JSON_TRUE;
	return 0;
}

static int get_u64(const struct json_doc *d, unsigned v, const char *res, const char *field,
		   uint64_t lo, uint64_t hi, uint64_t *out, char *err, size_t errlen)
{
	if (json_u64(d, v, out) < 0 || *out < lo || *out > hi)
		return fail_msg(err, errlen, -EINVAL, "%s: %s must be a whole number from %llu to %llu", res,
			   field, (unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

int api_put_boot_source(struct api_vm *a, const struct json_doc *d, unsigned obj,
			const char *id, char *err, size_t errlen)
{
	static const char *const names[] = { "kernel_image_path", "initrd_path", "boot_args", NULL };
	char kernel[API_STR_MAX], initrd[API_STR_MAX] = "", args[API_STR_MAX] = "";
	unsigned v;
	int rc;

	if ((rc = known_fields(d, obj, "boot-source", names, err, errlen)) < 0)
		return rc;
	if (!(v = api_member(d, obj, "kernel_image_path")))
		return fail_msg(err, errlen, -EINVAL, "boot-source: kernel_image_path is required");
	if ((rc = get_str(d, v, "boot-source", "kernel_image_path", kernel, sizeof(kernel),
			  err, errlen)) < 0)
		return rc;
	if ((v = api_member(d, obj, "initrd_path")) &&
	    (rc = get_str(d, v, "boot-source", "initrd_path", initrd, sizeof(initrd),
			  err, errlen)) < 0)
		return rc;
	/* boot_args may be empty: the device announcements are added anyway. */
	if ((v = api_member(d, obj, "boot_args")) && d->tok[v].type == JSON_STRING &&
	    d->tok[v].len == 0)
		args[0] = '\0';
	else if (v && (rc = get_str(d, v, "boot-source", "boot_args", args, sizeof(args),
				    err, errlen)) < 0)
		return rc;
	/* A PUT replaces the whole boot source, as Firecracker's does. */
	strcpy(a->kernel, kernel);
	strcpy(a->initrd, initrd);
	strcpy(a->cmdline, args);
	a->cfg->kernel = a->kernel;
	a->cfg->initrd = initrd[0] ? a->initrd : NULL;
	a->cfg->cmdline = a->cmdline;
	return 0;
}

int api_put_machine_config(struct api_vm *a, const struct json_doc *d, unsigned obj,
			   const char *id, char *err, size_t errlen)
{
	static const char *const names[] = { "vcpu_count", "mem_size_mib", NULL };
	uint64_t cpus = a->cfg->cpus, mib = a->cfg->mem >> 20;
	unsigned v;
	int rc;

	if ((rc = known_fields(d, obj, "machine-config", names, err, errlen)) < 0)
		return rc;
	if ((v = api_member(d, obj, "vcpu_count")) &&
	    (rc = get_u64(d, v, "machine-config", "vcpu_count", 1, VM_CPUS_MAX, &cpus,
			  err, errlen)) < 0)
		return rc;
	if ((v = api_member(d, obj, "mem_size_mib")) &&
	    (rc = get_u64(d, v, "machine-config", "mem_size_mib", VM_MEM_MIN >> 20,
			  VM_MEM_MAX >> 20, &mib, err, errlen)) < 0)
		return rc;
	a->cfg->cpus = (unsigned)cpus;
	a->cfg->mem = mib << 20;
	return 0;
}

/* Tags travel in paths and on the guest's command line: a plain alphabet. */
static int check_tag(const char *res, const char *tag, char *err, size_t errlen)
{
	size_t n = strlen(tag);

	if (n == 0 || n > VM_TAG_MAX)
		return fail_msg(err, errlen, -EINVAL, "%s: tag must be 1 to %d bytes", res, VM_TAG_MAX);
	if (strspn(tag, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:") != n)
		return fail_msg(err, errlen, -EINVAL, "%s: tag '%s': use letters, digits, '.', '_', '-' or ':'",
			   res, tag);
	return 0;
}

/*
 * A share's options as the words of --fs/--9p (fs_options_parse_word), so
 * the API accepts and refuses exactly what the command line does.
 */
struct share_field {
	const char *name;
	const char *word;      /* the option word; a boolean field adds it when true */
	enum { SF_BOOL, SF_STRING, SF_SIZE } kind;
	unsigned kinds;        /* which share kinds have the field (SK_*) */
};

/* The share kinds: --fs, --9p, --fs-hub (whose shares each take readonly when attached). */
enum share_kind { SK_FS = 1, SK_9P = 2, SK_HUB = 4 };

static const struct share_field share_fields[] = {
	{ "cache", "cache", SF_STRING, SK_FS | SK_HUB },
	{ "dax_window_size", "dax", SF_SIZE, SK_FS },
	{ "queues", "queues", SF_SIZE, SK_FS },
	{ "msize", "msize", SF_SIZE, SK_9P },
	{ "readonly", "readonly", SF_BOOL, SK_FS | SK_9P },
	{ "xattr", "xattr", SF_BOOL, SK_FS | SK_HUB },
	{ "xattr_map", "xattr=map", SF_BOOL, SK_FS | SK_9P | SK_HUB },
	{ "writeback", "writeback", SF_BOOL, SK_FS },
	{ "devices", "devices", SF_BOOL, SK_FS | SK_9P },
};

static const char *kind_res(enum share_kind k)
{
	return k == SK_9P ? "9p" : k == SK_HUB ? "fs-hub" : "fs";
}

/* With its article, for "... of a 9p share". */
static const char *kind_name(enum share_kind k)
{
	return k == SK_9P ? "a 9p" : k == SK_HUB ? "an fs-hub" : "a virtio-fs";
}

static enum share_kind share_kind_of(const struct vm_share *sh)
{
	return sh->is_9p ? SK_9P : sh->is_hub ? SK_HUB : SK_FS;
}

static int share_word(const struct json_doc *d, unsigned v, const struct share_field *f,
		      const char *res, struct fs_options *o, bool is_9p, char *err, size_t errlen)
{
	char word[96], val[64];
	const char *why = "";
	uint64_t n;
	bool on = false;
	int rc;

	if (f->kind == SF_BOOL) {
		if ((rc = get_bool(d, v, res, f->name, &on, err, errlen)) < 0 || !on)
			return rc;
		snprintf(word, sizeof(word), "%s", f->word);
	} else if (d->tok[v].type == JSON_NUMBER && f->kind == SF_SIZE) {
		if ((rc = get_u64(d, v, res, f->name, 0, UINT64_MAX, &n, err, errlen)) < 0)
			return rc;
		snprintf(word, sizeof(word), "%s=%llu", f->word, (unsigned long long)n);
	} else {
		/* A size may be a string with a unit ("1G"); cache is a word. */
		if ((rc = get_str(d, v, res, f->name, val, sizeof(val), err, errlen)) < 0)
			return rc;
		snprintf(word, sizeof(word), "%s=%s", f->word, val);
	}
	if (fs_options_parse_word(o, word, is_9p, &why) < 0)
		return fail_msg(err, errlen, -EINVAL, "%s: %s: %s", res, f->name, why);
	return 0;
}

/* Where a share of this tag goes: its old slot, or a new one. */
static int share_slot(struct vm_config *cfg, const char *res, const char *tag,
		      enum share_kind kind, unsigned *slot, char *err, size_t errlen)
{
	for (unsigned i = 0; i < cfg->nr_shares; i++) {
		if (strcmp(cfg->shares[i].tag, tag) != 0)
			continue;
		if (share_kind_of(&cfg->shares[i]) != kind)
			return fail_msg(err, errlen, -EINVAL, "%s: tag '%s' is taken by %s share", res, tag,
				   kind_name(share_kind_of(&cfg->shares[i])));
		*slot = i;
		return 0;
	}
	if (cfg->nr_shares >= VM_MAX_SHARES)
		return fail_msg(err, errlen, -EINVAL, "%s: too many shares (at most %d)", res, VM_MAX_SHARES);
	*slot = cfg->nr_shares;
	return 0;
}

/*
 * A hub's directory is where its shares are opened from while the VM runs,
 * so it is checked now, when a bad one can still get its 400.
 */
static int check_hub_dir(const char *res, const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (stat(dir, &st) < 0)
		return fail_msg(err, errlen, -EINVAL, "%s: shared_dir %s: %s", res, dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail_msg(err, errlen, -EINVAL, "%s: shared_dir %s: not a directory", res, dir);
	return 0;
}

static int put_share(struct api_vm *a, const struct json_doc *d, unsigned obj, const char *id,
		     enum share_kind sk, char *err, size_t errlen)
{
	static const char *const names[] = { "tag", "shared_dir", "cache", "dax_window_size",
		"queues", "msize", "readonly", "xattr", "xattr_map", "writeback", "devices", NULL };
	char res[64], tag[VM_TAG_MAX + 8], dir[sizeof(a->cfg->share_specs[0])];
	const char *kind = kind_res(sk);
	bool is_9p = sk == SK_9P;
	struct vm_share sh = { .is_9p = is_9p, .is_hub = sk == SK_HUB };
	unsigned v, slot = 0;
	int rc;

	if ((rc = known_fields(d, obj, kind, names, err, errlen)) < 0)
		return rc;
	v = api_member(d, obj, "tag");
	if (v && (rc = get_str(d, v, kind, "tag", tag, sizeof(tag), err, errlen)) < 0)
		return rc;
	if (id && v && strcmp(id, tag) != 0)
		return fail_msg(err, errlen, -EINVAL, "%s/%s: tag '%s' in the body differs from the path", kind,
			   id, tag);
	if (!id && !v)
		return fail_msg(err, errlen, -EINVAL, "%s: tag is required", kind);
	if (id)
		snprintf(tag, sizeof(tag), "%s", id);
	if ((rc = check_tag(kind, tag, err, errlen)) < 0)
		return rc;
	snprintf(res, sizeof(res), "%s/%s", kind, tag);
	if (!(v = api_member(d, obj, "shared_dir")))
		return fail_msg(err, errlen, -EINVAL, "%s: shared_dir is required", res);
	if ((rc = get_str(d, v, res, "shared_dir", dir, sizeof(dir), err, errlen)) < 0)
		return rc;
	fs_options_default(&sh.opts);
	for (unsigned i = 0; i < sizeof(share_fields) / sizeof(share_fields[0]); i++) {
		const struct share_field *f = &share_fields[i];

		if (!(v = api_member(d, obj, f->name)))
			continue;
		if (!(f->kinds & sk))
			return fail_msg(err, errlen, -EINVAL, "%s: %s is not an option of %s share%s",
				   res, f->name, kind_name(sk),
				   sk == SK_HUB && !strcmp(f->name, "readonly") ?
				   " (readonly is per share, when it is attached)" : "");
		if ((rc = share_word(d, v, f, res, &sh.opts, is_9p, err, errlen)) < 0)
			return rc;
	}
	if (sk == SK_HUB && (rc = check_hub_dir(res, dir, err, errlen)) < 0)
		return rc;
	if ((rc = share_slot(a->cfg, res, tag, sk, &slot, err, errlen)) < 0)
		return rc;
	strcpy(sh.tag, tag);
	strcpy(a->cfg->share_specs[slot], dir);
	sh.dir = a->cfg->share_specs[slot];
	a->cfg->shares[slot] = sh;
	if (slot == a->cfg->nr_shares)
		a->cfg->nr_shares++;
	return 0;
}

int api_put_fs(struct api_vm *a, const struct json_doc *d, unsigned obj, const char *id,
	       char *err, size_t errlen)
{
	return put_share(a, d, obj, id, SK_FS, err, errlen);
}

int api_put_9p(struct api_vm *a, const struct json_doc *d, unsigned obj, const char *id,
	       char *err, size_t errlen)
{
	return put_share(a, d, obj, id, SK_9P, err, errlen);
}

int api_put_fs_hub(struct api_vm *a, const struct json_doc *d, unsigned obj, const char *id,
		   char *err, size_t errlen)
{
	return put_share(a, d, obj, id, SK_HUB, err, errlen);
}

/*
 * vsock: Firecracker's fields, checked here and then handed to the one
 * parser --vsock uses (devices/virtio_vsock.h), so both paths agree on
 * what a CID and a socket path may be.
 */
int api_put_vsock(struct api_vm *a, const struct json_doc *d, unsigned obj, const char *id,
		  char *err, size_t errlen)
{
	static const char *const names[] = { "guest_cid", "uds_path", "vsock_id", NULL };
	char uds[VSOCK_UDS_MAX + 1], vid[64];
	uint64_t cid;
	unsigned v;
	int rc;

	if ((rc = known_fields(d, obj, "vsock", names, err, errlen)) < 0)
		return rc;
	/* CIDs 0-2 name the hypervisor and the host; 2^32-1 is "any". */
	if (!(v = api_member(d, obj, "guest_cid")))
		return fail_msg(err, errlen, -EINVAL, "vsock: guest_cid is required");
	if ((rc = get_u64(d, v, "vsock", "guest_cid", 3, UINT32_MAX - 1, &cid, err, errlen)) < 0)
		return rc;
	if (!(v = api_member(d, obj, "uds_path")))
		return fail_msg(err, errlen, -EINVAL, "vsock: uds_path is required");
	if ((rc = get_str(d, v, "vsock", "uds_path", uds, sizeof(uds), err, errlen)) < 0)
		return rc;
	if ((v = api_member(d, obj, "vsock_id")) &&
	    (rc = get_str(d, v, "vsock", "vsock_id", vid, sizeof(vid), err, errlen)) < 0)
		return rc;
	if (strchr(uds, ','))
		return fail_msg(err, errlen, -EINVAL, "vsock: uds_path may not hold a comma");
	char val[24 + sizeof(uds)];
	snprintf(val, sizeof(val), "%llu,%s", (unsigned long long)cid, uds);
	if (vsock_parse_config(val, &a->cfg->vsock, err, errlen) < 0)
		return -EINVAL;
	return 0;
}

int api_put_console(struct api_vm *a, const struct json_doc *d, unsigned obj, const char *id,
		    char *err, size_t errlen)
{
	static const char *const names[] = { "mode", "path", NULL };
	char mode[16], path[API_STR_MAX];
	unsigned v, p;
	int rc;

	if ((rc = known_fields(d, obj, "console", names, err, errlen)) < 0)
		return rc;
	if (!(v = api_member(d, obj, "mode")))
		return fail_msg(err, errlen, -EINVAL, "console: mode is required (stdio, none or file)");
	if ((rc = get_str(d, v, "console", "mode", mode, sizeof(mode), err, errlen)) < 0)
		return rc;
	p = api_member(d, obj, "path");
	if (strcmp(mode, "file") == 0) {
		if (!p)
			return fail_msg(err, errlen, -EINVAL, "console: path is required with mode file");
		if ((rc = get_str(d, p, "console", "path", path, sizeof(path), err, errlen)) < 0)
			return rc;
		strcpy(a->console_path, path);
		a->cfg->console = CONSOLE_FILE;
		a->cfg->console_path = a->console_path;
		return 0;
	}
	if (p)
		return fail_msg(err, errlen, -EINVAL, "console: path is only for mode file");
	if (strcmp(mode, "stdio") == 0)
		a->cfg->console = CONSOLE_STDIO;
	else if (strcmp(mode, "none") == 0)
		a->cfg->console = CONSOLE_NONE;
	else
		return fail_msg(err, errlen, -EINVAL, "console: mode must be stdio, none or file");
	a->cfg->console_path = NULL;
	return 0;
}

int api_put_rng(struct api_vm *a, const struct json_doc *d, unsigned obj, const char *id,
		char *err, size_t errlen)
{
	static const char *const names[] = { "enabled", NULL };
	bool on = true;
	unsigned v;
	int rc;

	if ((rc = known_fields(d, obj, "rng", names, err, errlen)) < 0)
		return rc;
	if ((v = api_member(d, obj, "enabled")) &&
	    (rc = get_bool(d, v, "rng", "enabled", &on, err, errlen)) < 0)
		return rc;
	a->cfg->rng = on;
	return 0;
}
