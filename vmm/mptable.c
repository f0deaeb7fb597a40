// SPDX-License-Identifier: GPL-2.0-only
/* MP specification 1.4 tables (see mptable.h). */
#include "vmm/mptable.h"

#include <errno.h>
#include <string.h>

#include "vmm/layout.h"

struct mpf_intel {             /* floating pointer structure */
	char signature[4];     /* "_MP_" */
	uint32_t physptr;      /* configuration table address */
	uint8_t length;        /* in 16-byte units */
	uint8_t specification;
	uint8_t checksum;
	uint8_t feature1;      /* 0: a configuration table is present */
	uint8_t feature2;      /* bit 7 clear: virtual-wire mode, no IMCR */
	uint8_t feature3, feature4, feature5;
} __attribute__((packed));

struct mpc_table {             /* configuration table header */
	char signature[4];     /* "PCMP" */
	uint16_t length;
	uint8_t spec;
	uint8_t checksum;
	char oem[8];
	char productid[12];
	uint32_t oemptr;
	uint16_t oemsize;
	uint16_t oemcount;
	uint32_t lapic;
	uint32_t reserved;
} __attribute__((packed));

struct mpc_cpu {
	uint8_t type, apicid, apicver, cpuflag;
	uint32_t cpufeature, featureflag;
	uint32_t reserved[2];
} __attribute__((packed));

struct mpc_bus {
	uint8_t type, busid;
	char bustype[6];
} __attribute__((packed));

struct mpc_ioapic {
	uint8_t type, apicid, apicver, flags;
	uint32_t apicaddr;
} __attribute__((packed));

struct mpc_intsrc {            /* I/O and local interrupt assignments */
	uint8_t type, irqtype;
	uint16_t irqflag;
	uint8_t srcbus, srcbusirq, dstapic, dstirq;
} __attribute__((packed));

_Static_assert(sizeof(struct mpf_intel) == 16, "MP floating pointer is 16 bytes");
_Static_assert(sizeof(struct mpc_table) == 44, "MP config header is 44 bytes");
_Static_assert(sizeof(struct mpc_cpu) == 20, "MP processor entry is 20 bytes");
_Static_assert(sizeof(struct mpc_bus) == 8, "MP bus entry is 8 bytes");
_Static_assert(sizeof(struct mpc_ioapic) == 8, "MP IOAPIC entry is 8 bytes");
_Static_assert(sizeof(struct mpc_intsrc) == 8, "MP interrupt entry is 8 bytes");

enum { MP_PROCESSOR, MP_BUS, MP_IOAPIC, MP_INTSRC, MP_LINTSRC };
enum { MP_INT = 0, MP_NMI = 1, MP_EXTINT = 3 };
#define CPU_ENABLED    1
#define CPU_BOOTPROC   2
#define APIC_VERSION   0x14
#define IOAPIC_VERSION 0x11
#define ISA_BUS_ID     0

static uint8_t checksum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (len--)
		sum += *b++;
	return (uint8_t)-sum;
}

uint64_t mptable_size(unsigned ncpus, unsigned ioapic_pins)
{
	return sizeof(struct mpf_intel) + sizeof(struct mpc_table) +
	       ncpus * sizeof(struct mpc_cpu) + sizeof(struct mpc_bus) +
	       sizeof(struct mpc_ioapic) + (ioapic_pins + 2) * sizeof(struct mpc_intsrc);
}

int mptable_write(const struct gmem *gm, uint64_t addr, unsigned ncpus,
		  unsigned ioapic_pins)
{
	uint64_t size = mptable_size(ncpus, ioapic_pins);
	uint8_t *base, *p;

	/* APIC ids are 8 bits and the IOAPIC takes the id after the CPUs. */
	if (ncpus == 0 || ncpus > 254 || ioapic_pins == 0 || ioapic_pins > IOAPIC_PINS)
		return -EINVAL;
	base = gmem_ptr(gm, addr, size);
	if (!base)
		return -EFAULT;
	memset(base, 0, size);

	struct mpf_intel *mpf = (struct mpf_intel *)base;
	struct mpc_table *mpc = (struct mpc_table *)(mpf + 1);
	uint8_t ioapic_id = (uint8_t)ncpus;

	p = (uint8_t *)(mpc + 1);
	for (unsigned i = 0; i < ncpus; i++, p += sizeof(struct mpc_cpu)) {
		*(struct mpc_cpu *)p = (struct mpc_cpu){
			.type = MP_PROCESSOR, .apicid = (uint8_t)i, .apicver = APIC_VERSION,
			.cpuflag = CPU_ENABLED | (i == 0 ? CPU_BOOTPROC : 0),
			.cpufeature = 0x600,            /* family 6 */
			.featureflag = (1u << 0) | (1u << 9), /* FPU, APIC */
		};
	}
	*(struct mpc_bus *)p = (struct mpc_bus){
		.type = MP_BUS, .busid = ISA_BUS_ID, .bustype = "ISA   ",
	};
	p += sizeof(struct mpc_bus);
	*(struct mpc_ioapic *)p = (struct mpc_ioapic){
		.type = MP_IOAPIC, .apicid = ioapic_id, .apicver = IOAPIC_VERSION,
		.flags = 1, .apicaddr = (uint32_t)IOAPIC_ADDR,
	};
	p += sizeof(struct mpc_ioapic);
	/* Flags 0 = "conforms to the bus": ISA means edge-triggered, active
	 * high, which is what irqfd's assert-then-deassert delivers. */
	for (unsigned pin = 0; pin < ioapic_pins; pin++, p += sizeof(struct mpc_intsrc))
		*(struct mpc_intsrc *)p = (struct mpc_intsrc){
			.type = MP_INTSRC, .irqtype = MP_INT, .srcbus = ISA_BUS_ID,
			.srcbusirq = (uint8_t)pin, .dstapic = ioapic_id, .dstirq = (uint8_t)pin,
		};
	/* The legacy PIC reaches every LAPIC's LINT0, NMI their LINT1. */
	*(struct mpc_intsrc *)p = (struct mpc_intsrc){
		.type = MP_LINTSRC, .irqtype = MP_EXTINT, .srcbus = ISA_BUS_ID,
		.dstapic = 0xff, .dstirq = 0,
	};
	p += sizeof(struct mpc_intsrc);
	*(struct mpc_intsrc *)p = (struct mpc_intsrc){
		.type = MP_LINTSRC, .irqtype = MP_NMI, .srcbus = ISA_BUS_ID,
		.dstapic = 0xff, .dstirq = 1,
	};
	p += sizeof(struct mpc_intsrc);

	memcpy(mpc->signature, "PCMP", 4);
	mpc->length = (uint16_t)(p - (uint8_t *)mpc);
	mpc->spec = 4;
	/* The entry count (Linux calls it oemcount): the spec requires it
	 * even though Linux walks the table by length. */
	mpc->oemcount = (uint16_t)(ncpus + 2 + ioapic_pins + 2);
	memcpy(mpc->oem, "STAINLSS", 8);
	memcpy(mpc->productid, "MICROVM     ", 12);
	mpc->lapic = (uint32_t)LAPIC_ADDR;
	mpc->checksum = checksum(mpc, mpc->length);

	memcpy(mpf->signature, "_MP_", 4);
	mpf->physptr = (uint32_t)(addr + sizeof(*mpf));
	mpf->length = 1;
	mpf->specification = 4;
	mpf->checksum = checksum(mpf, sizeof(*mpf));
	return (int)(p - base);
}
