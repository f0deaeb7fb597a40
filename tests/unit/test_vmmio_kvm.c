// SPDX-License-Identifier: GPL-2.0-only
/*
 * The transport's KVM side on a real VM fd (no vCPU needed): the irqfd is
 * assigned at creation, a queue's ioeventfd (QueueNotify address,
 * datamatch = queue index) exactly while it is ready, and both are gone
 * after reset/destroy. Proven by asking KVM to assign the same binding
 * again: it refuses a duplicate with EEXIST. Then a real vCPU kicks a
 * queue: the write must not exit to userspace, yet the worker must serve
 * the chain. Without a usable /dev/kvm the tests print SKIP and why.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include "tests/unit/check_main.h"
#include "tests/unit/fake_driver.h"

#define BASE 0xd0000000ULL
#define GSI 5

static int kvm_fd = -1, vm_fd = -1;
static const char *skip_why;

static struct vmmio *t;
static struct fd_mem mem;
static struct fake_vq fv;

static int nop_handle(struct virtio_dev *d, unsigned q, struct fs_req *req,
		      const struct fs_transport *tr)
{
	return 0;
}

static const struct virtio_dev_ops kdev_ops = {
	.name = "tkvm", .device_id = 77, .queue_size_max = 8,
	.handle = nop_handle,
};
static struct virtio_dev kdev = { .ops = &kdev_ops, .num_queues = 2 };

static void setup(void)
{
	struct vmmio_config c = {
		.base = BASE, .gsi = GSI, .gm = &mem.gm, .dev = &kdev,
	};

	skip_why = NULL;
	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0) {
		skip_why = "cannot open /dev/kvm";
		return;
	}
	vm_fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm_fd < 0 || ioctl(vm_fd, KVM_CREATE_IRQCHIP, 0) < 0) {
		skip_why = "KVM_CREATE_VM/KVM_CREATE_IRQCHIP failed";
		return;
	}
	ck_assert_int_eq(fd_mem_init(&mem, 1 << 20), 0);
	fvq_init(&fv, &mem, 8);
	c.vm_fd = vm_fd;
	ck_assert_int_eq(vmmio_create(&t, &c), 0);
}

static void teardown(void)
{
	if (!skip_why) {
		vmmio_destroy(t);
		fd_mem_free(&mem);
	}
	if (vm_fd >= 0)
		close(vm_fd);
	if (kvm_fd >= 0)
		close(kvm_fd);
}

#define SKIP_IF_NO_KVM()                                              \
	do {                                                          \
		if (skip_why) {                                       \
			UNIT_SKIP("%s", skip_why);                    \
		}                                                     \
	} while (0)

/* Try to bind queue q's notify ourselves: -EEXIST if the transport has. */
static int probe_ioeventfd(unsigned q)
{
	struct kvm_ioeventfd io = {
		.datamatch = q, .addr = BASE + VMMIO_QUEUE_NOTIFY, .len = 4,
		.fd = vmmio_kick_fd(t, q), .flags = KVM_IOEVENTFD_FLAG_DATAMATCH,
	};

	if (ioctl(vm_fd, KVM_IOEVENTFD, &io) < 0)
		return -errno;
	io.flags |= KVM_IOEVENTFD_FLAG_DEASSIGN;
	ioctl(vm_fd, KVM_IOEVENTFD, &io);
	return 0;
}

START_TEST(t_irqfd_assigned)
{
	struct kvm_irqfd f = { .gsi = GSI };

	SKIP_IF_NO_KVM();
	f.fd = (uint32_t)vmmio_irq_fd(t); /* t exists only where KVM does */
	ck_assert_int_eq(ioctl(vm_fd, KVM_IRQFD, &f), -1);
	ck_assert_int_eq(errno, EBUSY);
}
END_TEST

START_TEST(t_ioeventfd_follows_ready)
{
	SKIP_IF_NO_KVM();
	fd_negotiate(t, VIRTIO_FEAT_VERSION_1);
	ck_assert_int_eq(probe_ioeventfd(0), 0);     /* not ready: unbound */
	fd_setup_queue(t, 0, &fv);
	ck_assert_int_eq(probe_ioeventfd(0), -EEXIST);
	ck_assert_int_eq(probe_ioeventfd(1), 0);     /* only the ready one */
	fd_wr(t, VMMIO_QUEUE_READY, 0);              /* before DRIVER_OK */
	ck_assert_int_eq(probe_ioeventfd(0), 0);
	fd_wr(t, VMMIO_QUEUE_READY, 1);
	ck_assert_uint_eq(fd_driver_ok(t) & VIRTIO_STATUS_NEEDS_RESET, 0);
	ck_assert_int_eq(probe_ioeventfd(0), -EEXIST);
	fd_wr(t, VMMIO_STATUS, 0);
	ck_assert_int_eq(probe_ioeventfd(0), 0);     /* reset unbinds */
}
END_TEST

/*
 * A real vCPU writes QueueNotify. 16-bit real mode at 0x1000, the transport
 * window placed at 0xd0000 so plain segment arithmetic reaches it:
 *	mov  ax, 0xd000
 *	mov  ds, ax
 *	xor  eax, eax
 *	mov  [0x50], eax     ; notify queue 0 (ready): ioeventfd, no exit
 *	inc  eax
 *	mov  [0x50], eax     ; notify queue 1 (not ready): exits to us
 *	out  0x10, al
 *	hlt
 */
static const uint8_t notify_code[] = {
	0xb8, 0x00, 0xd0,
	0x8e, 0xd8,
	0x66, 0x31, 0xc0,
	0x66, 0xa3, 0x50, 0x00,
	0x66, 0x40,
	0x66, 0xa3, 0x50, 0x00,
	0xe6, 0x10,
	0xf4,
};

#define LOW_BASE 0xd0000ULL

START_TEST(t_guest_notify_stays_in_kernel)
{
	struct vmmio_config c = {
		.vm_fd = vm_fd, .base = LOW_BASE, .gsi = GSI + 1, .gm = &mem.gm,
		.dev = &kdev,
	};
	struct kvm_userspace_memory_region slot = {
		.slot = 0, .guest_phys_addr = 0x1000, .memory_size = 0x1000,
	};
	struct kvm_sregs sregs;
	struct kvm_regs regs = { .rip = 0x1000, .rflags = 2 };
	struct vmmio *low;
	struct kvm_run *run;
	int vcpu, mmio_exits = 0;
	uint8_t *code;
	long run_size;

	SKIP_IF_NO_KVM();
	ck_assert_int_eq(ioctl(vm_fd, KVM_SET_TSS_ADDR, 0xfffbd000ul), 0);
	code = mmap(NULL, 0x1000, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(code, MAP_FAILED);
	memcpy(code, notify_code, sizeof(notify_code));
	slot.userspace_addr = (uintptr_t)code;
	ck_assert_int_eq(ioctl(vm_fd, KVM_SET_USER_MEMORY_REGION, &slot), 0);
	vcpu = ioctl(vm_fd, KVM_CREATE_VCPU, 0);
	ck_assert_int_ge(vcpu, 0);
	run_size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	ck_assert_ptr_ne(run, MAP_FAILED);
	ck_assert_int_eq(ioctl(vcpu, KVM_GET_SREGS, &sregs), 0);
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	ck_assert_int_eq(ioctl(vcpu, KVM_SET_SREGS, &sregs), 0);
	ck_assert_int_eq(ioctl(vcpu, KVM_SET_REGS, &regs), 0);

	/* The driver side: queue 0 live with one chain waiting. */
	ck_assert_int_eq(vmmio_create(&low, &c), 0);
	fd_negotiate(low, VIRTIO_FEAT_VERSION_1);
	fd_setup_queue(low, 0, &fv);
	ck_assert_uint_eq(fd_driver_ok(low) & VIRTIO_STATUS_NEEDS_RESET, 0);
	fvq_set_desc(&fv, 0, fd_alloc(&mem, 8, 8), 8, VQ_DESC_F_WRITE, 0);
	fvq_publish(&fv, 0);

	for (;;) {
		ck_assert_int_eq(ioctl(vcpu, KVM_RUN, 0), 0);
		if (run->exit_reason == KVM_EXIT_IO && run->io.port == 0x10)
			break;
		ck_assert_int_eq(run->exit_reason, KVM_EXIT_MMIO);
		/* Only the notify for the queue that is not ready gets here. */
		ck_assert_uint_eq(run->mmio.phys_addr, LOW_BASE + VMMIO_QUEUE_NOTIFY);
		ck_assert_uint_eq(run->mmio.len, 4);
		ck_assert_uint_eq(run->mmio.data[0], 1);
		vmmio_bus_access(low, run->mmio.phys_addr - LOW_BASE, run->mmio.data,
				 run->mmio.len, run->mmio.is_write);
		mmio_exits++;
	}
	ck_assert_int_eq(mmio_exits, 1);
	/* The ioeventfd woke the worker, which used the chain. */
	ck_assert_int_eq(fvq_wait_used(&fv, 1, 5000), 0);
	vmmio_destroy(low);
	munmap(run, run_size);
	close(vcpu);
	munmap(code, 0x1000);
}
END_TEST

static Suite *kvm_suite(void)
{
	Suite *s = suite_create("vmmio-kvm");
	TCase *tc = tcase_create("kvm");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_irqfd_assigned);
	tcase_add_test(tc, t_ioeventfd_follows_ready);
	tcase_add_test(tc, t_guest_notify_stays_in_kernel);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(kvm_suite());
}
