// SPDX-License-Identifier: GPL-2.0-only
/* getopt_long's tables derived from a command's option table (see opt_table.h). */
#include "cmd/opt_table.h"

#include <errno.h>
#include <string.h>

int opt_getopt(const struct opt_cmd *c, struct option *lo, size_t nlo, char *shorts,
	       size_t nshorts)
{
	size_t n = 0, s;

	if (nshorts < 3 || nlo < 1)
		return -ENOSPC;
	strcpy(shorts, c->permute ? ":" : "+:");
	s = strlen(shorts);
	OPT_FOR_EACH(c, g, d) {
		if (d->flags & OPT_BEFORE)
			continue;
		if (d->name) {
			if (n + 1 >= nlo)
				return -ENOSPC;
			lo[n++] = (struct option){ d->name, d->has == OPT_FLAG ? no_argument :
						   d->has == OPT_VALUE ? required_argument :
						   optional_argument, NULL, d->key };
		}
		if (d->short_name) {
			if (s + 3 >= nshorts)
				return -ENOSPC;
			shorts[s++] = d->short_name;
			if (d->has == OPT_VALUE)
				shorts[s++] = ':';
			shorts[s] = '\0';
		}
	}
	lo[n] = (struct option){ 0 };
	return 0;
}

const struct opt_def *opt_by_key(const struct opt_cmd *c, int key)
{
	OPT_FOR_EACH(c, g, d)
		if (d->key == key)
			return d;
	return NULL;
}
