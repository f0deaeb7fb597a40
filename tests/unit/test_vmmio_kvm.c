// SPDX-License-Identifier: GPL-2.0-only
/*
 * The transport's KVM side on a real VM fd (no vCPU needed): the irqfd is
 * assigned at creation, a queue's ioeventfd (QueueNotify address,
 * datamatch = queue index) exactly while it is ready, and both are gone
 * after reset/destroy. Proven by asking KVM to assign the same binding
 * again: it refuses a duplicate with EEXIST. Without a usable /dev/kvm the
 * tests print SKIP and why.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <sys/ioctl.h>

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
	.name = "tkvm", .device_id = 77, .num_queues = 2, .queue_size_max = 8,
	.handle = nop_handle,
};
static struct virtio_dev kdev = { .ops = &kdev_ops };

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
			printf("SKIP %s: %s\n", __func__, skip_why);  \
			return;                                       \
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
	struct kvm_irqfd f = { .fd = (uint32_t)vmmio_irq_fd(t), .gsi = GSI };

	SKIP_IF_NO_KVM();
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

static Suite *kvm_suite(void)
{
	Suite *s = suite_create("vmmio-kvm");
	TCase *tc = tcase_create("kvm");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_irqfd_assigned);
	tcase_add_test(tc, t_ioeventfd_follows_ready);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kvm_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
