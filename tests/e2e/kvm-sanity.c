// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvm-sanity: proves that /dev/kvm on this machine runs guest code, without
 * any of stainless. It creates a VM with one page of RAM, runs a few
 * real-mode instructions (a summing loop, two port writes, hlt) and checks
 * every exit. The e2e runner uses it to tell "the host's KVM is broken" apart
 * from "stainless is broken", and to measure what an exit to userspace costs.
 * Built static so it runs in the nested test host's initramfs as is.
 * Exit status: 0 works, 1 does not, 77 no /dev/kvm (skip).
 *
 * `kvm-sanity xsetbv` asks something else: whether this KVM sees a guest's
 * XSETBV. The guest enables OSXSAVE, writes XCR0 = x87|SSE|AVX, asks
 * CPUID 0xD for the XSAVE area size (KVM answers from its own idea of the
 * guest's XCR0) and reads XCR0 back after that exit. On hardware KVM
 * intercepts XSETBV: size 832, XCR0 7. Where the host CPU is emulated and
 * does not honour that intercept, KVM never learns of the write, answers
 * 576 and loads its stale XCR0 = 1 on the next entry: the guest's AVX state
 * silently disappears under it. Prints what it saw; exit 0 consistent,
 * 2 XSETBV lost, 1 could not tell.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdbool.h>
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

/*
 * 16-bit real-mode code for `xsetbv` (32-bit operands by prefix):
 *	mov  eax, cr4 ; or eax, 1 << 18 (OSXSAVE) ; mov cr4, eax
 *	xor  ecx, ecx ; xor edx, edx ; mov eax, 7 ; xsetbv
 *	mov  eax, 0xd ; xor ecx, ecx ; cpuid ; mov eax, ebx ; out 0x12, eax
 *	xor  ecx, ecx ; xgetbv ; out 0x13, eax
 *	hlt
 */
#define XSIZE_PORT 0x12u
#define XCR0_PORT  0x13u
static const uint8_t xsetbv_code[] = {
	0x0f, 0x20, 0xe0,
	0x66, 0x0d, 0x00, 0x00, 0x04, 0x00,
	0x0f, 0x22, 0xe0,
	0x66, 0x31, 0xc9,
	0x66, 0x31, 0xd2,
	0x66, 0xb8, 0x07, 0x00, 0x00, 0x00,
	0x0f, 0x01, 0xd1,
	0x66, 0xb8, 0x0d, 0x00, 0x00, 0x00,
	0x66, 0x31, 0xc9,
	0x0f, 0xa2,
	0x66, 0x89, 0xd8,
	0x66, 0xe7, XSIZE_PORT,
	0x66, 0x31, 0xc9,
	0x0f, 0x01, 0xd0,
	0x66, 0xe7, XCR0_PORT,
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

static int xsetbv_probe(int kvm, int vcpu, struct kvm_run *run);

int main(int argc, char **argv)
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
	bool probe = argc > 1 && strcmp(argv[1], "xsetbv") == 0;
	if (probe)
		memcpy(mem, xsetbv_code, sizeof(xsetbv_code));
	else
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

	if (probe)
		return xsetbv_probe(kvm, vcpu, run);
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

/* The guest gets the CPUID KVM supports, so OSXSAVE and AVX are allowed. */
static int set_cpuid(int kvm, int vcpu)
{
	static struct {
		struct kvm_cpuid2 c;
		struct kvm_cpuid_entry2 e[256];
	} cpuid = { .c.nent = 256 };

	if (ioctl(kvm, KVM_GET_SUPPORTED_CPUID, &cpuid) < 0)
		return fail("KVM_GET_SUPPORTED_CPUID");
	if (ioctl(vcpu, KVM_SET_CPUID2, &cpuid) < 0)
		return fail("KVM_SET_CPUID2");
	return 0;
}

static int xsetbv_probe(int kvm, int vcpu, struct kvm_run *run)
{
	struct kvm_xcrs xcrs = { 0 };
	uint32_t size, xcr0;

	if (set_cpuid(kvm, vcpu))
		return 1;
	if (ioctl(vcpu, KVM_RUN, 0) < 0)
		return fail("KVM_RUN");
	if (run->exit_reason != KVM_EXIT_IO || run->io.port != XSIZE_PORT)
		return bad_exit(run, "out 0x12 (CPUID 0xD EBX)");
	size = io_value(run);
	if (ioctl(vcpu, KVM_RUN, 0) < 0)
		return fail("KVM_RUN");
	if (run->exit_reason != KVM_EXIT_IO || run->io.port != XCR0_PORT)
		return bad_exit(run, "out 0x13 (XGETBV)");
	xcr0 = io_value(run);
	if (ioctl(vcpu, KVM_GET_XCRS, &xcrs) < 0)
		return fail("KVM_GET_XCRS");
	printf("kvm-sanity xsetbv: guest wrote XCR0=0x7; CPUID 0xD EBX=%u; guest reads XCR0=0x%x "
	       "after an exit; KVM holds XCR0=0x%llx\n", size, xcr0,
	       xcrs.nr_xcrs ? (unsigned long long)xcrs.xcrs[0].value : 0ull);
	if (xcr0 == 7 && size > 576)
		return 0;
	printf("kvm-sanity xsetbv: this KVM never saw the guest's XSETBV: the CPU under it "
	       "does not intercept XSETBV for KVM\n");
	return 2;
}
