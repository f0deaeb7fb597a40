// SPDX-License-Identifier: GPL-2.0-only
/* The rings of a vhost-user device (see vhost_user_ring.h). */
#include "transport/vhost_user_ring.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "devices/vq.h"
#include "devices/worker.h"
#include "fs/resolve.h"
#include "transport/vhost_user_shmem.h"

/* busy: signallers inside vu_efd_signal, plus this bit while a swap waits. */
#define EFD_WAITING   0x80000000u
/* In fd: its open file is blocking (the frontend made it without EFD_NONBLOCK). */
#define EFD_BLOCKING  0x40000000   /* fd numbers stay below 2^30 (fs.nr_open's limit) */

_Static_assert(sizeof(atomic_uint) == sizeof(uint32_t), "busy is a futex word");

void vu_efd_init(struct vu_efd *e)
{
	atomic_init(&e->fd, -1);
	atomic_init(&e->busy, 0);
}

/*
 * One more interrupt for the frontend, never a sleep: a counter at its
 * maximum already means one is pending, and a blocking eventfd there would
 * hold this worker (and its ring) until the frontend reads it. Those are
 * looked at first; a non-blocking one just says EAGAIN.
 */
static void efd_raise(int v)
{
	struct pollfd p = { .fd = v & ~EFD_BLOCKING, .events = POLLOUT };

	if ((v & EFD_BLOCKING) && (poll(&p, 1, 0) != 1 || !(p.revents & POLLOUT)))
		return;
	(void)eventfd_write(p.fd, 1);
}

static void futex_wake(atomic_uint *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void futex_wait(atomic_uint *word, uint32_t val)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

/*
 * A worker loads the fd and writes to it; the connection thread may swap
 * it at any time (QEMU moves the call fd whenever the guest masks or
 * unmasks the queue's MSI-X vector). The old fd is closed, and the swap
 * answered, only once no signaller is inside with it, so nothing reaches
 * the old fd after the frontend has its reply (QEMU then looks at its
 * masked notifier once). All accesses are sequentially consistent: a
 * signaller either counted itself in busy before the swap (and is waited
 * for) or loads the new fd. The last one out wakes a waiting swap; a
 * signaller itself never waits.
 */
void vu_efd_signal(struct vu_efd *e)
{
	int v;

	atomic_fetch_add(&e->busy, 1);
	v = atomic_load(&e->fd);
	if (v >= 0)
		efd_raise(v);
	if (atomic_fetch_sub(&e->busy, 1) == (EFD_WAITING | 1))
		futex_wake(&e->busy);
}

/* Sleeps until no signaller is inside (each leaves after one write). */
static void efd_wait_quiet(struct vu_efd *e)
{
	uint32_t b = atomic_fetch_or(&e->busy, EFD_WAITING) | EFD_WAITING;

	while (b != EFD_WAITING) {
		futex_wait(&e->busy, b);   /* returns at once if busy moved on */
		b = atomic_load(&e->busy);
	}
	atomic_fetch_and(&e->busy, ~EFD_WAITING);
}

void vu_efd_set(struct vu_efd *e, int fd)
{
	int v = fd, old, fl;

	if (fd >= 0 && (fl = fcntl(fd, F_GETFL)) >= 0 && !(fl & O_NONBLOCK))
		v |= EFD_BLOCKING;
	old = atomic_exchange(&e->fd, v);
	efd_wait_quiet(e);
	if (old >= 0)
		close(old & ~EFD_BLOCKING);
}

/*
 * Only /proc tells an eventfd from another anonymous inode. When it cannot
 * be asked the fd is refused: a kick "fd" that is a regular file would
 * read as always ready and spin the ring's worker. Asked beneath the fd of
 * /proc/self/fd the process opened before its sandbox: under --sandbox
 * chroot no /proc is left at its path.
 */
bool vu_is_eventfd(int fd)
{
	char name[16], link[64];
	int proc = fs_proc_self_fd();
	ssize_t n;

	if (proc < 0)
		return false;
	snprintf(name, sizeof(name), "%d", fd);
	n = readlinkat(proc, name, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	return strcmp(link, "anon_inode:[eventfd]") == 0;
}

static void on_vring_irq(void *ctx, unsigned q)
{
	struct vu_dev *d = ctx;

	vu_efd_signal(&d->ring[q].call);
}

/* vq.c has logged why; the frontend learns through the err eventfd. */
static void on_needs_reset(void *ctx, unsigned q, const char *why)
{
	struct vu_dev *d = ctx;

	vu_efd_signal(&d->ring[q].err);
}

void vu_ring_notify_init(struct vu_dev *d)
{
	d->notify = (struct virtio_notify){
		.vring_irq = on_vring_irq, .needs_reset = on_needs_reset, .ctx = d,
	};
}

int vu_ring_translate(const struct vu_dev *d, uint16_t num, const struct vu_vring_addr *a,
		      uint64_t gpa[3], const char **why)
{
	if (gmem_uva_to_gpa(&d->mem.gm, a->desc, VQ_DESC_BYTES(num), &gpa[0]) < 0) {
		*why = "descriptor table outside the memory table";
		return -EFAULT;
	}
	if (gmem_uva_to_gpa(&d->mem.gm, a->avail, VQ_AVAIL_BYTES(num), &gpa[1]) < 0) {
		*why = "available ring outside the memory table";
		return -EFAULT;
	}
	if (gmem_uva_to_gpa(&d->mem.gm, a->used, VQ_USED_BYTES(num), &gpa[2]) < 0) {
		*why = "used ring outside the memory table";
		return -EFAULT;
	}
	return 0;
}

/* The ring cannot run: say why once, tell the frontend, stay stopped. */
static void ring_failed(struct vu_dev *d, unsigned i, const char *why)
{
	struct vu_vring *r = &d->ring[i];

	virtio_log(d->name, "queue %u: %s; ring stopped until the frontend restarts it", i, why);
	r->failed = true;
	vu_efd_signal(&r->err);
}

/*
 * Ring i (a request ring) is about to start at 0, and so would every
 * other request ring: a new driver, not a resumed one (a resumed request
 * ring starts where it stopped, past the INIT it carried).
 */
static bool new_driver(const struct vu_dev *d, unsigned i)
{
	if (!d->dirty || i == 0)
		return false;
	for (unsigned k = 1; k < d->nrings; k++)
		if (d->ring[k].base != 0)
			return false;
	return true;
}

/* Forget the old driver's session with no worker inside the device. */
static void reset_for_new_driver(struct vu_dev *d)
{
	virtio_log(d->name, "the rings start afresh: a new driver, the device is reset");
	d->dirty = false;
	if (d->shmem)
		vu_shmem_reset(d->shmem);   /* the frontend unmaps across a reset */
	vu_ring_stop_all(d);
	if (d->vdev->ops->reset)
		d->vdev->ops->reset(d->vdev);   /* answers parked requests first */
	vu_mem_drop_retired(&d->mem);
	d->mem.keep_retired = false;
}

static void ring_start(struct vu_dev *d, unsigned i)
{
	struct vu_vring *r = &d->ring[i];
	const char *why = NULL;
	uint64_t gpa[3];
	int rc;

	if (!r->addr_set || r->num == 0) {
		ring_failed(d, i, "kicked before its size and addresses were set");
		return;
	}
	if (vu_ring_translate(d, r->num, &r->addr, gpa, &why) < 0) {
		ring_failed(d, i, why);
		return;
	}
	if (new_driver(d, i)) {
		reset_for_new_driver(d);
		/* The hiprio ring, stopped for the reset, runs again first. */
		for (unsigned k = 0; k < d->nrings; k++)
			if (k != i)
				vu_ring_sync(d, k);
	}
	struct vq_config vc = {
		.index = i, .size = r->num, .desc = gpa[0], .avail = gpa[1], .used = gpa[2],
		.features = d->acked, .name = d->name,
	};
	if (vq_create(&r->vq, &d->mem.gm, &vc, &d->notify) < 0) {
		ring_failed(d, i, "ring rejected (vq_create logged why)");
		return;
	}
	/* The frontend names where to resume in the available ring; the used
	 * index is what the ring itself says. */
	vq_set_base(r->vq, r->base, vq_used_idx(r->vq));
	struct worker_config wc = { .dev = d->vdev, .q = i, .vq = r->vq, .kick_fd = r->kick_fd };
	rc = worker_start(&r->w, &wc);
	if (rc < 0) {
		vq_destroy(r->vq);
		r->vq = NULL;
		virtio_log(d->name, "queue %u: worker: %s", i, strerror(-rc));
		ring_failed(d, i, "no worker");
		return;
	}
	/* From now on a request may hold pointers into the table. */
	d->mem.keep_retired = true;
}

void vu_ring_stop(struct vu_dev *d, unsigned i)
{
	struct vu_vring *r = &d->ring[i];

	if (!r->w)
		return;
	/* A thread left in a slow request touches the ring no more (worker.h). */
	if (worker_stop(r->w) == -ETIMEDOUT)
		virtio_log(d->name, "queue %u: stopped with a request still running", i);
	r->w = NULL;
	r->base = vq_last_avail(r->vq);
	if (r->base)
		d->dirty = true;
	vq_destroy(r->vq);
	r->vq = NULL;
}

void vu_ring_stop_all(struct vu_dev *d)
{
	for (unsigned i = 0; i < d->nrings; i++)
		vu_ring_stop(d, i);
}

void vu_ring_sync(struct vu_dev *d, unsigned i)
{
	struct vu_vring *r = &d->ring[i];
	bool want = r->started && r->enabled && !r->failed && r->kick_fd >= 0;

	if (want && !r->w)
		ring_start(d, i);
	else if (!want && r->w)
		vu_ring_stop(d, i);
}

void vu_ring_sync_all(struct vu_dev *d)
{
	for (unsigned i = 0; i < d->nrings; i++)
		vu_ring_sync(d, i);
}

void vu_ring_clear(struct vu_dev *d, unsigned i)
{
	struct vu_vring *r = &d->ring[i];

	vu_ring_stop(d, i);
	if (r->kick_fd >= 0)
		close(r->kick_fd);
	vu_efd_set(&r->call, -1);
	vu_efd_set(&r->err, -1);
	memset(&r->addr, 0, sizeof(r->addr));
	r->num = 0;
	r->base = 0;
	r->kick_fd = -1;
	r->addr_set = r->enabled = r->started = r->failed = false;
}
