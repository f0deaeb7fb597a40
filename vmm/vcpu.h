/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vCPUs: one thread each running KVM_RUN. Only configuration accesses
 * (serial, i8042, virtio-mmio registers) exit here; queue notifications
 * and interrupts stay in the kernel (ioeventfd/irqfd).
 */
#ifndef STAINLESS_VMM_VCPU_H
#define STAINLESS_VMM_VCPU_H

#include <linux/kvm.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "mmio/bus.h"
#include "vmm/kvm.h"
#include "vmm/vcpu_dump.h"

/* Why a vCPU asks the VM to stop; the VM turns it into an exit code. */
typedef void vcpu_stop_fn(void *ctx, int exit_code, const char *why);

struct vcpu_env {
	const struct bus *pio;
	const struct bus *mmio;
	vcpu_stop_fn *stop;
	void *ctx;
	volatile bool *stopping;
	const bool *has_dax;    /* a DAX window is mapped: explains an EFAULT */
};

struct vcpu {
	unsigned id;
	int fd;
	struct kvm_run *run;
	pthread_t thread;
	bool started;
	const struct vcpu_env *env;
	struct vcpu_trace trace;    /* its last exits, for a triple fault's report */
};

/* Create vCPU id and give it CPUID, MSRs, LAPIC LINT wiring and FPU state;
 * the bootstrap CPU (id 0) also gets 64-bit registers at entry. */
int vcpu_create(struct vcpu *v, struct kvm *kvm, unsigned id, unsigned ncpus,
		uint64_t entry, uint64_t boot_params, const struct vcpu_env *env,
		char *err, unsigned errlen);
int vcpu_start(struct vcpu *v);
/* Kick the thread out of KVM_RUN (env->stopping must already be true). */
void vcpu_kick(struct vcpu *v);
void vcpu_join_destroy(struct vcpu *v, int run_size);
/* Install the kick signal's handler; once per process, before vcpu_start. */
int vcpu_init_signals(void);

/* Exposed for unit tests: adjust KVM's supported CPUID for vCPU id. */
void vcpu_cpuid_fixup(struct kvm_cpuid2 *c, unsigned id, unsigned ncpus);

#endif
