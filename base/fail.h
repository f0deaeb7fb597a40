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

/* "run", "fuse-mount", ...; the string must outlive the process's messages. */
void fail_set_command(const char *name);
const char *fail_command(void);

/* One line "stainless CMD: ..." on stderr; returns rc. */
int fail(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
