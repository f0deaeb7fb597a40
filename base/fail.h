/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How set-up code reports an error: one line on stderr, "stainless CMD:
 * what went wrong", then the -errno goes back up. The command's name is set
 * once by the dispatcher (cmd/main.c), so no floor needs to know which
 * command it runs under. Protocol errors never come here: they leave
 * through each server's reply path, to the client.
 */
#ifndef STAINLESS_BASE_FAIL_H
#define STAINLESS_BASE_FAIL_H

#include <stddef.h>

/* "run", "fuse-mount", ...; the string must outlive the process's messages. */
void fail_set_command(const char *name);
const char *fail_command(void);

/* One line "stainless CMD: ..." on stderr; returns rc. */
int fail(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The same line into err instead, for code that must not print (parsers,
 * checked by their message in unit tests; code whose caller adds the
 * context): the caller passes it to fail(). Returns rc.
 */
int fail_msg(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
