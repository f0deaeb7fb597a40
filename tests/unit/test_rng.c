// SPDX-License-Identifier: GPL-2.0-only
/*
 * Worker round trips through the whole stack: fake driver -> transport ->
 * worker thread -> device handler -> used ring -> interrupt eventfd.
 * virtio-rng for the plain path; two test devices for requests completed
 * later from another thread and for reads through the worker's io_uring.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "devices/virtio_rng.h"
#include "tests/unit/check_main.h"
#include "tests/unit/fake_driver.h"

#define FEAT_OK (VIRTIO_FEAT_VERSION_1 | VIRTIO_FEAT_EVENT_IDX | VIRTIO_FEAT_INDIRECT)
#define WAIT_MS 5000

static struct fd_mem mem;
static struct fake_vq fv;
static struct vmmio *t;
static struct virtio_dev *dev;
static int irq;

static void start(struct virtio_dev *d, uint16_t qsize)
{
	struct vmmio_config c = {
		.vm_fd = -1, .base = 0xd0000000, .gsi = 5, .gm = &mem.gm, .dev = d,
	};

	dev = d;
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(fd_mem_init(&mem, 1 << 20), 0);
	fvq_init(&fv, &mem, qsize);
	ck_assert_int_eq(vmmio_create(&t, &c), 0);
	irq = vmmio_irq_fd(t);
	ck_assert_uint_ne(fd_negotiate(t, FEAT_OK) & VIRTIO_STATUS_FEATURES_OK, 0);
	fd_setup_queue(t, 0, &fv);
}

static void stop(void)
{
	vmmio_destroy(t);
	virtio_dev_destroy(dev);
	fd_mem_free(&mem);
}

/* One-descriptor chain at `head` with a buffer of len bytes; returns it. */
static uint8_t *post(uint16_t head, uint32_t len, uint16_t flags)
{
	uint64_t b = fd_alloc(&mem, len, 8);

	fvq_set_desc(&fv, head, b, len, flags, 0);
	fvq_publish(&fv, head);
	return fd_host(&mem, b);
}

static struct virtio_dev *new_rng(void)
{
	struct virtio_dev *d = NULL;

	ck_assert_int_eq(virtio_rng_create(&d), 0);
	return d;
}

START_TEST(t_rng_round_trip)
{
	uint8_t *b, zero[64] = { 0 };

	start(new_rng(), RNG_QUEUE_SIZE);
	ck_assert_uint_eq(fd_driver_ok(t) & VIRTIO_STATUS_NEEDS_RESET, 0);
	b = post(0, 64, VQ_DESC_F_WRITE);
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
	ck_assert_uint_eq(fd_wait_efd(irq, WAIT_MS), 1);
	ck_assert_uint_eq(fvq_used_idx(&fv), 1);
	ck_assert_uint_eq(fvq_used_elem(&fv, 0).id, 0);
	ck_assert_uint_eq(fvq_used_elem(&fv, 0).len, 64);
	ck_assert_mem_ne(b, zero, 64);
	ck_assert_uint_eq(fd_rd(t, VMMIO_INT_STATUS), VMMIO_INT_VRING);
	fd_wr(t, VMMIO_INT_ACK, VMMIO_INT_VRING);
	/* The worker sleeps again and serves the next kick. */
	post(1, 16, VQ_DESC_F_WRITE);
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
	ck_assert_int_eq(fvq_wait_used(&fv, 2, WAIT_MS), 0);
	ck_assert_uint_eq(fvq_used_elem(&fv, 1).len, 16);
	stop();
}
END_TEST

START_TEST(t_rng_batch_one_interrupt)
{
	start(new_rng(), RNG_QUEUE_SIZE);
	/* Queued before the worker exists: its first drain takes all 16. */
	for (uint16_t i = 0; i < 16; i++)
		post(i, 32, VQ_DESC_F_WRITE);
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
	fd_driver_ok(t);
	ck_assert_int_eq(fvq_wait_used(&fv, 16, WAIT_MS), 0);
	ck_assert_uint_eq(fd_wait_efd(irq, WAIT_MS), 1);
	usleep(20000);
	ck_assert_uint_eq(fd_wait_efd(irq, 0), 0);
	stop();
}
END_TEST

START_TEST(t_rng_readable_only_gets_nothing)
{
	start(new_rng(), RNG_QUEUE_SIZE);
	fd_driver_ok(t);
	post(0, 8, 0);
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
	ck_assert_int_eq(fvq_wait_used(&fv, 1, WAIT_MS), 0);
	ck_assert_uint_eq(fvq_used_elem(&fv, 0).len, 0);
	stop();
}
END_TEST

START_TEST(t_rng_broken_ring_needs_reset)
{
	start(new_rng(), RNG_QUEUE_SIZE);
	fd_driver_ok(t);
	fvq_set_desc(&fv, 0, fd_alloc(&mem, 8, 8), 8, VQ_DESC_F_NEXT | VQ_DESC_F_WRITE, 0);
	fvq_publish(&fv, 0);                      /* 0 -> 0: a loop */
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
	ck_assert_uint_eq(fd_wait_efd(irq, WAIT_MS), 1);
	ck_assert_uint_ne(fd_rd(t, VMMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET, 0);
	ck_assert_uint_eq(fd_rd(t, VMMIO_INT_STATUS), VMMIO_INT_CONFIG);
	ck_assert_uint_eq(fvq_used_idx(&fv), 0);
	/* Reset, fresh rings, and the device works again. */
	fd_wr(t, VMMIO_STATUS, 0);
	fvq_init(&fv, &mem, RNG_QUEUE_SIZE);
	fd_negotiate(t, FEAT_OK);
	fd_setup_queue(t, 0, &fv);
	ck_assert_uint_eq(fd_driver_ok(t) & VIRTIO_STATUS_NEEDS_RESET, 0);
	post(0, 8, VQ_DESC_F_WRITE);
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
	ck_assert_int_eq(fvq_wait_used(&fv, 1, WAIT_MS), 0);
	stop();
}
END_TEST

/* virtio 1.x 2.7.7.2 from the driver's side: kick only if the device
 * asked for a kick somewhere in (old, new]. */
static bool drv_need_kick(uint16_t event, uint16_t new_idx, uint16_t old_idx)
{
	return (uint16_t)(new_idx - event - 1) < (uint16_t)(new_idx - old_idx);
}

START_TEST(t_rng_stress_event_idx)
{
	/* A driver that keeps the ring full and kicks only when the device's
	 * avail_event asks for it: a lost wake-up in the worker (publishing
	 * avail_event and re-checking in the wrong order) hangs this test. */
	enum { N = 70000 };         /* crosses the 16-bit index wrap */
	uint16_t free_heads[RNG_QUEUE_SIZE], nfree = RNG_QUEUE_SIZE;
	unsigned posted = 0, completed = 0;

	start(new_rng(), RNG_QUEUE_SIZE);
	for (uint16_t i = 0; i < RNG_QUEUE_SIZE; i++) {
		free_heads[i] = i;
		fvq_set_desc(&fv, i, fd_alloc(&mem, 16, 8), 16, VQ_DESC_F_WRITE, 0);
	}
	fd_driver_ok(t);
	while (completed < N) {
		uint16_t old = fv.avail_idx, used = fvq_used_idx(&fv);

		while (fv.used_seen != used) {
			struct vq_used_elem e = fvq_used_elem(&fv, fv.used_seen++);

			ck_assert_uint_eq(e.len, 16);
			free_heads[nfree++] = (uint16_t)e.id;
			completed++;
		}
		while (nfree && posted < N) {
			fvq_publish(&fv, free_heads[--nfree]);
			posted++;
		}
		/* Interrupt me at the next used entry. */
		fvq_set_used_event(&fv, fv.used_seen);
		if (fv.avail_idx != old &&
		    drv_need_kick(fvq_avail_event(&fv), fv.avail_idx, old))
			fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
		if (completed < N && fvq_used_idx(&fv) == fv.used_seen)
			ck_assert_msg(fd_wait_efd(irq, WAIT_MS) || fvq_used_idx(&fv) != fv.used_seen,
				      "no progress after %u of %u requests", completed, N);
	}
	ck_assert_uint_eq(fvq_used_idx(&fv), (uint16_t)N);
	stop();
}
END_TEST

/* ---- a device that defers requests whose first byte is 'D' ---- */

static struct fs_req *held;
static const struct fs_transport *held_t;
static pthread_t helper;
static int release_fd;

static void *helper_main(void *arg)
{
	fd_wait_efd(release_fd, -1);
	memcpy(held->out[0].iov_base, "late", 4);
	held_t->complete(held_t->ctx, held, 4);
	return NULL;
}

static int defer_handle(struct virtio_dev *d, unsigned q, struct fs_req *req,
			const struct fs_transport *tr)
{
	char c;

	memcpy(&c, req->in[0].iov_base, 1); /* guest */
	if (c == 'D') {
		held_t = tr;
		__atomic_store_n(&held, req, __ATOMIC_RELEASE);
		if (pthread_create(&helper, NULL, helper_main, NULL))
			return 0; /* the test then fails on the missing "late" */
		return FS_REQ_DEFERRED;
	}
	memcpy(req->out[0].iov_base, "fast", 4);
	/* 'B' claims more than the 8 bytes it was given. */
	return c == 'B' ? 1000 : 4;
}

static const struct virtio_dev_ops defer_ops = {
	.name = "tdefer", .device_id = 99,
	.queue_size_max = 16, .handle = defer_handle,
};
static struct virtio_dev defer_dev = { .ops = &defer_ops, .num_queues = 1 };

/* A two-descriptor request: one readable byte, 8 writable bytes. */
static uint8_t *post_req(uint16_t head, char kind)
{
	uint64_t in = fd_alloc(&mem, 1, 8), out = fd_alloc(&mem, 8, 8);

	*(char *)fd_host(&mem, in) = kind;
	fvq_set_desc(&fv, head, in, 1, VQ_DESC_F_NEXT, head + 1);
	fvq_set_desc(&fv, head + 1, out, 8, VQ_DESC_F_WRITE, 0);
	fvq_publish(&fv, head);
	return fd_host(&mem, out);
}

START_TEST(t_deferred_from_other_thread)
{
	uint8_t *slow, *fast;

	release_fd = eventfd(0, 0);
	start(&defer_dev, 16);
	fd_driver_ok(t);
	slow = post_req(0, 'D');
	fast = post_req(2, 'F');
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
	/* The fast request is not held back by the slow one. */
	ck_assert_int_eq(fvq_wait_used(&fv, 1, WAIT_MS), 0);
	ck_assert_uint_eq(fvq_used_elem(&fv, 0).id, 2);
	ck_assert_mem_eq(fast, "fast", 4);
	eventfd_write(release_fd, 1);
	ck_assert_int_eq(fvq_wait_used(&fv, 2, WAIT_MS), 0);
	ck_assert_uint_eq(fvq_used_elem(&fv, 1).id, 0);
	ck_assert_uint_eq(fvq_used_elem(&fv, 1).len, 4);
	ck_assert_mem_eq(slow, "late", 4);
	pthread_join(helper, NULL);
	stop();
}
END_TEST

START_TEST(t_used_len_clamped)
{
	start(&defer_dev, 16);
	fd_driver_ok(t);
	post_req(0, 'B');
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
	ck_assert_int_eq(fvq_wait_used(&fv, 1, WAIT_MS), 0);
	ck_assert_uint_eq(fvq_used_elem(&fv, 0).len, 8);
	stop();
}
END_TEST

START_TEST(t_deferred_completes_after_reset)
{
	release_fd = eventfd(0, 0);
	start(&defer_dev, 16);
	fd_driver_ok(t);
	post_req(0, 'D');
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
	for (int i = 0; i < WAIT_MS && !__atomic_load_n(&held, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	/* The worker is gone when the held request finishes: no crash, no
	 * use-after-free (ASan build), nothing published. */
	fd_wr(t, VMMIO_STATUS, 0);
	eventfd_write(release_fd, 1);
	pthread_join(helper, NULL);
	ck_assert_uint_eq(fvq_used_idx(&fv), 0);
	stop();
}
END_TEST

/* ---- a device that reads a file through the worker's io_uring ---- */

static int file_fd;
static pthread_t handler_thread, done_thread;
static int submit_elsewhere_rc;

struct rd { struct fs_req *req; const struct fs_transport *t; };
static struct rd rds[16];

static void read_done(void *arg, int res)
{
	struct rd *r = arg;

	done_thread = pthread_self();
	r->t->complete(r->t->ctx, r->req, res > 0 ? (uint32_t)res : 0);
}

static void *submit_elsewhere(void *arg)
{
	const struct fs_transport *tr = arg;
	struct iovec v = { 0 };

	submit_elsewhere_rc = tr->async->submit_rw(tr->ctx, false, file_fd, &v,
						   1, 0, read_done, NULL);
	return NULL;
}

static int async_handle(struct virtio_dev *d, unsigned q, struct fs_req *req,
			const struct fs_transport *tr)
{
	struct rd *r = &rds[0];
	pthread_t other;
	int rc;

	handler_thread = pthread_self();
	/* Only the worker may submit to its ring. */
	pthread_create(&other, NULL, submit_elsewhere, (void *)tr);
	pthread_join(other, NULL);
	r->req = req;
	r->t = tr;
	rc = tr->async->submit_rw(tr->ctx, false, file_fd, req->out, req->nout,
				  100, read_done, r);
	return rc < 0 ? 0 : FS_REQ_DEFERRED;
}

static const struct virtio_dev_ops async_ops = {
	.name = "tasync", .device_id = 98,
	.queue_size_max = 16, .handle = async_handle,
};
static struct virtio_dev async_dev = { .ops = &async_ops, .num_queues = 1 };

START_TEST(t_async_read_through_uring)
{
	char path[] = "/tmp/stainless-vq-XXXXXX";
	uint8_t data[4096], *out;

	file_fd = mkstemp(path);
	ck_assert_int_ge(file_fd, 0);
	unlink(path);
	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	ck_assert_int_eq(write(file_fd, data, sizeof(data)), sizeof(data));
	start(&async_dev, 16);
	fd_driver_ok(t);
	out = post(0, 300, VQ_DESC_F_WRITE);
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
	ck_assert_uint_eq(fd_wait_efd(irq, WAIT_MS), 1);
	ck_assert_uint_eq(fvq_used_idx(&fv), 1);
	ck_assert_uint_eq(fvq_used_elem(&fv, 0).len, 300);
	ck_assert_mem_eq(out, data + 100, 300);
	ck_assert(pthread_equal(handler_thread, done_thread));
	ck_assert(!pthread_equal(handler_thread, pthread_self()));
	ck_assert_int_eq(submit_elsewhere_rc, -EPERM);
	stop();
	close(file_fd);
}
END_TEST

static Suite *rng_suite(void)
{
	Suite *s = suite_create("worker");
	TCase *tc = tcase_create("round trips");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_rng_round_trip);
	tcase_add_test(tc, t_rng_batch_one_interrupt);
	tcase_add_test(tc, t_rng_readable_only_gets_nothing);
	tcase_add_test(tc, t_rng_broken_ring_needs_reset);
	tcase_add_test(tc, t_rng_stress_event_idx);
	tcase_add_test(tc, t_deferred_from_other_thread);
	tcase_add_test(tc, t_deferred_completes_after_reset);
	tcase_add_test(tc, t_used_len_clamped);
	tcase_add_test(tc, t_async_read_through_uring);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(rng_suite());
}
