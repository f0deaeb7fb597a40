// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86_64 boot protocol builders (vmm/boot.c) on ordinary memory: 64 MiB of
 * anonymous memory registered as guest RAM at gpa 0, kernels and initrds
 * crafted byte by byte in memfds.
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "devices/gmem.h"
#include "vmm/boot.h"
#include "vmm/layout.h"

#define MIB      (1ull << 20)
#define GIB      (1ull << 30)
#define RAM_SIZE (64 * MIB)

#define PTE_FLAGS 0x3ull     /* present, writable */
#define PDE_FLAGS 0x83ull    /* present, writable, 2 MiB page */

static uint8_t *ram;
static struct gmem gm;
static struct boot_image img;  /* 4 KiB of boot_params: keep it off the stack */
static char err[256];

static void ram_setup(void)
{
	ram = mmap(NULL, RAM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ck_assert_ptr_ne(ram, MAP_FAILED);
	gmem_init(&gm);
	ck_assert_int_eq(gmem_add_region(&gm, 0, RAM_SIZE, ram, -1, 0), 0);
	memset(&img, 0, sizeof(img));
	memset(err, 0, sizeof(err));
}

static void ram_teardown(void)
{
	munmap(ram, RAM_SIZE);
}

static uint64_t ram_u64(uint64_t gpa)
{
	uint64_t v;

	memcpy(&v, ram + gpa, sizeof(v));
	return v;
}

/* A memfd holding len bytes of buf, offset 0. */
static int memfd_with(const void *buf, size_t len)
{
	int fd = memfd_create("boot-test", MFD_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	return fd;
}

static void fill_pattern(uint8_t *p, size_t len, uint8_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + seed + (i >> 8));
}

/* ---- bzImage ------------------------------------------------------------ */

#define BZ_SETUP_SECTS 7                          /* + boot sector = 4 KiB */
#define BZ_SETUP_SIZE  ((BZ_SETUP_SECTS + 1) * 512)
#define BZ_PAYLOAD     (3 * 4096 + 100)           /* not a page multiple */

struct bz {
	uint8_t buf[BZ_SETUP_SIZE + BZ_PAYLOAD];
	size_t len;
	struct setup_header *h;
	uint8_t *payload;
};

static struct bz bz;

/* A minimal bzImage in bz: boot protocol 2.15, 64-bit entry, the setup
 * header exactly where and as long as a real one, a patterned payload. */
static void bz_build(void)
{
	struct boot_params *bp = (struct boot_params *)bz.buf;

	memset(&bz, 0, sizeof(bz));
	bz.len = sizeof(bz.buf);
	bz.h = &bp->hdr;
	bz.h->setup_sects = BZ_SETUP_SECTS;
	bz.h->boot_flag = 0xaa55;
	bz.h->jump = 0x6aeb;        /* jmp short 0x26c: end of the setup header */
	bz.h->header = 0x53726448;  /* "HdrS" */
	bz.h->version = 0x020f;
	bz.h->loadflags = LOADED_HIGH;
	bz.h->initrd_addr_max = 0x7fffffff;
	bz.h->kernel_alignment = 0x200000;
	bz.h->xloadflags = XLF_KERNEL_64;
	bz.h->cmdline_size = 2047;
	bz.h->init_size = 16 * MIB;
	bz.payload = bz.buf + BZ_SETUP_SIZE;
	fill_pattern(bz.payload, BZ_PAYLOAD, 0x5a);
}

static int load_buf(const void *buf, size_t len)
{
	int fd = memfd_with(buf, len), rc;

	rc = boot_load_kernel(&gm, RAM_SIZE, fd, &img, err, sizeof(err));
	close(fd);
	return rc;
}

START_TEST(test_bzimage_loads_payload_at_1m)
{
	bz_build();
	ck_assert_int_eq(load_buf(bz.buf, bz.len), 0);
	ck_assert_int_eq(memcmp(ram + HIMEM_START, bz.payload, BZ_PAYLOAD), 0);
	/* The setup code (real-mode part) is not loaded anywhere. */
	ck_assert_uint_eq(ram[HIMEM_START + BZ_PAYLOAD], 0);
	ck_assert_uint_eq(img.entry, 0x100200);
	ck_assert_uint_eq(img.kernel_end, HIMEM_START + BZ_PAYLOAD);
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

START_TEST(test_bzimage_setup_sects_zero_means_4)
{
	static uint8_t buf[5 * 512 + 4096];

	bz_build();
	bz.h->setup_sects = 0;
	memcpy(buf, bz.buf, 5 * 512);
	fill_pattern(buf + 5 * 512, 4096, 0x11);
	ck_assert_int_eq(load_buf(buf, sizeof(buf)), 0);
	ck_assert_int_eq(memcmp(ram + HIMEM_START, buf + 5 * 512, 4096), 0);
	ck_assert_uint_eq(img.kernel_end, HIMEM_START + 4096);
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

#define ELF_MAX_PH   4
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

	tc = tcase_create("bzimage");
	tcase_add_checked_fixture(tc, ram_setup, ram_teardown);
	tcase_add_test(tc, test_bzimage_loads_payload_at_1m);
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
	SRunner *sr = srunner_create(boot_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
