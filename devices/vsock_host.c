// SPDX-License-Identifier: GPL-2.0-only
/*
 * virtio-vsock's reach into the host: the --vsock value, the listening
 * socket UDS, and connects to UDS_P for the guest.
 *
 * How the sandboxed VMM reaches those sockets: before the sandbox closes
 * the host's tree off (sandbox_lockdown pivots into a tmpfs root), `run`
 * binds UDS and opens UDS's folder as a directory fd. The muxer thread
 * then gives itself a working directory of its own (unshare(CLONE_FS))
 * inside that folder and connects to the relative name "BASE_P": BASE is
 * UDS's last component, checked here to hold no '/', and P is the decimal
 * port, so the one name a guest can make the VMM connect to is a
 * "UDS_<port>" beside UDS -- never a path elsewhere, never "..". This
 * needs neither /proc inside the sandbox (a /proc/self/fd/N/BASE_P path
 * would) nor a helper process, and fchdir into a folder opened before
 * pivot_root works whatever the new root holds. The seccomp role allows
 * socket() for AF_UNIX stream sockets only.
 */
#include "devices/vsock_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* "_4294967295": what a guest port may add to UDS's name. */
#define PORT_SUFFIX_MAX 11

static int parse_u32(const char *s, const char *end, uint32_t *out)
{
	uint64_t v = 0;

	if (s == end)
		return -EINVAL;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

int vsock_parse_config(const char *val, struct vsock_config *c, char *err, size_t errlen)
{
	const char *comma = strchr(val, ','), *uds, *opt;
	size_t len;

	*c = (struct vsock_config){ .max_conns = VSOCK_CONNS_DEFAULT };
	if (!comma || parse_u32(val, comma, &c->cid) < 0 || c->cid < VSOCK_CID_GUEST_MIN ||
	    c->cid == UINT32_MAX) {
		snprintf(err, errlen, "--vsock %s: want CID,UDS with CID from 3 to 4294967294", val);
		return -EINVAL;
	}
	uds = comma + 1;
	len = strlen(uds);
	opt = strrchr(uds, ',');
	if (opt && !strncmp(opt, ",conns=", 7)) {
		uint32_t n;

		if (parse_u32(opt + 7, opt + strlen(opt), &n) < 0 || !n || n > VSOCK_CONNS_MAX) {
			snprintf(err, errlen, "--vsock: conns=N wants N from 1 to %u", VSOCK_CONNS_MAX);
			return -EINVAL;
		}
		c->max_conns = n;
		len = (size_t)(opt - uds);
	}
	if (!len || uds[len - 1] == '/' || len + PORT_SUFFIX_MAX >= sizeof(c->uds)) {
		snprintf(err, errlen, "--vsock: UDS must name a socket, in fewer than %zu bytes",
			 sizeof(c->uds) - PORT_SUFFIX_MAX);
		return -EINVAL;
	}
	memcpy(c->uds, uds, len);
	c->uds[len] = '\0';
	return 0;
}

static int bind_uds(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, rc;

	/* A socket left by an earlier run is replaced; a file is not ours. */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return -EEXIST;
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 64) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

int vsock_host_open(struct vsock_host *h, const struct vsock_config *c)
{
	char dir[sizeof(c->uds)], base[sizeof(c->uds)];
	int rc;

	*h = (struct vsock_host){ .listen_fd = -1, .dir_fd = -1 };
	snprintf(dir, sizeof(dir), "%s", c->uds);
	snprintf(base, sizeof(base), "%s", c->uds);
	snprintf(h->base, sizeof(h->base), "%s", basename(base));
	if (!h->base[0] || !strcmp(h->base, ".") || !strcmp(h->base, "..") ||
	    strchr(h->base, '/'))
		return -EINVAL;
	h->dir_fd = open(dirname(dir), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (h->dir_fd < 0)
		return -errno;
	rc = bind_uds(c->uds);
	if (rc < 0) {
		vsock_host_close(h);
		return rc;
	}
	h->listen_fd = rc;
	return 0;
}

void vsock_host_close(struct vsock_host *h)
{
	if (h->listen_fd >= 0)
		close(h->listen_fd);
	if (h->dir_fd >= 0)
		close(h->dir_fd);
	h->listen_fd = h->dir_fd = -1;
}

int vsock_host_connect(const struct vsock_host *h, uint32_t port)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd, rc;

	/* Relative to the muxer's working directory: UDS's folder. */
	if (snprintf(a.sun_path, sizeof(a.sun_path), "%s_%" PRIu32, h->base, port) >=
	    (int)sizeof(a.sun_path))
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A Unix stream connect completes at once or fails (EAGAIN: the
	 * listener's backlog is full), so non-blocking is never half done. */
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}
