// SPDX-License-Identifier: GPL-2.0-only
/* virtiofsd's option words (see vhost_user_opts.h; the table: docs/virtiofsd-options.md). */
#include "cmd/vhost_user_opts.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/fail.h"

int vu_opt_parse_cache(struct vu_fs_config *c, const char *v)
{
	/* The C virtiofsd's (and libvirt's) none is never. */
	return fs_parse_cache(strcmp(v, "none") == 0 ? "never" : v, &c->opts.cache);
}

int vu_opt_parse_watches(struct vu_fs_config *c, const char *v)
{
	char word[48];
	const char *why;

	if (strlen(v) > 16)  /* longer than any number it takes: never cut short */
		return -EINVAL;
	snprintf(word, sizeof(word), "watches=%s", v);
	return fs_options_parse_word(&c->opts, word, false, &why);
}

int vu_opt_parse_log_level(struct vu_fs_config *c, const char *v)
{
	static const char *const names[] = { "off", "error", "warn", "info", "debug", "trace" };

	/* The C virtiofsd's -o log_level= spells error "err". */
	if (strcmp(v, "err") == 0)
		v = "error";
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(v, names[i]) == 0) {
			c->log_level = (enum vu_log_level)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* What a switch sets; NOOP names what this server always does. */
enum vu_field { F_NOOP, F_XATTR, F_WRITEBACK, F_READDIRPLUS, F_NO_FLOCK, F_NO_POSIX_LOCK,
		F_NO_KILLPRIV_V2, F_DIRECT_IO, F_POSIX_ACL, F_DEBUG };

static const struct vu_switch {
	const char *name;
	enum vu_field field;
	bool on;
} switches[] = {
	{ "xattr", F_XATTR, true },                 { "no-xattr", F_XATTR, false },
	{ "writeback", F_WRITEBACK, true },         { "no-writeback", F_WRITEBACK, false },
	{ "readdirplus", F_READDIRPLUS, true },     { "no-readdirplus", F_READDIRPLUS, false },
	{ "flock", F_NO_FLOCK, false },             { "no-flock", F_NO_FLOCK, true },
	{ "posix-lock", F_NO_POSIX_LOCK, false },   { "no-posix-lock", F_NO_POSIX_LOCK, true },
	{ "killpriv-v2", F_NO_KILLPRIV_V2, false }, { "no-killpriv-v2", F_NO_KILLPRIV_V2, true },
	{ "allow-direct-io", F_DIRECT_IO, true },   { "no-allow-direct-io", F_DIRECT_IO, false },
	{ "posix-acl", F_POSIX_ACL, true },         { "no-posix-acl", F_POSIX_ACL, false },
	{ "debug", F_DEBUG, true },
	/* Always so here: submounts announced, shared mmap of direct-io
	 * files allowed (DIRECT_IO_ALLOW_MMAP), the client's O_NOATIME kept
	 * (serving threads hold FOWNER), every client uid served, no
	 * security context applied at create. */
	{ "announce-submounts", F_NOOP, true },     { "allow-mmap", F_NOOP, true },
	{ "preserve-noatime", F_NOOP, true },       { "allow-root", F_NOOP, true },
	{ "no-security-label", F_NOOP, true },
};

int vu_opt_switch(struct vu_fs_config *c, const char *name)
{
	struct fs_options *o = &c->opts;

	for (unsigned i = 0; i < sizeof(switches) / sizeof(switches[0]); i++) {
		const struct vu_switch *s = &switches[i];

		if (strcmp(name, s->name) != 0)
			continue;
		switch (s->field) {
		case F_NOOP:           break;
		case F_XATTR:          o->xattr = s->on; break;
		case F_WRITEBACK:      o->writeback = s->on; break;
		case F_READDIRPLUS:    o->readdirplus = s->on; o->no_readdirplus = !s->on; break;
		case F_NO_FLOCK:       o->no_flock = s->on; break;
		case F_NO_POSIX_LOCK:  o->no_posix_lock = s->on; break;
		case F_NO_KILLPRIV_V2: o->no_killpriv_v2 = s->on; break;
		case F_DIRECT_IO:      o->direct_io = s->on; break;
		case F_POSIX_ACL:      /* the ACLs are xattrs: they need xattr */
			o->posix_acl = s->on;
			o->xattr = o->xattr || s->on;
			break;
		case F_DEBUG:          c->log_level = VU_LOG_DEBUG; break;
		}
		return 0;
	}
	return 1;
}

static const struct { const char *name, *why; } refusals[] = {
	{ "xattrmap", "its rule language is not implemented; --xattr-map keeps a guest's "
	  "security.* and trusted.* as user.stainless.security.* and user.stainless.trusted.*" },
	{ "modcaps", "the capabilities are fixed per thread role (CHOWN, DAC_OVERRIDE, "
	  "DAC_READ_SEARCH, FOWNER, FSETID, MKNOD, SETGID, SETUID); there is nothing to add" },
	{ "security-label", "a security context sent with a create is not applied; --xattr-map "
	  "keeps the guest's security.* labels as user.stainless.security.*" },
	{ "translate-uid", "ids are not translated: a guest's ids are the host's (map them with "
	  "a user namespace around the backend)" },
	{ "translate-gid", "ids are not translated: a guest's ids are the host's (map them with "
	  "a user namespace around the backend)" },
	{ "uid-map", "the backend's namespace keeps the host's ids; map them with a user "
	  "namespace around the backend" },
	{ "gid-map", "the backend's namespace keeps the host's ids; map them with a user "
	  "namespace around the backend" },
	{ "migration-mode", "migration is not supported" },
	{ "migration-on-error", "migration is not supported" },
	{ "migration-verify-handles", "migration is not supported" },
	{ "migration-confirm-paths", "migration is not supported" },
	{ "daemonize", "it runs in the foreground only; let the caller background it "
	  "(systemd, libvirt, a shell's &)" },
	{ "timeout", "the cache mode sets the timeouts (never 0 s, auto 1 s, always and "
	  "metadata a day)" },
};

const char *vu_opt_refusal(const char *name)
{
	for (unsigned i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++)
		if (strcmp(name, refusals[i].name) == 0)
			return refusals[i].why;
	return NULL;
}

/* A -o key=value word; w and v are NUL-terminated copies. */
static int o_value(struct vu_fs_config *c, const char *w, const char *v, char *err, size_t errlen)
{
	if (strcmp(w, "source") == 0 && *v) {
		c->shared_dir = v;
		return 0;
	}
	if (strcmp(w, "cache") == 0 && vu_opt_parse_cache(c, v) == 0)
		return 0;
	if (strcmp(w, "watches") == 0 && vu_opt_parse_watches(c, v) == 0)
		return 0;
	if ((strcmp(w, "log_level") == 0 || strcmp(w, "loglevel") == 0) &&
	    vu_opt_parse_log_level(c, v) == 0)
		return 0;
	if (strcmp(w, "sandbox") == 0 && (strcmp(v, "namespace") == 0 || strcmp(v, "chroot") == 0)) {
		c->sandbox = strcmp(v, "chroot") == 0 ? VU_SANDBOX_CHROOT : VU_SANDBOX_NAMESPACE;
		return 0;
	}
	if (strcmp(w, "max_idle_threads") == 0 && *v >= '0' && *v <= '9') {
		c->max_idle_given = true;
		return 0;
	}
	return fail_msg(err, errlen, -EINVAL, "-o %s=%s: not an option or value %s takes", w, v, c->prog);
}

/* One word of a -o list, in virtiofsd's compatibility spellings. */
static int o_word(struct vu_fs_config *c, char *w, char *err, size_t errlen)
{
	char *eq = strchr(w, '=');
	char dashed[64];
	const char *why;
	size_t n = eq ? (size_t)(eq - w) : strlen(w);

	/* The switch and refusal tables spell the words with dashes. */
	if (n >= sizeof(dashed))
		return fail_msg(err, errlen, -EINVAL, "-o %.32s...: not an option %s takes", w, c->prog);
	for (size_t i = 0; i < n; i++)
		dashed[i] = w[i] == '_' ? '-' : w[i];
	dashed[n] = '\0';
	if ((why = vu_opt_refusal(dashed)))
		return fail_msg(err, errlen, -EINVAL, "-o %s: not supported: %s", dashed, why);
	if (eq) {
		*eq = '\0';
		return o_value(c, w, eq + 1, err, errlen);
	}
	if (vu_opt_switch(c, dashed) == 0)
		return 0;
	return fail_msg(err, errlen, -EINVAL, "-o %s: not an option %s takes", w, c->prog);
}

int vu_opt_parse_o(struct vu_fs_config *c, const char *arg, char *err, size_t errlen)
{
	size_t len = strlen(arg) + 1;
	char *out, *word;
	int rc;

	if (len > sizeof(c->obuf) - c->oused)
		return fail_msg(err, errlen, -EINVAL, "-o: the options are too long");
	out = word = c->obuf + c->oused;
	c->oused += len;
	for (const char *p = arg;; p++) {
		if (*p == ',' && p[1] == ',') {   /* ",,": a comma inside the word */
			*out++ = *p++;
			continue;
		}
		if (*p != ',' && *p != '\0') {
			*out++ = *p;
			continue;
		}
		*out++ = '\0';
		if (*word && (rc = o_word(c, word, err, errlen)) < 0)
			return rc;
		if (*p == '\0')
			return 0;
		word = out;
	}
}
