// SPDX-License-Identifier: GPL-2.0-only
/* The log every command and thread shares (see fs_log.h). */
#include "fs/fs_log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fs/fs_req.h"

enum fs_log_level fs_log_level = FS_LOG_INFO;

static struct {
	const char *prog;
	bool stamp;
} lg = { .prog = "stainless" };

static const char *const level_names[] = {
	[FS_LOG_OFF] = "off", [FS_LOG_ERROR] = "error", [FS_LOG_WARN] = "warn",
	[FS_LOG_INFO] = "info", [FS_LOG_DEBUG] = "debug", [FS_LOG_TRACE] = "trace",
};

int fs_log_parse_level(const char *word, enum fs_log_level *out)
{
	if (strcmp(word, "err") == 0)   /* the C virtiofsd's spelling */
		word = "error";
	for (unsigned i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (strcmp(word, level_names[i]) == 0) {
			*out = (enum fs_log_level)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *fs_log_level_name(enum fs_log_level l)
{
	return (unsigned)l < sizeof(level_names) / sizeof(level_names[0]) ? level_names[l] : "?";
}

void fs_log_init(enum fs_log_level level, const char *prog)
{
	fs_log_level = level;
	if (prog)
		lg.prog = prog;
	lg.stamp = !isatty(STDERR_FILENO);
	/*
	 * glibc reads the zone (TZ, /etc/localtime) at its first time
	 * conversion, gmtime_r's too: done here, before any seccomp filter,
	 * not at the first stamped line (an openat no role allows).
	 */
	tzset();
}

uint64_t fs_log_now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

/* "2026-12-02T01:02:03.123456Z ", UTC: gmtime_r reads no zone file. */
static int stamp(char *buf, size_t len)
{
	struct timespec now;
	struct tm tm;

	if (!lg.stamp)
		return 0;
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	return snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ ", tm.tm_year + 1900,
			tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
			now.tv_nsec / 1000);
}

__attribute__((format(printf, 2, 0)))
static void vlog(enum fs_log_level l, const char *fmt, va_list ap)
{
	char line[1024];
	size_t n = (size_t)stamp(line, sizeof(line));
	int k = snprintf(line + n, sizeof(line) - n, "%s: %s: ", lg.prog, fs_log_level_name(l));

	if (k > 0)
		n += (size_t)k;
	k = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	if (k > 0)
		n += (size_t)k;
	if (n > sizeof(line) - 2)
		n = sizeof(line) - 2;   /* cut, but still one whole line */
	line[n++] = '\n';
	line[n] = '\0';
	/* stderr is unbuffered (or --syslog's line stream): one write. */
	fputs(line, stderr);
}

void fs_log(enum fs_log_level l, const char *fmt, ...)
{
	va_list ap;

	if (!fs_log_on(l))
		return;
	va_start(ap, fmt);
	vlog(l, fmt, ap);
	va_end(ap);
}

void fs_log_request(const char *proto, const char *op, uint64_t node, int result,
		    uint64_t us)
{
	char res[24];

	if (result == FS_REQ_DEFERRED)
		snprintf(res, sizeof(res), "deferred");
	else if (result < 0)
		snprintf(res, sizeof(res), "-%s", strerrorname_np(-result) ?: "E?");
	else
		snprintf(res, sizeof(res), "%d", result);
	fs_log(FS_LOG_TRACE, "%s %s node=%llu -> %s (%llu us)", proto, op,
	       (unsigned long long)node, res, (unsigned long long)us);
}
