/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the boot unit tests (test_boot_kernel, test_boot): 64 MiB of
 * anonymous memory registered as guest RAM at gpa 0, files in memfds, and
 * a minimal bzImage. Each test is one program, so this is #included.
 */
#ifndef STAINLESS_TESTS_BOOT_FIXTURE_H
#define STAINLESS_TESTS_BOOT_FIXTURE_H

#include <check.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "devices/gmem.h"
#include "vmm/boot.h"
#include "vmm/layout.h"

#define MIB      (1ull << 20)
#define GIB      (1ull << 30)
#define RAM_SIZE (64 * MIB)

static uint8_t *ram;
static struct gmem gm;
static struct boot_image img;  /* 4 KiB of boot_params: keep it off the stack */
static char err[256];

static inline void ram_setup(void)
{
	ram = mmap(NULL, RAM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ck_assert_ptr_ne(ram, MAP_FAILED);
	gmem_init(&gm);
	ck_assert_int_eq(gmem_add_region(&gm, 0, RAM_SIZE, ram, -1, 0), 0);
	memset(&img, 0, sizeof(img));
	memset(err, 0, sizeof(err));
}

static inline void ram_teardown(void)
{
	munmap(ram, RAM_SIZE);
}

/* A memfd holding len bytes of buf, offset 0. */
static inline int memfd_with(const void *buf, size_t len)
{
	int fd = memfd_create("boot-test", MFD_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	return fd;
}

static inline void fill_pattern(uint8_t *p, size_t len, uint8_t seed)
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
static inline void bz_build(void)
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

/* boot_load_kernel() on len bytes of buf, into the fixture's RAM and img. */
static inline int load_buf(const void *buf, size_t len)
{
	int fd = memfd_with(buf, len), rc;

	rc = boot_load_kernel(&gm, RAM_SIZE, fd, &img, err, sizeof(err));
	close(fd);
	return rc;
}

#endif
