// SPDX-License-Identifier: GPL-2.0-only
/* The sandbox's command-line options, in virtiofsd's spelling (sandbox.h). */
#include "base/fail.h"
#include "sandbox/sandbox.h"
#include "sandbox/sandbox_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sandbox_opts_init(struct sandbox_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = SANDBOX_NAMESPACE;
}

static int parse_u32(const char **p, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (**p < '0' || **p > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(*p, &end, 10);
	if (errno || v > UINT32_MAX || *end != ':')
		return -EINVAL;
	*out = (uint32_t)v;
	*p = end + 1;
	return 0;
}

/*
 * ":namespace_id:host_id:count:" (virtiofsd's --uid-map and --gid-map).
 * The kernel refuses overlapping lines when the map is written; here only
 * the form and the sums are checked.
 */
static int parse_idmap(const char *s, struct sandbox_idmap *m)
{
	const char *p = s;

	if (*p++ != ':' || parse_u32(&p, &m->inside) || parse_u32(&p, &m->outside) ||
	    parse_u32(&p, &m->count) || *p)
		return -EINVAL;
	if (m->count == 0 || (uint64_t)m->inside + m->count > (1ull << 32) - 1 ||
	    (uint64_t)m->outside + m->count > (1ull << 32) - 1)
		return -EINVAL;
	return 0;
}

bool sandbox_opt_has_value(const char *name)
{
	return strcmp(name, "sandbox") == 0 || strcmp(name, "uid-map") == 0 ||
	       strcmp(name, "gid-map") == 0;
}

int sandbox_opt(struct sandbox_opts *o, const char *name, const char *value,
		char *err, size_t errlen)
{
	if (strcmp(name, "no-sandbox") == 0) {
		o->mode = SANDBOX_NONE;
		return 0;
	}
	if (!sandbox_opt_has_value(name))
		return 1;
	if (!value)
		return fail_msg(err, errlen, -EINVAL, "--%s needs a value", name);
	if (strcmp(name, "sandbox") == 0) {
		if (strcmp(value, "namespace") == 0)
			o->mode = SANDBOX_NAMESPACE;
		else if (strcmp(value, "chroot") == 0)
			o->mode = SANDBOX_CHROOT;
		else if (strcmp(value, "none") == 0)
			o->mode = SANDBOX_NONE;
		else
			return fail_msg(err, errlen, -EINVAL, "--sandbox '%s': expected namespace, chroot or none",
				   value);
		return 0;
	}
	bool uid = name[0] == 'u';
	unsigned *n = uid ? &o->nuid : &o->ngid;
	struct sandbox_idmap *maps = uid ? o->uid : o->gid;

	if (*n >= SANDBOX_IDMAPS_MAX)
		return fail_msg(err, errlen, -EINVAL, "--%s: at most %d of them", name, SANDBOX_IDMAPS_MAX);
	if (parse_idmap(value, &maps[*n]) < 0)
		return fail_msg(err, errlen, -EINVAL, "--%s '%s': expected :namespace_%s:host_%s:count: "
			   "(e.g. :0:1000:1:)", name, value, uid ? "uid" : "gid", uid ? "uid" : "gid");
	(*n)++;
	return 0;
}

bool sandbox_maps_keep_ids(const struct sandbox_opts *o)
{
	for (unsigned i = 0; i < o->nuid; i++)
		if (o->uid[i].inside != o->uid[i].outside)
			return false;
	for (unsigned i = 0; i < o->ngid; i++)
		if (o->gid[i].inside != o->gid[i].outside)
			return false;
	return true;
}
