// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the API socket's whole request path without the
 * socket -- the HTTP parser (cmd/http.c), the JSON reader (cmd/json.c)
 * and every resource's validation onto run's config (cmd/api_res.c,
 * cmd/api_model.c) -- and --config-file's document through the same code.
 *
 * Input: one byte of mode, then the bytes.
 *   mode bit 0  0: the bytes are an HTTP request (fed whole, then again in
 *               two pieces split at mode's upper bits, as a socket may
 *               deliver them); 1: they are a config file
 *   mode bit 1  the VM counts as running (configuring must answer 409)
 *
 * Findings (abort): a status outside the documented set, a reply body
 * that is not itself valid JSON, the two deliveries parsing differently,
 * a config outside its limits (share count, tags unique and bounded,
 * vCPUs and memory in range), or a configure request accepted while
 * the VM runs.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/api_model.h"
#include "cmd/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct vm_config cfg;
static struct api_vm api;
static struct api_reply rep;
static struct json_doc check;

#define FINDING(...) do { fprintf(stderr, "fuzz_api: " __VA_ARGS__); abort(); } while (0)

static void check_config(void)
{
	if (cfg.nr_shares > VM_MAX_SHARES)
		FINDING("%u shares\n", cfg.nr_shares);
	if (cfg.cpus < 1 || cfg.cpus > VM_CPUS_MAX || cfg.mem < VM_MEM_MIN || cfg.mem > VM_MEM_MAX)
		FINDING("cpus %u mem %llu\n", cfg.cpus, (unsigned long long)cfg.mem);
	for (unsigned i = 0; i < cfg.nr_shares; i++) {
		if (!cfg.shares[i].tag[0] || strlen(cfg.shares[i].tag) > VM_TAG_MAX ||
		    !cfg.shares[i].dir || !cfg.shares[i].dir[0])
			FINDING("share %u malformed\n", i);
		for (unsigned j = 0; j < i; j++)
			if (strcmp(cfg.shares[i].tag, cfg.shares[j].tag) == 0)
				FINDING("tag %s twice\n", cfg.shares[i].tag);
	}
}

static void reset(bool running)
{
	memset(&cfg, 0, sizeof(cfg));
	cfg.mem = VM_MEM_DEFAULT;
	cfg.cpus = 1;
	cfg.cmdline = "";
	api_vm_init(&api, &cfg);
	if (running)
		api.state = API_RUNNING;
}

static void one_request(const uint8_t *d, size_t n, bool running)
{
	static const int ok[] = { 200, 204, 400, 404, 405, 409, 500 };
	static char buf[HTTP_REQ_MAX];
	struct http_req req;
	const char *why;
	int status, rc;
	bool known = false;
	unsigned before;

	if (n > sizeof(buf))
		n = sizeof(buf);
	memcpy(buf, d, n); /* exactly n bytes, so ASan sees a read past them */
	rc = http_parse(buf, n, &req, &status, &why);
	if (rc < 0 && (status < 400 || status > 505 || !why || !*why))
		FINDING("refused with %d\n", status);
	if (rc != 0)
		return;
	before = cfg.nr_shares;
	api_handle(&api, req.method, req.path, req.body, req.body_len, &rep);
	for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		known |= rep.status == ok[i];
	if (!known)
		FINDING("status %d\n", rep.status);
	if (rep.status != 204 && json_parse(&check, rep.body, strlen(rep.body)) < 0)
		FINDING("reply not JSON: %s (%s)\n", rep.body, check.err);
	if (running && rep.status == 204 && strcmp(req.path, "/actions") != 0)
		FINDING("configured %s while running\n", req.path);
	if (running && cfg.nr_shares != before)
		FINDING("shares changed while running\n");
	check_config();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_req a, b;
	const char *why;
	char err[256];
	int sa, sb, ra, rb;
	size_t split;

	if (size < 1)
		return 0;
	bool running = data[0] & 2;

	reset(running);
	data++;
	size--;
	if (data[-1] & 1) {
		if (api_config_doc(&api, (const char *)data, size, err, sizeof(err)) < 0 && !err[0])
			FINDING("config refused without a reason\n");
		check_config();
		return 0;
	}
	one_request(data, size, running);
	/* A prefix is either "more" or refused the same way as the whole. */
	split = size ? (size_t)(data[-1] >> 2) * size / 64 : 0;
	ra = http_parse((const char *)data, split, &a, &sa, &why);
	rb = http_parse((const char *)data, size, &b, &sb, &why);
	if (ra == 0 && (rb != 0 || a.head_len + a.body_len != b.head_len + b.body_len))
		FINDING("a prefix parsed as a whole request that the whole does not\n");
	if (ra < 0 && rb >= 0)
		FINDING("a prefix refused (%d) that the whole accepts\n", sa);
	return 0;
}
