// SPDX-License-Identifier: GPL-2.0-only
/* The one error line of set-up code (fail.h). */
#include "base/fail.h"

#include <stdarg.h>
#include <stdio.h>

static const char *command_name;

void fail_set_command(const char *name)
{
	command_name = name;
}

const char *fail_command(void)
{
	return command_name;
}

int fail(int rc, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One write per line: threads and the supervisor share stderr. */
	if (command_name)
		fprintf(stderr, "stainless %s: %s\n", command_name, line);
	else
		fprintf(stderr, "stainless: %s\n", line);
	return rc;
}

int fail_msg(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}
