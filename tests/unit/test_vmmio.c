// SPDX-License-Identifier: GPL-2.0-only
/*
 * virtio-mmio transport registers, driven through the bus access function
 * as a guest would: identification, feature negotiation, the status state
 * machine, queue set-up rules, config space, interrupts, shared-memory
 * regions, and the bad register accesses, each ignored with a log line.
 */
#include <check.h>
#include <errno.h>
#include <stdatomic.h>

#include "tests/unit/check_main.h"
#include "tests/unit/fake_driver.h"

#define TDEV_ID   42
#define TDEV_QMAX 16
#define TDEV_FEAT VIRTIO_BIT(3)

static uint8_t tdev_cfg[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
static int tdev_resets;

static void tdev_cfg_read(struct virtio_dev *d, uint32_t off, void *data,
			  unsigned size)
{
	memcpy(data, tdev_cfg + off, size);
}

static void tdev_cfg_write(struct virtio_dev *d, uint32_t off,
			   const void *data, unsigned size)
{
	memcpy(tdev_cfg + off, data, size);
}

/*
 * With tdev_block[0] >= 0 a request waits for a byte on that pipe first: a
 * handler stuck in a host system call. tdev_started counts handlers begun.
 */
static int tdev_block[2] = { -1, -1 };
static _Atomic int tdev_block_rd = -1;
static _Atomic int tdev_started = -1;

static int tdev_handle(struct virtio_dev *d, unsigned q, struct fs_req *req,
		       const struct fs_transport *t)
{
	char c;

	if (tdev_started >= 0)
		eventfd_write(tdev_started, 1);
	int fd = tdev_block_rd;
	if (fd >= 0)
		(void)!read(fd, &c, 1);
	return 0;
}

static void tdev_reset(struct virtio_dev *d)
{
	tdev_resets++;
}

static const struct virtio_dev_ops tdev_ops = {
	.name = "tdev", .device_id = TDEV_ID, .features = TDEV_FEAT,
	.queue_size_max = TDEV_QMAX, .config_size = 8,
	.config_read = tdev_cfg_read, .config_write = tdev_cfg_write,
	.handle = tdev_handle, .reset = tdev_reset,
};

static struct virtio_dev tdev = {
	.ops = &tdev_ops, .num_queues = 2, .nr_shm = 1,
	.shm = { { .id = 0, .len = 1ULL << 30 } },
};

static struct fd_mem mem;
static struct vmmio *t;
static struct fake_vq fv;

#define FEAT_OK (VIRTIO_FEAT_VERSION_1 | VIRTIO_FEAT_EVENT_IDX)

static void setup(void)
{
	struct vmmio_config c = {
		.vm_fd = -1, .base = 0xd0000000, .gsi = 5, .gm = &mem.gm,
		.dev = &tdev,
	};

	ck_assert_int_eq(fd_mem_init(&mem, 1 << 20), 0);
	fvq_init(&fv, &mem, TDEV_QMAX);
	ck_assert_int_eq(vmmio_create(&t, &c), 0);
	tdev_resets = 0;
}

static void teardown(void)
{
	vmmio_destroy(t);
	fd_mem_free(&mem);
}

static struct vmmio_queue_info qinfo(unsigned q)
{
	struct vmmio_queue_info qi;

	ck_assert_int_eq(vmmio_queue_info(t, q, &qi), 0);
	return qi;
}

START_TEST(t_identity)
{
	char frag[64];

	ck_assert_uint_eq(fd_rd(t, VMMIO_MAGIC_VALUE), 0x74726976);
	ck_assert_uint_eq(fd_rd(t, VMMIO_VERSION_REG), 2);
	ck_assert_uint_eq(fd_rd(t, VMMIO_DEVICE_ID), TDEV_ID);
	ck_assert_uint_eq(fd_rd(t, VMMIO_VENDOR), VMMIO_VENDOR_ID);
	ck_assert_int_gt(vmmio_cmdline(t, frag, sizeof(frag)), 0);
	ck_assert_str_eq(frag, "virtio_mmio.device=4K@0xd0000000:5");
	ck_assert_int_eq(vmmio_cmdline(t, frag, 10), -ENOSPC);
}
END_TEST

START_TEST(t_device_features)
{
	fd_wr(t, VMMIO_DEV_FEATURES_SEL, 0);
	ck_assert_uint_eq(fd_rd(t, VMMIO_DEV_FEATURES),
			  (uint32_t)(TDEV_FEAT | VIRTIO_FEAT_INDIRECT | VIRTIO_FEAT_EVENT_IDX));
	fd_wr(t, VMMIO_DEV_FEATURES_SEL, 1);
	ck_assert_uint_eq(fd_rd(t, VMMIO_DEV_FEATURES), 1); /* VERSION_1 */
	fd_wr(t, VMMIO_DEV_FEATURES_SEL, 7);
	ck_assert_uint_eq(fd_rd(t, VMMIO_DEV_FEATURES), 0);
}
END_TEST

START_TEST(t_negotiate_ok)
{
	ck_assert_uint_eq(fd_negotiate(t, FEAT_OK | TDEV_FEAT),
			  VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER |
			  VIRTIO_STATUS_FEATURES_OK);
	ck_assert_uint_eq(vmmio_features(t), FEAT_OK | TDEV_FEAT);
}
END_TEST

START_TEST(t_bad_features_ok_without_version_1)
{
	ck_assert_uint_eq(fd_negotiate(t, VIRTIO_FEAT_EVENT_IDX) &
			  VIRTIO_STATUS_FEATURES_OK, 0);
	/* ...and DRIVER_OK cannot follow a refused negotiation. */
	ck_assert_uint_eq(fd_driver_ok(t) & VIRTIO_STATUS_DRIVER_OK, 0);
}
END_TEST

START_TEST(t_bad_features_not_offered)
{
	ck_assert_uint_eq(fd_negotiate(t, FEAT_OK | VIRTIO_BIT(5)) &
			  VIRTIO_STATUS_FEATURES_OK, 0);
}
END_TEST

START_TEST(t_bad_driver_ok_before_features_ok)
{
	fd_wr(t, VMMIO_STATUS, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
	fd_wr(t, VMMIO_STATUS, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER |
			       VIRTIO_STATUS_DRIVER_OK);
	ck_assert_uint_eq(fd_rd(t, VMMIO_STATUS),
			  VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
}
END_TEST

START_TEST(t_bad_status_clears_bits)
{
	fd_negotiate(t, FEAT_OK);
	fd_wr(t, VMMIO_STATUS, VIRTIO_STATUS_ACKNOWLEDGE);
	ck_assert_uint_eq(fd_rd(t, VMMIO_STATUS) & VIRTIO_STATUS_FEATURES_OK,
			  VIRTIO_STATUS_FEATURES_OK);
}
END_TEST

START_TEST(t_bad_features_after_features_ok)
{
	fd_negotiate(t, FEAT_OK);
	fd_wr(t, VMMIO_DRV_FEATURES_SEL, 0);
	fd_wr(t, VMMIO_DRV_FEATURES, (uint32_t)TDEV_FEAT);
	ck_assert_uint_eq(vmmio_features(t), FEAT_OK);
}
END_TEST

START_TEST(t_queue_setup)
{
	struct vmmio_queue_info qi;

	fd_negotiate(t, FEAT_OK);
	fd_wr(t, VMMIO_QUEUE_SEL, 0);
	ck_assert_uint_eq(fd_rd(t, VMMIO_QUEUE_NUM_MAX), TDEV_QMAX);
	fd_wr(t, VMMIO_QUEUE_SEL, 2);  /* no such queue */
	ck_assert_uint_eq(fd_rd(t, VMMIO_QUEUE_NUM_MAX), 0);
	fd_setup_queue(t, 1, &fv);
	qi = qinfo(1);
	ck_assert(qi.ready);
	ck_assert_uint_eq(qi.num, TDEV_QMAX);
	ck_assert_uint_eq(qi.desc, fv.desc);
	ck_assert_uint_eq(qi.avail, fv.avail);
	ck_assert_uint_eq(qi.used, fv.used);
	ck_assert_uint_eq(fd_rd(t, VMMIO_QUEUE_READY), 1);
	ck_assert_uint_eq(fd_driver_ok(t) & VIRTIO_STATUS_NEEDS_RESET, 0);
	ck_assert(qinfo(1).running);
	ck_assert(!qinfo(0).running);
}
END_TEST

START_TEST(t_bad_queue_num)
{
	fd_negotiate(t, FEAT_OK);
	fd_wr(t, VMMIO_QUEUE_SEL, 0);
	fd_wr(t, VMMIO_QUEUE_NUM, 8);
	fd_wr(t, VMMIO_QUEUE_NUM, 12);            /* not a power of two */
	ck_assert_uint_eq(qinfo(0).num, 8);
	fd_wr(t, VMMIO_QUEUE_NUM, 2 * TDEV_QMAX); /* above QueueNumMax */
	ck_assert_uint_eq(qinfo(0).num, 8);
	fd_wr(t, VMMIO_QUEUE_NUM, 0);
	ck_assert_uint_eq(qinfo(0).num, 8);
}
END_TEST

START_TEST(t_bad_queue_setup_while_ready)
{
	fd_negotiate(t, FEAT_OK);
	fd_setup_queue(t, 0, &fv);
	fd_wr(t, VMMIO_QUEUE_NUM, 4);
	fd_wr(t, VMMIO_QUEUE_AVAIL_LOW, 0x1000);
	ck_assert_uint_eq(qinfo(0).num, TDEV_QMAX);
	ck_assert_uint_eq(qinfo(0).avail, fv.avail);
	ck_assert_uint_eq(fd_driver_ok(t) & VIRTIO_STATUS_NEEDS_RESET, 0);
}
END_TEST

START_TEST(t_bad_queue_setup_after_driver_ok)
{
	fd_negotiate(t, FEAT_OK);
	fd_setup_queue(t, 0, &fv);
	fd_driver_ok(t);
	fd_wr(t, VMMIO_QUEUE_SEL, 1);
	fd_wr(t, VMMIO_QUEUE_NUM, 4);
	fd_wr(t, VMMIO_QUEUE_DESC_LOW, 0x2000);
	fd_wr(t, VMMIO_QUEUE_READY, 1);
	ck_assert_uint_eq(qinfo(1).num, TDEV_QMAX);
	ck_assert_uint_eq(qinfo(1).desc, 0);
	ck_assert(!qinfo(1).ready);
	ck_assert_uint_eq(fd_rd(t, VMMIO_QUEUE_READY), 0);
	/* Nor can a running queue be switched off behind the worker. */
	fd_wr(t, VMMIO_QUEUE_SEL, 0);
	fd_wr(t, VMMIO_QUEUE_READY, 0);
	ck_assert(qinfo(0).ready);
	ck_assert(qinfo(0).running);
}
END_TEST

START_TEST(t_bad_queue_setup_before_features_ok)
{
	fd_wr(t, VMMIO_STATUS, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
	fd_wr(t, VMMIO_QUEUE_SEL, 0);
	fd_wr(t, VMMIO_QUEUE_READY, 1);
	ck_assert(!qinfo(0).ready);
}
END_TEST

START_TEST(t_bad_notify_not_ready)
{
	int kfd = vmmio_kick_fd(t, 0);

	fd_negotiate(t, FEAT_OK);
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
	ck_assert_uint_eq(fd_wait_efd(kfd, 0), 0);
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 9);          /* no such queue */
	fd_setup_queue(t, 0, &fv);
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
	ck_assert_uint_eq(fd_wait_efd(kfd, 0), 1);
}
END_TEST

START_TEST(t_bad_ring_at_driver_ok)
{
	int irq = vmmio_irq_fd(t);

	fd_negotiate(t, FEAT_OK);
	fv.used = FD_GPA_BASE + mem.size - 8;     /* past the end of RAM */
	fd_setup_queue(t, 0, &fv);
	ck_assert_uint_ne(fd_driver_ok(t) & VIRTIO_STATUS_NEEDS_RESET, 0);
	ck_assert_uint_eq(fd_wait_efd(irq, 1000), 1);
	ck_assert_uint_eq(fd_rd(t, VMMIO_INT_STATUS), VMMIO_INT_CONFIG);
	ck_assert(!qinfo(0).running);
	/* The driver recovers by resetting. */
	fd_wr(t, VMMIO_STATUS, 0);
	ck_assert_uint_eq(fd_rd(t, VMMIO_STATUS), 0);
}
END_TEST

START_TEST(t_reset_from_running)
{
	fd_negotiate(t, FEAT_OK);
	fd_setup_queue(t, 0, &fv);
	fd_setup_queue(t, 1, &fv);
	fd_driver_ok(t);
	ck_assert(qinfo(0).running);
	fd_wr(t, VMMIO_STATUS, 0);
	ck_assert_uint_eq(fd_rd(t, VMMIO_STATUS), 0);
	ck_assert_int_eq(tdev_resets, 1);
	for (unsigned q = 0; q < 2; q++) {
		ck_assert(!qinfo(q).running);
		ck_assert(!qinfo(q).ready);
		ck_assert_uint_eq(qinfo(q).desc, 0);
		ck_assert_uint_eq(qinfo(q).num, TDEV_QMAX);
	}
	/* And the device comes up again. */
	ck_assert_uint_ne(fd_negotiate(t, FEAT_OK) & VIRTIO_STATUS_FEATURES_OK, 0);
	fd_setup_queue(t, 0, &fv);
	ck_assert_uint_eq(fd_driver_ok(t) & VIRTIO_STATUS_NEEDS_RESET, 0);
	ck_assert(qinfo(0).running);
}
END_TEST

/*
 * A reset must not wait for a handler that does not come back: the vCPU
 * that wrote the status waits in turn. The stuck thread is left behind
 * with the old kick eventfd, and when its request ends at last nothing of
 * it reaches the new rings.
 */
START_TEST(t_reset_with_stuck_handler)
{
	uint64_t buf = fd_alloc(&mem, 64, 8);
	int old_kick;

	ck_assert_int_eq(pipe(tdev_block), 0);
	tdev_block_rd = tdev_block[0];
	tdev_started = eventfd(0, EFD_CLOEXEC);
	fd_negotiate(t, FEAT_OK);
	fd_setup_queue(t, 0, &fv);
	fd_driver_ok(t);
	fvq_set_desc(&fv, 0, buf, 64, VQ_DESC_F_WRITE, 0);
	fvq_publish(&fv, 0);
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
	ck_assert_uint_eq(fd_wait_efd(tdev_started, 2000), 1);
	old_kick = vmmio_kick_fd(t, 0);

	fd_wr(t, VMMIO_STATUS, 0);
	ck_assert_uint_eq(fd_rd(t, VMMIO_STATUS), 0);
	ck_assert(!qinfo(0).running);
	ck_assert_int_ne(vmmio_kick_fd(t, 0), old_kick);

	/* The device comes up again on fresh rings and serves them. */
	tdev_block_rd = -1;
	struct fake_vq fresh;
	fvq_init(&fresh, &mem, TDEV_QMAX);
	ck_assert_uint_ne(fd_negotiate(t, FEAT_OK) & VIRTIO_STATUS_FEATURES_OK, 0);
	fd_setup_queue(t, 0, &fresh);
	ck_assert_uint_eq(fd_driver_ok(t) & VIRTIO_STATUS_NEEDS_RESET, 0);
	fvq_set_desc(&fresh, 0, buf, 64, VQ_DESC_F_WRITE, 0);
	fvq_publish(&fresh, 0);
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
	ck_assert_int_eq(fvq_wait_used(&fresh, 1, 2000), 0);

	/* The old request ends (its pipe's write end closes)... The read
	 * end stays open: the left-behind thread may still be inside read()
	 * on it, and the test process ends soon (fork mode). */
	close(tdev_block[1]);
	usleep(100 * 1000);
	/* ...and neither ring heard of it. */
	ck_assert_uint_eq(fvq_used_idx(&fv), 0);
	ck_assert_uint_eq(fvq_used_idx(&fresh), 1);
	close(tdev_started);
	tdev_started = -1;
}
END_TEST

START_TEST(t_bad_write_read_only)
{
	fd_wr(t, VMMIO_MAGIC_VALUE, 0);
	fd_wr(t, VMMIO_DEVICE_ID, 7);
	fd_wr(t, VMMIO_QUEUE_NUM_MAX, 2);
	fd_wr(t, VMMIO_INT_STATUS, 3);
	fd_wr(t, VMMIO_CONFIG_GEN, 9);
	fd_wr(t, VMMIO_SHM_LEN_LOW, 1);
	fd_wr(t, 0x040, 1);                       /* legacy QueuePFN */
	ck_assert_uint_eq(fd_rd(t, VMMIO_MAGIC_VALUE), 0x74726976);
	ck_assert_uint_eq(fd_rd(t, VMMIO_DEVICE_ID), TDEV_ID);
	ck_assert_uint_eq(fd_rd(t, VMMIO_QUEUE_NUM_MAX), TDEV_QMAX);
	ck_assert_uint_eq(fd_rd(t, VMMIO_INT_STATUS), 0);
	ck_assert_uint_eq(fd_rd(t, VMMIO_CONFIG_GEN), 0);
	ck_assert_uint_eq(fd_rd(t, VMMIO_SHM_LEN_LOW), 1u << 30);
	/* Write-only registers read as 0. */
	fd_wr(t, VMMIO_QUEUE_SEL, 1);
	ck_assert_uint_eq(fd_rd(t, VMMIO_QUEUE_SEL), 0);
}
END_TEST

START_TEST(t_bad_register_width)
{
	uint16_t h = 0xffff;
	uint8_t b = 0xff;
	uint64_t q = ~0ULL;
	uint32_t w = VIRTIO_STATUS_ACKNOWLEDGE;

	vmmio_bus_access(t, VMMIO_STATUS, &h, 2, true);
	ck_assert_uint_eq(fd_rd(t, VMMIO_STATUS), 0);
	vmmio_bus_access(t, VMMIO_STATUS, &b, 1, true);
	ck_assert_uint_eq(fd_rd(t, VMMIO_STATUS), 0);
	vmmio_bus_access(t, VMMIO_STATUS + 1, &w, 4, true); /* unaligned */
	ck_assert_uint_eq(fd_rd(t, VMMIO_STATUS), 0);
	vmmio_bus_access(t, VMMIO_MAGIC_VALUE, &b, 1, false);
	ck_assert_uint_eq(b, 0);
	vmmio_bus_access(t, VMMIO_MAGIC_VALUE, &q, 8, false);
	ck_assert_uint_eq(q, 0);
	vmmio_bus_access(t, VMMIO_MAGIC_VALUE + 2, &w, 4, false);
	ck_assert_uint_eq(w, 0);
}
END_TEST

START_TEST(t_config_space)
{
	uint8_t b = 0;
	uint16_t h = 0;
	uint32_t w = 0;
	uint64_t q = 0;

	vmmio_bus_access(t, VMMIO_CONFIG + 1, &b, 1, false);
	ck_assert_uint_eq(b, 2);
	vmmio_bus_access(t, VMMIO_CONFIG + 2, &h, 2, false);
	ck_assert_uint_eq(h, 0x0403);
	vmmio_bus_access(t, VMMIO_CONFIG + 4, &w, 4, false);
	ck_assert_uint_eq(w, 0x08070605);
	w = 0xaabbccdd;
	vmmio_bus_access(t, VMMIO_CONFIG, &w, 4, true);
	ck_assert_uint_eq(tdev_cfg[0], 0xdd);
	/* 64-bit, misaligned and out-of-range accesses are refused. */
	vmmio_bus_access(t, VMMIO_CONFIG, &q, 8, false);
	ck_assert_uint_eq(q, 0);
	h = 0xffff;
	vmmio_bus_access(t, VMMIO_CONFIG + 1, &h, 2, true);
	ck_assert_uint_eq(tdev_cfg[1], 0xcc);
	w = 0x11111111;
	vmmio_bus_access(t, VMMIO_CONFIG + 6, &w, 4, true);
	ck_assert_uint_eq(tdev_cfg[6], 7);
	vmmio_bus_access(t, VMMIO_CONFIG + 8, &w, 4, false);
	ck_assert_uint_eq(w, 0);
}
END_TEST

START_TEST(t_interrupts_and_generation)
{
	int irq = vmmio_irq_fd(t);

	vmmio_config_changed(t);
	ck_assert_uint_eq(fd_wait_efd(irq, 1000), 1);
	ck_assert_uint_eq(fd_rd(t, VMMIO_INT_STATUS), VMMIO_INT_CONFIG);
	ck_assert_uint_eq(fd_rd(t, VMMIO_CONFIG_GEN), 1);
	fd_wr(t, VMMIO_INT_ACK, VMMIO_INT_CONFIG);
	ck_assert_uint_eq(fd_rd(t, VMMIO_INT_STATUS), 0);
}
END_TEST

START_TEST(t_shm_regions)
{
	fd_wr(t, VMMIO_SHM_SEL, 0);
	ck_assert_uint_eq(((uint64_t)fd_rd(t, VMMIO_SHM_LEN_HIGH) << 32) |
			  fd_rd(t, VMMIO_SHM_LEN_LOW), 1ULL << 30);
	ck_assert_int_eq(vmmio_set_shm_base(t, 0, 0x123400000000ULL), 0);
	ck_assert_int_eq(vmmio_set_shm_base(t, 1, 0x1000), -ENOENT);
	ck_assert_uint_eq(fd_rd(t, VMMIO_SHM_BASE_HIGH), 0x1234);
	ck_assert_uint_eq(fd_rd(t, VMMIO_SHM_BASE_LOW), 0);
	fd_wr(t, VMMIO_SHM_SEL, 1);               /* no such region */
	ck_assert_uint_eq(fd_rd(t, VMMIO_SHM_LEN_LOW), 0xffffffffu);
	ck_assert_uint_eq(fd_rd(t, VMMIO_SHM_LEN_HIGH), 0xffffffffu);
}
END_TEST

static Suite *vmmio_suite(void)
{
	Suite *s = suite_create("vmmio");
	TCase *tc = tcase_create("registers");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_identity);
	tcase_add_test(tc, t_device_features);
	tcase_add_test(tc, t_negotiate_ok);
	tcase_add_test(tc, t_bad_features_ok_without_version_1);
	tcase_add_test(tc, t_bad_features_not_offered);
	tcase_add_test(tc, t_bad_driver_ok_before_features_ok);
	tcase_add_test(tc, t_bad_status_clears_bits);
	tcase_add_test(tc, t_bad_features_after_features_ok);
	tcase_add_test(tc, t_queue_setup);
	tcase_add_test(tc, t_bad_queue_num);
	tcase_add_test(tc, t_bad_queue_setup_while_ready);
	tcase_add_test(tc, t_bad_queue_setup_after_driver_ok);
	tcase_add_test(tc, t_bad_queue_setup_before_features_ok);
	tcase_add_test(tc, t_bad_notify_not_ready);
	tcase_add_test(tc, t_bad_ring_at_driver_ok);
	tcase_add_test(tc, t_reset_from_running);
	tcase_add_test(tc, t_reset_with_stuck_handler);
	tcase_add_test(tc, t_bad_write_read_only);
	tcase_add_test(tc, t_bad_register_width);
	tcase_add_test(tc, t_config_space);
	tcase_add_test(tc, t_interrupts_and_generation);
	tcase_add_test(tc, t_shm_regions);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(vmmio_suite());
}
