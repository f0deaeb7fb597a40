/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86_64 Linux boot protocol: load a bzImage or an uncompressed ELF vmlinux
 * and an initrd into guest memory, and build what the 64-bit entry point
 * expects — boot_params with the e820 map and command line, identity page
 * tables and a flat GDT. Every builder writes through the checked guest
 * memory accessor, so the unit tests run them on ordinary memory.
 */
#ifndef STAINLESS_VMM_BOOT_H
#define STAINLESS_VMM_BOOT_H

#include <asm/bootparam.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/gmem.h"

/* GDT selectors the boot protocol asks for (__BOOT_CS, __BOOT_DS). */
#define BOOT_GDT_CODE   0x10
#define BOOT_GDT_DATA   0x18

struct boot_image {
	uint64_t entry;          /* 64-bit entry point (guest-physical) */
	uint64_t kernel_end;     /* first byte above the loaded kernel */
	uint64_t initrd_max;     /* highest byte an initrd may occupy */
	struct boot_params params;
};

/* RAM below the MMIO hole and above 4 GiB for a guest of mem bytes. */
uint64_t boot_low_ram(uint64_t mem);
uint64_t boot_high_ram(uint64_t mem);

/*
 * Load the kernel from fd. Recognises a bzImage (protocol >= 2.12 with a
 * 64-bit entry) or an ELF64 x86_64 executable. On error returns -errno
 * (-ENOEXEC: not a kernel we can boot) with a reason in err.
 */
int boot_load_kernel(const struct gmem *gm, uint64_t mem, int fd,
		     struct boot_image *img, char *err, size_t errlen);
/* Load the initrd from fd to the highest page-aligned spot that fits. */
int boot_load_initrd(const struct gmem *gm, uint64_t mem, int fd,
		     struct boot_image *img, char *err, size_t errlen);
/* Fill e820 + command line in img->params and write them to the guest. */
int boot_write_params(const struct gmem *gm, uint64_t mem, const char *cmdline,
		      struct boot_image *img, char *err, size_t errlen);
/* Identity-map the first 4 GiB with 2 MiB pages at PML4_ADDR; write a GDT. */
int boot_write_page_tables(const struct gmem *gm);
int boot_write_gdt(const struct gmem *gm);
/* The GDT entry for a selector, for the vCPU's segment registers. */
uint64_t boot_gdt_entry(unsigned selector);

#endif
