// SPDX-License-Identifier: GPL-2.0-only
/*
 * The floor of the virtqueue data path: a fake driver and the real
 * transport + worker with a device whose handler does nothing. For batch
 * sizes 1, 16 and 256 the driver posts a batch of one-descriptor chains,
 * kicks once through the QueueNotify register (an eventfd write, as KVM's
 * ioeventfd would do), sleeps on the interrupt eventfd (as irqfd would
 * wake a guest) and repeats. Prints requests/s and ns/request, the median
 * of several rounds. No KVM: guest exits are not in these figures.
 *
 *     vq_bench [rounds]        default 7 rounds
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tests/unit/fake_driver.h"

#define QSIZE 256
#define FEATURES (VIRTIO_FEAT_VERSION_1 | VIRTIO_FEAT_EVENT_IDX)

static int nop_handle(struct virtio_dev *d, unsigned q, struct fs_req *req,
		      const struct fs_transport *t)
{
	return 0;
}

static const struct virtio_dev_ops nop_ops = {
	.name = "bench", .device_id = 0x7f,
	.queue_size_max = QSIZE, .handle = nop_handle,
};

static struct virtio_dev nop_dev = { .ops = &nop_ops, .num_queues = 1 };

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Run `total` requests in batches of `batch`; returns ns per request. */
static double run_round(struct vmmio *t, struct fake_vq *v, int irq,
			unsigned batch, unsigned total)
{
	double t0 = now_ns();

	for (unsigned done = 0; done < total; done += batch) {
		uint16_t target = (uint16_t)(v->avail_idx + batch);

		for (unsigned i = 0; i < batch; i++)
			fvq_publish(v, (uint16_t)((v->avail_idx) & (QSIZE - 1)));
		/* One interrupt when the last entry of the batch is used. */
		fvq_set_used_event(v, (uint16_t)(target - 1));
		fd_wr(t, VMMIO_QUEUE_NOTIFY, 0);
		while (fvq_used_idx(v) != target)
			fd_wait_efd(irq, 1000);
	}
	return (now_ns() - t0) / total;
}

/*
 * Baseline: the same wake-up pattern with nothing else, a thread that
 * blocks in read() on one eventfd and answers on another. The difference
 * to batch 1 above is what the ring, the worker and the transport cost.
 */
static int ping_fd, pong_fd;

static void *pong_main(void *arg)
{
	uint64_t v;

	while (read(ping_fd, &v, sizeof(v)) == sizeof(v) && v != UINT64_MAX / 2)
		eventfd_write(pong_fd, 1);
	return NULL;
}

static double eventfd_round_trip_ns(unsigned total, int rounds, double *ns)
{
	pthread_t th;
	uint64_t v;

	ping_fd = eventfd(0, EFD_CLOEXEC);
	pong_fd = eventfd(0, EFD_CLOEXEC);
	if (ping_fd < 0 || pong_fd < 0 || pthread_create(&th, NULL, pong_main, NULL))
		return 0;
	for (int r = 0; r < rounds; r++) {
		double t0 = now_ns();

		for (unsigned i = 0; i < total; i++) {
			eventfd_write(ping_fd, 1);
			if (read(pong_fd, &v, sizeof(v)) != sizeof(v))
				break;
		}
		ns[r] = (now_ns() - t0) / total;
	}
	eventfd_write(ping_fd, UINT64_MAX / 2);
	pthread_join(th, NULL);
	close(ping_fd);
	close(pong_fd);
	qsort(ns, rounds, sizeof(*ns), cmp_double);
	return ns[rounds / 2];
}

int main(int argc, char **argv)
{
	static const unsigned batches[] = { 1, 16, 256 };
	int rounds = argc > 1 ? atoi(argv[1]) : 7;
	struct vmmio_config c = { .vm_fd = -1, .base = 0xd0000000, .gsi = 5 };
	struct fd_mem mem;
	struct fake_vq v;
	struct vmmio *t;
	double *ns, base;
	int irq;

	if (rounds < 1 || !(ns = calloc(rounds, sizeof(*ns))))
		return 2;
	if (fd_mem_init(&mem, 16 << 20) < 0)
		return 1;
	fvq_init(&v, &mem, QSIZE);
	/* Every descriptor is a fixed 64-byte writable buffer. */
	for (unsigned i = 0; i < QSIZE; i++)
		fvq_set_desc(&v, i, fd_alloc(&mem, 64, 64), 64, VQ_DESC_F_WRITE, 0);
	c.gm = &mem.gm;
	c.dev = &nop_dev;
	if (vmmio_create(&t, &c) < 0)
		return 1;
	irq = vmmio_irq_fd(t);
	if (!(fd_negotiate(t, FEATURES) & VIRTIO_STATUS_FEATURES_OK))
		return 1;
	fd_setup_queue(t, 0, &v);
	if (fd_driver_ok(t) & VIRTIO_STATUS_NEEDS_RESET)
		return 1;

	printf("vq_bench: fake driver + virtio-mmio transport + io_uring worker, "
	       "empty handler, queue %u, EVENT_IDX, %ld CPUs, median of %d rounds\n",
	       QSIZE, sysconf(_SC_NPROCESSORS_ONLN), rounds);
	printf("%8s %12s %14s %12s %12s\n", "batch", "requests", "requests/s",
	       "ns/request", "min ns/req");
	for (unsigned b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
		unsigned batch = batches[b];
		unsigned total = batch == 1 ? 20000 : batch * 800;

		run_round(t, &v, irq, batch, total / 10); /* warm-up */
		for (int r = 0; r < rounds; r++)
			ns[r] = run_round(t, &v, irq, batch, total);
		qsort(ns, rounds, sizeof(*ns), cmp_double);
		printf("%8u %12u %14.0f %12.1f %12.1f\n", batch, total,
		       1e9 / ns[rounds / 2], ns[rounds / 2], ns[0]);
	}
	base = eventfd_round_trip_ns(20000, rounds, ns);
	printf("%8s %12u %14.0f %12.1f %12.1f  (eventfd ping-pong, no ring)\n",
	       "baseline", 20000u, base > 0 ? 1e9 / base : 0, base, ns[0]);
	vmmio_destroy(t);
	fd_mem_free(&mem);
	free(ns);
	return 0;
}
