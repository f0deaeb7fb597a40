// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel loading (boot_load_kernel in vmm/boot.c): bzImages and ELF vmlinux
 * files crafted byte by byte in memfds, and files that are not kernels.
 * Initrd, boot_params and the page tables are in test_boot.c.
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/boot_fixture.h"
#include "tests/unit/check_main.h"
#include "vmm/boot.h"
#include "vmm/layout.h"

START_TEST(test_bzimage_loads_payload_at_1m)
{
	bz_build();
	ck_assert_int_eq(load_buf(bz.buf, bz.len), 0);
	ck_assert_int_eq(memcmp(ram + HIMEM_START, bz.payload, BZ_PAYLOAD), 0);
	/* The setup code (real-mode part) is not loaded anywhere. */
	ck_assert_uint_eq(ram[HIMEM_START + BZ_PAYLOAD], 0);
	ck_assert_uint_eq(img.entry, 0x100200);
	/* The kernel decompresses into init_size bytes from the load address:
	 * nothing (the initrd) may be placed below that end. */
	ck_assert_uint_eq(img.kernel_end, HIMEM_START + bz.h->init_size);
	ck_assert_uint_eq(img.initrd_max, 0x7fffffff);
	/* The header was copied and completed as the boot protocol asks. */
	ck_assert_uint_eq(img.params.hdr.header, 0x53726448);
	ck_assert_uint_eq(img.params.hdr.version, 0x020f);
	ck_assert_uint_eq(img.params.hdr.cmdline_size, 2047);
	ck_assert_uint_eq(img.params.hdr.type_of_loader, 0xff);
	ck_assert_uint_eq(img.params.hdr.code32_start, HIMEM_START);
	ck_assert(img.params.hdr.loadflags & LOADED_HIGH);
	ck_assert(img.params.hdr.loadflags & CAN_USE_HEAP);
}
END_TEST

START_TEST(test_bzimage_kernel_end_covers_fixed_address_decompression)
{
	/* A kernel that is not relocatable decompresses at pref_address. */
	bz_build();
	bz.h->relocatable_kernel = 0;
	bz.h->pref_address = 0x1000000;
	ck_assert_int_eq(load_buf(bz.buf, bz.len), 0);
	ck_assert_uint_eq(img.kernel_end, 0x1000000ull + bz.h->init_size);
	bz_build();
	bz.h->relocatable_kernel = 1;
	bz.h->pref_address = 0x1000000;
	ck_assert_int_eq(load_buf(bz.buf, bz.len), 0);
	ck_assert_uint_eq(img.kernel_end, HIMEM_START + bz.h->init_size);
}
END_TEST

START_TEST(test_bzimage_setup_sects_zero_means_4)
{
	static uint8_t buf[5 * 512 + 4096];

	bz_build();
	bz.h->setup_sects = 0;
	memcpy(buf, bz.buf, 5 * 512);
	fill_pattern(buf + 5 * 512, 4096, 0x11);
	ck_assert_int_eq(load_buf(buf, sizeof(buf)), 0);
	ck_assert_int_eq(memcmp(ram + HIMEM_START, buf + 5 * 512, 4096), 0);
	ck_assert_uint_eq(img.kernel_end, HIMEM_START + bz.h->init_size);
}
END_TEST

START_TEST(test_bzimage_initrd_max_default_and_above_4g)
{
	bz_build();
	bz.h->initrd_addr_max = 0;   /* protocol < 2.03 meaning: 0x37ffffff */
	ck_assert_int_eq(load_buf(bz.buf, bz.len), 0);
	ck_assert_uint_eq(img.initrd_max, 0x37ffffff);

	bz_build();
	bz.h->initrd_addr_max = 0x1ffffff;
	bz.h->xloadflags |= XLF_CAN_BE_LOADED_ABOVE_4G;
	ck_assert_int_eq(load_buf(bz.buf, bz.len), 0);
	ck_assert_uint_eq(img.initrd_max, RAM_SIZE - 1);
}
END_TEST

START_TEST(test_bzimage_old_protocol_refused)
{
	bz_build();
	bz.h->version = 0x0206;
	ck_assert_int_eq(load_buf(bz.buf, bz.len), -ENOEXEC);
	ck_assert_ptr_nonnull(strstr(err, "2.6"));
	bz.h->version = 0x020b;
	ck_assert_int_eq(load_buf(bz.buf, bz.len), -ENOEXEC);
	/* Nothing reached guest memory. */
	ck_assert_uint_eq(ram[HIMEM_START], 0);
}
END_TEST

START_TEST(test_bzimage_without_64bit_entry_refused)
{
	bz_build();
	bz.h->xloadflags = XLF_CAN_BE_LOADED_ABOVE_4G;
	ck_assert_int_eq(load_buf(bz.buf, bz.len), -ENOEXEC);
	ck_assert_ptr_nonnull(strstr(err, "64-bit"));
	ck_assert_uint_eq(ram[HIMEM_START], 0);
}
END_TEST

START_TEST(test_bzimage_truncated_refused)
{
	bz_build();
	/* Ends inside the setup header. */
	ck_assert_int_eq(load_buf(bz.buf, 0x220), -ENOEXEC);
	ck_assert_ptr_nonnull(strstr(err, "truncated"));
	/* Whole setup, no protected-mode kernel. */
	ck_assert_int_eq(load_buf(bz.buf, BZ_SETUP_SIZE), -ENOEXEC);
	/* setup_sects claims more than the file holds. */
	bz.h->setup_sects = 60;
	ck_assert_int_eq(load_buf(bz.buf, bz.len), -ENOEXEC);
	/* Too short even to probe. */
	ck_assert_int_eq(load_buf(bz.buf, 0x100), -ENOEXEC);
}
END_TEST

START_TEST(test_bzimage_too_big_for_ram_refused)
{
	bz_build();
	bz.h->init_size = RAM_SIZE;   /* decompressor needs more than RAM - 1 MiB */
	ck_assert_int_eq(load_buf(bz.buf, bz.len), -ENOMEM);
	ck_assert_uint_eq(ram[HIMEM_START], 0);
}
END_TEST

/* ---- not a kernel ------------------------------------------------------- */

START_TEST(test_text_file_refused)
{
	static const char text[] = "not a kernel\n";
	static char long_text[8192];

	ck_assert_int_eq(load_buf(text, sizeof(text) - 1), -ENOEXEC);
	for (size_t i = 0; i < sizeof(long_text); i++)
		long_text[i] = "not a kernel\n"[i % 13];
	ck_assert_int_eq(load_buf(long_text, sizeof(long_text)), -ENOEXEC);
	ck_assert_ptr_nonnull(strstr(err, "not a kernel"));
}
END_TEST

START_TEST(test_empty_file_refused)
{
	ck_assert_int_eq(load_buf("", 0), -ENOEXEC);
}
END_TEST

/* open(2) on a directory with O_RDONLY succeeds; the loader must say no. */
START_TEST(test_directory_refused)
{
	int fd = open("/tmp", O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(boot_load_kernel(&gm, RAM_SIZE, fd, &img, err, sizeof(err)), -ENOEXEC);
	ck_assert_ptr_nonnull(strstr(err, "regular file"));
	close(fd);
}
END_TEST

START_TEST(test_pipe_refused)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(boot_load_kernel(&gm, RAM_SIZE, p[0], &img, err, sizeof(err)), -ENOEXEC);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(test_closed_fd_refused)
{
	ck_assert_int_eq(boot_load_kernel(&gm, RAM_SIZE, 1000, &img, err, sizeof(err)), -EBADF);
}
END_TEST

/* ---- ELF vmlinux -------------------------------------------------------- */

#define ELF_DATA_OFF 0x1000
#define ELF_FILE     (ELF_DATA_OFF + 0x4000)

struct elf {
	uint8_t buf[ELF_FILE];
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
};

static struct elf elf;

/* An ELF64 x86_64 executable with one PT_LOAD: 0x3000 file bytes at
 * 2 MiB, 0x5000 in memory (0x2000 of bss), entry 0x200100. */
static void elf_build(void)
{
	memset(&elf, 0, sizeof(elf));
	elf.eh = (Elf64_Ehdr *)elf.buf;
	elf.ph = (Elf64_Phdr *)(elf.buf + sizeof(Elf64_Ehdr));
	memcpy(elf.eh->e_ident, ELFMAG, SELFMAG);
	elf.eh->e_ident[EI_CLASS] = ELFCLASS64;
	elf.eh->e_ident[EI_DATA] = ELFDATA2LSB;
	elf.eh->e_ident[EI_VERSION] = EV_CURRENT;
	elf.eh->e_type = ET_EXEC;
	elf.eh->e_machine = EM_X86_64;
	elf.eh->e_version = EV_CURRENT;
	elf.eh->e_entry = 0x200100;
	elf.eh->e_phoff = sizeof(Elf64_Ehdr);
	elf.eh->e_ehsize = sizeof(Elf64_Ehdr);
	elf.eh->e_phentsize = sizeof(Elf64_Phdr);
	elf.eh->e_phnum = 1;
	elf.ph[0] = (Elf64_Phdr){
		.p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = ELF_DATA_OFF,
		.p_vaddr = 0xffffffff80200000ull, .p_paddr = 0x200000,
		.p_filesz = 0x3000, .p_memsz = 0x5000, .p_align = 0x1000,
	};
	fill_pattern(elf.buf + ELF_DATA_OFF, ELF_FILE - ELF_DATA_OFF, 0x33);
}

static int load_elf_buf(void)
{
	return load_buf(elf.buf, sizeof(elf.buf));
}

START_TEST(test_elf_loads_segment)
{
	elf_build();
	memset(ram + 0x200000, 0xcc, 0x6000);  /* the bss must be cleared */
	ck_assert_int_eq(load_elf_buf(), 0);
	ck_assert_int_eq(memcmp(ram + 0x200000, elf.buf + ELF_DATA_OFF, 0x3000), 0);
	for (unsigned i = 0x3000; i < 0x5000; i++)
		ck_assert_msg(ram[0x200000 + i] == 0, "bss byte %#x not zeroed", i);
	ck_assert_uint_eq(ram[0x205000], 0xcc);  /* nothing past p_memsz */
	ck_assert_uint_eq(img.entry, 0x200100);
	ck_assert_uint_eq(img.kernel_end, 0x205000);
	ck_assert_uint_eq(img.initrd_max, 0x37ffffff);
	/* boot_params made from scratch look like a bzImage's header. */
	ck_assert_uint_eq(img.params.hdr.header, 0x53726448);
	ck_assert_uint_eq(img.params.hdr.boot_flag, 0xaa55);
	ck_assert_uint_eq(img.params.hdr.type_of_loader, 0xff);
	ck_assert(img.params.hdr.loadflags & LOADED_HIGH);
}
END_TEST

START_TEST(test_elf_several_segments)
{
	elf_build();
	elf.eh->e_phnum = 3;
	/* Not PT_LOAD: ignored even though its numbers are nonsense. */
	elf.ph[1] = (Elf64_Phdr){
		.p_type = PT_NOTE, .p_offset = UINT64_MAX, .p_paddr = 0, .p_filesz = 99,
		.p_memsz = 1,
	};
	elf.ph[2] = (Elf64_Phdr){
		.p_type = PT_LOAD, .p_offset = ELF_DATA_OFF + 0x3000, .p_paddr = 0x400000,
		.p_filesz = 0x1000, .p_memsz = 0x1000,
	};
	ck_assert_int_eq(load_elf_buf(), 0);
	ck_assert_int_eq(memcmp(ram + 0x200000, elf.buf + ELF_DATA_OFF, 0x3000), 0);
	ck_assert_int_eq(memcmp(ram + 0x400000, elf.buf + ELF_DATA_OFF + 0x3000, 0x1000), 0);
	ck_assert_uint_eq(img.kernel_end, 0x401000);
}
END_TEST

/* A segment may end exactly at the end of RAM, with or without bss. */
START_TEST(test_elf_segment_ending_at_ram_end)
{
	elf_build();
	elf.ph[0].p_paddr = RAM_SIZE - 0x3000;
	elf.ph[0].p_memsz = 0x3000;
	ck_assert_int_eq(load_elf_buf(), 0);
	ck_assert_int_eq(memcmp(ram + RAM_SIZE - 0x3000, elf.buf + ELF_DATA_OFF, 0x3000), 0);
	ck_assert_uint_eq(img.kernel_end, RAM_SIZE);

	elf_build();
	elf.ph[0].p_paddr = RAM_SIZE - 0x5000;
	memset(ram + RAM_SIZE - 0x2000, 0xcc, 0x2000);
	ck_assert_int_eq(load_elf_buf(), 0);
	ck_assert_uint_eq(ram[RAM_SIZE - 1], 0);
}
END_TEST

START_TEST(test_elf_segment_below_1m_refused)
{
	elf_build();
	elf.ph[0].p_paddr = 0x8000;
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	ck_assert_uint_eq(ram[0x8000], 0);
	elf.ph[0].p_paddr = HIMEM_START - 0x1000; /* straddles 1 MiB */
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
}
END_TEST

START_TEST(test_elf_segment_beyond_ram_refused)
{
	elf_build();
	elf.ph[0].p_paddr = RAM_SIZE - 0x4000;   /* file part fits, bss does not */
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	elf.ph[0].p_paddr = RAM_SIZE;
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	elf.ph[0].p_paddr = 8 * GIB;
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	/* p_paddr + p_memsz wraps around 2^64. */
	elf.ph[0].p_paddr = UINT64_MAX - 0xfff;
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	elf.ph[0].p_paddr = 0x200000;
	elf.ph[0].p_memsz = UINT64_MAX - 0x100000;
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	ck_assert_ptr_nonnull(strstr(err, "segment 0"));
}
END_TEST

START_TEST(test_elf_filesz_above_memsz_refused)
{
	elf_build();
	elf.ph[0].p_filesz = 0x3000;
	elf.ph[0].p_memsz = 0x2000;
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	ck_assert_uint_eq(ram[0x200000], 0);
}
END_TEST

START_TEST(test_elf_offset_past_eof_refused)
{
	elf_build();
	elf.ph[0].p_offset = ELF_FILE + 0x1000;
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	/* Starts inside the file, ends past it. */
	elf.ph[0].p_offset = ELF_FILE - 0x1000;
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	/* offset + filesz wraps around 2^64. */
	elf.ph[0].p_offset = 0x1000;
	elf.ph[0].p_filesz = UINT64_MAX - 0x800;
	elf.ph[0].p_memsz = UINT64_MAX - 0x800;
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
}
END_TEST

START_TEST(test_elf_wrong_kind_refused)
{
	elf_build();
	elf.eh->e_machine = EM_AARCH64;
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	elf_build();
	elf.eh->e_type = ET_DYN;
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	elf_build();
	elf.eh->e_ident[EI_CLASS] = ELFCLASS32;
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	elf_build();
	elf.eh->e_ident[EI_DATA] = ELFDATA2MSB;
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
}
END_TEST

START_TEST(test_elf_bad_program_headers_refused)
{
	elf_build();
	elf.eh->e_phnum = 0;
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	elf_build();
	elf.eh->e_phentsize = sizeof(Elf64_Phdr) - 8;
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	elf_build();
	elf.eh->e_phoff = ELF_FILE;           /* table past the end of the file */
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	elf_build();
	elf.eh->e_phoff = UINT64_MAX - 8;     /* negative as an off_t */
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	elf_build();
	elf.ph[0].p_type = PT_NOTE;           /* nothing to load */
	ck_assert_int_eq(load_elf_buf(), -ENOEXEC);
	ck_assert_ptr_nonnull(strstr(err, "no loadable segment"));
}
END_TEST

static Suite *boot_kernel_suite(void)
{
	Suite *s = suite_create("boot_kernel");
	TCase *tc;

	tc = tcase_create("bzimage");
	tcase_add_checked_fixture(tc, ram_setup, ram_teardown);
	tcase_add_test(tc, test_bzimage_loads_payload_at_1m);
	tcase_add_test(tc, test_bzimage_kernel_end_covers_fixed_address_decompression);
	tcase_add_test(tc, test_bzimage_setup_sects_zero_means_4);
	tcase_add_test(tc, test_bzimage_initrd_max_default_and_above_4g);
	tcase_add_test(tc, test_bzimage_old_protocol_refused);
	tcase_add_test(tc, test_bzimage_without_64bit_entry_refused);
	tcase_add_test(tc, test_bzimage_truncated_refused);
	tcase_add_test(tc, test_bzimage_too_big_for_ram_refused);
	tcase_add_test(tc, test_text_file_refused);
	tcase_add_test(tc, test_empty_file_refused);
	tcase_add_test(tc, test_directory_refused);
	tcase_add_test(tc, test_pipe_refused);
	tcase_add_test(tc, test_closed_fd_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("elf");
	tcase_add_checked_fixture(tc, ram_setup, ram_teardown);
	tcase_add_test(tc, test_elf_loads_segment);
	tcase_add_test(tc, test_elf_several_segments);
	tcase_add_test(tc, test_elf_segment_ending_at_ram_end);
	tcase_add_test(tc, test_elf_segment_below_1m_refused);
	tcase_add_test(tc, test_elf_segment_beyond_ram_refused);
	tcase_add_test(tc, test_elf_filesz_above_memsz_refused);
	tcase_add_test(tc, test_elf_offset_past_eof_refused);
	tcase_add_test(tc, test_elf_wrong_kind_refused);
	tcase_add_test(tc, test_elf_bad_program_headers_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(boot_kernel_suite());
}
