// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd/api_model.c and cmd/api_res.c: each API resource onto `run`'s
 * config, each refusal with its status and a message naming the field,
 * the state machine (configure before InstanceStart, only actions and
 * reads after), and --config-file's document through the same code.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>

#include "cmd/api_model.h"
#include "fs/fuse/fuse_hub.h"
#include "tests/unit/check_main.h"

static struct vm_config cfg;
static struct api_vm api;
static struct api_reply rep;
static int ctrl_alt_dels;

static void setup(void)
{
	memset(&cfg, 0, sizeof(cfg));
	cfg.mem = VM_MEM_DEFAULT;
	cfg.cpus = 1;
	cfg.cmdline = "";
	api_vm_init(&api, &cfg);
}

static int req(const char *method, const char *path, const char *body)
{
	api_handle(&api, method, path, body, body ? strlen(body) : 0, &rep);
	return rep.status;
}

#define FAULT(s) ck_assert_msg(strstr(rep.body, s), "fault '%s' not in %s", s, rep.body)

START_TEST(test_boot_source)
{
	ck_assert_int_eq(req("PUT", "/boot-source", "{\"kernel_image_path\":\"/k\","
			     "\"initrd_path\":\"/i\",\"boot_args\":\"console=ttyS0\"}"), 204);
	ck_assert_str_eq(cfg.kernel, "/k");
	ck_assert_str_eq(cfg.initrd, "/i");
	ck_assert_str_eq(cfg.cmdline, "console=ttyS0");
	/* A PUT replaces the whole resource. */
	ck_assert_int_eq(req("PUT", "/boot-source", "{\"kernel_image_path\":\"/k2\"}"), 204);
	ck_assert_str_eq(cfg.kernel, "/k2");
	ck_assert_ptr_null(cfg.initrd);
	ck_assert_str_eq(cfg.cmdline, "");
}
END_TEST

START_TEST(test_machine_config)
{
	ck_assert_int_eq(req("PUT", "/machine-config", "{\"vcpu_count\":2,\"mem_size_mib\":256}"), 204);
	ck_assert_uint_eq(cfg.cpus, 2);
	ck_assert(cfg.mem == 256ull << 20);
	ck_assert_int_eq(req("PUT", "/machine-config", "{\"vcpu_count\":0}"), 400);
	FAULT("machine-config: vcpu_count must be a whole number from 1 to 255");
	ck_assert_int_eq(req("PUT", "/machine-config", "{\"mem_size_mib\":16}"), 400);
	FAULT("mem_size_mib");
	ck_assert_int_eq(req("PUT", "/machine-config", "{\"vcpu_count\":\"2\"}"), 400);
	ck_assert_int_eq(req("PUT", "/machine-config", "{\"vcpu_count\":1.5}"), 400);
	ck_assert_uint_eq(cfg.cpus, 2);  /* refused requests change nothing */
}
END_TEST

START_TEST(test_fs_share)
{
	ck_assert_int_eq(req("PUT", "/fs/data", "{\"shared_dir\":\"/srv\",\"cache\":\"always\","
			     "\"dax_window_size\":\"1G\",\"readonly\":true,\"xattr\":true,"
			     "\"writeback\":false,\"queues\":2}"), 204);
	ck_assert_uint_eq(cfg.nr_shares, 1);
	ck_assert(!cfg.shares[0].is_9p);
	ck_assert_str_eq(cfg.shares[0].tag, "data");
	ck_assert_str_eq(cfg.shares[0].dir, "/srv");
	ck_assert_int_eq(cfg.shares[0].opts.cache, FS_CACHE_ALWAYS);
	ck_assert(cfg.shares[0].opts.dax_size == 1ull << 30);
	ck_assert(cfg.shares[0].opts.readonly && cfg.shares[0].opts.xattr);
	ck_assert(!cfg.shares[0].opts.writeback);
	ck_assert_uint_eq(cfg.shares[0].opts.queues, 2);
	/* The same tag again replaces it. */
	ck_assert_int_eq(req("PUT", "/fs/data", "{\"shared_dir\":\"/other\","
			     "\"dax_window_size\":2097152}"), 204);
	ck_assert_uint_eq(cfg.nr_shares, 1);
	ck_assert_str_eq(cfg.shares[0].dir, "/other");
	ck_assert(cfg.shares[0].opts.dax_size == 2u << 20);
	ck_assert(!cfg.shares[0].opts.readonly);
}
END_TEST

START_TEST(test_9p_share)
{
	ck_assert_int_eq(req("PUT", "/9p/home", "{\"tag\":\"home\",\"shared_dir\":\"/h\","
			     "\"msize\":65536,\"xattr_map\":true}"), 204);
	ck_assert(cfg.shares[0].is_9p);
	ck_assert_uint_eq(cfg.shares[0].opts.msize, 65536);
	ck_assert(cfg.shares[0].opts.xattr_map);
	ck_assert_int_eq(req("PUT", "/9p/x", "{\"shared_dir\":\"/h\",\"cache\":\"auto\"}"), 400);
	FAULT("9p/x: cache is not an option of a 9p share");
	ck_assert_int_eq(req("PUT", "/9p/y", "{\"shared_dir\":\"/h\",\"msize\":100}"), 400);
	FAULT("9p/y: msize:");
	ck_assert_int_eq(req("PUT", "/fs/home", "{\"shared_dir\":\"/h\"}"), 400);
	FAULT("tag 'home' is taken by a 9p share");
	ck_assert_uint_eq(cfg.nr_shares, 1);
}
END_TEST

START_TEST(test_share_refusals)
{
	ck_assert_int_eq(req("PUT", "/fs/a", "{}"), 400);
	FAULT("fs/a: shared_dir is required");
	ck_assert_int_eq(req("PUT", "/fs/a", "{\"shared_dir\":\"/s\",\"tag\":\"b\"}"), 400);
	FAULT("differs from the path");
	ck_assert_int_eq(req("PUT", "/fs/a", "{\"shared_dir\":\"/s\",\"cache\":\"sometimes\"}"), 400);
	FAULT("fs/a: cache:");
	ck_assert_int_eq(req("PUT", "/fs/a", "{\"shared_dir\":\"/s\",\"readonly\":1}"), 400);
	FAULT("fs/a: readonly must be true or false, not a number");
	ck_assert_int_eq(req("PUT", "/fs/a", "{\"shared_dir\":\"/s\",\"colour\":1}"), 400);
	FAULT("fs: unknown field 'colour'");
	ck_assert_int_eq(req("PUT", "/fs/a", "{\"shared_dir\":\"/s\",\"queues\":99}"), 400);
	FAULT("fs/a: queues:");
	ck_assert_int_eq(req("PUT", "/fs/a,b", "{\"shared_dir\":\"/s\"}"), 400);
	FAULT("use letters, digits");
	ck_assert_int_eq(req("PUT", "/fs/0123456789012345678901234567890123456",
			     "{\"shared_dir\":\"/s\"}"), 400);
	FAULT("tag must be 1 to 36 bytes");
	ck_assert_uint_eq(cfg.nr_shares, 0);
}
END_TEST

START_TEST(test_share_count_bounded)
{
	char path[32];

	for (int i = 0; i < VM_MAX_SHARES; i++) {
		snprintf(path, sizeof(path), "/fs/t%d", i);
		ck_assert_int_eq(req("PUT", path, "{\"shared_dir\":\"/s\"}"), 204);
	}
	ck_assert_int_eq(req("PUT", "/9p/more", "{\"shared_dir\":\"/s\"}"), 400);
	FAULT("too many shares");
}
END_TEST

START_TEST(test_vsock_checked_then_taken)
{
	ck_assert_int_eq(req("PUT", "/vsock", "{\"guest_cid\":2,\"uds_path\":\"/v.sock\"}"), 400);
	FAULT("vsock: guest_cid must be a whole number from 3 to 4294967294");
	ck_assert_int_eq(req("PUT", "/vsock", "{\"guest_cid\":3}"), 400);
	FAULT("vsock: uds_path is required");
	ck_assert_int_eq(req("PUT", "/vsock", "{\"guest_cid\":3,\"uds_path\":\"/v,sock\"}"), 400);
	FAULT("vsock: uds_path may not hold a comma");
	ck_assert_int_eq(req("PUT", "/vsock", "{\"guest_cid\":7,\"uds_path\":\"/v.sock\"}"), 204);
	ck_assert_uint_eq(cfg.vsock.cid, 7);
	ck_assert_str_eq(cfg.vsock.uds, "/v.sock");
}
END_TEST

START_TEST(test_console_and_rng)
{
	ck_assert_int_eq(req("PUT", "/console", "{\"mode\":\"file\",\"path\":\"/tmp/c\"}"), 204);
	ck_assert_int_eq(cfg.console, CONSOLE_FILE);
	ck_assert_str_eq(cfg.console_path, "/tmp/c");
	ck_assert_int_eq(req("PUT", "/console", "{\"mode\":\"none\"}"), 204);
	ck_assert_int_eq(cfg.console, CONSOLE_NONE);
	ck_assert_int_eq(req("PUT", "/console", "{\"mode\":\"file\"}"), 400);
	FAULT("console: path is required with mode file");
	ck_assert_int_eq(req("PUT", "/console", "{\"mode\":\"tty\"}"), 400);
	ck_assert_int_eq(req("PUT", "/rng", "{}"), 204);
	ck_assert(cfg.rng);
	ck_assert_int_eq(req("PUT", "/rng", "{\"enabled\":false}"), 204);
	ck_assert(!cfg.rng);
}
END_TEST

START_TEST(test_routing_errors)
{
	ck_assert_int_eq(req("GET", "/nothing", NULL), 404);
	FAULT("unknown resource '/nothing'");
	ck_assert_int_eq(req("PUT", "/fs/", "{}"), 404);
	ck_assert_int_eq(req("PUT", "/fs/a/b", "{}"), 404);
	ck_assert_int_eq(req("DELETE", "/boot-source", NULL), 405);
	ck_assert_int_eq(req("PUT", "/", "{}"), 405);
	ck_assert_int_eq(req("GET", "/actions", NULL), 405);
	ck_assert_int_eq(req("PUT", "/boot-source", NULL), 400);
	FAULT("expected a JSON object");
	ck_assert_int_eq(req("PUT", "/boot-source", "{\"kernel_image_path\":"), 400);
	FAULT("invalid JSON at byte");
	ck_assert_int_eq(req("PUT", "/boot-source", "[]"), 400);
	FAULT("boot-source: expected a JSON object, not an array");
	ck_assert_int_eq(req("PUT", "/boot-source", "{\"kernel\":\"/k\"}"), 400);
	FAULT("boot-source: unknown field 'kernel'");
}
END_TEST

static int cad_rc;

/* The VM's keyboard: counts the presses it takes, else answers cad_rc. */
static int count_cad(void *ctx)
{
	if (cad_rc == 0)
		ctrl_alt_dels++;
	return cad_rc;
}

START_TEST(test_actions_and_state)
{
	ck_assert_int_eq(req("PUT", "/actions", "{\"action_type\":\"InstanceStart\"}"), 400);
	FAULT("kernel_image_path is not set");
	ck_assert_int_eq(req("PUT", "/actions", "{\"action_type\":\"SendCtrlAltDel\"}"), 409);
	ck_assert_int_eq(req("PUT", "/actions", "{\"action_type\":\"Reboot\"}"), 400);
	ck_assert_int_eq(req("PUT", "/actions", "{\"action_type\":\"InstanceStart\",\"x\":1}"), 400);
	ck_assert_int_eq(req("PUT", "/boot-source", "{\"kernel_image_path\":\"/k\"}"), 204);
	ck_assert_int_eq(req("GET", "/", NULL), 200);
	FAULT("\"state\":\"Not started\"");
	ck_assert_int_eq(req("PUT", "/actions", "{\"action_type\":\"InstanceStart\"}"), 204);
	ck_assert(api.start);
	/* Configuring after start is a conflict, before the body is even read. */
	ck_assert_int_eq(req("PUT", "/machine-config", "not json"), 409);
	FAULT("configure before InstanceStart");
	ck_assert_int_eq(req("PUT", "/actions", "{\"action_type\":\"InstanceStart\"}"), 409);
	api.state = API_RUNNING;
	api.ctrl_alt_del = count_cad;
	ck_assert_int_eq(req("GET", "/vm", NULL), 200);
	FAULT("\"state\":\"Running\"");
	FAULT("\"kernel_image_path\":\"/k\"");
	ck_assert_int_eq(req("PUT", "/actions", "{\"action_type\":\"SendCtrlAltDel\"}"), 204);
	ck_assert_int_eq(ctrl_alt_dels, 1);
	/* A guest without a keyboard driver, or one not reading its keys: the caller is told. */
	cad_rc = -ENODEV;
	ck_assert_int_eq(req("PUT", "/actions", "{\"action_type\":\"SendCtrlAltDel\"}"), 409);
	FAULT("has not enabled its keyboard");
	cad_rc = -ENOSPC;
	ck_assert_int_eq(req("PUT", "/actions", "{\"action_type\":\"SendCtrlAltDel\"}"), 409);
	FAULT("has not read the keys");
	cad_rc = 0;
	ck_assert_int_eq(ctrl_alt_dels, 1);
}
END_TEST

START_TEST(test_config_doc)
{
	const char *doc = "{\"boot-source\":{\"kernel_image_path\":\"/k\",\"boot_args\":\"quiet\"},"
			  "\"machine-config\":{\"vcpu_count\":2,\"mem_size_mib\":128},"
			  "\"fs\":[{\"tag\":\"a\",\"shared_dir\":\"/a\",\"cache\":\"never\"}],"
			  "\"9p\":[{\"tag\":\"b\",\"shared_dir\":\"/b\"}],\"rng\":{},"
			  "\"console\":{\"mode\":\"none\"}}";
	char err[256];

	ck_assert_int_eq(api_config_doc(&api, doc, strlen(doc), err, sizeof(err)), 0);
	ck_assert_str_eq(cfg.kernel, "/k");
	ck_assert_uint_eq(cfg.cpus, 2);
	ck_assert_uint_eq(cfg.nr_shares, 2);
	ck_assert(cfg.shares[1].is_9p);
	ck_assert(cfg.rng);
	ck_assert_int_eq(req("GET", "/", NULL), 200);
	FAULT("\"9p\":[{\"tag\":\"b\"");
}
END_TEST

START_TEST(test_config_doc_refusals)
{
	static const struct { const char *doc, *msg; } bad[] = {
		{ "[]", "expected a JSON object of resources" },
		{ "{\"drives\":[]}", "unknown resource 'drives'" },
		{ "{\"fs\":{}}", "fs: expected a list of shares" },
		{ "{\"fs\":[{\"shared_dir\":\"/a\"}]}", "fs: tag is required" },
		{ "{\"machine-config\":{\"vcpu_count\":300}}", "machine-config: vcpu_count" },
		{ "{\"boot-source\":{}}", "boot-source: kernel_image_path is required" },
		{ "{\"boot-source\":", "invalid JSON at byte 15" },
	};
	char err[256];

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(api_config_doc(&api, bad[i].doc, strlen(bad[i].doc), err,
						sizeof(err)), -EINVAL);
		ck_assert_msg(strstr(err, bad[i].msg), "%s: %s", bad[i].doc, err);
	}
}
END_TEST

/* PUT /fs-hub/TAG: a hub configured before start, checked as --fs-hub is. */
START_TEST(test_fs_hub_put)
{
	char base[] = "/tmp/api-hubput-XXXXXX", file[64], body[160];

	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(file, sizeof(file), "%s/f", base);
	close(open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
	snprintf(body, sizeof(body), "{\"shared_dir\":\"%s\",\"cache\":\"never\",\"xattr\":true}", base);
	ck_assert_int_eq(req("PUT", "/fs-hub/pod", body), 204);
	ck_assert_uint_eq(cfg.nr_shares, 1);
	ck_assert(cfg.shares[0].is_hub && !cfg.shares[0].is_9p);
	ck_assert_str_eq(cfg.shares[0].tag, "pod");
	ck_assert_str_eq(cfg.shares[0].dir, base);
	ck_assert_int_eq(cfg.shares[0].opts.cache, FS_CACHE_NEVER);
	ck_assert(cfg.shares[0].opts.xattr);
	ck_assert_int_eq(req("GET", "/", NULL), 200);
	FAULT("\"fs-hub\":[{\"tag\":\"pod\"");
	FAULT("\"fs\":[]");
	/* The same tag again replaces it; the share list stays as long. */
	ck_assert_int_eq(req("PUT", "/fs-hub/pod", body), 204);
	ck_assert_uint_eq(cfg.nr_shares, 1);

	/* Each refusal changes nothing. */
	ck_assert_int_eq(req("PUT", "/fs-hub/x", "{\"shared_dir\":\"/nonexistent-hub-dir\"}"), 400);
	FAULT("fs-hub/x: shared_dir /nonexistent-hub-dir: No such file or directory");
	snprintf(body, sizeof(body), "{\"shared_dir\":\"%s\"}", file);
	ck_assert_int_eq(req("PUT", "/fs-hub/x", body), 400);
	FAULT("not a directory");
	snprintf(body, sizeof(body), "{\"shared_dir\":\"%s\",\"readonly\":true}", base);
	ck_assert_int_eq(req("PUT", "/fs-hub/x", body), 400);
	FAULT("fs-hub/x: readonly is not an option of an fs-hub share (readonly is per share");
	snprintf(body, sizeof(body), "{\"shared_dir\":\"%s\",\"dax_window_size\":\"1G\"}", base);
	ck_assert_int_eq(req("PUT", "/fs-hub/x", body), 400);
	FAULT("dax_window_size is not an option of an fs-hub share");
	ck_assert_int_eq(req("PUT", "/fs-hub/x", "{}"), 400);
	FAULT("fs-hub/x: shared_dir is required");
	ck_assert_int_eq(req("PUT", "/fs-hub/a%b", "{}"), 400);
	FAULT("tag 'a%b'");
	/* A tag is one share's, whatever its kind. */
	snprintf(body, sizeof(body), "{\"shared_dir\":\"%s\"}", base);
	ck_assert_int_eq(req("PUT", "/fs/pod", body), 400);
	FAULT("fs/pod: tag 'pod' is taken by an fs-hub share");
	ck_assert_int_eq(req("PUT", "/9p/pod", body), 400);
	FAULT("9p/pod: tag 'pod' is taken by an fs-hub share");
	ck_assert_int_eq(req("PUT", "/fs/d", body), 204);
	ck_assert_int_eq(req("PUT", "/fs-hub/d", body), 400);
	FAULT("fs-hub/d: tag 'd' is taken by a virtio-fs share");
	ck_assert_uint_eq(cfg.nr_shares, 2);
	/* Too many devices: the 17th share of any kind. */
	for (unsigned i = cfg.nr_shares; i < VM_MAX_SHARES; i++) {
		char path[32];

		snprintf(path, sizeof(path), "/fs/s%u", i);
		ck_assert_int_eq(req("PUT", path, body), 204);
	}
	ck_assert_int_eq(req("PUT", "/fs-hub/more", body), 400);
	FAULT("fs-hub/more: too many shares (at most 16)");
	ck_assert_uint_eq(cfg.nr_shares, VM_MAX_SHARES);
	/* Shares are attached once it runs; before that there is no device. */
	ck_assert_int_eq(req("PUT", "/fs-hub/pod/shares/c1", "{\"path\":\"c1\"}"), 409);
	FAULT("the VM has not started");
	/* After start: configuring is refused, before the body is read. */
	api.start = true;
	ck_assert_int_eq(req("PUT", "/fs-hub/pod", "not json"), 409);
	FAULT("/fs-hub/pod: the VM has started; configure before InstanceStart");
	unlink(file);
	rmdir(base);
}
END_TEST

/* The config file's "fs-hub": a list of hubs, each with its tag. */
START_TEST(test_config_doc_fs_hub)
{
	char base[] = "/tmp/api-hubdoc-XXXXXX", doc[256], err[256];

	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(doc, sizeof(doc), "{\"boot-source\":{\"kernel_image_path\":\"/k\"},"
		 "\"fs-hub\":[{\"tag\":\"pod\",\"shared_dir\":\"%s\",\"cache\":\"always\"}]}", base);
	ck_assert_int_eq(api_config_doc(&api, doc, strlen(doc), err, sizeof(err)), 0);
	ck_assert_uint_eq(cfg.nr_shares, 1);
	ck_assert(cfg.shares[0].is_hub);
	ck_assert_str_eq(cfg.shares[0].tag, "pod");
	ck_assert_int_eq(cfg.shares[0].opts.cache, FS_CACHE_ALWAYS);
	snprintf(doc, sizeof(doc), "{\"fs-hub\":[{\"shared_dir\":\"%s\"}]}", base);
	ck_assert_int_eq(api_config_doc(&api, doc, strlen(doc), err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "fs-hub: tag is required"), "%s", err);
	snprintf(doc, sizeof(doc), "{\"fs-hub\":{\"tag\":\"pod\",\"shared_dir\":\"%s\"}}", base);
	ck_assert_int_eq(api_config_doc(&api, doc, strlen(doc), err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "fs-hub: expected a list"), "%s", err);
	snprintf(doc, sizeof(doc), "{\"fs-hub\":[{\"tag\":\"q\",\"shared_dir\":\"/nonexistent-hub-dir\"}]}");
	ck_assert_int_eq(api_config_doc(&api, doc, strlen(doc), err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "fs-hub/q: shared_dir /nonexistent-hub-dir: No such file"), "%s", err);
	ck_assert_uint_eq(cfg.nr_shares, 1);
	rmdir(base);
}
END_TEST

/* /fs-hub/TAG/shares/NAME on a real hub beneath a temporary directory. */
START_TEST(test_fs_hub_resources)
{
	char base[] = "/tmp/api-hub-XXXXXX", dir[64], cmd[96];
	struct fs_options o;
	struct fuse_hub *hub;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(dir, sizeof(dir), "%s/c1", base);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	cfg.nr_shares = 1;
	cfg.shares[0] = (struct vm_share){ .is_hub = true, .tag = "pod", .dir = base };
	ck_assert_int_eq(req("PUT", "/fs-hub/pod/shares/c1", "{\"path\":\"c1\"}"), 409);
	FAULT("fs-hub/pod/shares/c1: the VM has not started");
	fs_options_default(&o);
	fd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(fuse_hub_create(&hub, fd, base, &o), 0);
	api.hubs[0] = hub;
	ck_assert_int_eq(req("PUT", "/fs-hub/other/shares/c1", "{\"path\":\"c1\"}"), 404);
	FAULT("fs-hub/other: no such hub");
	ck_assert_int_eq(req("PUT", "/fs-hub/pod/shares/c1", "{}"), 400);
	FAULT("fs-hub/pod/shares/c1: path is required");
	ck_assert_int_eq(req("PUT", "/fs-hub/pod/shares/c1", "{\"path\":\"c1\",\"colour\":1}"), 400);
	FAULT("fs-hub/pod/shares/c1: unknown field 'colour'");
	ck_assert_int_eq(req("PUT", "/fs-hub/pod/shares/c1", "{\"path\":\"../..\"}"), 400);
	FAULT("is not beneath the hub's directory");
	ck_assert_int_eq(req("PUT", "/fs-hub/pod/shares/c1", "{\"path\":\"nope\"}"), 400);
	FAULT("path nope: No such file or directory");
	ck_assert_int_eq(req("PUT", "/fs-hub/pod/shares/a%20b", "{\"path\":\"c1\"}"), 400);
	FAULT("a share's name is 1 to 36 bytes");
	ck_assert_int_eq(req("PUT", "/fs-hub/pod/shares/c1", "{\"path\":\"c1\",\"readonly\":1}"), 400);
	FAULT("readonly must be true or false");
	ck_assert_int_eq(req("PUT", "/fs-hub/pod/shares/c1", "{\"path\":\"c1\",\"readonly\":true}"), 204);
	ck_assert_int_eq(req("PUT", "/fs-hub/pod/shares/c1", "{\"path\":\"c1\"}"), 409);
	FAULT("attached already");
	ck_assert_int_eq(req("GET", "/fs-hub/pod", NULL), 200);
	ck_assert_str_eq(rep.body, "{\"tag\":\"pod\",\"shares\":[\"c1\"]}");
	ck_assert_int_eq(req("GET", "/fs-hub/pod/shares/c1", NULL), 405);
	ck_assert_int_eq(req("PUT", "/fs-hub/pod/extra/c1", "{}"), 404);
	ck_assert_int_eq(req("DELETE", "/fs-hub/pod/shares/c1", NULL), 204);
	ck_assert_int_eq(req("DELETE", "/fs-hub/pod/shares/c1", NULL), 404);
	FAULT("no such share");
	fuse_hub_destroy(hub);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	(void)!system(cmd);
}
END_TEST

static Suite *model_suite(void)
{
	Suite *s = suite_create("api_model");
	TCase *tc = tcase_create("resources");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_boot_source);
	tcase_add_test(tc, test_machine_config);
	tcase_add_test(tc, test_fs_share);
	tcase_add_test(tc, test_9p_share);
	tcase_add_test(tc, test_share_refusals);
	tcase_add_test(tc, test_share_count_bounded);
	tcase_add_test(tc, test_vsock_checked_then_taken);
	tcase_add_test(tc, test_console_and_rng);
	tcase_add_test(tc, test_routing_errors);
	tcase_add_test(tc, test_actions_and_state);
	tcase_add_test(tc, test_config_doc);
	tcase_add_test(tc, test_config_doc_refusals);
	tcase_add_test(tc, test_fs_hub_resources);
	tcase_add_test(tc, test_fs_hub_put);
	tcase_add_test(tc, test_config_doc_fs_hub);
	suite_add_tcase(s, tc);
	return s;
}


int main(void)
{
	return unit_main(model_suite());
}
