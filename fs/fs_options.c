// SPDX-License-Identifier: GPL-2.0-only
/* Share options and their parsers (see fs_options.h). */
#include "fs/fs_options.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

void fs_options_default(struct fs_options *o)
{
	memset(o, 0, sizeof(*o));
	o->cache = FS_CACHE_AUTO;
	o->msize = P9_MSIZE_DEFAULT;
	o->call_timeout = FS_CALL_TIMEOUT_DEFAULT;
	o->dax_min = FS_DAX_MIN_DEFAULT;
}

/* dax=inode, dax-min=: the per-inode policy, on a window of its own size or the default. */
static void dax_inode(struct fs_options *o)
{
	o->dax_mode = FS_DAX_INODE;
	if (!o->dax_size)
		o->dax_size = FS_DAX_INODE_WINDOW;
}

static const char *const cache_names[] = {
	[FS_CACHE_NEVER] = "never",
	[FS_CACHE_AUTO] = "auto",
	[FS_CACHE_ALWAYS] = "always",
	[FS_CACHE_METADATA] = "metadata",
};

int fs_parse_cache(const char *s, enum fs_cache *out)
{
	for (unsigned i = 0; i < sizeof(cache_names) / sizeof(cache_names[0]); i++) {
		if (strcmp(s, cache_names[i]) == 0) {
			*out = (enum fs_cache)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *fs_cache_name(enum fs_cache c)
{
	return cache_names[c];
}

int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned shift = 0;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default:
		return -EINVAL;
	}
	/* Accept "512M", "512MB", "512MiB". */
	if (shift && (strcmp(end, "") == 0 || strcmp(end, "B") == 0 ||
		      strcmp(end, "iB") == 0))
		end += strlen(end);
	if (*end != '\0')
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}

/* A whole decimal number from 0 to max: 0, or -EINVAL. */
static int parse_u32(const char *val, uint32_t max, uint32_t *out)
{
	char *end = (char *)val;
	unsigned long n;

	errno = 0;
	n = isdigit((unsigned char)val[0]) ? strtoul(val, &end, 10) : ULONG_MAX;
	if (errno || n > max || *end != '\0')
		return -EINVAL;
	*out = (uint32_t)n;
	return 0;
}

int fs_options_parse_word(struct fs_options *o, const char *word, bool is_9p,
			  const char **why)
{
	const char *eq = strchr(word, '=');
	size_t klen = eq ? (size_t)(eq - word) : strlen(word);
	const char *val = eq ? eq + 1 : NULL;
	uint64_t n;

#define KEY(k) (klen == strlen(k) && strncmp(word, k, klen) == 0)
	if (KEY("readonly") && !val) {
		o->readonly = true;
		return 0;
	}
	if (KEY("devices") && !val) {
		o->devices = true;
		return 0;
	}
	if (!is_9p && KEY("xattr") && !val) {
		o->xattr = true;
		return 0;
	}
	if (KEY("xattr") && val) {
		if (strcmp(val, "map") == 0) {
			o->xattr = !is_9p || o->xattr;   /* 9p has no switch: always on */
			o->xattr_map = true;
			return 0;
		}
		*why = "xattr takes no value but map";
		return -EINVAL;
	}
	if (!is_9p && KEY("writeback") && !val) {
		o->writeback = true;
		return 0;
	}
	if (!is_9p && KEY("cache") && val) {
		if (fs_parse_cache(val, &o->cache) == 0)
			return 0;
		*why = "cache must be never, auto, always or metadata";
		return -EINVAL;
	}
	if (!is_9p && KEY("dax") && val && strcmp(val, "inode") == 0) {
		dax_inode(o);
		return 0;
	}
	if (!is_9p && KEY("dax-min") && val) {
		if (parse_size(val, &n) == 0) {
			o->dax_min = n;
			dax_inode(o);
			return 0;
		}
		*why = "dax-min= must be a size (0: every file not opened for writing)";
		return -EINVAL;
	}
	if (!is_9p && KEY("dax") && val) {
		/* The window is mapped in whole pages of a 2 MiB-aligned slot. */
		if (parse_size(val, &n) == 0 && n > 0 && n % (2u << 20) == 0 &&
		    n <= (64ull << 30)) {
			o->dax_size = n;
			return 0;
		}
		*why = "dax= must be inode or a size, a multiple of 2M, at most 64G";
		return -EINVAL;
	}
	if (!is_9p && KEY("queues") && val) {
		char *end = (char *)val;
		unsigned long q;

		errno = 0;
		q = isdigit((unsigned char)val[0]) ? strtoul(val, &end, 10) : 0;
		if (!errno && q >= 1 && q <= FS_QUEUES_MAX && *end == '\0') {
			o->queues = (uint32_t)q;
			return 0;
		}
		*why = "queues must be a number from 1 to 16";
		return -EINVAL;
	}
	if (!is_9p && KEY("timeout") && val) {
		if (parse_u32(val, FS_CALL_TIMEOUT_MAX, &o->call_timeout) == 0)
			return 0;
		*why = "timeout must be whole seconds from 0 (wait for ever) to 86400";
		return -EINVAL;
	}
	if (!is_9p && KEY("watches") && val) {
		if (parse_u32(val, FS_WATCHES_MAX, &o->watches) == 0)
			return 0;
		*why = "watches must be a number of directories from 0 to 1048576";
		return -EINVAL;
	}
	if (is_9p && KEY("msize") && val) {
		if (parse_size(val, &n) == 0 && n >= P9_MSIZE_MIN && n <= P9_MSIZE_MAX) {
			o->msize = (uint32_t)n;
			return 0;
		}
		*why = "msize must be between 4096 and 16M";
		return -EINVAL;
	}
#undef KEY
	*why = "unknown share option";
	return -EINVAL;
}
