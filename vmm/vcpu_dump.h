/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a vCPU was doing when the guest died: a ring of its last exits to
 * userspace, and a one-time report of its registers, control registers,
 * descriptor tables and pending events when KVM says the CPU shut down (a
 * triple fault). Issue 23: a triple fault seen only in the nested test host
 * needed more than "the CPU shut down" to be told apart from the host's.
 */
#ifndef STAINLESS_VMM_VCPU_DUMP_H
#define STAINLESS_VMM_VCPU_DUMP_H

#include <linux/kvm.h>
#include <stddef.h>
#include <stdint.h>

#define VCPU_TRACE_LEN 16

/* One exit: its reason, and the port or address it touched. */
struct vcpu_exit_rec {
	uint32_t reason;
	uint32_t len;
	uint64_t addr;
	uint64_t count;      /* this exit's number since the vCPU started */
};

struct vcpu_trace {
	struct vcpu_exit_rec ring[VCPU_TRACE_LEN];
	uint64_t exits;
};

/* Record run's exit (called once per KVM_RUN return; no system call). */
void vcpu_trace_exit(struct vcpu_trace *t, const struct kvm_run *run);

/* The report as text into buf (always NUL-terminated); returns its length.
 * Any of regs, sregs, events may be NULL (KVM refused to give it). */
size_t vcpu_dump_format(char *buf, size_t len, unsigned id, const struct kvm_regs *regs,
			const struct kvm_sregs *sregs, const struct kvm_vcpu_events *events,
			const struct vcpu_trace *t);

/* Read the vCPU's state from vcpu_fd and write the report to fd 2. */
void vcpu_dump_shutdown(int vcpu_fd, unsigned id, const struct vcpu_trace *t);

#endif
