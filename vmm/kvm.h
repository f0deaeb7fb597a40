/* SPDX-License-Identifier: GPL-2.0-only */
/* The KVM VM: /dev/kvm, the VM fd, in-kernel irqchip/PIT, memory slots. */
#ifndef STAINLESS_VMM_KVM_H
#define STAINLESS_VMM_KVM_H

#include <stdbool.h>
#include <stdint.h>

struct kvm_cpuid2;

struct kvm {
	int sys_fd;          /* /dev/kvm */
	int vm_fd;
	int run_size;        /* size of each vCPU's kvm_run mapping */
	int max_vcpus;
	unsigned next_slot;
	struct kvm_cpuid2 *cpuid; /* KVM_GET_SUPPORTED_CPUID */
};

/*
 * Open /dev/kvm and create a VM with the in-kernel irqchip and PIT.
 * On failure returns -errno and a one-line reason in err.
 */
int kvm_open(struct kvm *kvm, char *err, unsigned errlen);
/*
 * Whether /dev/kvm is the software PVM module (kvm_pvm), which runs tiny
 * guests but cannot boot an unmodified Linux kernel (it fails on INT3 and
 * XRSTOR).
 */
bool kvm_is_software_pvm(void);
void kvm_close(struct kvm *kvm);
int kvm_add_memslot(struct kvm *kvm, uint64_t gpa, uint64_t size, void *host);
/* Assert (level 1) or deassert (0) an IOAPIC/PIC input line. */
int kvm_irq_line(struct kvm *kvm, unsigned irq, int level);

#endif
