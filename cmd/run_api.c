// SPDX-License-Identifier: GPL-2.0-only
/* --config-file and --api-sock for `run` (see run_api.h). */
#include "cmd/run_api.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/fail.h"

/* The whole file, at most RUN_CONFIG_MAX bytes: its length or -errno. */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf + len, size - len)) > 0 && len + (size_t)n < size)
		len += (size_t)n;
	if (n > 0)
		len += (size_t)n;
	close(fd);
	if (n < 0)
		return -errno;
	return len >= size ? -EFBIG : (ssize_t)len;
}

static int load_config(struct run_api *ra, const char *path)
{
	char what[300], err[256];
	ssize_t n;

	snprintf(what, sizeof(what), "--config-file %s", path);
	n = read_file(path, ra->file, sizeof(ra->file));
	if (n == -EFBIG)
		return fail(2, "%s: larger than 64 KiB", what);
	if (n < 0)
		return fail(2, "%s: cannot read it: %s", what, strerror((int)-n));
	if (api_config_doc(&ra->api, ra->file, (size_t)n, err, sizeof(err)) < 0)
		return fail(2, "%s: %s", what, err);
	return 0;
}

int run_api_setup(struct run_api *ra, struct vm_config *cfg, const char *config_file,
		  const char *api_sock)
{
	char err[256];
	int rc;

	api_vm_init(&ra->api, cfg);
	ra->srv.listen_fd = ra->srv.conn_fd = -1;
	if (config_file && (rc = load_config(ra, config_file)) != 0)
		return rc;
	if (api_sock) {
		if (api_server_open(&ra->srv, api_sock, &ra->api, err, sizeof(err)) < 0)
			return fail(1, "%s", err);
		ra->serving = true;
		/* Without a kernel (from the command line or the file): configure first. */
		if (!cfg->kernel && (rc = api_server_wait_start(&ra->srv)) < 0)
			return fail(1, "--api-sock: %s", strerror(-rc));
	}
	if (!cfg->kernel)
		return fail(2, "--kernel PATH is required (or --config-file, or --api-sock)");
	ra->api.start = true;
	return 0;
}

static void hook_pollfd(void *ctx, struct pollfd *p)
{
	struct run_api *ra = ctx;

	api_server_pollfd(&ra->srv, p);
}

static int hook_timeout(void *ctx)
{
	struct run_api *ra = ctx;

	return api_server_timeout_ms(&ra->srv);
}

static void hook_service(void *ctx, const struct pollfd *p)
{
	struct run_api *ra = ctx;

	api_server_service(&ra->srv, p);
}

static int ctrl_alt_del(void *ctx)
{
	struct run_api *ra = ctx;

	return ra->ctrl_alt_del ? ra->ctrl_alt_del(ra->vm) : -ENODEV;
}

static void hook_running(void *ctx, int (*cad)(void *vm), void *vm)
{
	struct run_api *ra = ctx;

	ra->ctrl_alt_del = cad;
	ra->vm = vm;
	ra->api.state = API_RUNNING;
	ra->api.ctrl_alt_del = ctrl_alt_del;
	ra->api.ctx = ra;
}

void run_api_hooks(struct run_api *ra, struct vm_hooks *h)
{
	if (!ra->serving)
		return;
	h->ctl_pollfd = hook_pollfd;
	h->ctl_timeout_ms = hook_timeout;
	h->ctl_service = hook_service;
	h->running = hook_running;
	h->ctl_ctx = ra;
	/* Where each --fs-hub device leaves its hub, for PUT /fs-hub/TAG/shares/NAME. */
	for (unsigned i = 0; i < ra->api.cfg->nr_shares; i++)
		ra->api.cfg->shares[i].hub_out = &ra->api.hubs[i];
}

void run_api_ended(void *ctx, int status)
{
	struct run_api *ra = ctx;

	(void)status;
	if (ra->serving)
		unix_left_remove(&ra->srv.left);
}

void run_api_close(struct run_api *ra)
{
	if (ra->serving)
		api_server_close(&ra->srv);
}
