// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a multi-queue virtio-fs device writes into guest memory, and where:
 * two driver threads (a guest's two CPUs) keep 4 KiB READs and WRITEs in
 * flight on request queues 1 and 2 of one device at once, over the same
 * two files, through virtio-mmio, the queues' workers and the FUSE server
 * (its io_uring path included). Every byte of guest memory the device
 * may change is known to the test: the used rings of the two queues
 * (elements, index, avail_event) and the writable descriptors of chains
 * in flight. The test checks
 *   - every used element names a chain in flight on THAT queue (no queue
 *     writes another's ring, no chain comes back twice), with a length no
 *     larger than the chain's writable part;
 *   - no byte past the used length in a writable buffer changed (the
 *     device wrote no more than it said);
 *   - guard bytes around every buffer and every ring are unchanged, and
 *     so is all the guest memory no ring or buffer covers;
 *   - each READ returns the file's bytes at its offset (a reply landed in
 *     its own request's buffer, not a neighbour's).
 * A third thread keeps dropping the files' page cache (fdatasync, then
 * POSIX_FADV_DONTNEED), so READs keep missing it and go the io_uring way
 * (deferred, completed later on the worker) as well as the inline way.
 * A device write outside those places is how a device corrupts a guest
 * (a triple fault is one way it shows), so this is checked byte by byte.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devices/virtio_fs.h"
#include "tests/unit/check_main.h"
#include "tests/unit/fake_driver.h"

#define FEAT_OK   (VIRTIO_FEAT_VERSION_1 | VIRTIO_FEAT_EVENT_IDX | VIRTIO_FEAT_INDIRECT)
#define QSIZE     32
#define INFLIGHT  8           /* per queue; each chain takes 3 descriptors */
#define OPS       1500        /* per queue */
#define FILE_BLKS 64          /* 4 KiB blocks per file */
#define GUARD     64
#define SLACK     256         /* writable bytes past the largest reply */
#define MEM_SIZE  (8u << 20)
#define POISON    0xc3
#define WAIT_MS   10000

struct hdr_in {
	struct fuse_in_header h;
	union {
		struct fuse_read_in r;
		struct fuse_write_in w;
	};
};

/* One request in flight: three descriptors, head at 3*i. */
struct mslot {
	uint64_t in, payload, out;  /* gpa: header, write payload, reply */
	uint32_t out_len;
	bool busy, is_write;
	unsigned file;
	uint64_t off;
};

struct mq {
	unsigned q;
	struct fake_vq *v;
	struct mslot s[INFLIGHT];
	uint64_t fh[2], nodeid[2];
	uint64_t rng, unique;
	const char *fail;           /* the first broken rule, for the main thread */
};

/* Not tmpfs (/tmp may be): the page cache must be droppable. */
static char dir[] = "/var/tmp/stainless-mqrings-XXXXXX";
static struct fd_mem mem;
static struct fake_vq fvq[3];
static struct vmmio *t;
static struct virtio_dev *dev;
static uint8_t *may_change;     /* per guest byte: 1 = a ring or buffer */
static uint8_t *before;         /* guest memory when the run started */

/* The file's content, the same on both sides: a byte of (file, offset). */
static uint8_t content(unsigned file, uint64_t off)
{
	return (uint8_t)(off * 131 + (off >> 12) * 7 + file * 61 + 1);
}

/* A gpa range the device or the driver may change, with guards around. */
static uint64_t alloc_marked(uint64_t len)
{
	uint64_t gpa = fd_alloc(&mem, len + 2 * GUARD, 64) + GUARD;

	memset(may_change + (gpa - FD_GPA_BASE), 1, len);
	fd_alloc(&mem, GUARD, 1);
	return gpa;
}

static void ring_init(struct fake_vq *v)
{
	fvq_init(v, &mem, QSIZE);
	/* A driver zeroes its rings; the rest of memory keeps the pattern. */
	memset(fd_host(&mem, v->desc), 0, VQ_DESC_BYTES(QSIZE));
	memset(fd_host(&mem, v->avail), 0, VQ_AVAIL_BYTES(QSIZE));
	memset(fd_host(&mem, v->used), 0, VQ_USED_BYTES(QSIZE));
	memset(may_change + (v->desc - FD_GPA_BASE), 1, VQ_DESC_BYTES(QSIZE));
	memset(may_change + (v->avail - FD_GPA_BASE), 1, VQ_AVAIL_BYTES(QSIZE));
	memset(may_change + (v->used - FD_GPA_BASE), 1, VQ_USED_BYTES(QSIZE));
	fd_alloc(&mem, GUARD, 1);
}

/* One synchronous request on queue q at head 0 (set-up: INIT, LOOKUP, OPEN). */
static struct fuse_out_header *call(unsigned q, uint32_t op, uint64_t nodeid,
				    const void *arg, uint32_t alen)
{
	static uint64_t unique = 1;
	struct fake_vq *v = &fvq[q];
	uint64_t in = alloc_marked(sizeof(struct fuse_in_header) + alen), out = alloc_marked(4096);
	struct fuse_in_header h = { .len = (uint32_t)sizeof(h) + alen, .opcode = op,
				    .unique = unique++, .nodeid = nodeid };
	uint16_t want = (uint16_t)(fvq_used_idx(v) + 1);

	memcpy(fd_host(&mem, in), &h, sizeof(h));
	memcpy((uint8_t *)fd_host(&mem, in) + sizeof(h), arg, alen);
	fvq_set_desc(v, 0, in, h.len, VQ_DESC_F_NEXT, 1);
	fvq_set_desc(v, 1, out, 4096, VQ_DESC_F_WRITE, 0);
	fvq_publish(v, 0);
	fd_wr(t, VMMIO_QUEUE_NOTIFY, q);
	ck_assert_int_eq(fvq_wait_used(v, want, WAIT_MS), 0);
	v->used_seen = want;
	struct fuse_out_header *o = fd_host(&mem, out);
	ck_assert_int_eq(o->error, 0);
	return o;
}

static void open_files(struct mq *m)
{
	for (unsigned f = 0; f < 2; f++) {
		char name[8];
		struct fuse_open_in oi = { .flags = O_RDWR };

		snprintf(name, sizeof(name), "f%u", f);
		struct fuse_out_header *o = call(m->q, FUSE_LOOKUP, FUSE_ROOT_ID, name,
						 (uint32_t)strlen(name) + 1);
		m->nodeid[f] = ((struct fuse_entry_out *)(o + 1))->nodeid;
		o = call(m->q, FUSE_OPEN, m->nodeid[f], &oi, sizeof(oi));
		m->fh[f] = ((struct fuse_open_out *)(o + 1))->fh;
	}
}

static uint64_t next_rand(struct mq *m)
{
	m->rng ^= m->rng << 13, m->rng ^= m->rng >> 7, m->rng ^= m->rng << 17;
	return m->rng;
}

/* Lays out slot i's next request (READ or WRITE of a random block) and
 * makes it available; the reply buffer is poisoned first. */
static void post(struct mq *m, unsigned i)
{
	struct mslot *s = &m->s[i];
	uint64_t r = next_rand(m);
	struct hdr_in hi = { 0 };
	uint16_t head = (uint16_t)(3 * i);
	uint8_t *pay = fd_host(&mem, s->payload);

	s->is_write = r & 1;
	s->file = (unsigned)(r >> 1) & 1;
	s->off = ((r >> 2) % FILE_BLKS) * 4096;
	hi.h = (struct fuse_in_header){ .opcode = s->is_write ? FUSE_WRITE : FUSE_READ,
					.unique = ++m->unique, .nodeid = m->nodeid[s->file] };
	if (s->is_write) {
		hi.w = (struct fuse_write_in){ .fh = m->fh[s->file], .offset = s->off, .size = 4096 };
		hi.h.len = sizeof(hi.h) + sizeof(hi.w) + 4096;
		for (unsigned k = 0; k < 4096; k++)
			pay[k] = content(s->file, s->off + k);  /* the file stays as it is */
	} else {
		hi.r = (struct fuse_read_in){ .fh = m->fh[s->file], .offset = s->off, .size = 4096 };
		hi.h.len = sizeof(hi.h) + sizeof(hi.r);
	}
	memcpy(fd_host(&mem, s->in), &hi, sizeof(hi));
	memset(fd_host(&mem, s->out), POISON, s->out_len);
	if (s->is_write) {
		fvq_set_desc(m->v, head, s->in, sizeof(hi.h) + sizeof(hi.w), VQ_DESC_F_NEXT,
			     (uint16_t)(head + 1));
		fvq_set_desc(m->v, (uint16_t)(head + 1), s->payload, 4096, VQ_DESC_F_NEXT,
			     (uint16_t)(head + 2));
		fvq_set_desc(m->v, (uint16_t)(head + 2), s->out, s->out_len, VQ_DESC_F_WRITE, 0);
	} else {
		/* Reply header and data in two writable descriptors, as Linux does. */
		fvq_set_desc(m->v, head, s->in, sizeof(hi.h) + sizeof(hi.r), VQ_DESC_F_NEXT,
			     (uint16_t)(head + 1));
		fvq_set_desc(m->v, (uint16_t)(head + 1), s->out, sizeof(struct fuse_out_header),
			     VQ_DESC_F_WRITE | VQ_DESC_F_NEXT, (uint16_t)(head + 2));
		fvq_set_desc(m->v, (uint16_t)(head + 2), s->out + sizeof(struct fuse_out_header),
			     s->out_len - (uint32_t)sizeof(struct fuse_out_header), VQ_DESC_F_WRITE, 0);
	}
	s->busy = true;
	fvq_publish(m->v, head);
}

/* The used element e came back on m's queue: the rules of the header. */
static const char *check_done(struct mq *m, struct vq_used_elem e)
{
	if (e.id % 3 || e.id / 3 >= INFLIGHT || !m->s[e.id / 3].busy)
		return "a used element names a chain not in flight on this queue";
	struct mslot *s = &m->s[e.id / 3];
	const uint8_t *o = fd_host(&mem, s->out);
	struct fuse_out_header h;
	size_t want = sizeof(h) + (s->is_write ? sizeof(struct fuse_write_out) : 4096);

	s->busy = false;
	if (e.len > s->out_len)
		return "used length past the chain's writable part";
	for (uint32_t k = e.len; k < s->out_len; k++)
		if (o[k] != POISON)
			return "the device wrote past the used length";
	memcpy(&h, o, sizeof(h));
	if (h.error || h.len != want || e.len != want || h.unique == 0)
		return "a reply of the wrong length or an error";
	if (s->is_write)
		return ((const struct fuse_write_out *)(o + sizeof(h)))->size == 4096 ? NULL
										 : "short write";
	for (unsigned k = 0; k < 4096; k++)
		if (o[sizeof(h) + k] != content(s->file, s->off + k))
			return "a READ reply holds bytes not of its own offset";
	return NULL;
}

static void *driver(void *arg)
{
	struct mq *m = arg;
	unsigned done = 0, posted = 0;

	for (unsigned i = 0; i < INFLIGHT; i++, posted++)
		post(m, i);
	fd_wr(t, VMMIO_QUEUE_NOTIFY, m->q);
	for (int idle = 0; done < OPS && idle < WAIT_MS * 20 && !m->fail;) {
		uint16_t now = fvq_used_idx(m->v);

		if (now == m->v->used_seen) {
			usleep(50);
			idle++;
			continue;
		}
		idle = 0;
		for (; m->v->used_seen != now && !m->fail; m->v->used_seen++, done++) {
			struct vq_used_elem e = fvq_used_elem(m->v, m->v->used_seen);

			m->fail = check_done(m, e);
			if (!m->fail && posted < OPS) {
				post(m, e.id / 3);
				posted++;
			}
		}
		fd_wr(t, VMMIO_QUEUE_NOTIFY, m->q);
	}
	if (!m->fail && done < OPS)
		m->fail = "the queue stopped answering";
	return NULL;
}

static atomic_bool dropping;

/* Keeps the page cache of both files cold while the drivers run. */
static void *dropper(void *arg)
{
	int fd[2];

	(void)arg;
	for (unsigned f = 0; f < 2; f++) {
		char path[96];

		snprintf(path, sizeof(path), "%s/f%u", dir, f);
		fd[f] = open(path, O_RDWR);
	}
	while (atomic_load(&dropping))
		for (unsigned f = 0; f < 2; f++) {
			if (fd[f] < 0)
				continue;
			fdatasync(fd[f]);
			posix_fadvise(fd[f], 0, 0, POSIX_FADV_DONTNEED);
			usleep(2000);
		}
	for (unsigned f = 0; f < 2; f++)
		if (fd[f] >= 0)
			close(fd[f]);
	return NULL;
}

static void make_files(void)
{
	static uint8_t buf[FILE_BLKS * 4096];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (unsigned f = 0; f < 2; f++) {
		char path[96];

		for (uint64_t k = 0; k < sizeof(buf); k++)
			buf[k] = content(f, k);
		snprintf(path, sizeof(path), "%s/f%u", dir, f);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
		close(fd);
	}
}

static void remove_files(void)
{
	char path[96];

	for (unsigned f = 0; f < 2; f++) {
		snprintf(path, sizeof(path), "%s/f%u", dir, f);
		unlink(path);
	}
	rmdir(dir);
}

static void start_device(void)
{
	struct fs_options opts;
	struct vmmio_config c = {
		.vm_fd = -1, .base = 0xd0000000, .gsi = 5, .gm = &mem.gm,
	};

	fs_options_default(&opts);
	opts.queues = 2;
	opts.cache = FS_CACHE_NEVER;
	ck_assert_int_eq(virtio_fs_create(&dev, "mq", dir, &opts), 0);
	ck_assert_int_eq(fd_mem_init(&mem, MEM_SIZE), 0);
	may_change = calloc(MEM_SIZE, 1);
	before = malloc(MEM_SIZE);
	ck_assert_ptr_nonnull(may_change);
	ck_assert_ptr_nonnull(before);
	memset(mem.host, 0x5a, MEM_SIZE);   /* not zero: a stray zero write shows */
	c.dev = dev;
	ck_assert_int_eq(vmmio_create(&t, &c), 0);
	ck_assert_uint_ne(fd_negotiate(t, FEAT_OK) & VIRTIO_STATUS_FEATURES_OK, 0);
	for (unsigned q = 0; q < 3; q++) {
		ring_init(&fvq[q]);
		fd_setup_queue(t, q, &fvq[q]);
	}
	ck_assert_uint_eq(fd_driver_ok(t) & VIRTIO_STATUS_NEEDS_RESET, 0);
}

START_TEST(t_two_queues_write_only_their_rings_and_buffers)
{
	struct fuse_init_in init = { .major = FUSE_KERNEL_VERSION, .minor = 31,
				     .max_readahead = 65536 };
	struct mq m[2];
	pthread_t th[2], drop;

	make_files();
	start_device();
	call(1, FUSE_INIT, 0, &init, sizeof(init));
	for (unsigned k = 0; k < 2; k++) {
		m[k] = (struct mq){ .q = k + 1, .v = &fvq[k + 1],
				    .rng = 0x9e3779b97f4a7c15ull * (k + 1), .unique = (k + 1ull) << 40 };
		open_files(&m[k]);
		for (unsigned i = 0; i < INFLIGHT; i++) {
			struct mslot *s = &m[k].s[i];

			s->in = alloc_marked(sizeof(struct hdr_in));
			s->payload = alloc_marked(4096);
			s->out_len = (uint32_t)sizeof(struct fuse_out_header) + 4096 + SLACK;
			s->out = alloc_marked(s->out_len);
		}
	}
	ck_assert_uint_lt(mem.next, MEM_SIZE);
	memcpy(before, mem.host, MEM_SIZE);
	atomic_store(&dropping, true);
	ck_assert_int_eq(pthread_create(&drop, NULL, dropper, NULL), 0);
	for (unsigned k = 0; k < 2; k++)
		ck_assert_int_eq(pthread_create(&th[k], NULL, driver, &m[k]), 0);
	for (unsigned k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	atomic_store(&dropping, false);
	pthread_join(drop, NULL);
	for (unsigned k = 0; k < 2; k++)
		ck_assert_msg(!m[k].fail, "queue %u: %s", m[k].q, m[k].fail);
	for (uint64_t b = 0; b < MEM_SIZE; b++)
		ck_assert_msg(may_change[b] || mem.host[b] == before[b],
			      "guest byte at 0x%llx changed, outside every ring and buffer",
			      (unsigned long long)(FD_GPA_BASE + b));
	/* Both queues carried the load, and only their own share of it. */
	ck_assert_uint_ge(virtio_dev_requests(dev, 1), OPS);
	ck_assert_uint_ge(virtio_dev_requests(dev, 2), OPS);
	vmmio_destroy(t);
	virtio_dev_destroy(dev);
	fd_mem_free(&mem);
	free(before);
	free(may_change);
	remove_files();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fs_mq_rings");
	TCase *tc = tcase_create("two queues");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, t_two_queues_write_only_their_rings_and_buffers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(suite());
}
