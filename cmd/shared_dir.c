// SPDX-License-Identifier: GPL-2.0-only
/* crosvm's --shared-dir onto a run share (see shared_dir.h). */
#include "cmd/shared_dir.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fail.h"

/* crosvm has no window size for dax=true; this is the one --fs dax= takes here. */
#define SHARED_DIR_DAX_SIZE (1ull << 30)

static int parse_bool(const char *key, const char *val, bool *out, char *err, size_t errlen)
{
	if (strcmp(val, "true") == 0) {
		*out = true;
		return 0;
	}
	if (strcmp(val, "false") == 0) {
		*out = false;
		return 0;
	}
	return fail_msg(err, errlen, -EINVAL, "--shared-dir: %s=%s: expected true or false", key, val);
}

/* A whole number of seconds, as crosvm's timeout and negative_timeout. */
static int parse_secs(const char *key, const char *val, uint32_t *out, char *err, size_t errlen)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(val, &end, 10);
	if (errno || end == val || *end || *val == '-' || v > UINT32_MAX)
		return fail_msg(err, errlen, -EINVAL, "--shared-dir: %s=%s: expected whole seconds", key, val);
	*out = (uint32_t)v;
	return 0;
}

/*
 * crosvm's "IN OUT COUNT[,IN OUT COUNT]..." as the sandbox's maps: one
 * user namespace for the whole VM, so every share must ask for the same.
 */
static int parse_idmap(struct sandbox_opts *sb, bool uid, const char *val, char *err,
		       size_t errlen)
{
	const char *key = uid ? "uidmap" : "gidmap";
	struct sandbox_opts tmp = *sb;
	char line[64], *end;
	const char *p = val;
	unsigned long long v[3];

	if (uid)
		tmp.nuid = 0;
	else
		tmp.ngid = 0;
	while (*p) {
		for (int i = 0; i < 3; i++) {
			while (*p == ' ')
				p++;
			errno = 0;
			v[i] = strtoull(p, &end, 10);
			if (errno || end == p || *p == '-')
				return fail_msg(err, errlen, -EINVAL, "--shared-dir: %s=%s: expected \"inside outside "
					   "count[,inside outside count]...\"", key, val);
			p = end;
		}
		while (*p == ' ')
			p++;
		if (*p && *p++ != ',')
			return fail_msg(err, errlen, -EINVAL, "--shared-dir: %s=%s: ranges are separated by ','",
				   key, val);
		snprintf(line, sizeof(line), ":%llu:%llu:%llu:", v[0], v[1], v[2]);
		if (sandbox_opt(&tmp, uid ? "uid-map" : "gid-map", line, err, errlen) < 0)
			return -EINVAL;
	}
	unsigned n = uid ? tmp.nuid : tmp.ngid, had = uid ? sb->nuid : sb->ngid;
	const struct sandbox_idmap *now = uid ? tmp.uid : tmp.gid, *old = uid ? sb->uid : sb->gid;

	if (n == 0)
		return fail_msg(err, errlen, -EINVAL, "--shared-dir: %s is empty", key);
	if (had && (had != n || memcmp(old, now, n * sizeof(*now)) != 0))
		return fail_msg(err, errlen, -EINVAL, "--shared-dir: %s=%s differs from the map already given "
			   "(one user namespace serves every share)", key, val);
	*sb = tmp;
	return 0;
}

/* Keys that have no meaning here, each with the reason given to the user. */
static const struct { const char *key; const char *why; } refused[] = {
	{ "uid", "the serving process's uid is set with uidmap or --uid-map" },
	{ "gid", "the serving process's gid is set with gidmap or --gid-map" },
	{ "privileged_quota_uids", "quota ioctls are not served" },
	{ "security_ctx", "SELinux security contexts are not passed to the server" },
	{ "ugid_map", "run-time id mapping without a user namespace is not supported" },
};

struct sd_state {
	struct vm_share *sh;
	bool p9, posix_acl, dax, writeback, xattr_map, casefold;
	int cache;              /* -1: crosvm's default, auto */
	uint32_t timeout, negative_timeout;
	const char *fs_only;    /* the first virtio-fs key seen */
};

static int sd_key(struct sandbox_opts *sbo, struct sd_state *s, const char *key, const char *val,
		  char *err, size_t errlen)
{
	unsigned long long n;
	enum fs_cache c;

	if (strcmp(key, "type") == 0) {
		if (!strcmp(val, "fs") || !strcmp(val, "FS"))
			s->p9 = false;
		else if (!strcmp(val, "9p") || !strcmp(val, "9P") || !strcmp(val, "p9") ||
			 !strcmp(val, "P9"))
			s->p9 = true;
		else
			return fail_msg(err, errlen, -EINVAL, "--shared-dir: type=%s: expected fs or 9p", val);
		return 0;
	}
	if (strcmp(key, "uidmap") == 0 || strcmp(key, "gidmap") == 0)
		return parse_idmap(sbo, key[0] == 'u', val, err, errlen);
	if (strcmp(key, "ascii_casefold") == 0)
		return parse_bool(key, val, &s->casefold, err, errlen);
	for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (strcmp(key, refused[i].key) == 0)
			return fail_msg(err, errlen, -EINVAL, "--shared-dir: %s: %s", key, refused[i].why);
	s->fs_only = s->fs_only ? s->fs_only : key;
	if (strcmp(key, "cache") == 0 || strcmp(key, "cache_policy") == 0) {
		if (fs_parse_cache(val, &c) < 0 || c == FS_CACHE_METADATA)
			return fail_msg(err, errlen, -EINVAL,
					"--shared-dir: cache=%s: expected never, auto or always", val);
		s->cache = (int)c;
		return 0;
	}
	if (strcmp(key, "timeout") == 0)
		return parse_secs(key, val, &s->timeout, err, errlen);
	/* Negative lookups are never cached here: any value is as correct as 0. */
	if (strcmp(key, "negative_timeout") == 0)
		return parse_secs(key, val, &s->negative_timeout, err, errlen);
	if (strcmp(key, "writeback") == 0)
		return parse_bool(key, val, &s->writeback, err, errlen);
	if (strcmp(key, "dax") == 0 || strcmp(key, "use_dax") == 0)
		return parse_bool(key, val, &s->dax, err, errlen);
	if (strcmp(key, "posix_acl") == 0)
		return parse_bool(key, val, &s->posix_acl, err, errlen);
	if (strcmp(key, "rewrite-security-xattrs") == 0 || strcmp(key, "rewrite_security_xattrs") == 0)
		return parse_bool(key, val, &s->xattr_map, err, errlen);
	if (strcmp(key, "max_dynamic_perm") == 0 || strcmp(key, "max_dynamic_xattr") == 0) {
		char *end;

		n = strtoull(val, &end, 10);
		if (*end || end == val || n != 0)
			return fail_msg(err, errlen, -EINVAL, "--shared-dir: %s: ARCVM's dynamic permission ioctls "
				   "are not served (only 0)", key);
		return 0;
	}
	return fail_msg(err, errlen, -EINVAL, "--shared-dir: unknown key '%s'", key);
}

/* The share from the keys, with crosvm's defaults where a key was left out. */
static int sd_finish(struct sd_state *s, char *err, size_t errlen)
{
	struct fs_options *o = &s->sh->opts;

	if (s->casefold)
		return fail_msg(err, errlen, -EINVAL, "--shared-dir: ascii_casefold: case-insensitive lookups "
			   "are not supported");
	if (s->p9) {
		if (s->fs_only)
			return fail_msg(err, errlen, -EINVAL, "--shared-dir: %s is a virtio-fs key (add type=fs)",
				   s->fs_only);
		return 0;
	}
	o->cache = s->cache < 0 ? FS_CACHE_AUTO : (enum fs_cache)s->cache;
	o->writeback = s->writeback;
	o->xattr_map = s->xattr_map;
	/* crosvm serves xattrs always and POSIX ACLs unless posix_acl=false. */
	o->xattr = true;
	o->posix_acl = s->posix_acl;
	o->dax_size = s->dax ? SHARED_DIR_DAX_SIZE : 0;
	/* crosvm's lifetime whatever the cache policy; its default is 5 s. */
	o->set_timeout = true;
	o->entry_timeout = s->timeout;
	return 0;
}

int shared_dir_parse(struct vm_config *cfg, struct sandbox_opts *sbo, const char *arg,
		     char *err, size_t errlen)
{
	struct sd_state s = { .posix_acl = true, .cache = -1, .timeout = 5,
			      .p9 = true /* crosvm's default */ };
	char *spec, *tag, *opt, *save, *eq;
	struct vm_share *sh;
	int rc;

	if (cfg->nr_shares >= VM_MAX_SHARES)
		return fail_msg(err, errlen, -EINVAL, "--shared-dir: too many shares (at most %d)",
				VM_MAX_SHARES);
	if (strlen(arg) >= sizeof(cfg->share_specs[0]))
		return fail_msg(err, errlen, -EINVAL, "--shared-dir: argument too long");
	spec = cfg->share_specs[cfg->nr_shares];
	strcpy(spec, arg);
	sh = &cfg->shares[cfg->nr_shares];
	memset(sh, 0, sizeof(*sh));
	fs_options_default(&sh->opts);
	s.sh = sh;

	tag = strchr(spec, ':');
	if (!tag || tag == spec)
		return fail_msg(err, errlen, -EINVAL, "--shared-dir %s: expected PATH:TAG[:KEY=VALUE]...", arg);
	*tag++ = '\0';
	sh->dir = spec;
	opt = strchr(tag, ':');
	if (opt)
		*opt++ = '\0';
	if (!*tag || strlen(tag) > VM_TAG_MAX)
		return fail_msg(err, errlen, -EINVAL, "--shared-dir %s: tag must be 1 to %d bytes", arg,
				VM_TAG_MAX);
	for (unsigned i = 0; i < cfg->nr_shares; i++)
		if (strcmp(cfg->shares[i].tag, tag) == 0)
			return fail_msg(err, errlen, -EINVAL, "--shared-dir: duplicate tag '%s'", tag);
	strcpy(sh->tag, tag);
	for (char *w = opt ? strtok_r(opt, ":", &save) : NULL; w; w = strtok_r(NULL, ":", &save)) {
		eq = strchr(w, '=');
		if (!eq || eq == w)
			return fail_msg(err, errlen, -EINVAL, "--shared-dir: '%s': options are KEY=VALUE", w);
		*eq = '\0';
		if ((rc = sd_key(sbo, &s, w, eq + 1, err, errlen)) < 0)
			return rc;
	}
	if ((rc = sd_finish(&s, err, errlen)) < 0)
		return rc;
	sh->is_9p = s.p9;
	cfg->nr_shares++;
	return 0;
}
