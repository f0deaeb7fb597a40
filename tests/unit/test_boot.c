// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86_64 boot builders (vmm/boot.c) on ordinary memory: initrd placement,
 * boot_params (e820, command line), identity page tables and the GDT.
 * Kernel loading is in test_boot_kernel.c.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/unit/boot_fixture.h"
#include "tests/unit/check_main.h"
#include "vmm/boot.h"
#include "vmm/layout.h"

#define PTE_FLAGS 0x3ull     /* present, writable */
#define PDE_FLAGS 0x83ull    /* present, writable, 2 MiB page */

static uint64_t ram_u64(uint64_t gpa)
{
	uint64_t v;

	memcpy(&v, ram + gpa, sizeof(v));
	return v;
}

/* ---- initrd ------------------------------------------------------------- */

static int load_initrd_len(size_t len, uint8_t seed)
{
	static uint8_t buf[3 * MIB];
	int fd, rc;

	ck_assert_uint_le(len, sizeof(buf));
	fill_pattern(buf, len, seed);
	fd = memfd_with(buf, len);
	rc = boot_load_initrd(&gm, RAM_SIZE, fd, &img, err, sizeof(err));
	if (rc == 0)
		ck_assert_int_eq(memcmp(ram + img.params.hdr.ramdisk_image, buf, len), 0);
	close(fd);
	return rc;
}

START_TEST(test_initrd_at_top_of_low_ram)
{
	const size_t len = MIB + 100;
	uint64_t addr;

	bz_build();
	ck_assert_int_eq(load_buf(bz.buf, bz.len), 0);
	ck_assert_int_eq(load_initrd_len(len, 0x77), 0);
	addr = img.params.hdr.ramdisk_image;
	ck_assert_uint_eq(addr % 4096, 0);
	ck_assert_uint_eq(img.params.hdr.ramdisk_size, len);
	ck_assert_uint_le(addr + len, RAM_SIZE);
	ck_assert_uint_gt(addr + len + 4096, RAM_SIZE);  /* as high as it goes */
	ck_assert_uint_ge(addr, img.kernel_end);
}
END_TEST

START_TEST(test_initrd_below_initrd_addr_max)
{
	const size_t len = 2 * MIB + 1;
	uint64_t addr;

	bz_build();
	bz.h->initrd_addr_max = 32 * MIB - 1 + 0x800; /* not page-aligned */
	ck_assert_int_eq(load_buf(bz.buf, bz.len), 0);
	ck_assert_int_eq(load_initrd_len(len, 0x19), 0);
	addr = img.params.hdr.ramdisk_image;
	ck_assert_uint_eq(addr % 4096, 0);
	ck_assert_uint_le(addr + len - 1, 32 * MIB - 1 + 0x800);
	ck_assert_uint_gt(addr + len + 4096, 32 * MIB);
	ck_assert_uint_ge(addr, img.kernel_end);
}
END_TEST

START_TEST(test_initrd_exactly_filling_space)
{
	/* A hand-made image: the kernel ends at 60 MiB, 4 MiB remain. */
	memset(&img, 0, sizeof(img));
	img.initrd_max = UINT32_MAX;
	img.kernel_end = RAM_SIZE - 3 * MIB;
	ck_assert_int_eq(load_initrd_len(3 * MIB, 0x44), 0);
	ck_assert_uint_eq(img.params.hdr.ramdisk_image, RAM_SIZE - 3 * MIB);
}
END_TEST

START_TEST(test_initrd_overlapping_kernel_refused)
{
	memset(&img, 0, sizeof(img));
	img.initrd_max = UINT32_MAX;
	img.kernel_end = RAM_SIZE - 2 * MIB;
	ck_assert_int_eq(load_initrd_len(2 * MIB + 1, 0x44), -ENOMEM);
	ck_assert_uint_eq(img.params.hdr.ramdisk_image, 0);
	ck_assert_uint_eq(img.params.hdr.ramdisk_size, 0);
}
END_TEST

START_TEST(test_initrd_bigger_than_ram_refused)
{
	int fd = memfd_create("big-initrd", MFD_CLOEXEC);

	bz_build();
	ck_assert_int_eq(load_buf(bz.buf, bz.len), 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, RAM_SIZE + 4096), 0);  /* sparse */
	ck_assert_int_eq(boot_load_initrd(&gm, RAM_SIZE, fd, &img, err, sizeof(err)), -ENOMEM);
	ck_assert_ptr_nonnull(strstr(err, "initrd"));
	ck_assert_uint_eq(img.params.hdr.ramdisk_size, 0);
	close(fd);
}
END_TEST

START_TEST(test_initrd_empty_or_not_a_file_refused)
{
	int fd = memfd_create("empty-initrd", MFD_CLOEXEC);

	bz_build();
	ck_assert_int_eq(load_buf(bz.buf, bz.len), 0);
	ck_assert_int_eq(boot_load_initrd(&gm, RAM_SIZE, fd, &img, err, sizeof(err)), -EINVAL);
	close(fd);
	fd = open("/tmp", O_RDONLY);
	ck_assert_int_eq(boot_load_initrd(&gm, RAM_SIZE, fd, &img, err, sizeof(err)), -EINVAL);
	close(fd);
}
END_TEST

/* ---- boot_params -------------------------------------------------------- */

START_TEST(test_low_high_ram_split)
{
	static const uint64_t mems[] = {
		32 * MIB, 512 * MIB, 3 * GIB - 4096, 3 * GIB, 3 * GIB + 4096, 4 * GIB,
		8 * GIB, 1ull << 40,
	};

	for (size_t i = 0; i < sizeof(mems) / sizeof(mems[0]); i++) {
		uint64_t m = mems[i];

		ck_assert_uint_eq(boot_low_ram(m), m < 3 * GIB ? m : 3 * GIB);
		ck_assert_uint_eq(boot_high_ram(m), m < 3 * GIB ? 0 : m - 3 * GIB);
		ck_assert_uint_eq(boot_low_ram(m) + boot_high_ram(m), m);
	}
	ck_assert_uint_eq(LOW_RAM_MAX, 3 * GIB);
}
END_TEST

static void check_e820(uint64_t mem)
{
	const struct boot_params *bp = (const struct boot_params *)(ram + BOOT_PARAMS_ADDR);
	const struct boot_e820_entry *e = bp->e820_table;
	unsigned n = boot_high_ram(mem) ? 4 : 3;

	ck_assert_uint_eq(bp->e820_entries, n);
	ck_assert_uint_eq(e[0].addr, 0);
	ck_assert_uint_eq(e[0].size, EBDA_START);
	ck_assert_uint_eq(e[0].type, 1);
	ck_assert_uint_eq(e[1].addr, EBDA_START);
	ck_assert_uint_eq(e[1].addr + e[1].size, HIMEM_START);
	ck_assert_uint_eq(e[1].type, 2);
	ck_assert_uint_eq(e[2].addr, HIMEM_START);
	ck_assert_uint_eq(e[2].addr + e[2].size, boot_low_ram(mem));
	ck_assert_uint_eq(e[2].type, 1);
	if (n == 4) {
		ck_assert_uint_eq(e[3].addr, HIGH_RAM_START);
		ck_assert_uint_eq(e[3].size, boot_high_ram(mem));
		ck_assert_uint_eq(e[3].type, 1);
	}
	/* What the guest reads is what img holds. */
	ck_assert_int_eq(memcmp(bp, &img.params, sizeof(*bp)), 0);
}

START_TEST(test_params_e820_small_mem)
{
	ck_assert_int_eq(boot_write_params(&gm, RAM_SIZE, "", &img, err, sizeof(err)), 0);
	check_e820(RAM_SIZE);
}
END_TEST

/* The e820 map is arithmetic on mem; only the zero page and command line
 * are written, so a large guest can be described over small RAM. */
START_TEST(test_params_e820_above_3g)
{
	ck_assert_int_eq(boot_write_params(&gm, 3 * GIB, "", &img, err, sizeof(err)), 0);
	check_e820(3 * GIB);
	ck_assert_int_eq(boot_write_params(&gm, 5 * GIB, "", &img, err, sizeof(err)), 0);
	check_e820(5 * GIB);
	/* Rewriting starts the map afresh rather than appending. */
	ck_assert_int_eq(boot_write_params(&gm, 512 * MIB, "", &img, err, sizeof(err)), 0);
	check_e820(512 * MIB);
}
END_TEST

START_TEST(test_params_cmdline_written)
{
	static const char cl[] = "console=ttyS0 root=/dev/vda rw";
	const struct boot_params *bp = (const struct boot_params *)(ram + BOOT_PARAMS_ADDR);

	memset(ram + CMDLINE_ADDR, 0xff, CMDLINE_MAX);
	ck_assert_int_eq(boot_write_params(&gm, RAM_SIZE, cl, &img, err, sizeof(err)), 0);
	ck_assert_int_eq(memcmp(ram + CMDLINE_ADDR, cl, sizeof(cl)), 0); /* with its NUL */
	ck_assert_uint_eq(ram[CMDLINE_ADDR + sizeof(cl)], 0xff);
	ck_assert_uint_eq(bp->hdr.cmd_line_ptr, CMDLINE_ADDR);
	ck_assert_uint_eq(bp->ext_cmd_line_ptr, 0);

	ck_assert_int_eq(boot_write_params(&gm, RAM_SIZE, "", &img, err, sizeof(err)), 0);
	ck_assert_uint_eq(ram[CMDLINE_ADDR], 0);
}
END_TEST

START_TEST(test_params_cmdline_max_length)
{
	static char cl[CMDLINE_MAX + 1];

	memset(cl, 'x', CMDLINE_MAX);
	cl[CMDLINE_MAX] = '\0';
	memset(ram + CMDLINE_ADDR, 0xff, CMDLINE_MAX + 1);
	ck_assert_int_eq(boot_write_params(&gm, RAM_SIZE, cl, &img, err, sizeof(err)), -E2BIG);
	ck_assert_uint_eq(ram[CMDLINE_ADDR], 0xff);      /* nothing written */
	ck_assert_uint_eq(ram[BOOT_PARAMS_ADDR], 0);

	cl[CMDLINE_MAX - 1] = '\0';                      /* the longest that fits */
	ck_assert_int_eq(boot_write_params(&gm, RAM_SIZE, cl, &img, err, sizeof(err)), 0);
	ck_assert_uint_eq(ram[CMDLINE_ADDR + CMDLINE_MAX - 2], 'x');
	ck_assert_uint_eq(ram[CMDLINE_ADDR + CMDLINE_MAX - 1], 0);
}
END_TEST

START_TEST(test_params_cmdline_size_honoured)
{
	/* cmdline_size counts the bytes without the terminating NUL. */
	img.params.hdr.cmdline_size = 10;
	ck_assert_int_eq(boot_write_params(&gm, RAM_SIZE, "0123456789", &img,
					   err, sizeof(err)), 0);
	ck_assert_str_eq((char *)ram + CMDLINE_ADDR, "0123456789");
	ck_assert_int_eq(boot_write_params(&gm, RAM_SIZE, "0123456789a", &img,
					   err, sizeof(err)), -E2BIG);
	ck_assert_ptr_nonnull(strstr(err, "10"));

	/* The header a real bzImage carries reaches the check. */
	bz_build();
	bz.h->cmdline_size = 4;
	ck_assert_int_eq(load_buf(bz.buf, bz.len), 0);
	ck_assert_int_eq(boot_write_params(&gm, RAM_SIZE, "quiet", &img, err, sizeof(err)), -E2BIG);
	ck_assert_int_eq(boot_write_params(&gm, RAM_SIZE, "ro", &img, err, sizeof(err)), 0);
}
END_TEST

START_TEST(test_params_outside_ram_refused)
{
	static uint8_t high[MIB];
	struct gmem small;

	/* RAM that starts at 1 MiB has no room for the zero page. */
	gmem_init(&small);
	ck_assert_int_eq(gmem_add_region(&small, HIMEM_START, sizeof(high), high, -1, 0), 0);
	ck_assert_int_eq(boot_write_params(&small, RAM_SIZE, "x", &img, err, sizeof(err)), -EFAULT);
	ck_assert_int_eq(boot_write_page_tables(&small), -EFAULT);
	ck_assert_int_lt(boot_write_gdt(&small), 0);
}
END_TEST

/* ---- page tables and GDT ------------------------------------------------ */

START_TEST(test_page_tables_identity_map_4g)
{
	/* Stale bytes where the tables go must not survive. */
	memset(ram + PML4_ADDR, 0xee, 6 * 4096);
	ck_assert_int_eq(boot_write_page_tables(&gm), 0);

	ck_assert_uint_eq(ram_u64(PML4_ADDR), PDPT_ADDR | PTE_FLAGS);
	for (unsigned i = 1; i < 512; i++)
		ck_assert_uint_eq(ram_u64(PML4_ADDR + 8 * i), 0);
	for (unsigned i = 0; i < 4; i++)
		ck_assert_uint_eq(ram_u64(PDPT_ADDR + 8 * i), (PD_ADDR + 4096 * i) | PTE_FLAGS);
	for (unsigned i = 4; i < 512; i++)
		ck_assert_uint_eq(ram_u64(PDPT_ADDR + 8 * i), 0);
	/* First entries, the 1 GiB boundary, and the last 2 MiB below 4 GiB. */
	ck_assert_uint_eq(ram_u64(PD_ADDR), 0 | PDE_FLAGS);
	ck_assert_uint_eq(ram_u64(PD_ADDR + 8), 0x200000 | PDE_FLAGS);
	ck_assert_uint_eq(ram_u64(PD_ADDR + 4096), GIB | PDE_FLAGS);
	ck_assert_uint_eq(ram_u64(PD_ADDR + 4 * 4096 - 8), 0xffe00000ull | PDE_FLAGS);
	for (unsigned i = 0; i < 4 * 512; i++)
		ck_assert_uint_eq(ram_u64(PD_ADDR + 8 * i), ((uint64_t)i << 21) | PDE_FLAGS);
	/* The tables stay below the command line and the kernel. */
	ck_assert_uint_le(PD_ADDR + 4 * 4096, CMDLINE_ADDR);
}
END_TEST

/* Segment descriptor fields (Intel SDM vol. 3, 3.4.5). */
#define DESC_BASE(d)  ((((d) >> 16) & 0xffffff) | (((d) >> 56) << 24))
#define DESC_LIMIT(d) (((d) & 0xffff) | (((d) >> 32) & 0xf0000))
#define DESC_TYPE(d)  (((d) >> 40) & 0xf)
#define DESC_S(d)     (((d) >> 44) & 1)
#define DESC_DPL(d)   (((d) >> 45) & 3)
#define DESC_P(d)     (((d) >> 47) & 1)
#define DESC_L(d)     (((d) >> 53) & 1)
#define DESC_DB(d)    (((d) >> 54) & 1)
#define DESC_G(d)     (((d) >> 55) & 1)

START_TEST(test_gdt_code_is_64bit)
{
	uint64_t d = boot_gdt_entry(BOOT_GDT_CODE);

	ck_assert_uint_eq(DESC_P(d), 1);
	ck_assert_uint_eq(DESC_S(d), 1);
	ck_assert_uint_eq(DESC_DPL(d), 0);
	ck_assert(DESC_TYPE(d) & 0x8);       /* code */
	ck_assert(DESC_TYPE(d) & 0x2);       /* readable */
	ck_assert_uint_eq(DESC_L(d), 1);
	ck_assert_uint_eq(DESC_DB(d), 0);    /* L=1 requires D=0 */
	ck_assert_uint_eq(DESC_BASE(d), 0);
	ck_assert_uint_eq(DESC_G(d), 1);
	ck_assert_uint_eq(DESC_LIMIT(d), 0xfffff);
}
END_TEST

START_TEST(test_gdt_data_is_flat)
{
	uint64_t d = boot_gdt_entry(BOOT_GDT_DATA);

	ck_assert_uint_eq(DESC_P(d), 1);
	ck_assert_uint_eq(DESC_S(d), 1);
	ck_assert_uint_eq(DESC_DPL(d), 0);
	ck_assert(!(DESC_TYPE(d) & 0x8));    /* data */
	ck_assert(DESC_TYPE(d) & 0x2);       /* writable */
	ck_assert_uint_eq(DESC_BASE(d), 0);
	ck_assert_uint_eq(DESC_LIMIT(d), 0xfffff);
	ck_assert_uint_eq(DESC_G(d), 1);     /* 4 KiB units: 4 GiB */
	ck_assert_uint_eq(DESC_DB(d), 1);
	ck_assert_uint_eq(DESC_L(d), 0);
}
END_TEST

START_TEST(test_gdt_unknown_selector_is_null)
{
	ck_assert_uint_eq(boot_gdt_entry(0), 0);
	ck_assert_uint_eq(boot_gdt_entry(0x8), 0);
	ck_assert_uint_eq(boot_gdt_entry(0x20), 0);
	ck_assert_uint_eq(boot_gdt_entry(BOOT_GDT_CODE | 3), 0);
}
END_TEST

START_TEST(test_gdt_written_at_selectors)
{
	memset(ram + GDT_ADDR, 0xee, 64);
	ck_assert_int_eq(boot_write_gdt(&gm), 0);
	ck_assert_uint_eq(ram_u64(GDT_ADDR), 0);
	ck_assert_uint_eq(ram_u64(GDT_ADDR + 8), 0);
	ck_assert_uint_eq(ram_u64(GDT_ADDR + BOOT_GDT_CODE), boot_gdt_entry(BOOT_GDT_CODE));
	ck_assert_uint_eq(ram_u64(GDT_ADDR + BOOT_GDT_DATA), boot_gdt_entry(BOOT_GDT_DATA));
	ck_assert_uint_ne(boot_gdt_entry(BOOT_GDT_CODE), 0);
	ck_assert_uint_ne(boot_gdt_entry(BOOT_GDT_DATA), 0);
}
END_TEST
static Suite *boot_suite(void)
{
	Suite *s = suite_create("boot");
	TCase *tc;

	tc = tcase_create("initrd");
	tcase_add_checked_fixture(tc, ram_setup, ram_teardown);
	tcase_add_test(tc, test_initrd_at_top_of_low_ram);
	tcase_add_test(tc, test_initrd_below_initrd_addr_max);
	tcase_add_test(tc, test_initrd_exactly_filling_space);
	tcase_add_test(tc, test_initrd_overlapping_kernel_refused);
	tcase_add_test(tc, test_initrd_bigger_than_ram_refused);
	tcase_add_test(tc, test_initrd_empty_or_not_a_file_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("params");
	tcase_add_checked_fixture(tc, ram_setup, ram_teardown);
	tcase_add_test(tc, test_low_high_ram_split);
	tcase_add_test(tc, test_params_e820_small_mem);
	tcase_add_test(tc, test_params_e820_above_3g);
	tcase_add_test(tc, test_params_cmdline_written);
	tcase_add_test(tc, test_params_cmdline_max_length);
	tcase_add_test(tc, test_params_cmdline_size_honoured);
	tcase_add_test(tc, test_params_outside_ram_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("tables");
	tcase_add_checked_fixture(tc, ram_setup, ram_teardown);
	tcase_add_test(tc, test_page_tables_identity_map_4g);
	tcase_add_test(tc, test_gdt_code_is_64bit);
	tcase_add_test(tc, test_gdt_data_is_flat);
	tcase_add_test(tc, test_gdt_unknown_selector_is_null);
	tcase_add_test(tc, test_gdt_written_at_selectors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(boot_suite());
}
