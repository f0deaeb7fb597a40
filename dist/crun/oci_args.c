// SPDX-License-Identifier: GPL-2.0-only
/*
 * config.json to `stainless exec` options (oci_args.h). Read with yajl's
 * tree parser, the JSON library crun itself links. Anything the guest
 * cannot honour is refused by name rather than silently dropped.
 */
#include "dist/crun/oci_args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

int oci_args_push(struct oci_args *a, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int rc;

	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 32;
		char **v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	va_start(ap, fmt);
	rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -ENOMEM;
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
	return 0;
}

void oci_args_free(struct oci_args *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

static yajl_val get(yajl_val parent, yajl_type type, const char *a, const char *b, const char *c)
{
	const char *path[] = { a, b, c, NULL };

	return parent ? yajl_tree_get(parent, path, type) : NULL;
}

static bool get_uint(yajl_val v, uint64_t *out)
{
	if (!YAJL_IS_INTEGER(v) || YAJL_GET_INTEGER(v) < 0)
		return false;
	*out = (uint64_t)YAJL_GET_INTEGER(v);
	return true;
}

static int bad(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "config.json: %s", what);
	return -EINVAL;
}

static int add_env(yajl_val root, struct oci_args *a, char *err, size_t errlen)
{
	yajl_val env = get(root, yajl_t_array, "process", "env", NULL);
	int rc = 0;

	for (size_t i = 0; env && i < YAJL_GET_ARRAY(env)->len && rc == 0; i++) {
		const char *kv = YAJL_GET_STRING(YAJL_GET_ARRAY(env)->values[i]);

		if (!kv || !strchr(kv, '='))
			return bad(err, errlen, "process.env holds an entry that is not KEY=VALUE");
		rc = oci_args_push(a, "--env=%s", kv);
	}
	return rc;
}

static int add_user(yajl_val root, struct oci_args *a, char *err, size_t errlen)
{
	yajl_val user = get(root, yajl_t_object, "process", "user", NULL);
	uint64_t uid = 0, gid = 0;

	if (!user)
		return 0;
	if ((get(user, yajl_t_any, "uid", NULL, NULL) &&
	     !get_uint(get(user, yajl_t_number, "uid", NULL, NULL), &uid)) ||
	    (get(user, yajl_t_any, "gid", NULL, NULL) &&
	     !get_uint(get(user, yajl_t_number, "gid", NULL, NULL), &gid)) ||
	    uid > UINT32_MAX || gid > UINT32_MAX)
		return bad(err, errlen, "process.user.uid/gid must be numbers");
	if (get(user, yajl_t_array, "additionalGids", NULL, NULL) &&
	    YAJL_GET_ARRAY(get(user, yajl_t_array, "additionalGids", NULL, NULL))->len > 0) {
		/* exec clears supplementary groups; a process counting on them
		 * would fail later with a less clear EACCES. */
		return bad(err, errlen, "process.user.additionalGids: stainless exec sets no "
			   "supplementary groups");
	}
	return oci_args_push(a, "--user=%llu:%llu", (unsigned long long)uid,
			     (unsigned long long)gid);
}

/* OCI's RLIMIT_* names to exec's --rlimit names. */
static const char *const rlimit_names[][2] = {
	{ "RLIMIT_NOFILE", "nofile" }, { "RLIMIT_NPROC", "nproc" }, { "RLIMIT_CORE", "core" },
	{ "RLIMIT_STACK", "stack" },   { "RLIMIT_AS", "as" },       { "RLIMIT_FSIZE", "fsize" },
	{ "RLIMIT_MEMLOCK", "memlock" }, { "RLIMIT_CPU", "cpu" },
};

static int add_rlimits(yajl_val root, struct oci_args *a, char *err, size_t errlen)
{
	yajl_val rl = get(root, yajl_t_array, "process", "rlimits", NULL);
	int rc = 0;

	for (size_t i = 0; rl && i < YAJL_GET_ARRAY(rl)->len && rc == 0; i++) {
		yajl_val r = YAJL_GET_ARRAY(rl)->values[i];
		const char *type = YAJL_GET_STRING(get(r, yajl_t_string, "type", NULL, NULL));
		const char *name = NULL;
		uint64_t soft, hard;

		for (size_t k = 0; type && k < sizeof(rlimit_names) / sizeof(rlimit_names[0]); k++)
			if (strcmp(type, rlimit_names[k][0]) == 0)
				name = rlimit_names[k][1];
		if (!name) {
			snprintf(err, errlen, "config.json: process.rlimits: %s is not one stainless "
				 "exec sets (nofile nproc core stack as fsize memlock cpu)",
				 type ? type : "an entry without a type");
			return -EINVAL;
		}
		if (!get_uint(get(r, yajl_t_number, "soft", NULL, NULL), &soft) ||
		    !get_uint(get(r, yajl_t_number, "hard", NULL, NULL), &hard))
			return bad(err, errlen, "process.rlimits: soft and hard must be numbers");
		rc = oci_args_push(a, "--rlimit=%s=%llu:%llu", name, (unsigned long long)soft,
				   (unsigned long long)hard);
	}
	return rc;
}

/* "0-3,6" -> 5; 0 when the list is malformed. */
static unsigned cpuset_count(const char *s)
{
	unsigned n = 0;

	while (*s) {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;

		if (end == s)
			return 0;
		if (*end == '-') {
			s = end + 1;
			hi = strtoul(s, &end, 10);
			if (end == s || hi < lo)
				return 0;
		}
		n += (unsigned)(hi - lo + 1);
		if (*end == ',')
			end++;
		else if (*end)
			return 0;
		s = end;
	}
	return n;
}

/* linux.resources: a CPU quota (or cpuset) and a memory limit size the VM. */
static int add_resources(yajl_val root, struct oci_args *a, char *err, size_t errlen)
{
	yajl_val cpu = get(root, yajl_t_object, "linux", "resources", "cpu");
	yajl_val mem = get(root, yajl_t_object, "linux", "resources", "memory");
	uint64_t quota, period = 100000, limit;
	unsigned cpus = 0;
	int rc = 0;

	if (cpu && get_uint(get(cpu, yajl_t_number, "quota", NULL, NULL), &quota) && quota > 0) {
		(void)get_uint(get(cpu, yajl_t_number, "period", NULL, NULL), &period);
		if (period == 0)
			return bad(err, errlen, "linux.resources.cpu.period is 0");
		cpus = (unsigned)((quota + period - 1) / period);
	} else if (cpu && YAJL_IS_STRING(get(cpu, yajl_t_string, "cpus", NULL, NULL))) {
		cpus = cpuset_count(YAJL_GET_STRING(get(cpu, yajl_t_string, "cpus", NULL, NULL)));
		if (cpus == 0)
			return bad(err, errlen, "linux.resources.cpu.cpus is not a CPU list");
	}
	if (cpus)
		rc = oci_args_push(a, "--cpus=%u", cpus);
	/* exec checks the range itself (1 to 255) and says so. */
	if (rc == 0 && mem && get_uint(get(mem, yajl_t_number, "limit", NULL, NULL), &limit) &&
	    limit > 0)
		rc = oci_args_push(a, "--mem=%lluM",
				   (unsigned long long)((limit + (1 << 20) - 1) >> 20));
	return rc;
}

static bool is_bind(yajl_val m)
{
	const char *type = YAJL_GET_STRING(get(m, yajl_t_string, "type", NULL, NULL));
	yajl_val opts = get(m, yajl_t_array, "options", NULL, NULL);

	if (type && strcmp(type, "bind") == 0)
		return true;
	for (size_t i = 0; opts && i < YAJL_GET_ARRAY(opts)->len; i++) {
		const char *o = YAJL_GET_STRING(YAJL_GET_ARRAY(opts)->values[i]);

		if (o && (strcmp(o, "bind") == 0 || strcmp(o, "rbind") == 0))
			return true;
	}
	return false;
}

static bool is_readonly(yajl_val m)
{
	yajl_val opts = get(m, yajl_t_array, "options", NULL, NULL);

	for (size_t i = 0; opts && i < YAJL_GET_ARRAY(opts)->len; i++) {
		const char *o = YAJL_GET_STRING(YAJL_GET_ARRAY(opts)->values[i]);

		if (o && strcmp(o, "ro") == 0)
			return true;
	}
	return false;
}

/*
 * Bind mounts of directories become shares of their own (tag bindN, the
 * destination as crun mounted it in the container). File binds (podman's
 * /etc/hosts, /etc/resolv.conf) stay visible through the root's share.
 */
static int add_binds(yajl_val root, struct oci_args *a, int (*is_dir)(const char *),
		     char *err, size_t errlen)
{
	yajl_val mounts = get(root, yajl_t_array, "mounts", NULL, NULL);
	unsigned tag = 0;
	int rc = 0;

	for (size_t i = 0; mounts && i < YAJL_GET_ARRAY(mounts)->len && rc == 0; i++) {
		yajl_val m = YAJL_GET_ARRAY(mounts)->values[i];
		const char *dst = YAJL_GET_STRING(get(m, yajl_t_string, "destination", NULL, NULL));

		if (!is_bind(m))
			continue;
		if (!dst || dst[0] != '/' || strpbrk(dst, ",="))
			return bad(err, errlen, "a bind mount's destination must be an absolute "
				   "path without ',' or '='");
		if (!is_dir(dst))
			continue;
		rc = oci_args_push(a, "--fs=bind%u=%s%s", tag++, dst, is_readonly(m) ? ",readonly" : "");
	}
	return rc;
}

int oci_to_exec_args(const char *json, struct oci_args *a, int (*is_dir)(const char *path),
		     char *err, size_t errlen)
{
	char perr[256] = "";
	yajl_val root = yajl_tree_parse(json, perr, sizeof(perr));
	const char *s;
	int rc;

	if (!root || !YAJL_IS_OBJECT(root)) {
		yajl_tree_free(root);
		snprintf(err, errlen, "config.json does not parse: %s", perr[0] ? perr : "not an object");
		return -EINVAL;
	}
	rc = add_env(root, a, err, errlen);
	if (rc == 0 && (s = YAJL_GET_STRING(get(root, yajl_t_string, "process", "cwd", NULL))))
		rc = oci_args_push(a, "--cwd=%s", s);
	if (rc == 0)
		rc = add_user(root, a, err, errlen);
	if (rc == 0 && (s = YAJL_GET_STRING(get(root, yajl_t_string, "hostname", NULL, NULL))) && *s)
		rc = oci_args_push(a, "--hostname=%s", s);
	if (rc == 0)
		rc = add_rlimits(root, a, err, errlen);
	if (rc == 0)
		rc = add_resources(root, a, err, errlen);
	if (rc == 0)
		rc = add_binds(root, a, is_dir, err, errlen);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	yajl_tree_free(root);
	return rc;
}

bool oci_root_readonly(const char *json)
{
	yajl_val root = yajl_tree_parse(json, NULL, 0);
	bool ro = YAJL_IS_TRUE(get(root, yajl_t_any, "root", "readonly", NULL));

	yajl_tree_free(root);
	return ro;
}
