// SPDX-License-Identifier: GPL-2.0-only
/*
 * `stainless exec`'s control protocol (cmd/exec_wire.h) from the host's
 * side, where the bytes come from a guest that may be hostile: frames cut
 * anywhere, a header that lies, every type the guest may not send, every
 * size off by one, signals and codes out of range, unprintable messages.
 * And exec's command line parsers that the protocol carries (--user).
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "cmd/exec_cli.h"
#include "cmd/exec_wire.h"
#include "tests/unit/check_main.h"

static int frame(uint8_t *buf, size_t cap, uint8_t type, const void *data, size_t len)
{
	size_t used = 0;

	ck_assert_int_eq(exec_frame_put(buf, cap, &used, type, data, len), 0);
	return (int)used;
}

/* The guest's frame through exec_guest_msg; its result code. */
static int guest(uint8_t type, const void *data, size_t len, struct exec_result *r)
{
	uint8_t buf[EXEC_HDR + EXEC_LEN_MAX];
	struct exec_frame f;
	const char *why = NULL;
	int n = frame(buf, sizeof(buf), type, data, len), rc;

	ck_assert_int_eq(exec_frame_next(buf, (size_t)n, &f), n);
	rc = exec_guest_msg(&f, r, &why);
	if (rc < 0)
		ck_assert_ptr_nonnull(why);
	return rc;
}

START_TEST(t_round_trip)
{
	uint8_t buf[64];
	struct exec_frame f;
	int n = frame(buf, sizeof(buf), EXEC_ARG, "uname", 5);

	ck_assert_int_eq(n, EXEC_HDR + 5);
	ck_assert_int_eq(exec_frame_next(buf, (size_t)n, &f), n);
	ck_assert_int_eq(f.type, EXEC_ARG);
	ck_assert_int_eq(f.len, 5);
	ck_assert_mem_eq(f.data, "uname", 5);
}
END_TEST

/* A frame cut anywhere is "not yet", never a frame or an overread. */
START_TEST(t_partial_is_not_yet)
{
	uint8_t buf[64];
	struct exec_frame f;
	int n = frame(buf, sizeof(buf), EXEC_ENV, "A=1", 3);

	for (int cut = 0; cut < n; cut++)
		ck_assert_int_eq(exec_frame_next(buf, (size_t)cut, &f), 0);
}
END_TEST

START_TEST(t_bad_header)
{
	uint8_t buf[8] = { EXEC_EXIT, 1, 2, 0, 0, 0 };
	struct exec_frame f;

	ck_assert_int_eq(exec_frame_next(buf, sizeof(buf), &f), -EPROTO);
}
END_TEST

/* A header announcing 65535 bytes is only "not yet": the caller's bound stops it. */
START_TEST(t_huge_length_waits)
{
	uint8_t buf[EXEC_GUEST_FRAME_MAX] = { EXEC_ERROR, 0, 0xff, 0xff };
	struct exec_frame f;

	ck_assert_int_eq(exec_frame_next(buf, sizeof(buf), &f), 0);
	ck_assert_uint_lt(EXEC_GUEST_FRAME_MAX, EXEC_HDR + 0xffff);
}
END_TEST

START_TEST(t_put_bounds)
{
	uint8_t buf[8];
	size_t used = 0;

	ck_assert_int_eq(exec_frame_put(buf, sizeof(buf), &used, EXEC_ARG, "12345", 5), -ENOSPC);
	ck_assert_int_eq(used, 0);
	ck_assert_int_eq(exec_frame_put(buf, sizeof(buf), &used, EXEC_ARG, "1234", 4), 0);
	ck_assert_int_eq(used, 8);
	ck_assert_int_eq(exec_frame_put(buf, sizeof(buf), &used, EXEC_START, NULL, 0), -ENOSPC);
	ck_assert_int_eq(exec_frame_put(NULL, 0, &used, EXEC_ARG, buf, 70000), -E2BIG);
}
END_TEST

START_TEST(t_exit_codes)
{
	struct exec_result r;

	ck_assert_int_eq(guest(EXEC_EXIT, "\0\3", 2, &r), 0);
	ck_assert_int_eq(r.how, EXEC_EXITED);
	ck_assert_int_eq(exec_result_status(&r), 3);
	ck_assert_int_eq(guest(EXEC_EXIT, "\0\xff", 2, &r), 0);
	ck_assert_int_eq(exec_result_status(&r), 255);
	ck_assert_int_eq(guest(EXEC_EXIT, "\1\x0f", 2, &r), 0);
	ck_assert_int_eq(r.how, EXEC_KILLED);
	ck_assert_int_eq(exec_result_status(&r), 143);
}
END_TEST

START_TEST(t_bad_exit)
{
	struct exec_result r;

	ck_assert_int_eq(guest(EXEC_EXIT, "\0", 1, &r), -EPROTO);
	ck_assert_int_eq(guest(EXEC_EXIT, "\0\0\0", 3, &r), -EPROTO);
	ck_assert_int_eq(guest(EXEC_EXIT, "\2\1", 2, &r), -EPROTO);
	ck_assert_int_eq(guest(EXEC_EXIT, "\1\0", 2, &r), -EPROTO);   /* signal 0 */
	ck_assert_int_eq(guest(EXEC_EXIT, "\1\x41", 2, &r), -EPROTO); /* signal 65 */
}
END_TEST

START_TEST(t_error)
{
	struct exec_result r;

	ck_assert_int_eq(guest(EXEC_ERROR, "\x7f" "nope: command not found", 24, &r), 0);
	ck_assert_int_eq(r.how, EXEC_FAILED);
	ck_assert_int_eq(exec_result_status(&r), 127);
	ck_assert_str_eq(r.msg, "nope: command not found");
	ck_assert_int_eq(guest(EXEC_ERROR, "\x7e", 1, &r), 0);
	ck_assert_int_eq(exec_result_status(&r), 126);
	ck_assert_str_eq(r.msg, "");
}
END_TEST

/* The host prints the text: escapes and NULs become '?', the length is bounded. */
START_TEST(t_error_hostile_text)
{
	uint8_t msg[1 + EXEC_MSG_MAX + 1];
	struct exec_result r;

	ck_assert_int_eq(guest(EXEC_ERROR, "\x7f\x1b[2J\0x\n", 8, &r), 0);
	ck_assert_str_eq(r.msg, "?[2J?x?");
	memset(msg, 'a', sizeof(msg));
	msg[0] = 127;
	ck_assert_int_eq(guest(EXEC_ERROR, msg, 1 + EXEC_MSG_MAX, &r), 0);
	ck_assert_uint_eq(strlen(r.msg), EXEC_MSG_MAX);
	ck_assert_int_eq(guest(EXEC_ERROR, msg, sizeof(msg), &r), -EPROTO);
	ck_assert_int_eq(guest(EXEC_ERROR, NULL, 0, &r), -EPROTO);
	ck_assert_int_eq(guest(EXEC_ERROR, "\0", 1, &r), -EPROTO);   /* code 0 */
	ck_assert_int_eq(guest(EXEC_ERROR, "\x80", 1, &r), -EPROTO); /* code 128 */
}
END_TEST

/* Only EXIT and ERROR come from the guest: every other type is refused. */
START_TEST(t_host_types_refused)
{
	struct exec_result r;

	for (unsigned t = 0; t < 256; t++)
		if (t != EXEC_EXIT && t != EXEC_ERROR)
			ck_assert_int_eq(guest((uint8_t)t, "\0\1", 2, &r), -EPROTO);
}
END_TEST

START_TEST(t_user)
{
	uid_t u;
	gid_t g;

	ck_assert_int_eq(exec_parse_user("1000:1000", &u, &g), 0);
	ck_assert_int_eq(u, 1000);
	ck_assert_int_eq(g, 1000);
	ck_assert_int_eq(exec_parse_user("7", &u, &g), 0);
	ck_assert_int_eq(g, 7);
	ck_assert_int_eq(exec_parse_user("0:5", &u, &g), 0);
	ck_assert_int_eq(u, 0);
	ck_assert_int_eq(g, 5);
	ck_assert_int_eq(exec_parse_user("4294967294", &u, &g), 0);
	ck_assert_int_eq(exec_parse_user("4294967295", &u, &g), -EINVAL); /* (uid_t)-1 */
	ck_assert_int_eq(exec_parse_user("99999999999", &u, &g), -EINVAL);
	ck_assert_int_eq(exec_parse_user("root", &u, &g), -EINVAL);
	ck_assert_int_eq(exec_parse_user("", &u, &g), -EINVAL);
	ck_assert_int_eq(exec_parse_user("1:", &u, &g), -EINVAL);
	ck_assert_int_eq(exec_parse_user(":1", &u, &g), -EINVAL);
	ck_assert_int_eq(exec_parse_user("-1", &u, &g), -EINVAL);
	ck_assert_int_eq(exec_parse_user("1:2:3", &u, &g), -EINVAL);
}
END_TEST

static int parse(const char *const *args, struct exec_opts *o, char *err)
{
	char *argv[16];
	int n = 0;

	for (; args[n]; n++)
		argv[n] = (char *)args[n];
	argv[n] = NULL;
	return cli_parse_exec(n, argv, o, err, 256);
}

START_TEST(t_cli)
{
	static const char *ok[] = { "exec", "--env", "A=1", "--user", "1:2", "--cwd", "/tmp",
				    "/srv/root", "--", "sh", "-c", "exit 3", NULL };
	struct exec_opts o;
	char err[256];

	ck_assert_int_eq(parse(ok, &o, err), 0);
	ck_assert_str_eq(o.rootdir, "/srv/root");
	ck_assert_int_eq(o.argc, 3);
	ck_assert_str_eq(o.argv[2], "exit 3");
	ck_assert_int_eq(o.nenv, 1);
	ck_assert_int_eq(o.uid, 1);
	ck_assert_int_eq(o.gid, 2);
	exec_opts_free(&o);
}
END_TEST

START_TEST(t_cli_bad)
{
	static const char *const bad[][8] = {
		{ "exec", "/srv/root", NULL },                       /* no -- */
		{ "exec", NULL },                                    /* no ROOTDIR */
		{ "exec", "--", "sh", NULL },                        /* no ROOTDIR before -- */
		{ "exec", "/srv/root", "--", NULL },                 /* no command */
		{ "exec", "/srv/root", "sh", NULL },                 /* -- missing */
		{ "exec", "--user", "nobody", "/r", "--", "sh", NULL },
		{ "exec", "--env", "NOEQUALS", "/r", "--", "sh", NULL },
		{ "exec", "--cwd", "relative", "/r", "--", "sh", NULL },
		{ "exec", "--rlimit", "nofile=x", "/r", "--", "sh", NULL },
		{ "exec", "--rlimit", "nofile=10:5", "/r", "--", "sh", NULL },
		{ "exec", "/r,x", "--", "sh", NULL },
	};
	struct exec_opts o;
	char err[256];

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(parse(bad[i], &o, err) == -EINVAL, "case %u", i);
		ck_assert_msg(err[0] && !strchr(err, '\n'), "case %u: one line", i);
		exec_opts_free(&o);
	}
}
END_TEST

static Suite *exec_wire_suite(void)
{
	Suite *s = suite_create("exec_wire");
	TCase *tc = tcase_create("wire");

	tcase_add_test(tc, t_round_trip);
	tcase_add_test(tc, t_partial_is_not_yet);
	tcase_add_test(tc, t_bad_header);
	tcase_add_test(tc, t_huge_length_waits);
	tcase_add_test(tc, t_put_bounds);
	tcase_add_test(tc, t_exit_codes);
	tcase_add_test(tc, t_bad_exit);
	tcase_add_test(tc, t_error);
	tcase_add_test(tc, t_error_hostile_text);
	tcase_add_test(tc, t_host_types_refused);
	tcase_add_test(tc, t_user);
	tcase_add_test(tc, t_cli);
	tcase_add_test(tc, t_cli_bad);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(exec_wire_suite());
}
