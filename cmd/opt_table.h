/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One option table per command: each option's name, value, default, help
 * line and what parses it. The parser's getopt_long table, the --help
 * text, the man page's OPTIONS and the bash completion are all derived
 * from it (opt_table.c, opt_doc.c), so none of them can list an option
 * the parser does not take, or miss one it does.
 *
 * A command's options come in groups (its own, the share options, the
 * sandbox's, seccomp's, the log's, help and version), each a table
 * ended by an entry without help; groups shared by several commands are
 * written once.
 */
#ifndef STAINLESS_CMD_OPT_TABLE_H
#define STAINLESS_CMD_OPT_TABLE_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum opt_has { OPT_FLAG, OPT_VALUE, OPT_OPTIONAL };

#define OPT_REPEAT  0x1u  /* may be given more than once */
#define OPT_HIDDEN  0x2u  /* an old spelling: accepted, not shown */
#define OPT_REFUSED 0x4u  /* taken by name to say why it is refused */
#define OPT_BEFORE  0x8u  /* taken out of argv before the parser (seccomp's) */

/* Keys below are getopt_long's answers; a table's own start here. */
#define OPT_KEY_BASE 256

struct opt_def {
	const char *name;        /* the long name without dashes, or NULL */
	char short_name;         /* or 0 */
	enum opt_has has;
	const char *arg;         /* the value's name in the help: "PATH" */
	const char *def;         /* the default as shown, or NULL */
	const char *help;        /* one line; NULL ends a table */
	const char *words;       /* what completion offers: "a b c", "@dir", "@file" */
	unsigned flags;
	int key;                 /* what getopt_long returns for it */
};

struct opt_cmd {
	const char *name;        /* "fuse-mount" */
	const char *prog;        /* "stainless fuse-mount" */
	const char *synopsis;    /* after prog: "DIR MOUNTPOINT [OPTIONS]" */
	const char *summary;     /* one line */
	const char *description; /* the man page's paragraph(s), '\n' between */
	const char *example;     /* one command line */
	const char *notes;       /* after the options in --help, or NULL */
	bool permute;            /* options after the operands too (DIR MOUNTPOINT --xattr) */
	const struct opt_def *const *groups;   /* NULL-ended */
};

/* Each option of c, in order. */
#define OPT_FOR_EACH(c, g, d) \
	for (const struct opt_def *const *g = (c)->groups; *g; g++) \
		for (const struct opt_def *d = *g; d->help; d++)

/*
 * getopt_long's tables for c (OPT_BEFORE left out): lo gets every long
 * option and a zero entry, shorts ":" (with "+" first: stop at the first
 * operand, unless c->permute) and every short letter. 0, or -ENOSPC.
 */
int opt_getopt(const struct opt_cmd *c, struct option *lo, size_t nlo, char *shorts,
	       size_t nshorts);

/* The option getopt_long answered key for (its long index li, or -1). */
const struct opt_def *opt_by_key(const struct opt_cmd *c, int key);

/* --help: usage, summary, every shown option with its default, the example. */
void opt_usage(FILE *f, const struct opt_cmd *c);
/* `stainless --help`: every command of cmds (NULL-ended), one line each. */
void opt_overview(FILE *f, const struct opt_cmd *const *cmds);
/* A man page (roff) for c; version and date from the build. */
void opt_man(FILE *f, const struct opt_cmd *c);
/* The bash completion for every command in cmds (NULL-ended). */
void opt_completion(FILE *f, const struct opt_cmd *const *cmds);

#endif
