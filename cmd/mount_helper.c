// SPDX-License-Identifier: GPL-2.0-only
/* mount(8)'s helper for fuse.stainless (see mount_helper.h). */
#include "cmd/mount_helper.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define PROG "mount.fuse.stainless"

bool mount_helper_called(int argc, char **argv)
{
	const char *base = argc > 0 ? strrchr(argv[0], '/') : NULL;

	base = base ? base + 1 : argc > 0 ? argv[0] : "";
	if (strcmp(base, PROG) == 0)
		return true;
	/* mount.fuse3's spelling: a path where a command word would be. */
	return argc >= 3 && strchr(argv[1], '/') && argv[1][0] != '-';
}

static int add_opts(char *opts, size_t optlen, const char *words)
{
	size_t n = strlen(opts);

	if (snprintf(opts + n, optlen - n, "%s%s", n ? "," : "", words) >= (int)(optlen - n)) {
		fprintf(stderr, PROG ": the options are too long\n");
		return -1;
	}
	return 0;
}

int mount_helper_argv(int argc, char **argv, char **out, int max, char *opts, size_t optlen)
{
	const char *pos[2] = { NULL, NULL };
	int npos = 0, n = 0;

	opts[0] = '\0';
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-o") == 0 || strcmp(a, "-t") == 0) {
			if (++i >= argc) {
				fprintf(stderr, PROG ": %s needs a value\n", a);
				return -1;
			}
			if (a[1] == 'o' && add_opts(opts, optlen, argv[i]) < 0)
				return -1;
		} else if (strncmp(a, "-o", 2) == 0) {
			if (add_opts(opts, optlen, a + 2) < 0)
				return -1;
		} else if (a[0] == '-' && a[1] && strspn(a + 1, "sfnvNrw") == strlen(a + 1)) {
			/* sloppy, fake, no mtab, verbose: nothing to do; -r/-w: ro/rw */
			if (strchr(a, 'r') && add_opts(opts, optlen, "ro") < 0)
				return -1;
		} else if (a[0] == '-' && a[1] && strncmp(a, "-t", 2) != 0) {
			fprintf(stderr, PROG ": unknown option '%s'\n", a);
			return -1;
		} else if (a[0] != '-' && npos < 2) {
			pos[npos++] = a;
		} else if (a[0] != '-') {
			fprintf(stderr, PROG ": too many arguments: '%s'\n", a);
			return -1;
		}
	}
	if (npos < 2 || max < 7) {
		fprintf(stderr, "usage: " PROG " DIR MOUNTPOINT [-o OPTIONS]\n");
		return -1;
	}
	/* mount -t fuse stainless#DIR: the type's name before the source. */
	if (strncmp(pos[0], "stainless#", 10) == 0)
		pos[0] += 10;
	/* mountinfo names the share, as other FUSE file systems name theirs. */
	if (!strstr(opts, "fsname=") && !strpbrk(pos[0], ", \t\n\\") && strlen(pos[0]) < 120) {
		char first[160];

		snprintf(first, sizeof(first), "fsname=%s", pos[0]);
		if (add_opts(opts, optlen, first) < 0)
			return -1;
	}
	out[n++] = "fuse-mount";
	out[n++] = (char *)pos[0];
	out[n++] = (char *)pos[1];
	out[n++] = "--background";
	if (opts[0]) {
		out[n++] = "-o";
		out[n++] = opts;
	}
	out[n] = NULL;
	return n;
}
