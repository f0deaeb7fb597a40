// SPDX-License-Identifier: GPL-2.0-only
/* x86_64 Linux boot protocol (see boot.h and the kernel's boot.rst). */
#include "vmm/boot.h"

#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fail.h"
#include "vmm/layout.h"

#define HDRS_MAGIC      0x53726448u   /* "HdrS" */
#define SETUP_HDR_OFF   0x1f1
#define BOOT_PROTO_MIN  0x020c        /* 2.12: xloadflags, 64-bit entry */
#define KERNEL_LOADER   0xff          /* "undefined" boot loader id */
#define E820_TYPE_RAM       1
#define E820_TYPE_RESERVED  2

_Static_assert(sizeof(struct boot_params) == 4096, "zero page is one page");
_Static_assert(offsetof(struct boot_params, hdr) == SETUP_HDR_OFF, "setup header offset");

uint64_t boot_low_ram(uint64_t mem)
{
	return mem < LOW_RAM_MAX ? mem : LOW_RAM_MAX;
}

uint64_t boot_high_ram(uint64_t mem)
{
	return mem - boot_low_ram(mem);
}

/* pread exactly len bytes into guest memory at gpa. */
static int read_into_guest(const struct gmem *gm, int fd, uint64_t off,
			   uint64_t gpa, uint64_t len)
{
	uint8_t *p = gmem_ptr(gm, gpa, len);

	if (!p)
		return -EFAULT;
	while (len) {
		ssize_t n = pread(fd, p, len > (1u << 30) ? (1u << 30) : len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA;
		p += n, off += (uint64_t)n, len -= (uint64_t)n;
	}
	return 0;
}

static int load_bzimage(const struct gmem *gm, uint64_t mem, int fd, off_t fsize,
			struct boot_image *img, char *err, size_t errlen)
{
	struct setup_header *h = &img->params.hdr;
	uint64_t setup_size, kernel_size, end;
	size_t hdr_end;

	/* The setup header's own length is in its jump instruction's offset. */
	hdr_end = 0x202 + (uint8_t)((uint8_t *)&img->params)[0x201];
	if (hdr_end > sizeof(img->params) || (off_t)hdr_end > fsize)
		return fail_msg(err, errlen, -ENOEXEC, "truncated bzImage header");
	if (pread(fd, (uint8_t *)&img->params + SETUP_HDR_OFF, hdr_end - SETUP_HDR_OFF,
		  SETUP_HDR_OFF) != (ssize_t)(hdr_end - SETUP_HDR_OFF))
		return fail_msg(err, errlen, -EIO, "cannot read bzImage header");
	if (h->version < BOOT_PROTO_MIN || !(h->xloadflags & XLF_KERNEL_64))
		return fail_msg(err, errlen, -ENOEXEC,
			    "bzImage boot protocol %u.%u has no 64-bit entry point (need 2.12+)",
			    h->version >> 8, h->version & 0xff);
	setup_size = ((uint64_t)(h->setup_sects ? h->setup_sects : 4) + 1) * 512;
	if ((uint64_t)fsize <= setup_size)
		return fail_msg(err, errlen, -ENOEXEC, "bzImage has no protected-mode kernel");
	kernel_size = (uint64_t)fsize - setup_size;
	/*
	 * The kernel decompresses itself into init_size bytes starting at the
	 * load address, or at pref_address when it is not relocatable; the
	 * initrd must stay clear of all of it.
	 */
	end = HIMEM_START + (h->init_size > kernel_size ? h->init_size : kernel_size);
	if (!h->relocatable_kernel && h->pref_address + h->init_size > end)
		end = h->pref_address + h->init_size;
	if (end > boot_low_ram(mem))
		return fail_msg(err, errlen, -ENOMEM, "kernel does not fit in guest RAM");
	if (read_into_guest(gm, fd, setup_size, HIMEM_START, kernel_size) < 0)
		return fail_msg(err, errlen, -EIO, "cannot read the kernel image");

	h->type_of_loader = KERNEL_LOADER;
	h->loadflags |= CAN_USE_HEAP | LOADED_HIGH | KEEP_SEGMENTS;
	h->heap_end_ptr = 0xfe00;
	h->code32_start = HIMEM_START;
	img->entry = HIMEM_START + 0x200; /* startup_64 */
	img->kernel_end = end;
	img->initrd_max = h->initrd_addr_max ? h->initrd_addr_max : 0x37ffffff;
	if (h->xloadflags & XLF_CAN_BE_LOADED_ABOVE_4G)
		img->initrd_max = boot_low_ram(mem) - 1;
	return 0;
}

static int load_elf(const struct gmem *gm, uint64_t mem, int fd, off_t fsize,
		    struct boot_image *img, char *err, size_t errlen)
{
	Elf64_Ehdr eh;
	uint64_t end = 0;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		return fail_msg(err, errlen, -ENOEXEC, "truncated ELF header");
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_machine != EM_X86_64 || eh.e_type != ET_EXEC)
		return fail_msg(err, errlen, -ENOEXEC, "ELF file is not an x86_64 executable");
	if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 64)
		return fail_msg(err, errlen, -ENOEXEC, "ELF file has a bad program header table");

	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != sizeof(ph))
			return fail_msg(err, errlen, -ENOEXEC, "truncated ELF program header");
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_filesz > ph.p_memsz || ph.p_offset > (uint64_t)fsize ||
		    ph.p_filesz > (uint64_t)fsize - ph.p_offset ||
		    ph.p_paddr < HIMEM_START || ph.p_paddr + ph.p_memsz < ph.p_paddr ||
		    ph.p_paddr + ph.p_memsz > boot_low_ram(mem))
			return fail_msg(err, errlen, -ENOEXEC,
				    "ELF segment %u does not fit in guest RAM", i);
		if (read_into_guest(gm, fd, ph.p_offset, ph.p_paddr, ph.p_filesz) < 0)
			return fail_msg(err, errlen, -EIO, "cannot read ELF segment %u", i);
		/* A segment without bss may end exactly at the end of RAM, where
		 * even a zero-length gmem_ptr() is NULL. */
		if (ph.p_memsz > ph.p_filesz) {
			uint8_t *bss = gmem_ptr(gm, ph.p_paddr + ph.p_filesz,
						ph.p_memsz - ph.p_filesz);

			if (!bss)
				return fail_msg(err, errlen, -EFAULT,
					    "ELF segment %u is outside guest memory", i);
			memset(bss, 0, ph.p_memsz - ph.p_filesz);
		}
		if (ph.p_paddr + ph.p_memsz > end)
			end = ph.p_paddr + ph.p_memsz;
	}
	if (!end)
		return fail_msg(err, errlen, -ENOEXEC, "ELF file has no loadable segment");

	/* vmlinux's entry is startup_64's physical address; boot_params are
	 * ours to make from scratch. */
	struct setup_header *h = &img->params.hdr;
	h->boot_flag = 0xaa55;
	h->header = HDRS_MAGIC;
	h->version = BOOT_PROTO_MIN;
	h->type_of_loader = KERNEL_LOADER;
	h->loadflags = LOADED_HIGH | KEEP_SEGMENTS;
	h->kernel_alignment = 0x1000000;
	h->initrd_addr_max = 0x37ffffff;
	img->entry = eh.e_entry;
	img->kernel_end = end;
	img->initrd_max = h->initrd_addr_max;
	return 0;
}

int boot_load_kernel(const struct gmem *gm, uint64_t mem, int fd,
		     struct boot_image *img, char *err, size_t errlen)
{
	uint8_t probe[0x210];
	struct stat st;
	uint32_t magic;

	memset(img, 0, sizeof(*img));
	if (fstat(fd, &st) < 0)
		return fail_msg(err, errlen, -errno, "cannot stat: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail_msg(err, errlen, -ENOEXEC, "not a regular file");
	if (st.st_size < (off_t)sizeof(probe))
		return fail_msg(err, errlen, -ENOEXEC, "not a kernel image (file too small)");
	if (pread(fd, probe, sizeof(probe), 0) != (ssize_t)sizeof(probe))
		return fail_msg(err, errlen, -EIO, "cannot read: %s", strerror(errno));

	memcpy(&magic, probe + 0x202, sizeof(magic));
	if (magic == HDRS_MAGIC) {
		((uint8_t *)&img->params)[0x201] = probe[0x201];
		return load_bzimage(gm, mem, fd, st.st_size, img, err, errlen);
	}
	if (memcmp(probe, ELFMAG, SELFMAG) == 0)
		return load_elf(gm, mem, fd, st.st_size, img, err, errlen);
	return fail_msg(err, errlen, -ENOEXEC, "not a kernel image (neither bzImage nor ELF)");
}

int boot_load_initrd(const struct gmem *gm, uint64_t mem, int fd,
		     struct boot_image *img, char *err, size_t errlen)
{
	uint64_t top = boot_low_ram(mem), addr, size;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return fail_msg(err, errlen, -errno, "cannot stat: %s", strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size == 0)
		return fail_msg(err, errlen, -EINVAL, "not a regular, non-empty file");
	size = (uint64_t)st.st_size;
	if (img->initrd_max + 1 < top)
		top = img->initrd_max + 1;
	top &= ~0xfffull;
	addr = size <= top ? (top - size) & ~0xfffull : 0;
	if (size > top || addr < img->kernel_end)
		return fail_msg(err, errlen, -ENOMEM,
			    "initrd (%llu MiB) does not fit in guest RAM beside the kernel",
			    (unsigned long long)(size >> 20));
	if (read_into_guest(gm, fd, 0, addr, size) < 0)
		return fail_msg(err, errlen, -EIO, "cannot read the initrd");
	img->params.hdr.ramdisk_image = (uint32_t)addr;
	img->params.hdr.ramdisk_size = (uint32_t)size;
	return 0;
}

static void e820_add(struct boot_params *bp, uint64_t addr, uint64_t size, uint32_t type)
{
	if (size && bp->e820_entries < E820_MAX_ENTRIES_ZEROPAGE)
		bp->e820_table[bp->e820_entries++] =
			(struct boot_e820_entry){ .addr = addr, .size = size, .type = type };
}

int boot_write_params(const struct gmem *gm, uint64_t mem, const char *cmdline,
		      struct boot_image *img, char *err, size_t errlen)
{
	struct boot_params *bp = &img->params;
	size_t clen = strlen(cmdline);

	if (clen >= CMDLINE_MAX)
		return fail_msg(err, errlen, -E2BIG, "kernel command line longer than %u bytes",
			    CMDLINE_MAX - 1);
	if (bp->hdr.cmdline_size && clen > bp->hdr.cmdline_size)
		return fail_msg(err, errlen, -E2BIG, "kernel accepts a command line of at most %u bytes",
			    bp->hdr.cmdline_size);
	if (gmem_write(gm, CMDLINE_ADDR, cmdline, clen + 1) < 0)
		return fail_msg(err, errlen, -EFAULT, "command line outside guest RAM");
	bp->hdr.cmd_line_ptr = CMDLINE_ADDR;
	bp->ext_cmd_line_ptr = 0;

	bp->e820_entries = 0;
	e820_add(bp, 0, EBDA_START, E820_TYPE_RAM);
	e820_add(bp, EBDA_START, HIMEM_START - EBDA_START, E820_TYPE_RESERVED);
	e820_add(bp, HIMEM_START, boot_low_ram(mem) - HIMEM_START, E820_TYPE_RAM);
	e820_add(bp, HIGH_RAM_START, boot_high_ram(mem), E820_TYPE_RAM);

	if (gmem_write(gm, BOOT_PARAMS_ADDR, bp, sizeof(*bp)) < 0)
		return fail_msg(err, errlen, -EFAULT, "boot_params outside guest RAM");
	return 0;
}

#define PTE_P   (1ull << 0)
#define PTE_RW  (1ull << 1)
#define PTE_PS  (1ull << 7)

int boot_write_page_tables(const struct gmem *gm)
{
	uint64_t *pml4 = gmem_ptr(gm, PML4_ADDR, 4096);
	uint64_t *pdpt = gmem_ptr(gm, PDPT_ADDR, 4096);
	uint64_t *pd = gmem_ptr(gm, PD_ADDR, 4 * 4096);

	if (!pml4 || !pdpt || !pd)
		return -EFAULT;
	memset(pml4, 0, 4096);
	memset(pdpt, 0, 4096);
	pml4[0] = PDPT_ADDR | PTE_P | PTE_RW;
	for (unsigned i = 0; i < 4; i++)
		pdpt[i] = (PD_ADDR + i * 4096ull) | PTE_P | PTE_RW;
	for (unsigned i = 0; i < 4 * 512; i++)
		pd[i] = ((uint64_t)i << 21) | PTE_P | PTE_RW | PTE_PS;
	return 0;
}

uint64_t boot_gdt_entry(unsigned selector)
{
	switch (selector) {
	case BOOT_GDT_CODE:
		return 0x00af9b000000ffffull; /* 64-bit code, present, DPL 0 */
	case BOOT_GDT_DATA:
		return 0x00cf93000000ffffull; /* 4 GiB flat data */
	default:
		return 0;
	}
}

int boot_write_gdt(const struct gmem *gm)
{
	uint64_t gdt[4] = {
		0, 0, boot_gdt_entry(BOOT_GDT_CODE), boot_gdt_entry(BOOT_GDT_DATA),
	};

	return gmem_write(gm, GDT_ADDR, gdt, sizeof(gdt));
}
