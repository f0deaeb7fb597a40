// SPDX-License-Identifier: GPL-2.0-only
/*
 * MP specification 1.4 tables (vmm/mptable.c), read back the way a guest
 * does: by byte offsets from the specification, not the writer's structs.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "devices/gmem.h"
#include "tests/unit/check_main.h"
#include "vmm/layout.h"
#include "vmm/mptable.h"

#define RAM_SIZE (1u << 20)

/* Entry types and sizes, MP spec 1.4 table 4-3. */
enum { PROC = 0, BUS = 1, IOAPIC = 2, IOINT = 3, LINT = 4 };
#define PROC_SIZE  20
#define OTHER_SIZE 8
#define MPF_SIZE   16
#define MPC_SIZE   44

static uint8_t *ram;
static struct gmem gm;

static void ram_setup(void)
{
	ram = mmap(NULL, RAM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(ram, MAP_FAILED);
	/* Stale bytes: every field the writer leaves alone would show. */
	memset(ram, 0xee, RAM_SIZE);
	gmem_init(&gm);
	ck_assert_int_eq(gmem_add_region(&gm, 0, RAM_SIZE, ram, -1, 0), 0);
}

static void ram_teardown(void)
{
	munmap(ram, RAM_SIZE);
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint8_t sum(const uint8_t *p, size_t len)
{
	uint8_t s = 0;

	while (len--)
		s += *p++;
	return s;
}

struct parsed {
	unsigned nproc, nbus, nioapic, nioint, nlint;
	unsigned bsp_count;
	const uint8_t *ioapic;
	const uint8_t *ioint[32];
	const uint8_t *lint[4];
};

/*
 * Checks the floating pointer and the configuration table header, walks the
 * entries and checks each processor entry; returns what was found.
 */
static void parse_table(uint64_t addr, unsigned ncpus, struct parsed *out)
{
	const uint8_t *mpf = ram + addr, *mpc, *p, *end;
	uint32_t physptr;
	uint16_t len;

	memset(out, 0, sizeof(*out));
	ck_assert_int_eq(memcmp(mpf, "_MP_", 4), 0);
	ck_assert_uint_eq(mpf[8], 1);          /* length in 16-byte units */
	ck_assert_uint_eq(mpf[9], 4);          /* spec revision 1.4 */
	ck_assert_uint_eq(sum(mpf, MPF_SIZE), 0);
	ck_assert_uint_eq(mpf[11], 0);         /* feature 1: table present */
	ck_assert_uint_eq(mpf[12] & 0x80, 0);  /* no IMCR: virtual wire */
	physptr = rd32(mpf + 4);
	ck_assert_uint_ge(physptr, addr + MPF_SIZE);
	ck_assert_uint_lt(physptr, RAM_SIZE - MPC_SIZE);

	mpc = ram + physptr;
	len = rd16(mpc + 4);
	ck_assert_int_eq(memcmp(mpc, "PCMP", 4), 0);
	ck_assert_uint_ge(len, MPC_SIZE);
	ck_assert_uint_le(physptr + len, RAM_SIZE);
	ck_assert_uint_eq(mpc[6], 4);                      /* spec revision */
	ck_assert_uint_eq(sum(mpc, len), 0);
	ck_assert_uint_eq(rd32(mpc + 28), 0);              /* no OEM table */
	ck_assert_uint_eq(rd16(mpc + 32), 0);
	ck_assert_uint_eq(rd32(mpc + 36), 0xfee00000u);    /* local APIC */
	ck_assert_uint_eq(rd16(mpc + 40), 0);              /* no extended table */
	ck_assert_uint_eq(mpc[42], 0);

	p = mpc + MPC_SIZE;
	end = mpc + len;
	while (p < end) {
		switch (p[0]) {
		case PROC:
			ck_assert(p + PROC_SIZE <= end);
			ck_assert_msg(p[1] == out->nproc, "processor entry %u has APIC id %u",
				      out->nproc, p[1]);
			ck_assert(p[3] & 1);                   /* enabled */
			if (p[3] & 2)
				out->bsp_count++;
			ck_assert_msg(!(p[3] & 2) == (p[1] != 0),
				      "CPU %u BSP flag %u", p[1], p[3] & 2);
			ck_assert(rd32(p + 8) & (1u << 9));    /* on-chip APIC */
			out->nproc++;
			p += PROC_SIZE;
			continue;
		case BUS:
			ck_assert_int_eq(memcmp(p + 2, "ISA   ", 6), 0);
			ck_assert_uint_eq(p[1], 0);
			out->nbus++;
			break;
		case IOAPIC:
			out->ioapic = p;
			out->nioapic++;
			break;
		case IOINT:
			ck_assert_uint_lt(out->nioint, 32);
			out->ioint[out->nioint++] = p;
			break;
		case LINT:
			ck_assert_uint_lt(out->nlint, 4);
			out->lint[out->nlint++] = p;
			break;
		default:
			ck_abort_msg("unknown MP entry type %u at +%td", p[0], p - mpc);
		}
		ck_assert(p + OTHER_SIZE <= end);
		p += OTHER_SIZE;
	}
	ck_assert_ptr_eq(p, end);
	/* The entry count agrees with what is there. */
	ck_assert_uint_eq(rd16(mpc + 34), out->nproc + out->nbus + out->nioapic +
					  out->nioint + out->nlint);
	ck_assert_uint_eq(out->nproc, ncpus);
}

static void check_table(unsigned ncpus)
{
	struct parsed t;
	int n;

	n = mptable_write(&gm, MPTABLE_ADDR, ncpus, IOAPIC_PINS);
	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq((uint64_t)n, mptable_size(ncpus, IOAPIC_PINS));
	/* The floating pointer comes first, the table right after it. */
	ck_assert_uint_eq(rd32(ram + MPTABLE_ADDR + 4), MPTABLE_ADDR + MPF_SIZE);
	ck_assert_uint_eq(MPF_SIZE + rd16(ram + MPTABLE_ADDR + MPF_SIZE + 4), (unsigned)n);
	ck_assert_uint_eq(ram[MPTABLE_ADDR + n], 0xee);   /* nothing past the end */

	parse_table(MPTABLE_ADDR, ncpus, &t);
	ck_assert_uint_eq(t.bsp_count, 1);
	ck_assert_uint_eq(t.nbus, 1);

	ck_assert_uint_eq(t.nioapic, 1);
	ck_assert_uint_eq(t.ioapic[1], ncpus);          /* id after the CPUs */
	ck_assert(t.ioapic[3] & 1);                     /* enabled */
	ck_assert_uint_eq(rd32(t.ioapic + 4), 0xfec00000u);

	ck_assert_uint_eq(t.nioint, 24);
	for (unsigned i = 0; i < t.nioint; i++) {
		const uint8_t *e = t.ioint[i];

		ck_assert_uint_eq(e[1], 0);               /* vectored interrupt */
		ck_assert_uint_eq(rd16(e + 2), 0);        /* conforms to ISA */
		ck_assert_uint_eq(e[4], 0);               /* the ISA bus */
		ck_assert_uint_eq(e[5], i);               /* source IRQ */
		ck_assert_uint_eq(e[6], ncpus);           /* the IOAPIC */
		ck_assert_uint_eq(e[7], i);               /* pin = irq */
	}

	ck_assert_uint_eq(t.nlint, 2);
	ck_assert_uint_eq(t.lint[0][1], 3);             /* ExtINT */
	ck_assert_uint_eq(t.lint[0][6], 0xff);          /* every LAPIC */
	ck_assert_uint_eq(t.lint[0][7], 0);             /* LINT0 */
	ck_assert_uint_eq(t.lint[1][1], 1);             /* NMI */
	ck_assert_uint_eq(t.lint[1][6], 0xff);
	ck_assert_uint_eq(t.lint[1][7], 1);             /* LINT1 */
}

START_TEST(test_one_cpu)
{
	check_table(1);
}
END_TEST

START_TEST(test_two_cpus)
{
	check_table(2);
}
END_TEST

START_TEST(test_64_cpus)
{
	check_table(64);
}
END_TEST

START_TEST(test_254_cpus_is_the_limit)
{
	check_table(254);
}
END_TEST

START_TEST(test_size_grows_per_cpu_and_pin)
{
	ck_assert_uint_eq(mptable_size(2, 24) - mptable_size(1, 24), PROC_SIZE);
	ck_assert_uint_eq(mptable_size(1, 24) - mptable_size(1, 23), OTHER_SIZE);
	/* pointer + header + cpu + bus + ioapic + 24 irqs + 2 lints */
	ck_assert_uint_eq(mptable_size(1, 24), 16 + 44 + 20 + 8 + 8 + 24 * 8 + 2 * 8);
}
END_TEST

START_TEST(test_fewer_pins)
{
	struct parsed t;
	int n = mptable_write(&gm, MPTABLE_ADDR, 2, 16);

	ck_assert_uint_eq((uint64_t)n, mptable_size(2, 16));
	parse_table(MPTABLE_ADDR, 2, &t);
	ck_assert_uint_eq(t.nioint, 16);
	ck_assert_uint_eq(t.ioint[15][7], 15);
}
END_TEST

START_TEST(test_other_address)
{
	struct parsed t;

	ck_assert_int_gt(mptable_write(&gm, 0xf0000, 4, IOAPIC_PINS), 0);
	ck_assert_uint_eq(rd32(ram + 0xf0000 + 4), 0xf0010);
	parse_table(0xf0000, 4, &t);
	ck_assert_uint_eq(ram[MPTABLE_ADDR], 0xee);
}
END_TEST

START_TEST(test_bad_cpu_count_refused)
{
	ck_assert_int_eq(mptable_write(&gm, MPTABLE_ADDR, 0, IOAPIC_PINS), -EINVAL);
	ck_assert_int_eq(mptable_write(&gm, MPTABLE_ADDR, 255, IOAPIC_PINS), -EINVAL);
	ck_assert_int_eq(mptable_write(&gm, MPTABLE_ADDR, 4096, IOAPIC_PINS), -EINVAL);
	ck_assert_int_eq(mptable_write(&gm, MPTABLE_ADDR, UINT32_MAX, IOAPIC_PINS), -EINVAL);
	ck_assert_uint_eq(ram[MPTABLE_ADDR], 0xee);
}
END_TEST

START_TEST(test_bad_pin_count_refused)
{
	ck_assert_int_eq(mptable_write(&gm, MPTABLE_ADDR, 1, 0), -EINVAL);
	ck_assert_int_eq(mptable_write(&gm, MPTABLE_ADDR, 1, IOAPIC_PINS + 1), -EINVAL);
	ck_assert_uint_eq(ram[MPTABLE_ADDR], 0xee);
}
END_TEST

START_TEST(test_past_guest_memory_refused)
{
	uint64_t size = mptable_size(2, IOAPIC_PINS);

	/* One byte short of fitting at the end of RAM. */
	ck_assert_int_eq(mptable_write(&gm, RAM_SIZE - size + 1, 2, IOAPIC_PINS), -EFAULT);
	ck_assert_uint_eq(ram[RAM_SIZE - size + 1], 0xee);
	ck_assert_int_eq(mptable_write(&gm, RAM_SIZE, 2, IOAPIC_PINS), -EFAULT);
	ck_assert_int_eq(mptable_write(&gm, UINT64_MAX - 16, 2, IOAPIC_PINS), -EFAULT);
	/* Exactly fitting is fine. */
	ck_assert_int_eq(mptable_write(&gm, RAM_SIZE - size, 2, IOAPIC_PINS), (int)size);
}
END_TEST

static Suite *mptable_suite(void)
{
	Suite *s = suite_create("mptable");
	TCase *tc = tcase_create("mptable");

	tcase_add_checked_fixture(tc, ram_setup, ram_teardown);
	tcase_add_test(tc, test_one_cpu);
	tcase_add_test(tc, test_two_cpus);
	tcase_add_test(tc, test_64_cpus);
	tcase_add_test(tc, test_254_cpus_is_the_limit);
	tcase_add_test(tc, test_size_grows_per_cpu_and_pin);
	tcase_add_test(tc, test_fewer_pins);
	tcase_add_test(tc, test_other_address);
	tcase_add_test(tc, test_bad_cpu_count_refused);
	tcase_add_test(tc, test_bad_pin_count_refused);
	tcase_add_test(tc, test_past_guest_memory_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(mptable_suite());
}
