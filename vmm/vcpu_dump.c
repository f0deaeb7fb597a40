// SPDX-License-Identifier: GPL-2.0-only
/* The vCPU's last exits and its state at a triple fault (see vcpu_dump.h). */
#include "vmm/vcpu_dump.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

void vcpu_trace_exit(struct vcpu_trace *t, const struct kvm_run *run)
{
	struct vcpu_exit_rec *r = &t->ring[t->exits % VCPU_TRACE_LEN];

	r->reason = run->exit_reason;
	r->count = t->exits++;
	r->addr = 0;
	r->len = 0;
	if (run->exit_reason == KVM_EXIT_IO) {
		r->addr = run->io.port;
		r->len = run->io.size | (uint32_t)run->io.direction << 8;
	} else if (run->exit_reason == KVM_EXIT_MMIO) {
		r->addr = run->mmio.phys_addr;
		r->len = run->mmio.len | (uint32_t)run->mmio.is_write << 8;
	}
}

/* A bounded appender: the report never runs past buf, whatever it holds. */
struct out {
	char *buf;
	size_t len, used;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->used + 1 >= o->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used += (size_t)n < o->len - o->used ? (size_t)n : o->len - o->used - 1;
}

static const char *exit_name(uint32_t reason)
{
	switch (reason) {
	case KVM_EXIT_IO: return "io";
	case KVM_EXIT_MMIO: return "mmio";
	case KVM_EXIT_HLT: return "hlt";
	case KVM_EXIT_SHUTDOWN: return "shutdown";
	case KVM_EXIT_INTR: return "intr";
	case KVM_EXIT_SYSTEM_EVENT: return "system-event";
	case KVM_EXIT_INTERNAL_ERROR: return "internal-error";
	case KVM_EXIT_FAIL_ENTRY: return "fail-entry";
	default: return "other";
	}
}

static void put_seg(struct out *o, const char *name, const struct kvm_segment *s)
{
	put(o, " %s=%04x/%llx/%x/t%u%s%s", name, s->selector, (unsigned long long)s->base, s->limit,
	    s->type, s->present ? "p" : "", s->l ? "l" : "");
}

static void put_state(struct out *o, unsigned id, const struct kvm_regs *r,
		      const struct kvm_sregs *s, const struct kvm_vcpu_events *e)
{
	if (r)
		put(o, "vcpu %u at shutdown: rip=%llx rsp=%llx rflags=%llx rax=%llx rbx=%llx rcx=%llx rdx=%llx rsi=%llx rdi=%llx rbp=%llx\n",
		    id, (unsigned long long)r->rip, (unsigned long long)r->rsp,
		    (unsigned long long)r->rflags, (unsigned long long)r->rax,
		    (unsigned long long)r->rbx, (unsigned long long)r->rcx,
		    (unsigned long long)r->rdx, (unsigned long long)r->rsi,
		    (unsigned long long)r->rdi, (unsigned long long)r->rbp);
	if (s) {
		put(o, "vcpu %u at shutdown: cr0=%llx cr2=%llx cr3=%llx cr4=%llx efer=%llx apic_base=%llx idt=%llx/%x gdt=%llx/%x",
		    id, (unsigned long long)s->cr0, (unsigned long long)s->cr2,
		    (unsigned long long)s->cr3, (unsigned long long)s->cr4,
		    (unsigned long long)s->efer, (unsigned long long)s->apic_base,
		    (unsigned long long)s->idt.base, s->idt.limit,
		    (unsigned long long)s->gdt.base, s->gdt.limit);
		put_seg(o, "cs", &s->cs);
		put_seg(o, "ss", &s->ss);
		put_seg(o, "tr", &s->tr);
		put(o, "\n");
	}
	if (e)
		put(o, "vcpu %u at shutdown: exception %s%s nr=%u error=%#x; interrupt %s nr=%u; nmi %s%s\n",
		    id, e->exception.injected ? "injected" : "-", e->exception.pending ? "+pending" : "",
		    e->exception.nr, e->exception.has_error_code ? e->exception.error_code : 0,
		    e->interrupt.injected ? "injected" : "-", e->interrupt.nr,
		    e->nmi.injected ? "injected" : "-", e->nmi.pending ? "+pending" : "");
}

size_t vcpu_dump_format(char *buf, size_t len, unsigned id, const struct kvm_regs *regs,
			const struct kvm_sregs *sregs, const struct kvm_vcpu_events *events,
			const struct vcpu_trace *t)
{
	struct out o = { buf, len, 0 };
	uint64_t first = t->exits > VCPU_TRACE_LEN ? t->exits - VCPU_TRACE_LEN : 0;

	if (!len)
		return 0;
	buf[0] = 0;
	put_state(&o, id, regs, sregs, events);
	put(&o, "vcpu %u: last %llu of %llu exits to userspace:", id,
	    (unsigned long long)(t->exits - first), (unsigned long long)t->exits);
	for (uint64_t n = first; n < t->exits; n++) {
		const struct vcpu_exit_rec *r = &t->ring[n % VCPU_TRACE_LEN];

		put(&o, " %s", exit_name(r->reason));
		if (r->reason == KVM_EXIT_IO || r->reason == KVM_EXIT_MMIO)
			put(&o, "%s%llx/%u", (r->len >> 8) ? ">" : "<", (unsigned long long)r->addr,
			    r->len & 0xff);
	}
	put(&o, "\n");
	return o.used;
}

void vcpu_dump_shutdown(int vcpu_fd, unsigned id, const struct vcpu_trace *t)
{
	struct kvm_regs regs;
	struct kvm_sregs sregs;
	struct kvm_vcpu_events events;
	char buf[2048];
	size_t n;
	bool r_ok, s_ok, e_ok;

	r_ok = ioctl(vcpu_fd, KVM_GET_REGS, &regs) == 0;
	s_ok = ioctl(vcpu_fd, KVM_GET_SREGS, &sregs) == 0;
	e_ok = ioctl(vcpu_fd, KVM_GET_VCPU_EVENTS, &events) == 0;
	n = vcpu_dump_format(buf, sizeof(buf), id, r_ok ? &regs : NULL, s_ok ? &sregs : NULL,
			     e_ok ? &events : NULL, t);
	/* Best effort: the VM is going down whatever this write does. */
	if (write(2, buf, n) < 0)
		return;
}
