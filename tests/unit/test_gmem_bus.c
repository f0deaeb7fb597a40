// SPDX-License-Identifier: GPL-2.0-only
/*
 * The two range checks everything else stands on: the checked guest-memory
 * accessor (devices/gmem.c) and MMIO/PIO dispatch (mmio/bus.c). Ranges are
 * probed at their edges, across neighbours and around 2^64.
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devices/gmem.h"
#include "mmio/bus.h"
#include "tests/unit/check_main.h"

#define BASE 0x100000ull
#define SIZE 0x10000ull

static uint8_t mem_a[SIZE], mem_b[SIZE];
static uint8_t mem_many[GMEM_MAX_REGIONS * 0x1000];
static struct gmem gm;

/* One region of SIZE bytes at BASE backed by mem_a. */
static void one_region(void)
{
	gmem_init(&gm);
	ck_assert_int_eq(gmem_add_region(&gm, BASE, SIZE, mem_a, -1, 0), 0);
}

/* ---- gmem --------------------------------------------------------------- */

START_TEST(test_ptr_inside_region)
{
	one_region();
	ck_assert_ptr_eq(gmem_ptr(&gm, BASE, 1), mem_a);
	ck_assert_ptr_eq(gmem_ptr(&gm, BASE, SIZE), mem_a);            /* all of it */
	ck_assert_ptr_eq(gmem_ptr(&gm, BASE + 0x123, 0x456), mem_a + 0x123);
	ck_assert_ptr_eq(gmem_ptr(&gm, BASE + SIZE - 1, 1), mem_a + SIZE - 1);
	ck_assert_ptr_eq(gmem_ptr(&gm, BASE + 0x100, SIZE - 0x100), mem_a + 0x100);
	ck_assert_ptr_eq(gmem_ptr(&gm, BASE + 8, 0), mem_a + 8);
}
END_TEST

START_TEST(test_ptr_crossing_end_refused)
{
	one_region();
	ck_assert_ptr_null(gmem_ptr(&gm, BASE + SIZE - 1, 2));
	ck_assert_ptr_null(gmem_ptr(&gm, BASE, SIZE + 1));
	ck_assert_ptr_null(gmem_ptr(&gm, BASE + 0x100, SIZE - 0xff));
	ck_assert_ptr_null(gmem_ptr(&gm, BASE + SIZE, 1));             /* just past */
	ck_assert_ptr_null(gmem_ptr(&gm, BASE + SIZE, 0));
	ck_assert_ptr_null(gmem_ptr(&gm, BASE + 2 * SIZE, 16));
}
END_TEST

START_TEST(test_ptr_starting_before_refused)
{
	one_region();
	ck_assert_ptr_null(gmem_ptr(&gm, BASE - 1, 1));
	ck_assert_ptr_null(gmem_ptr(&gm, BASE - 1, 2));                /* ends inside */
	ck_assert_ptr_null(gmem_ptr(&gm, BASE - 0x1000, SIZE + 0x2000)); /* covers it */
	ck_assert_ptr_null(gmem_ptr(&gm, 0, 1));
}
END_TEST

START_TEST(test_ptr_spanning_adjacent_regions_refused)
{
	gmem_init(&gm);
	ck_assert_int_eq(gmem_add_region(&gm, BASE, SIZE, mem_a, -1, 0), 0);
	ck_assert_int_eq(gmem_add_region(&gm, BASE + SIZE, SIZE, mem_b, -1, 0), 0);
	/* Each side on its own is fine and maps to its own backing. */
	ck_assert_ptr_eq(gmem_ptr(&gm, BASE + SIZE - 16, 16), mem_a + SIZE - 16);
	ck_assert_ptr_eq(gmem_ptr(&gm, BASE + SIZE, 16), mem_b);
	ck_assert_ptr_eq(gmem_ptr(&gm, BASE + 2 * SIZE - 1, 1), mem_b + SIZE - 1);
	/* The host buffers are not contiguous: one range may not span both. */
	ck_assert_ptr_null(gmem_ptr(&gm, BASE + SIZE - 16, 32));
	ck_assert_ptr_null(gmem_ptr(&gm, BASE + SIZE - 1, 2));
	ck_assert_ptr_null(gmem_ptr(&gm, BASE, 2 * SIZE));
}
END_TEST

START_TEST(test_ptr_wrapping_2_64_refused)
{
	one_region();
	/* gpa + len wraps to a small address; must not alias the region. */
	ck_assert_ptr_null(gmem_ptr(&gm, UINT64_MAX - 1, 4));
	ck_assert_ptr_null(gmem_ptr(&gm, UINT64_MAX, BASE + 2));
	/* A start inside the region with an absurd length. */
	ck_assert_ptr_null(gmem_ptr(&gm, BASE + SIZE - 4, UINT64_MAX));
	ck_assert_ptr_null(gmem_ptr(&gm, BASE + 1, UINT64_MAX));
	ck_assert_ptr_null(gmem_ptr(&gm, BASE, UINT64_MAX));
	ck_assert_ptr_null(gmem_ptr(&gm, BASE + 8, UINT64_MAX - 7));

	/* The same near the top of the address space. */
	gmem_init(&gm);
	ck_assert_int_eq(gmem_add_region(&gm, UINT64_MAX - 2 * SIZE + 1, SIZE, mem_a, -1, 0), 0);
	ck_assert_ptr_eq(gmem_ptr(&gm, UINT64_MAX - 2 * SIZE + 1, SIZE), mem_a);
	ck_assert_ptr_null(gmem_ptr(&gm, UINT64_MAX - SIZE - 1, UINT64_MAX));
	ck_assert_ptr_null(gmem_ptr(&gm, UINT64_MAX - SIZE - 1, 4));
	ck_assert_ptr_null(gmem_ptr(&gm, UINT64_MAX - 1, 4));
}
END_TEST

START_TEST(test_empty_gmem_refuses_everything)
{
	gmem_init(&gm);
	ck_assert_uint_eq(gm.nr, 0);
	ck_assert_ptr_null(gmem_ptr(&gm, 0, 0));
	ck_assert_ptr_null(gmem_ptr(&gm, 0, 1));
	ck_assert_ptr_null(gmem_ptr(&gm, BASE, 1));
}
END_TEST

START_TEST(test_bad_region_refused)
{
	gmem_init(&gm);
	ck_assert_int_eq(gmem_add_region(&gm, BASE, 0, mem_a, -1, 0), -EINVAL);
	ck_assert_int_eq(gmem_add_region(&gm, BASE, SIZE, NULL, -1, 0), -EINVAL);
	/* A region that would wrap around 2^64. */
	ck_assert_int_eq(gmem_add_region(&gm, UINT64_MAX - 0xfff, 0x2000, mem_a, -1, 0), -EINVAL);
	ck_assert_int_eq(gmem_add_region(&gm, 1, UINT64_MAX, mem_a, -1, 0), -EINVAL);
	ck_assert_uint_eq(gm.nr, 0);
}
END_TEST

START_TEST(test_overlapping_regions_refused)
{
	one_region();
	ck_assert_int_eq(gmem_add_region(&gm, BASE, SIZE, mem_b, -1, 0), -EEXIST);
	ck_assert_int_eq(gmem_add_region(&gm, BASE + SIZE - 1, SIZE, mem_b, -1, 0), -EEXIST);
	ck_assert_int_eq(gmem_add_region(&gm, BASE - SIZE + 1, SIZE, mem_b, -1, 0), -EEXIST);
	ck_assert_int_eq(gmem_add_region(&gm, BASE + 0x10, 0x10, mem_b, -1, 0), -EEXIST);
	ck_assert_int_eq(gmem_add_region(&gm, 0, 4 * SIZE + BASE, mem_b, -1, 0), -EEXIST);
	ck_assert_uint_eq(gm.nr, 1);
	/* Touching on either side is not overlapping. */
	ck_assert_int_eq(gmem_add_region(&gm, BASE + SIZE, SIZE, mem_b, -1, 0), 0);
	ck_assert_int_eq(gmem_add_region(&gm, BASE - SIZE, SIZE, mem_b, -1, 0), 0);
	ck_assert_uint_eq(gm.nr, 3);
}
END_TEST

START_TEST(test_region_limit)
{
	gmem_init(&gm);
	for (unsigned i = 0; i < GMEM_MAX_REGIONS; i++)
		ck_assert_int_eq(gmem_add_region(&gm, i * 0x1000ull, 0x1000, mem_many + i * 0x1000,
						 -1, 0), 0);
	ck_assert_int_eq(gmem_add_region(&gm, 0x100000000ull, 0x1000, mem_b, -1, 0), -ENOSPC);
	ck_assert_uint_eq(gm.nr, GMEM_MAX_REGIONS);
	ck_assert_ptr_null(gmem_ptr(&gm, 0x100000000ull, 1));
	/* Every region that did go in answers. */
	for (unsigned i = 0; i < GMEM_MAX_REGIONS; i++)
		ck_assert_ptr_eq(gmem_ptr(&gm, i * 0x1000ull + 5, 1), mem_many + i * 0x1000 + 5);
}
END_TEST

START_TEST(test_region_records_backing)
{
	gmem_init(&gm);
	ck_assert_int_eq(gmem_add_region(&gm, BASE, SIZE, mem_a, 42, 0x2000), 0);
	ck_assert_uint_eq(gm.r[0].gpa, BASE);
	ck_assert_uint_eq(gm.r[0].size, SIZE);
	ck_assert_ptr_eq(gm.r[0].host, mem_a);
	ck_assert_int_eq(gm.r[0].fd, 42);
	ck_assert_uint_eq(gm.r[0].fd_offset, 0x2000);
}
END_TEST

/* vhost-user: a frontend's virtual addresses translate through the same
 * check, refused at every edge, around 2^64 and where no region has one. */
START_TEST(test_uva_translation)
{
	const struct gmem_region a = {
		.gpa = BASE, .size = SIZE, .host = mem_a, .fd = -1,
		.has_uva = true, .uva = 0x7f0000000000ull,
	};
	uint64_t gpa = 0;

	gmem_init(&gm);
	ck_assert_int_eq(gmem_add(&gm, &a), 0);
	ck_assert_int_eq(gmem_add_region(&gm, BASE + SIZE, SIZE, mem_b, -1, 0), 0);
	ck_assert_int_eq(gmem_uva_to_gpa(&gm, a.uva, SIZE, &gpa), 0);
	ck_assert_uint_eq(gpa, BASE);
	ck_assert_int_eq(gmem_uva_to_gpa(&gm, a.uva + 0x40, 0x10, &gpa), 0);
	ck_assert_uint_eq(gpa, BASE + 0x40);
	ck_assert_int_eq(gmem_uva_to_gpa(&gm, a.uva + SIZE - 1, 2, &gpa), -EFAULT);
	ck_assert_int_eq(gmem_uva_to_gpa(&gm, a.uva - 1, 2, &gpa), -EFAULT);
	ck_assert_int_eq(gmem_uva_to_gpa(&gm, a.uva + 8, UINT64_MAX, &gpa), -EFAULT);
	/* The second region has no frontend address: its gpa is no uva. */
	ck_assert_int_eq(gmem_uva_to_gpa(&gm, BASE + SIZE, 1, &gpa), -EFAULT);
	/* A uva range that wraps is refused when the region is added. */
	struct gmem_region w = a;
	w.gpa = BASE + 4 * SIZE;
	w.uva = UINT64_MAX - 0xfff;
	ck_assert_int_eq(gmem_add(&gm, &w), -EINVAL);
}
END_TEST

START_TEST(test_remove_region)
{
	struct gmem_region out;

	gmem_init(&gm);
	ck_assert_int_eq(gmem_add_region(&gm, BASE, SIZE, mem_a, 7, 0), 0);
	ck_assert_int_eq(gmem_add_region(&gm, BASE + SIZE, SIZE, mem_b, 8, 0), 0);
	/* Only an exact match goes. */
	ck_assert_int_eq(gmem_remove(&gm, BASE, SIZE - 1, NULL), -ENOENT);
	ck_assert_int_eq(gmem_remove(&gm, BASE + 1, SIZE, NULL), -ENOENT);
	ck_assert_int_eq(gmem_remove(&gm, BASE, SIZE, &out), 0);
	ck_assert_int_eq(out.fd, 7);
	ck_assert_uint_eq(gm.nr, 1);
	ck_assert_ptr_null(gmem_ptr(&gm, BASE, 1));
	ck_assert_ptr_eq(gmem_ptr(&gm, BASE + SIZE, 1), mem_b);
	ck_assert_int_eq(gmem_remove(&gm, BASE, SIZE, NULL), -ENOENT);
}
END_TEST

START_TEST(test_read_write_in_range)
{
	static const char msg[] = "guest bytes";
	char back[sizeof(msg)];

	one_region();
	ck_assert_int_eq(gmem_write(&gm, BASE + SIZE - sizeof(msg), msg, sizeof(msg)), 0);
	ck_assert_int_eq(memcmp(mem_a + SIZE - sizeof(msg), msg, sizeof(msg)), 0);
	ck_assert_int_eq(gmem_read(&gm, BASE + SIZE - sizeof(msg), back, sizeof(back)), 0);
	ck_assert_str_eq(back, msg);
}
END_TEST

START_TEST(test_read_write_out_of_range_fault)
{
	uint8_t buf[16];

	one_region();
	memset(mem_a, 0x11, SIZE);
	memset(buf, 0x22, sizeof(buf));
	ck_assert_int_eq(gmem_write(&gm, BASE + SIZE - 8, buf, 16), -EFAULT);
	ck_assert_int_eq(gmem_write(&gm, BASE - 8, buf, 16), -EFAULT);
	ck_assert_int_eq(gmem_write(&gm, UINT64_MAX - 1, buf, 4), -EFAULT);
	ck_assert_int_eq(gmem_write(&gm, BASE + 8, buf, SIZE_MAX), -EFAULT);
	/* A refused write changed nothing. */
	ck_assert_uint_eq(mem_a[SIZE - 1], 0x11);
	ck_assert_uint_eq(mem_a[0], 0x11);
	ck_assert_uint_eq(mem_a[8], 0x11);

	ck_assert_int_eq(gmem_read(&gm, BASE + SIZE - 8, buf, 16), -EFAULT);
	ck_assert_int_eq(gmem_read(&gm, BASE - 1, buf, 2), -EFAULT);
	ck_assert_int_eq(gmem_read(&gm, UINT64_MAX - 1, buf, 4), -EFAULT);
	ck_assert_int_eq(gmem_read(&gm, BASE + SIZE, buf, 1), -EFAULT);
	/* A refused read filled nothing. */
	for (size_t i = 0; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0x22);
}
END_TEST

/* ---- bus ---------------------------------------------------------------- */

struct fake_dev {
	unsigned calls;
	uint64_t off;
	unsigned size;
	bool is_write;
	uint8_t wrote[8];
};

/* Records the access; reads return 0xa0 + offset-of-byte. */
static void fake_access(void *opaque, uint64_t off, void *data, unsigned size, bool is_write)
{
	struct fake_dev *d = opaque;
	uint8_t *b = data;

	ck_assert_uint_le(size, 8);
	d->calls++;
	d->off = off;
	d->size = size;
	d->is_write = is_write;
	for (unsigned i = 0; i < size; i++) {
		if (is_write)
			d->wrote[i] = b[i];
		else
			b[i] = (uint8_t)(0xa0 + off + i);
	}
}

static struct bus bus;
static struct fake_dev uart, kbd, mmio;

static void three_devices(void)
{
	memset(&bus, 0, sizeof(bus));
	memset(&uart, 0, sizeof(uart));
	memset(&kbd, 0, sizeof(kbd));
	memset(&mmio, 0, sizeof(mmio));
	ck_assert_int_eq(bus_register(&bus, 0x3f8, 8, fake_access, &uart, "uart"), 0);
	ck_assert_int_eq(bus_register(&bus, 0x60, 5, fake_access, &kbd, "i8042"), 0);
	ck_assert_int_eq(bus_register(&bus, 0xd0000000, 0x1000, fake_access, &mmio, "mmio"), 0);
}

START_TEST(test_bus_register_refuses_overlap)
{
	struct fake_dev x = { 0 };

	three_devices();
	ck_assert_int_eq(bus_register(&bus, 0x3f8, 8, fake_access, &x, "same"), -EEXIST);
	ck_assert_int_eq(bus_register(&bus, 0x3fc, 8, fake_access, &x, "tail"), -EEXIST);
	ck_assert_int_eq(bus_register(&bus, 0x3f0, 9, fake_access, &x, "head"), -EEXIST);
	ck_assert_int_eq(bus_register(&bus, 0x3fa, 1, fake_access, &x, "inside"), -EEXIST);
	ck_assert_int_eq(bus_register(&bus, 0, 0x10000, fake_access, &x, "around"), -EEXIST);
	ck_assert_uint_eq(bus.nr, 3);
	/* Neighbours touching either end are fine. */
	ck_assert_int_eq(bus_register(&bus, 0x3f0, 8, fake_access, &x, "below"), 0);
	ck_assert_int_eq(bus_register(&bus, 0x400, 8, fake_access, &x, "above"), 0);
}
END_TEST

START_TEST(test_bus_register_refuses_wrap_and_empty)
{
	struct fake_dev x = { 0 };

	memset(&bus, 0, sizeof(bus));
	ck_assert_int_eq(bus_register(&bus, UINT64_MAX - 3, 8, fake_access, &x, "wrap"), -EINVAL);
	ck_assert_int_eq(bus_register(&bus, 1, UINT64_MAX, fake_access, &x, "wrap"), -EINVAL);
	ck_assert_int_eq(bus_register(&bus, 0x1000, 0, fake_access, &x, "empty"), -EINVAL);
	ck_assert_int_eq(bus_register(&bus, 0x1000, 8, NULL, &x, "no handler"), -EINVAL);
	ck_assert_uint_eq(bus.nr, 0);
}
END_TEST

START_TEST(test_bus_register_limit)
{
	struct fake_dev x = { 0 };

	memset(&bus, 0, sizeof(bus));
	for (unsigned i = 0; i < BUS_MAX_RANGES; i++)
		ck_assert_int_eq(bus_register(&bus, i * 0x10ull, 0x10, fake_access, &x, "r"), 0);
	ck_assert_int_eq(bus_register(&bus, 0x100000, 0x10, fake_access, &x, "r"), -ENOSPC);
	ck_assert_uint_eq(bus.nr, BUS_MAX_RANGES);
}
END_TEST

START_TEST(test_bus_dispatch_routes_with_offset)
{
	uint8_t b = 0;
	uint32_t w = 0;
	uint8_t cmd = 0xfe;

	three_devices();
	ck_assert(bus_dispatch(&bus, 0x3fd, &b, 1, false));
	ck_assert_uint_eq(uart.calls, 1);
	ck_assert_uint_eq(uart.off, 5);
	ck_assert_uint_eq(uart.size, 1);
	ck_assert(!uart.is_write);
	ck_assert_uint_eq(b, 0xa5);

	ck_assert(bus_dispatch(&bus, 0x64, &cmd, 1, true));
	ck_assert_uint_eq(kbd.calls, 1);
	ck_assert_uint_eq(kbd.off, 4);
	ck_assert(kbd.is_write);
	ck_assert_uint_eq(kbd.wrote[0], 0xfe);

	ck_assert(bus_dispatch(&bus, 0xd0000ffc, &w, 4, false));
	ck_assert_uint_eq(mmio.calls, 1);
	ck_assert_uint_eq(mmio.off, 0xffc);
	ck_assert_uint_eq(mmio.size, 4);

	/* Nobody else was called. */
	ck_assert_uint_eq(uart.calls + kbd.calls + mmio.calls, 3);
}
END_TEST

START_TEST(test_bus_dispatch_range_edges)
{
	uint8_t b;
	uint64_t q = 0;

	three_devices();
	ck_assert(bus_dispatch(&bus, 0x3f8, &b, 1, false));
	ck_assert_uint_eq(uart.off, 0);
	ck_assert(bus_dispatch(&bus, 0x3ff, &b, 1, false));
	ck_assert_uint_eq(uart.off, 7);
	ck_assert(bus_dispatch(&bus, 0x3f8, &q, 8, false));  /* the whole range */
	ck_assert_uint_eq(uart.size, 8);
	ck_assert_uint_eq(uart.calls, 3);
	/* One byte either side belongs to nobody. */
	ck_assert(!bus_dispatch(&bus, 0x3f7, &b, 1, false));
	ck_assert(!bus_dispatch(&bus, 0x400, &b, 1, false));
	ck_assert_uint_eq(uart.calls, 3);
}
END_TEST

START_TEST(test_bus_dispatch_adjacent_ranges)
{
	struct fake_dev lo = { 0 }, hi = { 0 };
	uint8_t b;
	uint16_t w = 0xffff;

	memset(&bus, 0, sizeof(bus));
	ck_assert_int_eq(bus_register(&bus, 0x1000, 0x10, fake_access, &lo, "lo"), 0);
	ck_assert_int_eq(bus_register(&bus, 0x1010, 0x10, fake_access, &hi, "hi"), 0);
	ck_assert(bus_dispatch(&bus, 0x100f, &b, 1, false));
	ck_assert(bus_dispatch(&bus, 0x1010, &b, 1, false));
	ck_assert_uint_eq(lo.calls, 1);
	ck_assert_uint_eq(lo.off, 0xf);
	ck_assert_uint_eq(hi.calls, 1);
	ck_assert_uint_eq(hi.off, 0);
	/* An access across the seam goes to neither. */
	ck_assert(!bus_dispatch(&bus, 0x100f, &w, 2, true));
	ck_assert_uint_eq(lo.calls + hi.calls, 2);
}
END_TEST

START_TEST(test_bus_dispatch_refuses_straddling_end)
{
	uint16_t w = 0x1234;
	uint32_t d = 0x12345678;
	uint64_t q = 0;

	three_devices();
	ck_assert(!bus_dispatch(&bus, 0x3ff, &w, 2, false));
	ck_assert_uint_eq(w, 0xffff);                       /* reads float high */
	ck_assert(!bus_dispatch(&bus, 0x64, &d, 4, true));
	ck_assert_uint_eq(d, 0x12345678);                   /* write dropped as is */
	ck_assert(!bus_dispatch(&bus, 0xd0000ffc, &q, 8, false));
	ck_assert_uint_eq(q, UINT64_MAX);
	ck_assert_uint_eq(uart.calls + kbd.calls + mmio.calls, 0);
}
END_TEST

START_TEST(test_bus_unclaimed_reads_all_ones)
{
	uint8_t b = 0;
	uint16_t w = 0;
	uint32_t d = 0;
	uint64_t q = 0;

	three_devices();
	ck_assert(!bus_dispatch(&bus, 0x80, &b, 1, false));   /* POST port */
	ck_assert_uint_eq(b, 0xff);
	ck_assert(!bus_dispatch(&bus, 0x2f8, &w, 2, false));
	ck_assert_uint_eq(w, 0xffff);
	ck_assert(!bus_dispatch(&bus, 0xd0001000, &d, 4, false));
	ck_assert_uint_eq(d, 0xffffffffu);
	ck_assert(!bus_dispatch(&bus, UINT64_MAX - 7, &q, 8, false));
	ck_assert_uint_eq(q, UINT64_MAX);
	/* Unclaimed writes are dropped without touching the caller's data. */
	b = 0x42;
	ck_assert(!bus_dispatch(&bus, 0x80, &b, 1, true));
	ck_assert_uint_eq(b, 0x42);
	ck_assert_uint_eq(uart.calls + kbd.calls + mmio.calls, 0);
}
END_TEST

START_TEST(test_bus_empty)
{
	uint32_t d = 0;

	memset(&bus, 0, sizeof(bus));
	ck_assert(!bus_dispatch(&bus, 0, &d, 4, false));
	ck_assert_uint_eq(d, 0xffffffffu);
}
END_TEST

static Suite *gmem_bus_suite(void)
{
	Suite *s = suite_create("gmem_bus");
	TCase *tc;

	tc = tcase_create("gmem");
	tcase_add_test(tc, test_ptr_inside_region);
	tcase_add_test(tc, test_ptr_crossing_end_refused);
	tcase_add_test(tc, test_ptr_starting_before_refused);
	tcase_add_test(tc, test_ptr_spanning_adjacent_regions_refused);
	tcase_add_test(tc, test_ptr_wrapping_2_64_refused);
	tcase_add_test(tc, test_empty_gmem_refuses_everything);
	tcase_add_test(tc, test_bad_region_refused);
	tcase_add_test(tc, test_overlapping_regions_refused);
	tcase_add_test(tc, test_region_limit);
	tcase_add_test(tc, test_region_records_backing);
	tcase_add_test(tc, test_uva_translation);
	tcase_add_test(tc, test_remove_region);
	tcase_add_test(tc, test_read_write_in_range);
	tcase_add_test(tc, test_read_write_out_of_range_fault);
	suite_add_tcase(s, tc);

	tc = tcase_create("bus");
	tcase_add_test(tc, test_bus_register_refuses_overlap);
	tcase_add_test(tc, test_bus_register_refuses_wrap_and_empty);
	tcase_add_test(tc, test_bus_register_limit);
	tcase_add_test(tc, test_bus_dispatch_routes_with_offset);
	tcase_add_test(tc, test_bus_dispatch_range_edges);
	tcase_add_test(tc, test_bus_dispatch_adjacent_ranges);
	tcase_add_test(tc, test_bus_dispatch_refuses_straddling_end);
	tcase_add_test(tc, test_bus_unclaimed_reads_all_ones);
	tcase_add_test(tc, test_bus_empty);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(gmem_bus_suite());
}
