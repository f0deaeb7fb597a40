// SPDX-License-Identifier: GPL-2.0-only
/* fuse-mount's -o words (see fuse_mount_opts.h). */
#include "transport/fuse_mount_opts.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "base/fail.h"
#include "fs/fuse/fuse_watch.h"

/* The kernel's generic flags, as mount(8) spells them; set or cleared. */
static const struct flag_word {
	const char *name;
	unsigned long flag;
	bool set;
} flag_words[] = {
	{ "ro", MS_RDONLY, true },          { "rw", MS_RDONLY, false },
	{ "nosuid", MS_NOSUID, true },      { "suid", MS_NOSUID, false },
	{ "nodev", MS_NODEV, true },        { "dev", MS_NODEV, false },
	{ "noexec", MS_NOEXEC, true },      { "exec", MS_NOEXEC, false },
	{ "noatime", MS_NOATIME, true },    { "atime", MS_NOATIME, false },
	{ "nodiratime", MS_NODIRATIME, true }, { "diratime", MS_NODIRATIME, false },
	{ "relatime", MS_RELATIME, true },  { "norelatime", MS_RELATIME, false },
	{ "strictatime", MS_STRICTATIME, true },
	{ "sync", MS_SYNCHRONOUS, true },   { "async", MS_SYNCHRONOUS, false },
	{ "dirsync", MS_DIRSYNC, true },
	{ "lazytime", MS_LAZYTIME, true },  { "nolazytime", MS_LAZYTIME, false },
};

/* mount(8)'s and fstab's own words: they mean something before the helper runs. */
static const char *const ignored_words[] = {
	"defaults", "auto", "noauto", "user", "nouser", "users", "owner", "group",
	"nofail", "_netdev", "loop", "default_permissions", NULL,
};

static bool ignored(const char *w)
{
	if (strncmp(w, "x-", 2) == 0 || strncmp(w, "comment=", 8) == 0)
		return true;
	for (unsigned i = 0; ignored_words[i]; i++)
		if (strcmp(w, ignored_words[i]) == 0)
			return true;
	return false;
}

static int flag_word(struct fuse_mount_args *ma, struct fs_options *o, const char *w)
{
	for (unsigned i = 0; i < sizeof(flag_words) / sizeof(flag_words[0]); i++) {
		const struct flag_word *f = &flag_words[i];

		if (strcmp(w, f->name) != 0)
			continue;
		ma->msflags = f->set ? ma->msflags | f->flag : ma->msflags & ~f->flag;
		if (f->flag == MS_RDONLY)
			o->readonly = f->set;
		return 0;
	}
	return 1;
}

static int one_word(const char *w, struct fs_options *o, struct fuse_mount_args *ma,
		    char *err, size_t errlen)
{
	const char *why = "not an option fuse-mount takes";

	if (ignored(w) || flag_word(ma, o, w) == 0)
		return 0;
	if (strcmp(w, "allow_other") == 0) {
		ma->allow_other = true;
		return 0;
	}
	if (strcmp(w, "uring") == 0) {
		ma->uring = true;
		return 0;
	}
	if (strcmp(w, "passthrough") == 0) {
		ma->passthrough = true;
		return 0;
	}
	if (strncmp(w, "watches=", 8) == 0) {
		char *end;
		unsigned long n = strtoul(w + 8, &end, 10);

		if (!w[8] || *end || n > FUSE_WATCH_MAX)
			return fail_msg(err, errlen, -EINVAL, "-o %s: watches must be 0 to %u", w,
					FUSE_WATCH_MAX);
		ma->watches = (uint32_t)n;
		ma->watches_set = true;
		return 0;
	}
	if (strncmp(w, "fsname=", 7) == 0) {
		if (!w[7] || strlen(w + 7) >= sizeof(ma->fsname) || strpbrk(w + 7, ", \t\n\\"))
			return fail_msg(err, errlen, -EINVAL, "-o %s: a name of 1 to %zu bytes without ',', "
				    "blanks or '\\'", w, sizeof(ma->fsname) - 1);
		strcpy(ma->fsname, w + 7);
		return 0;
	}
	if (strcmp(w, "xattr_map") == 0 || strcmp(w, "xattr-map") == 0)
		w = "xattr=map";
	/* The share's own words; a VM's (dax=, queues=) mean nothing here. */
	if (strncmp(w, "dax", 3) != 0 && strncmp(w, "queues", 6) != 0 &&
	    fs_options_parse_word(o, w, false, &why) == 0) {
		if (strcmp(w, "readonly") == 0)
			ma->msflags |= MS_RDONLY;
		return 0;
	}
	return fail_msg(err, errlen, -EINVAL, "-o %s: %s", w, why);
}

void fuse_mount_args_init(struct fuse_mount_args *ma)
{
	*ma = (struct fuse_mount_args){ .msflags = MS_NOSUID | MS_NODEV };
	strcpy(ma->fsname, "stainless");
}

int fuse_mount_parse_o(const char *arg, struct fs_options *o, struct fuse_mount_args *ma,
		       char *err, size_t errlen)
{
	char buf[1024], *w, *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return fail_msg(err, errlen, -EINVAL, "-o: the options are too long");
	strcpy(buf, arg);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int r = one_word(w, o, ma, err, errlen);

		if (r < 0)
			return r;
	}
	return 0;
}

int fuse_mount_args_words(const struct fuse_mount_args *ma, bool helper, unsigned max_read,
			  char *buf, size_t len)
{
	size_t n = 0;
	int k;

	/* mount(2) takes the name as its source and the subtype in the type. */
	k = snprintf(buf, len, "%s%s%sdefault_permissions,max_read=%u%s",
		     helper ? "fsname=" : "", helper ? ma->fsname : "",
		     helper ? ",subtype=stainless," : "", max_read,
		     ma->allow_other ? ",allow_other" : "");
	if (k < 0 || (size_t)k >= len)
		return -ENAMETOOLONG;
	n = (size_t)k;
	/* fusermount3 takes the flags as words; mount(2) as MS_* bits. */
	for (unsigned i = 0; helper && i < sizeof(flag_words) / sizeof(flag_words[0]); i++) {
		const struct flag_word *f = &flag_words[i];

		if (!f->set || !(ma->msflags & f->flag))
			continue;
		k = snprintf(buf + n, len - n, ",%s", f->name);
		if (k < 0 || (size_t)k >= len - n)
			return -ENAMETOOLONG;
		n += (size_t)k;
	}
	return 0;
}