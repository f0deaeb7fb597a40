/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The guest-physical memory map stainless builds for x86_64 guests.
 *
 *   0x0000_0500  GDT                      0x0000_7000  boot_params (zero page)
 *   0x0000_8ff0  boot stack top           0x0000_9000  PML4, PDPT, 4 PDs
 *   0x0002_0000  kernel command line      0x0009_fc00  MP tables (reserved)
 *   0x0010_0000  kernel (bzImage protected-mode part, or ELF segments)
 *   ... RAM up to min(mem, 3 GiB); initrd at the top of it
 *   0xd000_0000  virtio-mmio windows, 4 KiB each
 *   0xfec0_0000  IOAPIC   0xfee0_0000  LAPIC (in-kernel irqchip)
 *   0xfffb_c000  KVM identity map + TSS
 *   4 GiB ...    the rest of RAM above the hole
 *   above RAM    device shared-memory regions (DAX windows), 1 GiB aligned
 */
#ifndef STAINLESS_VMM_LAYOUT_H
#define STAINLESS_VMM_LAYOUT_H

#define GDT_ADDR          0x500ull
#define BOOT_PARAMS_ADDR  0x7000ull
#define BOOT_STACK_TOP    0x8ff0ull
#define PML4_ADDR         0x9000ull
#define PDPT_ADDR         0xa000ull
#define PD_ADDR           0xb000ull   /* 4 pages: identity map of 4 GiB */
#define CMDLINE_ADDR      0x20000ull
#define CMDLINE_MAX       4096u
#define EBDA_START        0x9fc00ull
#define MPTABLE_ADDR      EBDA_START
#define HIMEM_START       0x100000ull
#define LOW_RAM_MAX       0xc0000000ull
#define MMIO_HOLE_START   LOW_RAM_MAX
#define VIRTIO_MMIO_BASE  0xd0000000ull
#define VIRTIO_MMIO_SIZE  0x1000ull
#define VIRTIO_MMIO_MAX   32u
#define IOAPIC_ADDR       0xfec00000ull
#define LAPIC_ADDR        0xfee00000ull
#define KVM_IDMAP_ADDR    0xfffbc000ull
#define KVM_TSS_ADDR      0xfffbd000ull
#define HIGH_RAM_START    0x100000000ull
#define SHM_ALIGN         (1ull << 30)

#define SERIAL_IRQ        4
#define VIRTIO_IRQ_FIRST  5           /* IOAPIC pins 5..23, skipping none */
#define IOAPIC_PINS       24

#endif
