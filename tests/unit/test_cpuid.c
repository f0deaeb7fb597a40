// SPDX-License-Identifier: GPL-2.0-only
/*
 * vcpu_cpuid_fixup() (vmm/vcpu.c) on a hand-built CPUID table shaped like
 * KVM_GET_SUPPORTED_CPUID's: the APIC id, the topology (one package of
 * ncpus single-threaded cores) and the hypervisor bit a guest reads back.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check_main.h"
#include "vmm/vcpu.h"

#define HYPERVISOR (1u << 31)   /* leaf 1 ECX */
#define HTT        (1u << 28)   /* leaf 1 EDX */

/* What a host might report; every field the fixup should not touch has a
 * recognisable value. */
static const struct kvm_cpuid_entry2 host[] = {
	{ .function = 0, .eax = 0x1f, .ebx = 0x756e6547, .ecx = 0x6c65746e, .edx = 0x49656e69 },
	{ .function = 1, .eax = 0x000906ea, .ebx = 0x12345678,
	  .ecx = 0x7ffafbff, .edx = 0x0789fbff & ~HTT },
	/* Leaf 4: L1d (type 1, level 1), L3 (type 3, level 3), then the end. */
	{ .function = 4, .index = 0, .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX,
	  .eax = (7u << 26) | (1u << 14) | (1u << 8) | (1u << 5) | 1,
	  .ebx = 0x01c0003f, .ecx = 0x3f, .edx = 0 },
	{ .function = 4, .index = 1, .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX,
	  .eax = (7u << 26) | (15u << 14) | (1u << 9) | (1u << 8) | (3u << 5) | 3,
	  .ebx = 0x02c0003f, .ecx = 0x3fff, .edx = 6 },
	{ .function = 4, .index = 2, .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX },
	{ .function = 7, .index = 0, .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX,
	  .ebx = 0x029c6fbf, .ecx = 0x40000000 },
	{ .function = 0xb, .index = 0, .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX,
	  .eax = 1, .ebx = 2, .ecx = 0x100, .edx = 0x77 },
	{ .function = 0xb, .index = 1, .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX,
	  .eax = 4, .ebx = 16, .ecx = 0x201, .edx = 0x77 },
	{ .function = 0xb, .index = 2, .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX,
	  .eax = 9, .ebx = 9, .ecx = 0x999, .edx = 0x77 },
	{ .function = 0x1f, .index = 0, .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX,
	  .eax = 1, .ebx = 2, .ecx = 0x100, .edx = 0x77 },
	{ .function = 0x1f, .index = 1, .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX,
	  .eax = 4, .ebx = 16, .ecx = 0x201, .edx = 0x77 },
	{ .function = 0x80000001, .ecx = 0x121, .edx = 0x2c100800 },
	{ .function = 0x80000008, .eax = 0x3030, .ebx = 0x1234, .ecx = 0xf00f, .edx = 0x55 },
	{ .function = 0x8000001e, .eax = 0x99, .ebx = 0x0107, .ecx = 0x0303, .edx = 0x66 },
};
#define NHOST (sizeof(host) / sizeof(host[0]))

static struct kvm_cpuid2 *cpuid;

/* A fresh copy of the host table, fixed up for vCPU id of ncpus. */
static void fixup(unsigned id, unsigned ncpus)
{
	free(cpuid);
	cpuid = calloc(1, sizeof(*cpuid) + sizeof(host));
	ck_assert_ptr_nonnull(cpuid);
	cpuid->nent = NHOST;
	memcpy(cpuid->entries, host, sizeof(host));
	vcpu_cpuid_fixup(cpuid, id, ncpus);
}

static const struct kvm_cpuid_entry2 *leaf(uint32_t fn, uint32_t index)
{
	for (unsigned i = 0; i < cpuid->nent; i++)
		if (cpuid->entries[i].function == fn && cpuid->entries[i].index == index)
			return &cpuid->entries[i];
	ck_abort_msg("leaf %#x.%u missing", fn, index);
	return NULL;
}

static const struct kvm_cpuid_entry2 *host_leaf(uint32_t fn, uint32_t index)
{
	for (unsigned i = 0; i < NHOST; i++)
		if (host[i].function == fn && host[i].index == index)
			return &host[i];
	return NULL;
}

static unsigned bits(uint32_t v, unsigned hi, unsigned lo)
{
	return (v >> lo) & ((1u << (hi - lo + 1)) - 1);
}

/* (id, ncpus) pairs: uniprocessor, small SMP, non-power-of-two, the max. */
static const unsigned cases[][2] = {
	{ 0, 1 }, { 0, 2 }, { 1, 2 }, { 2, 3 }, { 3, 4 }, { 4, 5 }, { 63, 64 },
	{ 64, 65 }, { 100, 128 }, { 0, 255 }, { 254, 255 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static unsigned expected_shift(unsigned ncpus)
{
	unsigned s = 0;

	while ((1u << s) < ncpus)
		s++;
	return s;
}

START_TEST(test_leaf1_apic_id_and_logical_count)
{
	unsigned id = cases[_i][0], n = cases[_i][1];
	const struct kvm_cpuid_entry2 *e;

	fixup(id, n);
	e = leaf(1, 0);
	ck_assert_uint_eq(bits(e->ebx, 31, 24), id);     /* initial APIC id */
	ck_assert_uint_eq(bits(e->ebx, 23, 16), n);      /* logical CPUs per package */
	ck_assert_uint_eq(bits(e->ebx, 15, 8), 8);       /* CLFLUSH: 64 bytes */
	ck_assert_uint_eq(e->eax, host_leaf(1, 0)->eax); /* family/model untouched */
}
END_TEST

START_TEST(test_leaf1_hypervisor_bit)
{
	const struct kvm_cpuid_entry2 *e;

	fixup(0, 1);
	e = leaf(1, 0);
	ck_assert(e->ecx & HYPERVISOR);
	ck_assert_uint_eq(e->ecx & ~HYPERVISOR, host_leaf(1, 0)->ecx);
	fixup(7, 8);
	ck_assert(leaf(1, 0)->ecx & HYPERVISOR);
}
END_TEST

START_TEST(test_leaf1_htt_only_with_several_cpus)
{
	fixup(0, 1);
	ck_assert_uint_eq(leaf(1, 0)->edx & HTT, 0);
	ck_assert_uint_eq(leaf(1, 0)->edx, host_leaf(1, 0)->edx);
	fixup(0, 2);
	ck_assert_uint_eq(leaf(1, 0)->edx & HTT, HTT);
	ck_assert_uint_eq(leaf(1, 0)->edx & ~HTT, host_leaf(1, 0)->edx);
	fixup(254, 255);
	ck_assert_uint_eq(leaf(1, 0)->edx & HTT, HTT);
}
END_TEST

START_TEST(test_leaf4_cache_topology)
{
	unsigned id = cases[_i][0], n = cases[_i][1];
	unsigned cores = n > 64 ? 64 : n;   /* EAX[31:26] holds 6 bits */
	const struct kvm_cpuid_entry2 *l1, *l3;

	fixup(id, n);
	l1 = leaf(4, 0);
	l3 = leaf(4, 1);
	/* Cache type, level and properties survive. */
	ck_assert_uint_eq(bits(l1->eax, 13, 0), bits(host_leaf(4, 0)->eax, 13, 0));
	ck_assert_uint_eq(bits(l3->eax, 13, 0), bits(host_leaf(4, 1)->eax, 13, 0));
	/* Threads sharing - 1: L1 is private, L3 shared by every CPU. */
	ck_assert_uint_eq(bits(l1->eax, 25, 14), 0);
	ck_assert_uint_eq(bits(l3->eax, 25, 14), n - 1);
	/* Cores per package - 1, saturating rather than wrapping. */
	ck_assert_msg(bits(l1->eax, 31, 26) == cores - 1,
		      "ncpus %u: L1 cores field %u", n, bits(l1->eax, 31, 26));
	ck_assert_msg(bits(l3->eax, 31, 26) == cores - 1,
		      "ncpus %u: L3 cores field %u", n, bits(l3->eax, 31, 26));
	/* Geometry registers untouched. */
	ck_assert_uint_eq(l1->ebx, host_leaf(4, 0)->ebx);
	ck_assert_uint_eq(l3->ecx, host_leaf(4, 1)->ecx);
	ck_assert_uint_eq(l3->edx, host_leaf(4, 1)->edx);
}
END_TEST

START_TEST(test_leaf4_null_subleaf_untouched)
{
	fixup(3, 4);
	ck_assert_int_eq(memcmp(leaf(4, 2), host_leaf(4, 2), sizeof(host[0])), 0);
}
END_TEST

static void check_ext_topology(uint32_t fn, unsigned id, unsigned n)
{
	const struct kvm_cpuid_entry2 *smt = leaf(fn, 0), *core = leaf(fn, 1);

	/* SMT level: one thread per core, so no id bits. */
	ck_assert_uint_eq(smt->edx, id);              /* x2APIC id */
	ck_assert_uint_eq(bits(smt->eax, 4, 0), 0);
	ck_assert_uint_eq(bits(smt->ebx, 15, 0), 1);
	ck_assert_uint_eq(bits(smt->ecx, 15, 8), 1);  /* type SMT */
	ck_assert_uint_eq(bits(smt->ecx, 7, 0), 0);
	/* Core level: enough id bits for ncpus, ncpus logical CPUs. */
	ck_assert_uint_eq(core->edx, id);
	ck_assert_uint_eq(bits(core->eax, 4, 0), expected_shift(n));
	ck_assert_uint_eq(bits(core->ebx, 15, 0), n);
	ck_assert_uint_eq(bits(core->ecx, 15, 8), 2); /* type core */
	ck_assert_uint_eq(bits(core->ecx, 7, 0), 1);
	/* Every CPU's id falls in package 0. */
	ck_assert_uint_eq(id >> bits(core->eax, 4, 0), 0);
	ck_assert_uint_eq((n - 1) >> bits(core->eax, 4, 0), 0);
}

START_TEST(test_leaf_b_x2apic_id_and_topology)
{
	unsigned id = cases[_i][0], n = cases[_i][1];
	const struct kvm_cpuid_entry2 *end;

	fixup(id, n);
	check_ext_topology(0xb, id, n);
	/* Past the core level: the invalid level that ends the list. */
	end = leaf(0xb, 2);
	ck_assert_uint_eq(end->edx, id);
	ck_assert_uint_eq(end->eax, 0);
	ck_assert_uint_eq(bits(end->ebx, 15, 0), 0);
	ck_assert_uint_eq(bits(end->ecx, 15, 8), 0);
	ck_assert_uint_eq(bits(end->ecx, 7, 0), 2);
}
END_TEST

START_TEST(test_leaf_1f_like_leaf_b)
{
	unsigned id = cases[_i][0], n = cases[_i][1];

	fixup(id, n);
	check_ext_topology(0x1f, id, n);
}
END_TEST

START_TEST(test_amd_core_count_0x80000008)
{
	unsigned id = cases[_i][0], n = cases[_i][1];
	const struct kvm_cpuid_entry2 *e;

	fixup(id, n);
	e = leaf(0x80000008, 0);
	ck_assert_uint_eq(bits(e->ecx, 7, 0), n - 1);             /* NC */
	ck_assert_uint_eq(bits(e->ecx, 15, 12), expected_shift(n)); /* ApicIdSize */
	ck_assert_uint_eq(e->eax, host_leaf(0x80000008, 0)->eax);  /* address sizes */
	ck_assert_uint_eq(e->ebx, host_leaf(0x80000008, 0)->ebx);
}
END_TEST

START_TEST(test_amd_topology_0x8000001e)
{
	unsigned id = cases[_i][0], n = cases[_i][1];
	const struct kvm_cpuid_entry2 *e;

	fixup(id, n);
	e = leaf(0x8000001e, 0);
	ck_assert_uint_eq(e->eax, id);                  /* extended APIC id */
	ck_assert_uint_eq(bits(e->ebx, 7, 0), id);      /* core id */
	ck_assert_uint_eq(bits(e->ebx, 15, 8), 0);      /* one thread per core */
	ck_assert_uint_eq(bits(e->ecx, 7, 0), 0);       /* node 0 */
	ck_assert_uint_eq(bits(e->ecx, 10, 8), 0);      /* one node */
}
END_TEST

START_TEST(test_other_leaves_untouched)
{
	static const uint32_t fns[] = { 0, 7, 0x80000001 };

	fixup(5, 8);
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		ck_assert_msg(memcmp(leaf(fns[i], 0), host_leaf(fns[i], 0), sizeof(host[0])) == 0,
			      "leaf %#x changed", fns[i]);
	ck_assert_uint_eq(cpuid->nent, NHOST);
}
END_TEST

START_TEST(test_empty_table)
{
	struct kvm_cpuid2 empty = { .nent = 0 };

	vcpu_cpuid_fixup(&empty, 0, 1);
	ck_assert_uint_eq(empty.nent, 0);
}
END_TEST

static void teardown(void)
{
	free(cpuid);
	cpuid = NULL;
}

static Suite *cpuid_suite(void)
{
	Suite *s = suite_create("cpuid");
	TCase *tc = tcase_create("cpuid");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_loop_test(tc, test_leaf1_apic_id_and_logical_count, 0, NCASES);
	tcase_add_test(tc, test_leaf1_hypervisor_bit);
	tcase_add_test(tc, test_leaf1_htt_only_with_several_cpus);
	tcase_add_loop_test(tc, test_leaf4_cache_topology, 0, NCASES);
	tcase_add_test(tc, test_leaf4_null_subleaf_untouched);
	tcase_add_loop_test(tc, test_leaf_b_x2apic_id_and_topology, 0, NCASES);
	tcase_add_loop_test(tc, test_leaf_1f_like_leaf_b, 0, NCASES);
	tcase_add_loop_test(tc, test_amd_core_count_0x80000008, 0, NCASES);
	tcase_add_loop_test(tc, test_amd_topology_0x8000001e, 0, NCASES);
	tcase_add_test(tc, test_other_leaves_untouched);
	tcase_add_test(tc, test_empty_table);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(cpuid_suite());
}
