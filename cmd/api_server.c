// SPDX-License-Identifier: GPL-2.0-only
/* The API socket's connections (see api_server.h). */
#include "cmd/api_server.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int api_server_open(struct api_server *s, const char *path, struct api_vm *vm,
		    char *err, size_t errlen)
{
	int fd;

	s->conn_fd = -1;
	s->vm = vm;
	fd = unix_listen(path, (gid_t)-1, 4);
	if (fd < 0) {
		snprintf(err, errlen, "--api-sock %s: %s", path,
			 fd == -EADDRINUSE ? "another process is serving there" : strerror(-fd));
		return fd;
	}
	s->listen_fd = fd;
	unix_left_init(&s->left, path);
	return 0;
}

static void drop_conn(struct api_server *s)
{
	if (s->conn_fd >= 0)
		close(s->conn_fd);
	s->conn_fd = -1;
	s->len = 0;
	s->continued = s->draining = false;
}

void api_server_close(struct api_server *s)
{
	drop_conn(s);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	s->listen_fd = -1;
}

void api_server_pollfd(const struct api_server *s, struct pollfd *p)
{
	*p = (struct pollfd){ .fd = s->conn_fd >= 0 ? s->conn_fd : s->listen_fd, .events = POLLIN };
}

static long ms_until(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (t->tv_sec - now.tv_sec) * 1000 + (t->tv_nsec - now.tv_nsec) / 1000000;
}

int api_server_timeout_ms(const struct api_server *s)
{
	long ms;

	if (s->conn_fd < 0)
		return -1;
	ms = ms_until(&s->deadline);
	return ms < 0 ? 0 : (int)ms;
}

/*
 * One reply, then the connection is closed. The socket buffer takes a
 * whole reply (at most 16 KiB); a client that reads nothing loses it
 * rather than stalling the loop.
 */
static void send_reply(struct api_server *s, int status, const char *body)
{
	size_t n = http_reply(s->out, sizeof(s->out), status, body);

	if (n && send(s->conn_fd, s->out, n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		/* The client went away: nothing to tell it. */
	}
	drop_conn(s);
}

/*
 * A request refused before it was all read (413, a bad head): closing
 * now, with the client's bytes unread, would reset the connection and
 * the client could lose the reply. Stop writing and read the rest away
 * until the client closes or the deadline passes (a lingering close).
 */
static void send_fault(struct api_server *s, int status, const char *msg)
{
	size_t n;

	api_fault(&s->rep, status, msg);
	n = http_reply(s->out, sizeof(s->out), status, s->rep.body);
	if (!n || send(s->conn_fd, s->out, n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ||
	    shutdown(s->conn_fd, SHUT_WR) < 0) {
		drop_conn(s);
		return;
	}
	s->draining = true;
}

/* Only the user that runs the VMM (or root) may drive it. */
static bool peer_allowed(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return false;
	return cr.uid == 0 || cr.uid == geteuid();
}

static void accept_conn(struct api_server *s)
{
	int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return; /* EAGAIN, or a client that left before we took it */
	s->conn_fd = fd;
	clock_gettime(CLOCK_MONOTONIC, &s->deadline);
	s->deadline.tv_sec += API_READ_MS / 1000;
	s->deadline.tv_nsec += (long)(API_READ_MS % 1000) * 1000000;
	if (s->deadline.tv_nsec >= 1000000000) {
		s->deadline.tv_sec++;
		s->deadline.tv_nsec -= 1000000000;
	}
	if (!peer_allowed(fd))
		send_fault(s, 400, "this socket serves only the user that runs the VM");
}

/* Reads what there is; answers once a whole request (or a refusal) is in. */
static void read_conn(struct api_server *s)
{
	struct http_req req;
	const char *why;
	ssize_t n;
	int status, rc;

	if (s->draining) {
		n = recv(s->conn_fd, s->buf, sizeof(s->buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			drop_conn(s);
		return;
	}
	n = recv(s->conn_fd, s->buf + s->len, sizeof(s->buf) - s->len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		drop_conn(s); /* the client hung up before a whole request */
		return;
	}
	s->len += (size_t)n;
	rc = http_parse(s->buf, s->len, &req, &status, &why);
	if (rc < 0)
		return send_fault(s, status, why);
	if (rc == HTTP_MORE) {
		if (req.head_done && req.expect_continue && !s->continued) {
			static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";

			s->continued = true;
			if (send(s->conn_fd, cont, sizeof(cont) - 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
				drop_conn(s);
		} else if (s->len == sizeof(s->buf)) {
			send_fault(s, 413, "request larger than the server takes");
		}
		return;
	}
	api_handle(s->vm, req.method, req.path, req.body, req.body_len, &s->rep);
	send_reply(s, s->rep.status, s->rep.status == 204 ? NULL : s->rep.body);
}

void api_server_service(struct api_server *s, const struct pollfd *p)
{
	if (s->conn_fd < 0) {
		if (p->revents & POLLIN)
			accept_conn(s);
		return;
	}
	if (p->revents & (POLLIN | POLLHUP | POLLERR))
		read_conn(s);
	if (s->conn_fd >= 0 && api_server_timeout_ms(s) == 0) {
		if (s->draining)
			drop_conn(s);
		else
			send_fault(s, 408, "request not complete in time");
	}
}

int api_server_wait_start(struct api_server *s)
{
	struct pollfd p;

	while (!s->vm->start) {
		api_server_pollfd(s, &p);
		if (poll(&p, 1, api_server_timeout_ms(s)) < 0 && errno != EINTR)
			return -errno;
		api_server_service(s, &p);
	}
	return 0;
}
