// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DAX window (devices/dax.c): file ranges mapped over it show the
 * file's bytes (and writes through a writable mapping reach the file),
 * unmapping brings the window's own zeroed backing back, and every
 * guest-chosen range that is unaligned, empty, outside the window or
 * wrapping is refused without touching the mapping.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "devices/dax.h"
#include "tests/unit/check_main.h"

#define WIN (64 * DAX_PAGE)

static struct dax_window w;
static int fd;

static void setup(void)
{
	uint8_t page[DAX_PAGE];

	ck_assert_int_eq(dax_window_create(&w, WIN, "test"), 0);
	fd = memfd_create("dax-file", 0);
	ck_assert_int_ge(fd, 0);
	for (unsigned i = 0; i < 8; i++) {
		memset(page, 'a' + i, sizeof(page));
		ck_assert_int_eq(write(fd, page, sizeof(page)), sizeof(page));
	}
}

static void teardown(void)
{
	dax_window_destroy(&w);
	close(fd);
}

START_TEST(t_window_starts_zeroed)
{
	for (uint64_t i = 0; i < WIN; i += 997)
		ck_assert_uint_eq(w.host[i], 0);
	ck_assert_int_eq(dax_window_create(&(struct dax_window){ 0 }, 0, "x"), -EINVAL);
	ck_assert_int_eq(dax_window_create(&(struct dax_window){ 0 }, 100, "x"), -EINVAL);
}
END_TEST

START_TEST(t_map_shows_file_and_unmap_restores)
{
	/* File pages 2..3 ('c', 'd') at window pages 10..11. */
	ck_assert_int_eq(dax_map(&w, fd, 2 * DAX_PAGE, 2 * DAX_PAGE, 10 * DAX_PAGE, false), 0);
	ck_assert_uint_eq(w.host[10 * DAX_PAGE], 'c');
	ck_assert_uint_eq(w.host[12 * DAX_PAGE - 1], 'd');
	ck_assert_uint_eq(w.host[9 * DAX_PAGE], 0);
	ck_assert_uint_eq(w.host[12 * DAX_PAGE], 0);
	ck_assert_int_eq(dax_unmap(&w, 10 * DAX_PAGE, 2 * DAX_PAGE), 0);
	ck_assert_uint_eq(w.host[10 * DAX_PAGE], 0);
	ck_assert_uint_eq(w.host[12 * DAX_PAGE - 1], 0);
	/* `run --stats` counts each done once. */
	ck_assert_uint_eq(atomic_load(&w.maps), 1);
	ck_assert_uint_eq(atomic_load(&w.unmaps), 1);
}
END_TEST

START_TEST(t_writable_mapping_writes_the_file)
{
	char c;

	ck_assert_int_eq(dax_map(&w, fd, 0, DAX_PAGE, 0, true), 0);
	w.host[5] = 'Z';
	ck_assert_int_eq(pread(fd, &c, 1, 5), 1);
	ck_assert_int_eq(c, 'Z');
}
END_TEST

START_TEST(t_bad_ranges_refused)
{
	ck_assert_int_eq(dax_map(&w, fd, 0, 0, 0, false), -EINVAL);                 /* empty */
	ck_assert_int_eq(dax_map(&w, fd, 0, DAX_PAGE, 1, false), -EINVAL);          /* moffset */
	ck_assert_int_eq(dax_map(&w, fd, 0, 100, 0, false), -EINVAL);               /* len */
	ck_assert_int_eq(dax_map(&w, fd, 7, DAX_PAGE, 0, false), -EINVAL);          /* foffset */
	ck_assert_int_eq(dax_map(&w, fd, 0, DAX_PAGE, WIN, false), -EINVAL);        /* past end */
	ck_assert_int_eq(dax_map(&w, fd, 0, 2 * DAX_PAGE, WIN - DAX_PAGE, false), -EINVAL);
	ck_assert_int_eq(dax_map(&w, fd, 0, UINT64_MAX - DAX_PAGE + 1, DAX_PAGE, false),
			 -EINVAL);                                                    /* wraps */
	ck_assert_int_eq(dax_map(&w, fd, UINT64_MAX - DAX_PAGE + 1, DAX_PAGE, 0, false),
			 -EINVAL);                                                    /* file wraps */
	ck_assert_int_eq(dax_unmap(&w, WIN, DAX_PAGE), -EINVAL);
	ck_assert_int_eq(dax_unmap(&w, DAX_PAGE, UINT64_MAX - DAX_PAGE + 1), -EINVAL);
	ck_assert_int_eq(dax_unmap(&w, 3, DAX_PAGE), -EINVAL);
	/* A bad fd is the kernel's to refuse; the window stays as it was. */
	ck_assert_int_eq(dax_map(&w, -1, 0, DAX_PAGE, 0, false), -EBADF);
	ck_assert_uint_eq(w.host[0], 0);
	ck_assert_uint_eq(atomic_load(&w.maps) + atomic_load(&w.unmaps), 0); /* refusals are not counted */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dax");
	TCase *tc = tcase_create("dax");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, t_window_starts_zeroed);
	tcase_add_test(tc, t_map_shows_file_and_unmap_restores);
	tcase_add_test(tc, t_writable_mapping_writes_the_file);
	tcase_add_test(tc, t_bad_ranges_refused);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
