/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intel MultiProcessor Specification 1.4 tables: how a guest without ACPI
 * finds its CPUs' local APICs, the IOAPIC and how ISA interrupts reach it.
 */
#ifndef STAINLESS_VMM_MPTABLE_H
#define STAINLESS_VMM_MPTABLE_H

#include <stdint.h>

#include "devices/gmem.h"

/*
 * Write the floating pointer at addr (a place Linux scans: the last KiB of
 * base memory) followed by the configuration table describing ncpus CPUs
 * (APIC ids 0..ncpus-1, CPU 0 the bootstrap processor), one IOAPIC with id
 * ncpus, and IOAPIC pins 0..ioapic_pins-1 wired one-to-one to ISA IRQs.
 * Returns the bytes written, or -EINVAL / -EFAULT.
 */
int mptable_write(const struct gmem *gm, uint64_t addr, unsigned ncpus,
		  unsigned ioapic_pins);
/* Bytes mptable_write() needs for ncpus CPUs. */
uint64_t mptable_size(unsigned ncpus, unsigned ioapic_pins);

#endif
