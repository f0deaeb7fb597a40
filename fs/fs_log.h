/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One log for every command and thread: a level (--log-level
 * error|warn|info|debug|trace, -d = debug), lines that carry their level
 * and, where stderr is not a terminal (a journal, a file, a pipe), a UTC
 * timestamp. A line is formatted on the stack and leaves as one write on
 * stderr's stream (a write(2) on fd 2, or on the syslog socket a
 * vhost-user-fs --syslog connected before its sandbox): a call every
 * thread role's seccomp filter has. No allocation, no file opened, no
 * lock: a line from a serving thread cannot stall or kill it.
 *
 * trace is the per-request line (opcode, node, result, microseconds), as
 * virtiofsd -d prints; when it is off a server pays one predictable
 * branch (fs_log_tracing).
 */
#ifndef STAINLESS_FS_FS_LOG_H
#define STAINLESS_FS_FS_LOG_H

#include <stdbool.h>
#include <stdint.h>

enum fs_log_level { FS_LOG_OFF, FS_LOG_ERROR, FS_LOG_WARN, FS_LOG_INFO, FS_LOG_DEBUG,
		    FS_LOG_TRACE };

#define FS_LOG_LEVELS "error|warn|info|debug|trace"

/* Read everywhere, written only while a command starts (fs_log_init). */
extern enum fs_log_level fs_log_level;

static inline bool fs_log_on(enum fs_log_level l)
{
	return fs_log_level >= l;
}

/* The per-request test: one load and one branch the predictor learns. */
static inline bool fs_log_tracing(void)
{
	return __builtin_expect(fs_log_level >= FS_LOG_TRACE, 0);
}

/* "error", ..., "trace" (and "off"; virtiofsd's "err"): 0, or -EINVAL. */
int fs_log_parse_level(const char *word, enum fs_log_level *out);
const char *fs_log_level_name(enum fs_log_level l);

/*
 * Before the command's first thread and its seccomp filter: the level,
 * the program's name for each line ("stainless fuse-mount") and whether
 * lines carry a timestamp (stderr not a terminal, asked now: isatty is
 * an ioctl no filter allows).
 */
void fs_log_init(enum fs_log_level level, const char *prog);

/* One line at level l, when the level lets it through. */
__attribute__((format(printf, 2, 3)))
void fs_log(enum fs_log_level l, const char *fmt, ...);

/* Microseconds on the monotonic clock (the vDSO; clock_gettime in every role). */
uint64_t fs_log_now_us(void);

/*
 * The trace line of one request: "PROTO OPCODE node=N -> RESULT (US us)",
 * the result a reply length, -errno ("-ENOENT") or "deferred".
 */
void fs_log_request(const char *proto, const char *op, uint64_t node, int result,
		    uint64_t us);

#endif
