// SPDX-License-Identifier: GPL-2.0-only
/* The extended-attribute policy of both servers (see fs_xattr.h). */
#include "fs/fs_xattr.h"

#include <errno.h>
#include <linux/limits.h>
#include <stdbool.h>
#include <string.h>

#define PRIVATE_LEN (sizeof(FS_XATTR_PRIVATE) - 1)

enum xname_kind {
	XN_PASS,        /* user.* outside the prefix, POSIX ACLs */
	XN_MAPPABLE,    /* security.*, trusted.*: only through the mapping */
	XN_RESERVED,    /* user.stainless.*: the mapping's own */
	XN_OTHER,       /* any other system.*, no namespace we know */
};

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static enum xname_kind classify(const char *name)
{
	if (has_prefix(name, FS_XATTR_PRIVATE))
		return XN_RESERVED;
	if (has_prefix(name, "user.") || strcmp(name, "system.posix_acl_access") == 0 ||
	    strcmp(name, "system.posix_acl_default") == 0)
		return XN_PASS;
	if (has_prefix(name, "security.") || has_prefix(name, "trusted."))
		return XN_MAPPABLE;
	return XN_OTHER;
}

int fs_xattr_to_host(const char *name, enum fs_xattr_use use, bool map,
		     char *host, size_t hostsz)
{
	bool get = use == FS_XATTR_GET;
	size_t len = strlen(name);

	/* The servers check this already; a name too long is ERANGE in xattr(7). */
	if (len > XATTR_NAME_MAX)
		return -ERANGE;
	switch (classify(name)) {
	case XN_PASS:
		if (len >= hostsz)
			return -ERANGE;
		memcpy(host, name, len + 1);
		return 0;
	case XN_MAPPABLE:
		if (!map)
			return get ? -ENODATA : -EOPNOTSUPP;
		/* A name the prefix pushes past the limit was never stored. */
		if (PRIVATE_LEN + len > XATTR_NAME_MAX || PRIVATE_LEN + len >= hostsz)
			return get ? -ENODATA : -ERANGE;
		memcpy(host, FS_XATTR_PRIVATE, PRIVATE_LEN);
		memcpy(host + PRIVATE_LEN, name, len + 1);
		return 0;
	case XN_RESERVED:
		return get ? -ENODATA : -EPERM;
	case XN_OTHER:
		break;
	}
	return get ? -ENODATA : -EOPNOTSUPP;
}

/* The name a client sees for host name h, or NULL when it sees none. */
static const char *client_name(const char *h, bool map)
{
	switch (classify(h)) {
	case XN_PASS:
		return h;
	case XN_RESERVED:
		if (map && classify(h + PRIVATE_LEN) == XN_MAPPABLE)
			return h + PRIVATE_LEN;
		return NULL;
	case XN_MAPPABLE:   /* the host's own: never the client's, mapped or not */
	case XN_OTHER:
		break;
	}
	return NULL;
}

ssize_t fs_xattr_list_from_host(const char *hostlist, size_t n, bool map,
				char *out, size_t outsz)
{
	size_t pos = 0;

	for (size_t off = 0; off < n;) {
		const char *h = hostlist + off;
		size_t hlen = strnlen(h, n - off);

		if (hlen == n - off)
			break;              /* no NUL: not a whole name */
		off += hlen + 1;
		const char *c = client_name(h, map);
		if (!c)
			continue;
		size_t clen = strlen(c) + 1;
		if (outsz) {
			if (clen > outsz - pos)
				return -ERANGE;
			/* In place, pos never passes the name being read. */
			memmove(out + pos, c, clen);
		}
		pos += clen;
	}
	return (ssize_t)pos;
}
