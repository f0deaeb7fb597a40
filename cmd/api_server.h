/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The API socket of `run --api-sock PATH`: a listening Unix socket (0600,
 * its peer checked with SO_PEERCRED) served by the thread that owns the
 * VM's control loop, one connection at a time, one request per
 * connection. Everything is non-blocking and bounded: a client that sends
 * half a request gets 408 when API_READ_MS have passed, and meanwhile
 * the loop goes on serving everything else it polls.
 */
#ifndef STAINLESS_CMD_API_SERVER_H
#define STAINLESS_CMD_API_SERVER_H

#include <poll.h>
#include <stdbool.h>
#include <time.h>

#include "cmd/api_model.h"
#include "cmd/http.h"
#include "transport/unix_listen.h"

#define API_READ_MS 2000

struct api_server {
	int listen_fd, conn_fd;
	struct api_vm *vm;
	struct unix_left left;      /* the socket file, removed by the supervisor */
	struct timespec deadline;   /* CLOCK_MONOTONIC, while conn_fd is open */
	bool continued;             /* "100 Continue" sent for this request */
	bool draining;              /* replied early: reading the rest away until EOF */
	size_t len;
	char buf[HTTP_REQ_MAX];
	struct api_reply rep;
	char out[API_REPLY_MAX + 256];
};

/* Binds path (see unix_listen): 0 or -errno with err set. */
int api_server_open(struct api_server *s, const char *path, struct api_vm *vm,
		    char *err, size_t errlen);
void api_server_close(struct api_server *s);

/* What to poll (the connection when one is open, else the listener) and for how long. */
void api_server_pollfd(const struct api_server *s, struct pollfd *p);
int api_server_timeout_ms(const struct api_server *s);
/* After poll: the pollfd it filled, revents set (or 0 on a timeout). */
void api_server_service(struct api_server *s, const struct pollfd *p);

/*
 * Before the VM exists: serve until InstanceStart is accepted (0), or a
 * poll error (-errno). A signal ends the process as it would without.
 */
int api_server_wait_start(struct api_server *s);

#endif
