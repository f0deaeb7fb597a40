// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvm-sanity: proves that /dev/kvm on this machine runs guest code, without
 * any of stainless. It creates a VM with one page of RAM, runs a few
 * real-mode instructions (a summing loop, two port writes, hlt) and checks
 * every exit. The e2e runner uses it to tell "the host's KVM is broken" apart
 * from "stainless is broken", and to measure what an exit to userspace costs.
 * Built static so it runs in the nested test host's initramfs as is.
 * Exit status: 0 works, 1 does not, 77 no /dev/kvm (skip).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define GUEST_PAGE   0x1000u
#define SUM_PORT     0x10u
#define DONE_PORT    0xe9u
#define SPIN_PORT    0x11u
#define SPINS        200u

/*
 * 16-bit real-mode code loaded at GUEST_PAGE:
 *	xor  ax, ax
 *	mov  cx, 1000
 * 1:	add  ax, cx
 *	dec  cx
 *	jnz  1b
 *	out  0x10, ax        ; 500500 mod 65536 = 0xa314
 *	mov  cx, SPINS
 * 2:	out  0x11, al        ; one exit each, timed by the host
 *	dec  cx
 *	jnz  2b
 *	mov  al, 0x42
 *	out  0xe9, al
 *	hlt
 */
static const uint8_t guest_code[] = {
	0x31, 0xc0,
	0xb9, 0xe8, 0x03,
	0x01, 0xc8,
	0x49,
	0x75, 0xfb,
	0xe7, SUM_PORT,
	0xb9, SPINS & 0xff, SPINS >> 8,
	0xe6, SPIN_PORT,
	0x49,
	0x75, 0xfb,
	0xb0, 0x42,
	0xe6, DONE_PORT,
	0xf4,
};

static int fail(const char *what)
{
	fprintf(stderr, "kvm-sanity: %s: %s\n", what, strerror(errno));
	return 1;
}

static int bad_exit(struct kvm_run *run, const char *want)
{
	if (run->exit_reason == KVM_EXIT_IO)
		fprintf(stderr, "kvm-sanity: want %s, got port %s 0x%x size %u\n", want,
			run->io.direction == KVM_EXIT_IO_OUT ? "out" : "in",
			run->io.port, run->io.size);
	else if (run->exit_reason == KVM_EXIT_FAIL_ENTRY)
		fprintf(stderr, "kvm-sanity: want %s, got failed entry (reason 0x%llx)\n",
			want, (unsigned long long)run->fail_entry.hardware_entry_failure_reason);
	else
		fprintf(stderr, "kvm-sanity: want %s, got exit reason %u\n", want,
			run->exit_reason);
	return 1;
}

static uint32_t io_value(struct kvm_run *run)
{
	uint32_t v = 0;

	memcpy(&v, (uint8_t *)run + run->io.data_offset, run->io.size);
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	struct kvm_userspace_memory_region region;
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_run *run;
	int kvm, vm, vcpu, api, mmap_size;
	unsigned int spins = 0;
	double t0, t1;
	uint8_t *mem;

	/* A wedged vCPU must not hang the test run. */
	alarm(20);

	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0) {
		if (errno == ENOENT) {
			printf("no /dev/kvm on this machine\n");
			return 77;
		}
		return fail("open /dev/kvm");
	}
	api = ioctl(kvm, KVM_GET_API_VERSION, 0);
	if (api != KVM_API_VERSION) {
		fprintf(stderr, "kvm-sanity: KVM API version %d, want %d\n", api, KVM_API_VERSION);
		return 1;
	}
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		return fail("KVM_CREATE_VM");
	/* Needed on Intel before the first real-mode entry; harmless elsewhere. */
	if (ioctl(vm, KVM_SET_TSS_ADDR, 0xfffbd000ul) < 0)
		return fail("KVM_SET_TSS_ADDR");

	mem = mmap(NULL, 0x1000, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return fail("mmap guest memory");
	memcpy(mem, guest_code, sizeof(guest_code));
	region = (struct kvm_userspace_memory_region){
		.slot = 0,
		.guest_phys_addr = GUEST_PAGE,
		.memory_size = 0x1000,
		.userspace_addr = (uintptr_t)mem,
	};
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		return fail("KVM_SET_USER_MEMORY_REGION");

	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0)
		return fail("KVM_CREATE_VCPU");
	mmap_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (mmap_size < (int)sizeof(*run))
		return fail("KVM_GET_VCPU_MMAP_SIZE");
	run = mmap(NULL, mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		return fail("mmap kvm_run");

	if (ioctl(vcpu, KVM_GET_SREGS, &sregs) < 0)
		return fail("KVM_GET_SREGS");
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) < 0)
		return fail("KVM_SET_SREGS");
	memset(&regs, 0, sizeof(regs));
	regs.rip = GUEST_PAGE;
	regs.rflags = 0x2;
	if (ioctl(vcpu, KVM_SET_REGS, &regs) < 0)
		return fail("KVM_SET_REGS");

	if (ioctl(vcpu, KVM_RUN, 0) < 0)
		return fail("KVM_RUN");
	if (run->exit_reason != KVM_EXIT_IO || run->io.port != SUM_PORT || run->io.size != 2)
		return bad_exit(run, "out 0x10 (16-bit)");
	if (io_value(run) != 0xa314) {
		fprintf(stderr, "kvm-sanity: guest summed to 0x%x, want 0xa314\n", io_value(run));
		return 1;
	}

	t0 = now();
	for (;;) {
		if (ioctl(vcpu, KVM_RUN, 0) < 0)
			return fail("KVM_RUN");
		if (run->exit_reason != KVM_EXIT_IO || run->io.port != SPIN_PORT)
			break;
		spins++;
	}
	t1 = now();
	if (spins != SPINS) {
		fprintf(stderr, "kvm-sanity: %u port exits in the loop, want %u\n", spins, SPINS);
		return 1;
	}
	if (run->exit_reason != KVM_EXIT_IO || run->io.port != DONE_PORT ||
	    io_value(run) != 0x42)
		return bad_exit(run, "out 0xe9 = 0x42");
	if (ioctl(vcpu, KVM_RUN, 0) < 0)
		return fail("KVM_RUN");
	if (run->exit_reason != KVM_EXIT_HLT)
		return bad_exit(run, "hlt");

	printf("kvm-sanity: real-mode guest ran: sum 0xa314, %u port exits at %.1f us each, hlt\n",
	       spins, (t1 - t0) * 1e6 / (spins + 1));
	return 0;
}
