// SPDX-License-Identifier: GPL-2.0-only
/*
 * What is written from a command's option table (see opt_table.h): the
 * --help text, the man page and the bash completion. Nothing here knows
 * a command; everything shown comes from the tables.
 */
#include "cmd/opt_table.h"

#include <string.h>

#define HELP_COL 30

static bool shown(const struct opt_def *d)
{
	return !(d->flags & (OPT_HIDDEN | OPT_REFUSED));
}

/* "-o, --opt VALUE", "    --opt[=VALUE]": the option as the user types it. */
static int spelling(char *buf, size_t len, const struct opt_def *d)
{
	int n = snprintf(buf, len, "%c%c%s", d->short_name ? '-' : ' ',
			 d->short_name ? d->short_name : ' ',
			 d->short_name && d->name ? ", " : d->short_name ? "" : "  ");

	if (d->name)
		n += snprintf(buf + n, len - (size_t)n, "--%s", d->name);
	if (d->has == OPT_VALUE)
		n += snprintf(buf + n, len - (size_t)n, " %s", d->arg ? d->arg : "VALUE");
	else if (d->has == OPT_OPTIONAL)
		n += snprintf(buf + n, len - (size_t)n, "[=%s]", d->arg ? d->arg : "VALUE");
	return n;
}

/* " (never, auto, always; default: auto)": the words a value may be, and the default. */
static void choices(char *buf, size_t len, const struct opt_def *d)
{
	bool list = d->words && d->words[0] != '@';
	size_t n = 0;

	buf[0] = '\0';
	if (!list && !d->def)
		return;
	n += (size_t)snprintf(buf, len, " (");
	for (const char *w = list ? d->words : ""; *w && n + 2 < len; w++) {
		if (*w == ' ')
			buf[n++] = ',';
		buf[n++] = *w;
	}
	snprintf(buf + n, len - n, "%s%s%s)", list && d->def ? "; " : "",
		 d->def ? "default: " : "", d->def ? d->def : "");
}

/* Words of text from column col, wrapped before WRAP_COL, further lines at HELP_COL + 2. */
#define WRAP_COL 79
static void wrapped(FILE *f, const char *text, int col)
{
	while (*text) {
		size_t word = strcspn(text, " ");

		if (col > HELP_COL + 2 && col + 1 + (int)word > WRAP_COL) {
			fprintf(f, "\n%*s", HELP_COL + 2, "");
			col = HELP_COL + 2;
		} else if (col > HELP_COL + 2) {
			fputc(' ', f);
			col++;
		}
		fwrite(text, 1, word, f);
		col += (int)word;
		text += word;
		text += strspn(text, " ");
	}
}

void opt_usage(FILE *f, const struct opt_cmd *c)
{
	char sp[96];
	bool refused = false;

	fprintf(f, "Usage: %s %s\n%s\n\nOptions:\n", c->prog, c->synopsis, c->summary);
	OPT_FOR_EACH(c, g, d) {
		refused |= (d->flags & OPT_REFUSED) != 0;
		if (!shown(d))
			continue;
		char text[512], more[256];
		int n = spelling(sp, sizeof(sp), d);

		choices(more, sizeof(more), d);
		snprintf(text, sizeof(text), "%s%s", d->help, more);
		fprintf(f, "  %s%*s", sp, n < HELP_COL ? HELP_COL - n : 1, "");
		wrapped(f, text, n < HELP_COL ? HELP_COL + 2 : n + 3);
		fputc('\n', f);
	}
	if (refused) {
		char text[1024];
		size_t n = 0;

		OPT_FOR_EACH(c, g, d)
			if ((d->flags & OPT_REFUSED) && n < sizeof(text))
				n += (size_t)snprintf(text + n, sizeof(text) - n, "%s--%s",
						      n ? ", " : "", d->name);
		fputs("Refused, each with the reason:", f);
		wrapped(f, text, HELP_COL + 3);
		fputc('\n', f);
	}
	if (c->notes)
		fprintf(f, "%s\n", c->notes);
	fprintf(f, "\nExample:\n  %s\n", c->example);
}

void opt_overview(FILE *f, const struct opt_cmd *const *cmds)
{
	fputs("stainless " STAINLESS_VERSION " - a KVM microVM monitor with fast, sandboxed "
	      "host-folder shares\n\nUsage:\n", f);
	for (unsigned i = 0; cmds[i]; i++)
		fprintf(f, "  %s %s\n      %s\n", cmds[i]->prog, cmds[i]->synopsis,
			cmds[i]->summary);
	fputs("  virtiofsd ... | stainless-virtiofsd ...\n"
	      "      the binary under a virtiofsd's name: stainless vhost-user-fs\n"
	      "  mount -t fuse.stainless DIR MOUNTPOINT -o OPTIONS\n"
	      "      through mount.fuse.stainless: stainless fuse-mount --background\n"
	      "  stainless --help | --version | help COMMAND\n"
	      "\nEvery command takes --help, --version and --log-level LEVEL; its options:\n"
	      "  stainless COMMAND --help, man stainless-COMMAND\n"
	      "Exit status: 0 done, 1 a failure (one line says what), 2 a bad command line.\n", f);
}

/* Text for roff: dashes escaped, a line never starting with '.' or '\''. */
static void roff(FILE *f, const char *s)
{
	bool bol = true;

	for (; *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		if (*s == '-')
			fputs("\\-", f);
		else if (*s == '\\')
			fputs("\\e", f);
		else
			fputc(*s, f);
		bol = *s == '\n';
	}
}

static void man_option(FILE *f, const struct opt_def *d)
{
	fputs(".TP\n", f);
	if (d->short_name) {
		fprintf(f, "\\fB\\-%c\\fR", d->short_name);
		if (d->name)
			fputs(", ", f);
	}
	if (d->name) {
		fputs("\\fB\\-\\-", f);
		roff(f, d->name);
		fputs("\\fR", f);
	}
	if (d->has != OPT_FLAG) {
		fputs(d->has == OPT_OPTIONAL ? "[=\\fI" : " \\fI", f);
		roff(f, d->arg ? d->arg : "VALUE");
		fputs(d->has == OPT_OPTIONAL ? "\\fR]" : "\\fR", f);
	}
	fputc('\n', f);
	roff(f, d->help);
	if (d->words && d->words[0] != '@') {
		fputs(" (", f);
		for (const char *w = d->words; *w; w++)
			fputs(*w == ' ' ? ", " : *w == '-' ? "\\-" : (char[]){ *w, 0 }, f);
		fputs(d->def ? "; " : ")", f);
	} else if (d->def) {
		fputs(" (", f);
	}
	if (d->def) {
		fputs("default: ", f);
		roff(f, d->def);
		fputc(')', f);
	}
	fputc('\n', f);
}

void opt_man(FILE *f, const struct opt_cmd *c)
{
	char title[64];
	size_t i;

	snprintf(title, sizeof(title), "%s", c->prog);
	for (i = 0; title[i]; i++)
		title[i] = title[i] == ' ' ? '-' : (char)(title[i] >= 'a' && title[i] <= 'z' ?
							 title[i] - 32 : title[i]);
	fprintf(f, ".\\\" SPDX-License-Identifier: GPL-2.0-only\n"
		".\\\" Written by `stainless help --man %s` from the command's option table;\n"
		".\\\" edit the table (cmd/), then `make dist-docs`.\n"
		".TH %s 1 \"\" \"stainless " STAINLESS_VERSION "\" \"User Commands\"\n"
		".\\\" Ragged right: option values do not stretch the lines.\n.ad l\n.SH NAME\n",
		c->name, title);
	for (const char *p = c->prog; *p; p++)
		fputs(*p == ' ' ? "\\-" : (char[]){ *p, 0 }, f);
	fputs(" \\- ", f);
	roff(f, c->summary);
	fputs("\n.SH SYNOPSIS\n.B ", f);
	roff(f, c->prog);
	fputc('\n', f);
	roff(f, c->synopsis);
	fputs("\n.SH DESCRIPTION\n", f);
	roff(f, c->description);
	fputs("\n.SH OPTIONS\n", f);
	OPT_FOR_EACH(c, g, d)
		if (shown(d))
			man_option(f, d);
	if (c->notes) {
		fputs(".PP\n", f);
		roff(f, c->notes);
		fputc('\n', f);
	}
	fputs(".SH EXAMPLE\n.nf\n", f);
	roff(f, c->example);
	fputs("\n.fi\n.SH SEE ALSO\n\\fBstainless\\fR(1)\n", f);
}

/* One command's function: its options and, after one that takes a value, its words. */
static void completion_fn(FILE *f, const struct opt_cmd *c, const char *fn)
{
	fprintf(f, "%s()\n{\n\tlocal cur=$1 prev=$2\n\tcase $prev in\n", fn);
	OPT_FOR_EACH(c, g, d) {
		if (!shown(d) || d->has != OPT_VALUE || !d->name)
			continue;
		fprintf(f, "\t--%s", d->name);
		if (d->short_name)
			fprintf(f, "|-%c", d->short_name);
		if (!d->words)
			fputs(") return 0 ;;\n", f);
		else if (strcmp(d->words, "@dir") == 0)
			fputs(") COMPREPLY=($(compgen -d -- \"$cur\")); return 0 ;;\n", f);
		else if (strcmp(d->words, "@file") == 0)
			fputs(") COMPREPLY=($(compgen -f -- \"$cur\")); return 0 ;;\n", f);
		else
			fprintf(f, ") COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return 0 ;;\n",
				d->words);
	}
	fputs("\tesac\n\tCOMPREPLY=($(compgen -W \"", f);
	const char *sep = "";
	OPT_FOR_EACH(c, g, d) {
		if (!shown(d))
			continue;
		if (d->name)
			fprintf(f, "%s--%s", sep, d->name);
		else
			fprintf(f, "%s-%c", sep, d->short_name);
		sep = " ";
	}
	fputs("\" -- \"$cur\"))\n\t[[ $cur == -* ]] || COMPREPLY+=($(compgen -d -- \"$cur\"))\n}\n\n", f);
}

static void fn_name(char *buf, size_t len, const struct opt_cmd *c)
{
	size_t n = (size_t)snprintf(buf, len, "_stainless_");

	for (const char *p = c->name; *p && n + 1 < len; p++)
		buf[n++] = *p == '-' ? '_' : *p;
	buf[n] = '\0';
}

void opt_completion(FILE *f, const struct opt_cmd *const *cmds)
{
	char fn[64];

	fputs("# SPDX-License-Identifier: GPL-2.0-only\n"
	      "# bash completion for stainless and stainless-virtiofsd. Written by\n"
	      "# `stainless help --bash-completion` from the commands' option tables;\n"
	      "# edit the tables (cmd/), then `make dist-docs`.\n\n", f);
	for (unsigned i = 0; cmds[i]; i++) {
		fn_name(fn, sizeof(fn), cmds[i]);
		completion_fn(f, cmds[i], fn);
	}
	fputs("_stainless()\n{\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\tCOMPREPLY=($(compgen -W \"", f);
	for (unsigned i = 0; cmds[i]; i++)
		fprintf(f, "%s ", cmds[i]->name);
	fputs("--help --version\" -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase ${COMP_WORDS[1]} in\n", f);
	for (unsigned i = 0; cmds[i]; i++) {
		fn_name(fn, sizeof(fn), cmds[i]);
		fprintf(f, "\t%s) %s \"$cur\" \"$prev\" ;;\n", cmds[i]->name, fn);
	}
	fputs("\tesac\n}\n\n_stainless_virtiofsd()\n{\n"
	      "\t_stainless_vhost_user_fs \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
	      "}\ncomplete -F _stainless stainless\n"
	      "complete -F _stainless_virtiofsd stainless-virtiofsd virtiofsd\n", f);
}
