// SPDX-License-Identifier: GPL-2.0-only
/*
 * The crun handler's config.json to `stainless exec` options
 * (dist/crun/oci_args.h): each field the issue names becomes its option,
 * a bind mount of a directory becomes a share, and what the guest cannot
 * honour is refused by name instead of being dropped.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "dist/crun/oci_args.h"
#include "tests/unit/check_main.h"

static int all_dirs(const char *path)
{
	return strcmp(path, "/etc/hosts") != 0;
}

static char err[256];

static int convert(const char *json, struct oci_args *a)
{
	err[0] = '\0';
	return oci_to_exec_args(json, a, all_dirs, err, sizeof(err));
}

static char *joined(const struct oci_args *a)
{
	static char buf[2048];

	buf[0] = '\0';
	for (size_t i = 0; i < a->n; i++) {
		strncat(buf, a->v[i], sizeof(buf) - strlen(buf) - 2);
		strcat(buf, " ");
	}
	return buf;
}

START_TEST(t_every_field)
{
	static const char json[] = "{\"ociVersion\":\"1.0.0\",\"hostname\":\"box\","
		"\"process\":{\"args\":[\"sh\"],\"env\":[\"PATH=/bin\",\"A=b c\"],\"cwd\":\"/work\","
		"\"user\":{\"uid\":1000,\"gid\":100},"
		"\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"soft\":512,\"hard\":1024}]},"
		"\"root\":{\"path\":\"rootfs\",\"readonly\":true},"
		"\"mounts\":[{\"destination\":\"/proc\",\"type\":\"proc\",\"source\":\"proc\"},"
		"{\"destination\":\"/data\",\"type\":\"bind\",\"source\":\"/srv\",\"options\":[\"rbind\",\"ro\"]},"
		"{\"destination\":\"/cache\",\"type\":\"none\",\"source\":\"/c\",\"options\":[\"bind\"]},"
		"{\"destination\":\"/etc/hosts\",\"type\":\"bind\",\"source\":\"/h\"}],"
		"\"linux\":{\"resources\":{\"cpu\":{\"quota\":150000,\"period\":100000},"
		"\"memory\":{\"limit\":268435457}}}}";
	struct oci_args a = { 0 };

	ck_assert_int_eq(convert(json, &a), 0);
	ck_assert_str_eq(joined(&a), "--env=PATH=/bin --env=A=b c --cwd=/work --user=1000:100 "
			 "--hostname=box --rlimit=nofile=512:1024 --cpus=2 --mem=257M "
			 "--fs=bind0=/data,readonly --fs=bind1=/cache ");
	ck_assert_ptr_null(a.v[a.n]);
	oci_args_free(&a);
}
END_TEST

START_TEST(t_cpuset_counts)
{
	struct oci_args a = { 0 };

	ck_assert_int_eq(convert("{\"linux\":{\"resources\":{\"cpu\":{\"cpus\":\"0-2,5\"}}}}", &a), 0);
	ck_assert_str_eq(joined(&a), "--cpus=4 ");
	oci_args_free(&a);
	ck_assert_int_eq(convert("{\"linux\":{\"resources\":{\"cpu\":{\"cpus\":\"3-1\"}}}}", &a), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "cpus"));
	oci_args_free(&a);
}
END_TEST

START_TEST(t_nothing_asked_nothing_passed)
{
	struct oci_args a = { 0 };

	ck_assert_int_eq(convert("{\"process\":{\"args\":[\"true\"]}}", &a), 0);
	ck_assert_uint_eq(a.n, 0);
	oci_args_free(&a);
}
END_TEST

START_TEST(t_bad_rlimit_named)
{
	struct oci_args a = { 0 };

	ck_assert_int_eq(convert("{\"process\":{\"rlimits\":[{\"type\":\"RLIMIT_RTPRIO\","
				 "\"soft\":1,\"hard\":1}]}}", &a), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "RLIMIT_RTPRIO"));
	oci_args_free(&a);
}
END_TEST

START_TEST(t_bad_inputs)
{
	static const char *const bad[] = {
		"", "[1]", "{\"process\":", "{\"process\":{\"env\":[\"NOEQUALS\"]}}",
		"{\"process\":{\"env\":[7]}}", "{\"process\":{\"user\":{\"uid\":-1}}}",
		"{\"process\":{\"user\":{\"uid\":\"root\"}}}",
		"{\"process\":{\"user\":{\"uid\":0,\"additionalGids\":[5]}}}",
		"{\"linux\":{\"resources\":{\"cpu\":{\"quota\":5,\"period\":0}}}}",
		"{\"mounts\":[{\"destination\":\"rel\",\"type\":\"bind\"}]}",
		"{\"mounts\":[{\"destination\":\"/a,b\",\"type\":\"bind\"}]}",
		"{\"mounts\":[{\"type\":\"bind\"}]}",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct oci_args a = { 0 };

		ck_assert_msg(convert(bad[i], &a) == -EINVAL, "accepted: %s", bad[i]);
		ck_assert_msg(err[0] != '\0', "no reason for: %s", bad[i]);
		oci_args_free(&a);
	}
}
END_TEST

static Suite *oci_args_suite(void)
{
	Suite *s = suite_create("oci_args");
	TCase *tc = tcase_create("config.json");

	tcase_add_test(tc, t_every_field);
	tcase_add_test(tc, t_cpuset_counts);
	tcase_add_test(tc, t_nothing_asked_nothing_passed);
	tcase_add_test(tc, t_bad_rlimit_named);
	tcase_add_test(tc, t_bad_inputs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(oci_args_suite());
}
