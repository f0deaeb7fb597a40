// SPDX-License-Identifier: GPL-2.0-only
/* vCPU set-up and run loop (see vcpu.h). */
#include "vmm/vcpu.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/exit.h"
#include "fs/fs_log.h"
#include "base/thread.h"
#include "vmm/boot.h"
#include "vmm/layout.h"

#define VCPU_KICK_SIGNAL SIGUSR1

#define MSR_IA32_TSC            0x10
#define MSR_IA32_SYSENTER_CS    0x174
#define MSR_IA32_SYSENTER_ESP   0x175
#define MSR_IA32_SYSENTER_EIP   0x176
#define MSR_IA32_MISC_ENABLE    0x1a0
#define MSR_MTRR_DEF_TYPE       0x2ff
#define MSR_STAR                0xc0000081
#define MSR_LSTAR               0xc0000082
#define MSR_CSTAR               0xc0000083
#define MSR_SYSCALL_MASK        0xc0000084
#define MSR_KERNEL_GS_BASE      0xc0000102

#define CR0_PE   (1u << 0)
#define CR0_ET   (1u << 4)
#define CR0_NE   (1u << 5)
#define CR0_PG   (1u << 31)
#define CR4_PAE  (1u << 5)
#define EFER_LME (1u << 8)
#define EFER_LMA (1u << 10)

#define APIC_LVT_LINT0  0x350
#define APIC_LVT_LINT1  0x360
#define APIC_MODE_NMI    4
#define APIC_MODE_EXTINT 7

static __thread struct kvm_run *tls_run;

static void kick_handler(int sig)
{
	/* Makes a KVM_RUN that is just about to start return -EINTR at once,
	 * closing the window between checking `stopping` and entering it. */
	if (tls_run)
		tls_run->immediate_exit = 1;
}

int vcpu_init_signals(void)
{
	struct sigaction sa = { .sa_handler = kick_handler };

	sigemptyset(&sa.sa_mask);
	return sigaction(VCPU_KICK_SIGNAL, &sa, NULL) < 0 ? -errno : 0;
}

static unsigned bits_for(unsigned n)
{
	unsigned b = 0;

	while ((1u << b) < n)
		b++;
	return b;
}

void vcpu_cpuid_fixup(struct kvm_cpuid2 *c, unsigned id, unsigned ncpus)
{
	unsigned shift = bits_for(ncpus);

	for (unsigned i = 0; i < c->nent; i++) {
		struct kvm_cpuid_entry2 *e = &c->entries[i];

		switch (e->function) {
		case 1:
			/* APIC id, logical CPUs per package, CLFLUSH line size
			 * in 8-byte units; we run under a hypervisor. */
			e->ebx = (id << 24) | ((ncpus > 255 ? 255 : ncpus) << 16) | (8 << 8);
			e->ecx |= 1u << 31;
			if (ncpus > 1)
				e->edx |= 1u << 28; /* HTT: the count above is valid */
			break;
		case 4:
			/* One package of ncpus single-threaded cores; caches are
			 * per core except the last level. */
			if (e->eax & 0x1f) {
				unsigned level = (e->eax >> 5) & 7;
				unsigned sharing = level >= 3 ? ncpus - 1 : 0;
				/* EAX[31:26] has 6 bits: saturate, don't wrap. */
				unsigned cores = ncpus > 64 ? 64 : ncpus;

				e->eax = (e->eax & 0x3fff) | (sharing << 14) | ((cores - 1) << 26);
			}
			break;
		case 0xb:
		case 0x1f:
			e->edx = id; /* x2APIC id */
			if (e->index == 0) {        /* SMT level: one thread */
				e->eax = 0;
				e->ebx = 1;
				e->ecx = (1u << 8) | 0;
			} else if (e->index == 1) { /* core level */
				e->eax = shift;
				e->ebx = ncpus;
				e->ecx = (2u << 8) | 1;
			} else {
				e->eax = e->ebx = 0;
				e->ecx = e->index;
			}
			break;
		case 0x80000008:
			/* AMD: APIC id bits and cores per package - 1. */
			e->ecx = (shift << 12) | (ncpus - 1);
			break;
		case 0x8000001e:
			/* AMD topology: extended APIC id, core id, node 0. */
			e->eax = id;
			e->ebx = id & 0xff;
			e->ecx = 0;
			break;
		default:
			break;
		}
	}
}

static int set_cpuid(struct vcpu *v, struct kvm *kvm, unsigned ncpus)
{
	size_t sz = sizeof(*kvm->cpuid) + kvm->cpuid->nent * sizeof(kvm->cpuid->entries[0]);
	struct kvm_cpuid2 *c = malloc(sz);
	int rc = 0;

	if (!c)
		return -ENOMEM;
	memcpy(c, kvm->cpuid, sz);
	vcpu_cpuid_fixup(c, v->id, ncpus);
	if (ioctl(v->fd, KVM_SET_CPUID2, c) < 0)
		rc = -errno;
	free(c);
	return rc;
}

static int set_msrs(struct vcpu *v)
{
	static const struct { uint32_t index; uint64_t value; } defaults[] = {
		{ MSR_IA32_SYSENTER_CS, 0 }, { MSR_IA32_SYSENTER_ESP, 0 },
		{ MSR_IA32_SYSENTER_EIP, 0 }, { MSR_STAR, 0 }, { MSR_CSTAR, 0 },
		{ MSR_KERNEL_GS_BASE, 0 }, { MSR_SYSCALL_MASK, 0 }, { MSR_LSTAR, 0 },
		{ MSR_IA32_TSC, 0 },
		{ MSR_IA32_MISC_ENABLE, 1 },            /* fast string operations */
		{ MSR_MTRR_DEF_TYPE, (1u << 11) | 6 },   /* MTRRs on, write-back */
	};
	enum { N = sizeof(defaults) / sizeof(defaults[0]) };
	struct {
		struct kvm_msrs hdr;
		struct kvm_msr_entry e[N];
	} m = { .hdr.nmsrs = N };

	for (unsigned i = 0; i < N; i++) {
		m.e[i].index = defaults[i].index;
		m.e[i].data = defaults[i].value;
	}
	int n = ioctl(v->fd, KVM_SET_MSRS, &m);
	if (n < 0)
		return -errno;
	if (n != N)
		fs_log(FS_LOG_WARN, "vcpu %u: KVM refused MSR %#x", v->id, m.e[n].index);
	return 0;
}

static void lapic_set_lvt_mode(struct kvm_lapic_state *l, unsigned reg, unsigned mode)
{
	uint32_t val;

	memcpy(&val, l->regs + reg, sizeof(val));
	val = (val & ~0x700u) | (mode << 8);
	memcpy(l->regs + reg, &val, sizeof(val));
}

static int set_lapic(struct vcpu *v)
{
	struct kvm_lapic_state l;

	if (ioctl(v->fd, KVM_GET_LAPIC, &l) < 0)
		return -errno;
	lapic_set_lvt_mode(&l, APIC_LVT_LINT0, APIC_MODE_EXTINT);
	lapic_set_lvt_mode(&l, APIC_LVT_LINT1, APIC_MODE_NMI);
	return ioctl(v->fd, KVM_SET_LAPIC, &l) < 0 ? -errno : 0;
}

static struct kvm_segment segment_from_gdt(unsigned selector)
{
	uint64_t d = boot_gdt_entry(selector);
	uint8_t access = (uint8_t)(d >> 40), flags = (uint8_t)(d >> 52);

	return (struct kvm_segment){
		.base = 0, .limit = 0xffffffff, .selector = (uint16_t)selector,
		.type = access & 0xf, .present = (access >> 7) & 1,
		.dpl = (access >> 5) & 3, .s = (access >> 4) & 1,
		.l = (flags >> 1) & 1, .db = (flags >> 2) & 1, .g = (flags >> 3) & 1,
	};
}

static int set_boot_registers(struct vcpu *v, uint64_t entry, uint64_t boot_params)
{
	struct kvm_sregs s;
	struct kvm_regs r = {
		.rflags = 2, .rip = entry, .rsi = boot_params,
		.rsp = BOOT_STACK_TOP, .rbp = BOOT_STACK_TOP,
	};
	struct kvm_fpu fpu = { .fcw = 0x37f, .mxcsr = 0x1f80 };

	if (ioctl(v->fd, KVM_GET_SREGS, &s) < 0)
		return -errno;
	s.cs = segment_from_gdt(BOOT_GDT_CODE);
	s.ds = s.es = s.fs = s.gs = s.ss = segment_from_gdt(BOOT_GDT_DATA);
	s.gdt.base = GDT_ADDR;
	s.gdt.limit = 4 * 8 - 1;
	s.idt.base = 0;
	s.idt.limit = 0;
	s.cr0 = CR0_PE | CR0_ET | CR0_NE | CR0_PG;
	s.cr3 = PML4_ADDR;
	s.cr4 = CR4_PAE;
	s.efer = EFER_LME | EFER_LMA;
	if (ioctl(v->fd, KVM_SET_SREGS, &s) < 0 || ioctl(v->fd, KVM_SET_REGS, &r) < 0 ||
	    ioctl(v->fd, KVM_SET_FPU, &fpu) < 0)
		return -errno;
	return 0;
}

int vcpu_create(struct vcpu *v, struct kvm *kvm, unsigned id, unsigned ncpus,
		uint64_t entry, uint64_t boot_params, const struct vcpu_env *env,
		char *err, unsigned errlen)
{
	const char *step;
	int rc;

	memset(v, 0, sizeof(*v));
	v->fd = -1;
	v->id = id;
	v->env = env;
	v->fd = ioctl(kvm->vm_fd, KVM_CREATE_VCPU, (unsigned long)id);
	if (v->fd < 0) {
		rc = -errno;
		step = "KVM_CREATE_VCPU";
		goto fail;
	}
	v->run = mmap(NULL, (size_t)kvm->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, v->fd, 0);
	if (v->run == MAP_FAILED) {
		rc = -errno;
		v->run = NULL;
		step = "mmap kvm_run";
		goto fail;
	}
	step = "CPUID";
	if ((rc = set_cpuid(v, kvm, ncpus)) < 0)
		goto fail;
	step = "MSRs";
	if ((rc = set_msrs(v)) < 0)
		goto fail;
	step = "LAPIC";
	if ((rc = set_lapic(v)) < 0)
		goto fail;
	step = "boot registers";
	if (id == 0 && (rc = set_boot_registers(v, entry, boot_params)) < 0)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "vcpu %u: %s: %s", id, step, strerror(-rc));
	vcpu_join_destroy(v, kvm->run_size);
	return rc;
}

static void handle_io(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;

	for (uint32_t i = 0; i < run->io.count; i++, data += run->io.size)
		bus_dispatch(v->env->pio, run->io.port, data, run->io.size,
			     run->io.direction == KVM_EXIT_IO_OUT);
}

static void *vcpu_thread(void *arg)
{
	struct vcpu *v = arg;
	const struct vcpu_env *env = v->env;
	struct kvm_run *run = v->run;
	char why[128];

	snprintf(why, sizeof(why), "vcpu%u", v->id);
	(void)pthread_setname_np(pthread_self(), why);  /* also the seccomp log's comm */
	tls_run = run;
	while (!*env->stopping) {
		if (ioctl(v->fd, KVM_RUN, 0) < 0) {
			if (errno == EINTR || errno == EAGAIN) {
				run->immediate_exit = 0;
				continue;
			}
			/*
			 * A file page mapped into a DAX window that is past
			 * the file's end (truncated on the host meanwhile, or
			 * mapped there by the guest) cannot be faulted in.
			 */
			bool dax = errno == EFAULT && env->has_dax && *env->has_dax;
			snprintf(why, sizeof(why), "vcpu %u: KVM_RUN: %s%s", v->id, strerror(errno),
				 dax ? " (a DAX window page past the end of its host file?)" : "");
			env->stop(env->ctx, EXIT_FAILED, why);
			break;
		}
		vcpu_trace_exit(&v->trace, run);
		switch (run->exit_reason) {
		case KVM_EXIT_IO:
			handle_io(v);
			break;
		case KVM_EXIT_MMIO:
			bus_dispatch(env->mmio, run->mmio.phys_addr, run->mmio.data,
				     run->mmio.len, run->mmio.is_write);
			break;
		case KVM_EXIT_SHUTDOWN:
			vcpu_dump_shutdown(v->fd, v->id, &v->trace);
			env->stop(env->ctx, EXIT_GUEST,
				  "the guest failed: triple fault (the CPU shut down)");
			return NULL;
		case KVM_EXIT_SYSTEM_EVENT:
			if (run->system_event.type == KVM_SYSTEM_EVENT_CRASH) {
				env->stop(env->ctx, EXIT_GUEST, "the guest failed: it reported a crash");
			} else {
				env->stop(env->ctx, EXIT_OK, NULL);
			}
			return NULL;
		case KVM_EXIT_INTERNAL_ERROR:
			snprintf(why, sizeof(why), "vcpu %u: KVM internal error (suberror %u)",
				 v->id, run->internal.suberror);
			env->stop(env->ctx, EXIT_FAILED, why);
			return NULL;
		case KVM_EXIT_FAIL_ENTRY:
			snprintf(why, sizeof(why), "vcpu %u: VM entry failed (reason %#llx)", v->id,
				 (unsigned long long)run->fail_entry.hardware_entry_failure_reason);
			env->stop(env->ctx, EXIT_FAILED, why);
			return NULL;
		case KVM_EXIT_HLT:
			env->stop(env->ctx, EXIT_GUEST, "the guest failed: it halted with interrupts off");
			return NULL;
		default:
			snprintf(why, sizeof(why), "vcpu %u: unexpected KVM exit %u", v->id,
				 run->exit_reason);
			env->stop(env->ctx, EXIT_FAILED, why);
			return NULL;
		}
	}
	return NULL;
}

int vcpu_start(struct vcpu *v)
{
	int rc = fs_thread_create(&v->thread, NULL, FS_ROLE_VCPU, vcpu_thread, v);

	if (rc)
		return rc;
	v->started = true;
	return 0;
}

void vcpu_kick(struct vcpu *v)
{
	if (v->started)
		pthread_kill(v->thread, VCPU_KICK_SIGNAL);
}

void vcpu_join_destroy(struct vcpu *v, int run_size)
{
	if (v->started)
		pthread_join(v->thread, NULL);
	v->started = false;
	if (v->run)
		munmap(v->run, (size_t)run_size);
	if (v->fd >= 0)
		close(v->fd);
	v->run = NULL;
	v->fd = -1;
}
