// SPDX-License-Identifier: GPL-2.0-only
/*
 * vcpu_trace_exit() and vcpu_dump_format() (vmm/vcpu_dump.c): the exit
 * ring keeps the last VCPU_TRACE_LEN exits in order, and the triple-fault
 * report names the registers, the pending exception and those exits, never
 * running past its buffer.
 */
#include <check.h>
#include <string.h>

#include "tests/unit/check_main.h"
#include "vmm/vcpu_dump.h"

static void exit_io(struct vcpu_trace *t, uint16_t port, int out)
{
	struct kvm_run run = { .exit_reason = KVM_EXIT_IO };

	run.io.port = port;
	run.io.size = 1;
	run.io.direction = out ? KVM_EXIT_IO_OUT : KVM_EXIT_IO_IN;
	vcpu_trace_exit(t, &run);
}

START_TEST(test_ring_keeps_the_last_exits_in_order)
{
	struct vcpu_trace t = { 0 };
	char buf[4096];

	for (unsigned i = 0; i < VCPU_TRACE_LEN + 5; i++)
		exit_io(&t, (uint16_t)(0x100 + i), 1);
	struct kvm_run mmio = { .exit_reason = KVM_EXIT_MMIO };
	mmio.mmio.phys_addr = 0xd0000070;
	mmio.mmio.len = 4;
	vcpu_trace_exit(&t, &mmio);
	ck_assert_uint_eq(t.exits, VCPU_TRACE_LEN + 6);
	vcpu_dump_format(buf, sizeof(buf), 0, NULL, NULL, NULL, &t);
	ck_assert_ptr_nonnull(strstr(buf, "last 16 of 22 exits"));
	/* The oldest kept exit is the 7th (port 0x106); 0x105 fell out. */
	ck_assert_ptr_null(strstr(buf, "io>105/1"));
	ck_assert_ptr_nonnull(strstr(buf, "io>106/1 io>107/1"));
	ck_assert_ptr_nonnull(strstr(buf, "io>114/1 mmio<d0000070/4\n"));
}
END_TEST

START_TEST(test_report_names_state_and_pending_exception)
{
	struct vcpu_trace t = { 0 };
	struct kvm_regs r = { .rip = 0xffffffff81000123ull, .rsp = 0x1000 };
	struct kvm_sregs s = { .cr2 = 0xdead000, .cr3 = 0x9000 };
	struct kvm_vcpu_events e = { 0 };
	char buf[4096];

	s.idt.base = 0xfffffe0000000000ull;
	s.idt.limit = 0xfff;
	e.exception.injected = 1;
	e.exception.nr = 14;
	e.exception.has_error_code = 1;
	e.exception.error_code = 2;
	exit_io(&t, 0x3f8, 1);
	vcpu_dump_format(buf, sizeof(buf), 1, &r, &s, &e, &t);
	ck_assert_ptr_nonnull(strstr(buf, "vcpu 1 at shutdown: rip=ffffffff81000123 rsp=1000"));
	ck_assert_ptr_nonnull(strstr(buf, "cr2=dead000 cr3=9000"));
	ck_assert_ptr_nonnull(strstr(buf, "idt=fffffe0000000000/fff"));
	ck_assert_ptr_nonnull(strstr(buf, "exception injected nr=14 error=0x2"));
	ck_assert_ptr_nonnull(strstr(buf, "last 1 of 1 exits to userspace: io>3f8/1\n"));
}
END_TEST

START_TEST(test_report_is_bounded)
{
	struct vcpu_trace t = { 0 };
	struct kvm_regs r = { 0 };
	struct kvm_sregs s = { 0 };
	char buf[64];

	memset(buf, 'x', sizeof(buf));
	for (unsigned i = 0; i < 3 * VCPU_TRACE_LEN; i++)
		exit_io(&t, 0x80, 1);
	size_t n = vcpu_dump_format(buf, 40, 0, &r, &s, NULL, &t);
	ck_assert_uint_le(n, 39);
	ck_assert_uint_eq(strlen(buf), n);
	ck_assert_int_eq(buf[40], 'x');
	ck_assert_uint_eq(vcpu_dump_format(buf, 0, 0, &r, &s, NULL, &t), 0);
}
END_TEST

static Suite *vcpu_dump_suite(void)
{
	Suite *s = suite_create("vcpu_dump");
	TCase *tc = tcase_create("vcpu_dump");

	tcase_add_test(tc, test_ring_keeps_the_last_exits_in_order);
	tcase_add_test(tc, test_report_names_state_and_pending_exception);
	tcase_add_test(tc, test_report_is_bounded);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(vcpu_dump_suite());
}
